/**
 * The app's customer managed KMS key (`key` prop): who may use it, and how.
 *
 * - Every role that reads or writes the encrypted table, bucket or queues
 *   (each function, each schedule's role for its dead-letter queue,
 *   producers, readers) gets the key's actions in its own IAM policy, named
 *   one by one (`KEY_USE_ACTIONS`), never `kms:*`.
 * - Services publish with their own principals, not a role: CloudWatch
 *   alarms to the encrypted alarm topic, SNS dead-lettering an undeliverable
 *   notification to the encrypted failures queue. Their use of the key is
 *   allowed in the key's policy (`allowServicesToUseKey`). A topic encrypted
 *   with the AWS managed SNS key could not be allowed that (its policy is
 *   AWS's): CloudWatch's publishes would be dropped without a trace, which is
 *   why the alarm topic is either unencrypted or on the app's key.
 * - The CDK's own grant for an async failure destination (sending to the
 *   failures queue) adds `kms:ReEncrypt*` and `kms:GenerateDataKey*` on this
 *   one key; cdk-nag IAM5 reports the action wildcards, acknowledged on the
 *   role.
 */
import { Annotations, Stack, Validations } from 'aws-cdk-lib';
import {
  Grant,
  type IGrantable,
  type IRole,
  PolicyStatement,
  ServicePrincipal,
} from 'aws-cdk-lib/aws-iam';
import type { IKey } from 'aws-cdk-lib/aws-kms';
import type { IConstruct } from 'constructs';

/**
 * What a role that reads and writes encrypted data sends to KMS (through
 * DynamoDB, S3 and SQS): data keys for writes, decrypts for reads, the
 * key's description (DynamoDB asks for it).
 */
export const KEY_USE_ACTIONS = [
  'kms:Decrypt',
  'kms:Encrypt',
  'kms:GenerateDataKey',
  'kms:DescribeKey',
] as const;

/** What a reader of the encrypted bucket needs: decrypt only. */
export const KEY_READ_ACTIONS = ['kms:Decrypt'] as const;

/** What a producer sending to an encrypted queue needs. */
export const KEY_SEND_ACTIONS = ['kms:GenerateDataKey', 'kms:Decrypt'] as const;

/** Id of the synth warning when the key's policy is not the app's to extend (an imported key). */
export const IMPORTED_KEY_WARNING = '@shardwal/key:importedKeyPolicy';

/** Sid of the key policy statement that lets CloudWatch alarms publish to the encrypted topic. */
export const ALARM_KEY_SID = 'AllowCloudWatchAlarmsToUseTheKey';

/** Sid of the key policy statement that lets SNS dead-letter to an encrypted failures queue. */
export const SNS_DLQ_KEY_SID = 'AllowSnsToDeadLetterToEncryptedQueues';

/** Keys already given each statement: services sharing a key add it once (Sids are unique). */
const ADDED = { alarms: new WeakSet<IKey>(), deadLetters: new WeakSet<IKey>() };

/** Adds the key's actions to `grantee`'s own policy (not to the key's policy). */
export function grantKeyUse(
  key: IKey,
  grantee: IGrantable,
  actions: readonly string[] = KEY_USE_ACTIONS,
): Grant {
  return Grant.addToPrincipal({ grantee, actions: [...actions], resourceArns: [key.keyArn] });
}

/** Acknowledges the wildcard KMS actions the CDK's queue grants add to `role`. */
export function acknowledgeCdkKeyActions(role: IRole): void {
  const reason =
    "The CDK's grant for the async failure destination (the failures queue) adds kms:ReEncrypt* and kms:GenerateDataKey* on the one customer managed key the queues are encrypted with; no other key.";
  Validations.of(role).acknowledge(
    { id: 'AwsSolutions-IAM5[Action::kms:ReEncrypt*]', reason },
    { id: 'AwsSolutions-IAM5[Action::kms:GenerateDataKey*]', reason },
  );
}

/** Which services publish with the key. */
export interface KeyUsers {
  /** The alarm topic is encrypted with the key: CloudWatch alarms publish to it. */
  alarmTopic: boolean;
  /** SNS sends undeliverable notifications (alarm mail) to the encrypted failures queue. */
  snsDeadLetters: boolean;
}

/**
 * Lets CloudWatch alarms publish to a topic encrypted with `key` (AWS's
 * documented statement for alarms to an encrypted topic), and SNS, when it
 * dead-letters notifications of a topic, encrypt for the failures queue. An
 * imported key's policy cannot be changed from here: synth warns with what
 * to add.
 */
export function allowServicesToUseKey(scope: IConstruct, key: IKey, users: KeyUsers): void {
  const statements: PolicyStatement[] = [];
  if (users.alarmTopic && !ADDED.alarms.has(key)) {
    ADDED.alarms.add(key);
    statements.push(
      new PolicyStatement({
        sid: ALARM_KEY_SID,
        principals: [new ServicePrincipal('cloudwatch.amazonaws.com')],
        actions: ['kms:Decrypt', 'kms:GenerateDataKey*'],
        resources: ['*'],
      }),
    );
  }
  if (users.snsDeadLetters && !ADDED.deadLetters.has(key)) {
    ADDED.deadLetters.add(key);
    statements.push(
      new PolicyStatement({
        sid: SNS_DLQ_KEY_SID,
        principals: [new ServicePrincipal('sns.amazonaws.com')],
        actions: ['kms:Decrypt', 'kms:GenerateDataKey'],
        resources: ['*'],
        // Topics of this account and region. Not the topic's own ARN: the
        // topic is encrypted with the key, and each naming the other is a cycle.
        conditions: {
          ArnLike: {
            'aws:SourceArn': Stack.of(scope).formatArn({ service: 'sns', resource: '*' }),
          },
        },
      }),
    );
  }
  const added = statements.map((s) => key.addToResourcePolicy(s, true).statementAdded);
  if (added.some((ok) => !ok)) {
    Annotations.of(scope).addWarningV2(
      IMPORTED_KEY_WARNING,
      `shardwal: the key is imported, so its policy cannot be extended here. In the key's policy allow ${[
        users.alarmTopic
          ? 'cloudwatch.amazonaws.com kms:Decrypt and kms:GenerateDataKey* (alarms publish to the encrypted topic)'
          : '',
        users.snsDeadLetters
          ? 'sns.amazonaws.com kms:Decrypt and kms:GenerateDataKey for the alarm topic (undeliverable mail to the failures queue)'
          : '',
      ]
        .filter(Boolean)
        .join(', and ')} (docs/deploy.md, "Bring your own key"), then acknowledge this warning.`,
    );
  }
}
