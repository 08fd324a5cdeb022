/**
 * The start banner's examples work as pasted: here, its `aws sqs
 * send-message` line, run with the AWS CLI installed on this machine against
 * a local stack, lands its row; and the banner says which CLI it needs (the
 * local SQS speaks the JSON protocol only).
 */
import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SQS_JSON_CLI, startBanner } from '../../infra/local/banner.js';
import { type LocalStack, startLocalStack } from '../../infra/local/local-stack.js';
import { testStackSettings } from '../support/local-stack.js';
import { send } from './http-client.js';

const run = promisify(execFile);
let dir: string;
let stack: LocalStack;

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'shardwal-banner-'));
  stack = await startLocalStack(testStackSettings(path.join(dir, 'data')));
});

afterAll(async () => {
  await stack?.stop();
  await rm(dir, { recursive: true, force: true });
});

describe('startBanner', () => {
  it('says which aws CLI its SQS example needs', () => {
    const banner = startBanner(stack.info);
    expect(banner).toContain(`the aws CLI must speak SQS's JSON protocol (${SQS_JSON_CLI})`);
  });

  it('has an aws sqs example that lands its row with the installed AWS CLI', async () => {
    const line = startBanner(stack.info)
      .split('\n')
      .find((l) => l.includes('aws sqs send-message'))!
      .trim();
    const { stdout } = await run('bash', ['-c', line], { timeout: 30_000 });
    expect(JSON.parse(stdout)).toHaveProperty('MessageId');
    for (let i = 0; i < 100; i++) {
      const status = await send('GET', `${stack.info.httpUrl}/v1/shards/demo`);
      if (status.status === 200) return;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    throw new Error('the message never reached shard demo');
  });
});
