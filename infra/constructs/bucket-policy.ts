/**
 * The data bucket's write-once rule, enforced by S3 for every principal
 * (roles of this stack, an administrator, another account): a `PutObject` or
 * `CompleteMultipartUpload` to an immutable key must carry `If-None-Match`,
 * so it can create the object but never replace it. The IAM grants say the
 * same for this stack's roles; the bucket policy holds whoever else has
 * `s3:PutObject` on the bucket.
 */
import { AnyPrincipal, Effect, PolicyStatement } from 'aws-cdk-lib/aws-iam';
import type { Bucket } from 'aws-cdk-lib/aws-s3';
import { IMMUTABLE_KEY_PATTERNS } from './key-patterns.js';

/** Sid of the statement, for readers of the bucket policy. */
export const DENY_OVERWRITE_SID = 'DenyOverwriteOfImmutableKeys';

/**
 * Deny when the request has no `If-None-Match` header and creates an object.
 * `s3:ObjectCreationOperation` is false for `CreateMultipartUpload`,
 * `UploadPart` and `UploadPartCopy`, which accept no conditional header: S3's
 * documented way to exempt the parts while the completion stays conditional.
 * Copies into these keys are refused as a consequence (S3 does not implement
 * conditional copies); nothing in shardwal sends `CopyObject` (verify's copy
 * of an aged spilled payload is a GET and a create-if-absent PUT).
 */
export const DENY_OVERWRITE_CONDITIONS = {
  Null: { 's3:if-none-match': 'true' },
  Bool: { 's3:ObjectCreationOperation': 'true' },
} as const;

/** Adds the deny statement, one resource per immutable key pattern. */
export function denyOverwrites(bucket: Bucket): void {
  bucket.addToResourcePolicy(
    new PolicyStatement({
      sid: DENY_OVERWRITE_SID,
      effect: Effect.DENY,
      principals: [new AnyPrincipal()],
      actions: ['s3:PutObject'],
      resources: IMMUTABLE_KEY_PATTERNS.map((pattern) => bucket.arnForObjects(pattern)),
      conditions: DENY_OVERWRITE_CONDITIONS,
    }),
  );
}
