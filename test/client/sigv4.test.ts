/**
 * SigV4 through the SDK's signer, checked by an independent computation of
 * the signature (AWS's documented algorithm, node:crypto), so a request the
 * client signs is one API Gateway's IAM authorizer accepts.
 */
import { createHash, createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { ShardwalHttpClient } from '../../lib/client/http-client.js';
import { signingRegion } from '../../lib/client/sigv4.js';
import { ConfigError } from '../../lib/errors.js';
import { ackStep, fakeFetch, type SeenRequest } from './fake-fetch.js';

const CREDENTIALS = {
  accessKeyId: 'AKIDEXAMPLE',
  secretAccessKey: 'wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY',
};

const sha256 = (data: string | Buffer) => createHash('sha256').update(data).digest('hex');
const hmac = (key: string | Buffer, data: string) =>
  createHmac('sha256', key).update(data).digest();

/** The signature AWS expects for `request`, computed from its own headers. */
function expectedSignature(request: SeenRequest, secret: string, region: string): string {
  const authorization = request.headers.authorization!;
  const signedHeaders = /SignedHeaders=([^,]+)/.exec(authorization)![1]!;
  const amzDate = request.headers['x-amz-date']!;
  const date = amzDate.slice(0, 8);
  const host = request.url.host;
  const headerValue = (name: string) => (name === 'host' ? host : request.headers[name]!.trim());
  const query = [...request.url.searchParams]
    .map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v)}`)
    .sort()
    .join('&');
  const canonical = [
    request.method,
    request.url.pathname,
    query,
    signedHeaders
      .split(';')
      .map((name) => `${name}:${headerValue(name)}\n`)
      .join(''),
    signedHeaders,
    sha256(request.wire),
  ].join('\n');
  const scope = `${date}/${region}/execute-api/aws4_request`;
  const toSign = ['AWS4-HMAC-SHA256', amzDate, scope, sha256(canonical)].join('\n');
  const key = hmac(hmac(hmac(hmac(`AWS4${secret}`, date), region), 'execute-api'), 'aws4_request');
  return createHmac('sha256', key).update(toSign).digest('hex');
}

describe('SigV4 signing', () => {
  describe('ShardwalHttpClient with auth', () => {
    it('signs every header it sends and the gzipped body as sent', async () => {
      const fake = fakeFetch([ackStep(1, true)]);
      const client = new ShardwalHttpClient({
        endpoint: 'https://a1b2c3.execute-api.eu-west-1.amazonaws.com',
        auth: { credentials: CREDENTIALS },
        gzip: { minBytes: 10 },
        fetch: fake.fetch,
        env: {},
      });
      await client.put('orders', [{ id: 1, text: 'hello hello hello' }], {
        durable: true,
        key: 'k-1',
      });
      const [request] = fake.requests;
      const authorization = request!.headers.authorization!;
      expect(authorization).toMatch(
        /^AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE\/\d{8}\/eu-west-1\/execute-api\/aws4_request, /,
      );
      const signed = /SignedHeaders=([^,]+)/.exec(authorization)![1]!.split(';');
      expect(signed).toEqual(
        expect.arrayContaining([
          'content-encoding',
          'content-type',
          'host',
          'idempotency-key',
          'x-amz-content-sha256',
          'x-amz-date',
        ]),
      );
      expect(request!.headers['content-encoding']).toBe('gzip');
      expect(request!.headers['x-amz-content-sha256']).toBe(sha256(request!.wire));
      expect(request!.headers.host).toBeUndefined(); // fetch sets it from the URL
      const signature = /Signature=([0-9a-f]{64})$/.exec(authorization)![1];
      expect(signature).toBe(expectedSignature(request!, CREDENTIALS.secretAccessKey, 'eu-west-1'));
    });

    it('signs the session token of temporary credentials, from a provider', async () => {
      const fake = fakeFetch([ackStep(1)]);
      let calls = 0;
      const client = new ShardwalHttpClient({
        endpoint: 'https://api.example.com',
        auth: {
          region: 'us-east-2',
          credentials: async () => {
            calls++;
            return { ...CREDENTIALS, sessionToken: 'token-123' };
          },
        },
        fetch: fake.fetch,
      });
      await client.put('orders', [{ id: 1 }]);
      const [request] = fake.requests;
      expect(request!.headers['x-amz-security-token']).toBe('token-123');
      expect(request!.headers.authorization).toMatch(/x-amz-security-token/);
      expect(calls).toBeGreaterThan(0);
      const signature = /Signature=([0-9a-f]{64})$/.exec(request!.headers.authorization!)![1];
      expect(signature).toBe(expectedSignature(request!, CREDENTIALS.secretAccessKey, 'us-east-2'));
    });

    it('sends no Authorization without auth (the local stack)', async () => {
      const fake = fakeFetch([ackStep(1)]);
      const client = new ShardwalHttpClient({
        endpoint: 'http://127.0.0.1:3000',
        fetch: fake.fetch,
      });
      await client.put('orders', [{ id: 1 }]);
      expect(fake.requests[0]!.headers.authorization).toBeUndefined();
    });
  });

  describe('signingRegion', () => {
    it('takes auth.region, else AWS_REGION, else the execute-api host name', () => {
      const host = new URL('https://abc.execute-api.ap-south-1.amazonaws.com');
      expect(signingRegion({ region: 'eu-north-1' }, host, { AWS_REGION: 'us-west-2' })).toBe(
        'eu-north-1',
      );
      expect(signingRegion({}, host, { AWS_REGION: 'us-west-2' })).toBe('us-west-2');
      expect(signingRegion({}, host, {})).toBe('ap-south-1');
    });

    it('refuses to guess a region for another host', () => {
      expect(() => signingRegion({}, new URL('https://api.example.com'), {})).toThrow(ConfigError);
    });
  });
});
