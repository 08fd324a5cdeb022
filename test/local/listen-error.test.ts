/**
 * A taken port names the setting the user chose: the DynamoDB and SQS ports
 * default to PORT + 1 and PORT + 2, so a clash there names PORT.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLocalStack } from '../../infra/local/local-stack.js';
import { ConfigError } from '../../lib/errors.js';
import { listenError } from '../../lib/local/listen-error.js';
import { testStackSettings } from '../support/local-stack.js';

let dir: string;
let taken: Server;
let takenPort: number;

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'shardwal-listen-'));
  taken = createServer();
  await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
  takenPort = (taken.address() as { port: number }).port;
});

afterAll(async () => {
  await new Promise((resolve) => taken.close(resolve));
  await rm(dir, { recursive: true, force: true });
});

describe('listenError', () => {
  const inUse = Object.assign(new Error('listen EADDRINUSE'), { code: 'EADDRINUSE' });

  it('names the port’s own setting when it was set', () => {
    const error = listenError('SHARDWAL_DYNAMODB_PORT', 4001, inUse) as ConfigError;
    expect(error.message).toBe(
      'SHARDWAL_DYNAMODB_PORT=4001: address already in use on 127.0.0.1; pick another port',
    );
  });

  it('names PORT when the port derives from it', () => {
    const error = listenError('SHARDWAL_DYNAMODB_PORT', 4001, inUse, {
      from: 'PORT',
      base: 4000,
      offset: 1,
      role: 'DynamoDB',
    }) as ConfigError;
    expect(error).toBeInstanceOf(ConfigError);
    expect(error.setting).toBe('PORT');
    expect(error.message).toMatch(
      /^PORT=4000: DynamoDB listens on PORT \+ 1 = 4001: address already in use/,
    );
  });

  it('passes other errors through', () => {
    const other = new Error('boom');
    expect(listenError('PORT', 1, other)).toBe(other);
  });
});

describe('startLocalStack', () => {
  it('names PORT when PORT + 1 (DynamoDB) is taken', async () => {
    const port = takenPort - 1;
    const settings = testStackSettings(path.join(dir, 'data'), {
      port,
      dynamodbPort: port + 1,
      sqsPort: port + 2,
    });
    await expect(startLocalStack(settings)).rejects.toThrow(
      new RegExp(
        `^PORT=${port}: DynamoDB listens on PORT \\+ 1 = ${takenPort}: address already in use`,
      ),
    );
  });
});
