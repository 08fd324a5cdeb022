/**
 * SigV4 request signing for the API behind API Gateway's IAM authorizer,
 * with the AWS SDK's own signer (`@smithy/signature-v4`), its SHA-256
 * (`@smithy/core/checksum`) and its default credential chain
 * (`@aws-sdk/credential-provider-node`: environment, SSO, profiles, web
 * identity, ECS and EC2 roles, refreshed before they expire). No crypto here.
 *
 * Every header the client sends is signed, the body hash included, so a
 * gzipped body is signed as the bytes on the wire.
 */
import { Sha256 } from '@smithy/core/checksum';
import { SignatureV4 } from '@smithy/signature-v4';
import type { AwsCredentialIdentity, AwsCredentialIdentityProvider } from '@smithy/types';
import { ConfigError } from '../errors.js';

/** Signing settings. */
export interface SigV4Auth {
  /** The API's region; default `AWS_REGION`, else read from an `execute-api` host name. */
  region?: string;
  /** Credentials or a provider; default the SDK's default credential chain. */
  credentials?: AwsCredentialIdentity | AwsCredentialIdentityProvider;
  /** Signing service name; default `execute-api`. */
  service?: string;
}

/** A request about to be sent. */
interface SignableRequest {
  method: string;
  url: URL;
  headers: Record<string, string>;
  body: Uint8Array | undefined;
}

/** Returns the headers to send (the signature's included) for a request. */
export type RequestSigner = (request: SignableRequest) => Promise<Record<string, string>>;

const EXECUTE_API_HOST = /\.execute-api\.([a-z0-9-]+)\.amazonaws\.com$/;

/** The region `auth` names, else `AWS_REGION`, else the one in an execute-api host name. */
export function signingRegion(auth: SigV4Auth, endpoint: URL, env: NodeJS.ProcessEnv): string {
  const region = auth.region ?? env.AWS_REGION ?? EXECUTE_API_HOST.exec(endpoint.hostname)?.[1];
  if (region === undefined || region === '') {
    throw new ConfigError(
      'auth.region',
      region,
      `no region to sign requests to ${endpoint.host} for: set auth.region or AWS_REGION`,
    );
  }
  return region;
}

async function defaultCredentials(): Promise<AwsCredentialIdentityProvider> {
  // Loaded only when signing without explicit credentials.
  const { defaultProvider } = await import('@aws-sdk/credential-provider-node');
  return defaultProvider();
}

/** A signer for requests to `endpoint`. */
export function createSigner(
  auth: SigV4Auth,
  endpoint: URL,
  env: NodeJS.ProcessEnv = process.env,
): RequestSigner {
  const region = signingRegion(auth, endpoint, env);
  let signer: Promise<SignatureV4> | undefined;
  const build = async () =>
    new SignatureV4({
      service: auth.service ?? 'execute-api',
      region,
      sha256: Sha256,
      credentials: auth.credentials ?? (await defaultCredentials()),
    });
  return async ({ method, url, headers, body }) => {
    signer ??= build();
    const query: Record<string, string> = {};
    for (const [name, value] of url.searchParams) query[name] = value;
    const signed = await (await signer).sign({
      method,
      protocol: url.protocol,
      hostname: url.hostname,
      port: url.port === '' ? undefined : Number(url.port),
      path: url.pathname,
      query,
      headers: { ...headers, host: url.host },
      body,
    });
    // fetch sets Host itself, from the same URL.
    const { host: _host, ...out } = signed.headers;
    return out;
  };
}
