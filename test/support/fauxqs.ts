/** The SQS emulator (fauxqs, the local stack's) for a test file: started before its tests, closed after. */
import { SQSClient } from '@aws-sdk/client-sqs';
import { buildApp } from 'fauxqs';
import { afterAll, beforeAll } from 'vitest';

/** Starts fauxqs on a free port for the file; the returned function gives its client once started. */
export function useFauxqs(): () => SQSClient {
  let app: ReturnType<typeof buildApp> | undefined;
  let sqs: SQSClient | undefined;
  beforeAll(async () => {
    app = buildApp({ logger: false, defaultRegion: 'us-east-1' });
    const endpoint = await app.listen({ port: 0, host: '127.0.0.1' });
    sqs = new SQSClient({
      endpoint,
      region: 'us-east-1',
      credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
    });
  });
  afterAll(async () => {
    sqs?.destroy();
    await app?.close();
  });
  return () => {
    if (!sqs) throw new Error('fauxqs not started');
    return sqs;
  };
}
