/**
 * Where `shardwal put` sends: the HTTP API at `--endpoint`, else the running
 * local stack's (`<data-dir>/stack.json`); or the SQS queue at `--sqs`,
 * through the local stack's SQS emulator when the URL is its ingest queue.
 *
 * Signing: requests to an `*.amazonaws.com` host, or any host when
 * `--region` is given, are signed with SigV4 (credentials from the usual AWS
 * chain); the local stack takes them unsigned.
 */
import path from 'node:path';
import type { SQSClient } from '@aws-sdk/client-sqs';
import { ShardwalHttpClient } from '../client/http-client.js';
import type { RetryEvent, RetryOptions } from '../client/retry.js';
import { emulatorClientOptions } from '../emulator-options.js';
import { dataDirLayout, LOCAL_RESOURCES } from '../local/data-dir.js';
import { LOCAL_SETTINGS } from '../local/local-settings.js';
import { findRunningStack, type StackInfo } from '../local/stack-file.js';
import { type CliIo, type CommandInput, stringOption } from './command.js';
import { UsageError } from './errors.js';

/** An opened destination. */
export type PutTarget =
  | { transport: 'http'; description: string; client: ShardwalHttpClient; close: () => void }
  | {
      transport: 'sqs';
      description: string;
      sqs: SQSClient;
      queueUrl: string;
      close: () => void;
    };

/** What the target's clients share. */
export interface TargetHooks {
  onRetry: (event: RetryEvent) => void;
  retry?: Partial<RetryOptions>;
}

async function runningStack(input: CommandInput, io: CliIo): Promise<StackInfo | undefined> {
  const dataDir = path.resolve(
    io.cwd,
    stringOption(input, 'data-dir') ??
      (io.env[LOCAL_SETTINGS.dataDir.env] || LOCAL_SETTINGS.dataDir.default),
  );
  return findRunningStack(dataDirLayout(dataDir).stackFile);
}

function isAwsHost(url: URL): boolean {
  return url.hostname.endsWith('.amazonaws.com');
}

/** Opens the destination the options name. */
export async function openPutTarget(
  input: CommandInput,
  io: CliIo,
  hooks: TargetHooks,
): Promise<PutTarget> {
  const queueUrl = stringOption(input, 'sqs');
  const endpoint = stringOption(input, 'endpoint');
  const region = stringOption(input, 'region');
  if (queueUrl !== undefined) {
    if (endpoint !== undefined) throw new UsageError('--sqs and --endpoint name two destinations');
    return openSqsTarget(input, io, queueUrl, region);
  }
  let base: string;
  let description: string;
  if (endpoint !== undefined) {
    base = endpoint;
    description = endpoint;
  } else {
    const stack = await runningStack(input, io);
    if (!stack) {
      throw new UsageError(
        'no endpoint: pass --endpoint <url>, or start the local stack (`shardwal start`) on --data-dir',
      );
    }
    base = stack.httpUrl;
    description = `${stack.httpUrl} (the local stack, pid ${stack.pid})`;
  }
  let url: URL;
  try {
    url = new URL(base);
  } catch {
    throw new UsageError(`--endpoint: expected a URL, got ${JSON.stringify(base)}`);
  }
  const signed = region !== undefined || isAwsHost(url);
  const client = new ShardwalHttpClient({
    endpoint: url,
    auth: signed ? { region } : 'none',
    env: io.env,
    retry: hooks.retry,
    onRetry: hooks.onRetry,
  });
  return {
    transport: 'http',
    description: signed ? `${description} (SigV4)` : description,
    client,
    close: () => {},
  };
}

async function openSqsTarget(
  input: CommandInput,
  io: CliIo,
  queueUrl: string,
  region: string | undefined,
): Promise<PutTarget> {
  try {
    new URL(queueUrl);
  } catch {
    throw new UsageError(`--sqs: expected a queue URL, got ${JSON.stringify(queueUrl)}`);
  }
  const { SQSClient } = await import('@aws-sdk/client-sqs');
  const stack = await runningStack(input, io);
  if (stack && stack.queueUrl === queueUrl) {
    const sqs = new SQSClient(emulatorClientOptions(stack.sqsEndpoint, LOCAL_RESOURCES.region));
    return {
      transport: 'sqs',
      description: `${queueUrl} (the local stack, pid ${stack.pid})`,
      sqs,
      queueUrl,
      close: () => sqs.destroy(),
    };
  }
  const sqs = new SQSClient(region === undefined ? {} : { region });
  return { transport: 'sqs', description: queueUrl, sqs, queueUrl, close: () => sqs.destroy() };
}
