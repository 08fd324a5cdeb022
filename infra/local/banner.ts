/**
 * What `shardwal start` prints: the endpoints and examples that work as
 * pasted (they name this stack's actual ports, queue URL and data folder).
 */
import path from 'node:path';
import { LOCAL_RESOURCES } from '../../lib/local/data-dir.js';
import { LOCAL_SETTINGS } from '../../lib/local/local-settings.js';
import type { StackInfo } from '../../lib/local/stack-file.js';

/**
 * Which AWS CLI the banner's `aws sqs` example needs. The local SQS
 * (fauxqs) speaks SQS's JSON protocol only. Recent AWS CLIs use it (checked
 * by `test/local/banner.test.ts` with the CLI installed); older ones use the
 * query protocol and fail against the local SQS, Debian's `awscli` package
 * among them (botocore switched SQS to JSON in 1.31.81, reverted it, and
 * switched again in April 2024).
 */
export const SQS_JSON_CLI =
  "a recent one, whose SQS commands use the JSON protocol; Debian's awscli uses the older query protocol";

/** Single-quotes `text` for a POSIX shell. */
function shellQuote(text: string): string {
  return `'${text.replaceAll("'", `'\\''`)}'`;
}

/** A period for people: `5 min`, `30 s`, `250 ms`. */
function describePeriod(ms: number): string {
  if (ms % 60_000 === 0) return `${ms / 60_000} min`;
  if (ms % 1_000 === 0) return `${ms / 1_000} s`;
  return `${ms} ms`;
}

/** The jobs line: each schedule's period, or off. */
function jobsLine(info: StackInfo): string {
  const every = (ms: number | null) => (ms === null ? 'off' : `every ${describePeriod(ms)}`);
  return `export ${every(info.exportEveryMs)}, verify all shards ${every(info.verifyEveryMs)} (${LOCAL_SETTINGS.exportEveryMs.env}, ${LOCAL_SETTINGS.verifyEveryMs.env}; off disables)`;
}

/** The start banner. */
export function startBanner(info: StackInfo, cwd = process.cwd()): string {
  const rows = `${info.httpUrl}/v1/shards/demo/rows`;
  const isDefaultDir = info.dataDir === path.resolve(cwd, LOCAL_SETTINGS.dataDir.default);
  const dirFlag = isDefaultDir ? '' : ` --data-dir ${shellQuote(info.dataDir)}`;
  const message = JSON.stringify({ shard: 'demo', rows: [{ via: 'sqs' }] });
  // The SDK warns on Node < 22; the example silences that so its output is only errors.
  const quiet =
    Number(process.versions.node.split('.')[0]) < 22
      ? 'AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED=true '
      : '';
  const nodeSend =
    `import {SQSClient,SendMessageCommand} from '@aws-sdk/client-sqs'; ` +
    `await new SQSClient({endpoint:'${info.sqsEndpoint}',region:'${LOCAL_RESOURCES.region}',credentials:{accessKeyId:'local',secretAccessKey:'local'}})` +
    `.send(new SendMessageCommand({QueueUrl:'${info.queueUrl}',MessageBody:JSON.stringify({shard:'demo',rows:[{via:'sqs'}]})}))`;
  return [
    `shardwal local stack is up (pid ${info.pid})`,
    `  HTTP API   ${info.httpUrl}`,
    `  SQS        ${info.sqsEndpoint}`,
    `             queue ${info.queueUrl}`,
    `             dead letters ${info.deadLetterQueueUrl}`,
    `  DynamoDB   ${info.dynamodbEndpoint} (table ${info.tableName})`,
    `  data       ${info.dataDir} (WAL objects under objects/, flush every ${info.flushIntervalMs} ms)`,
    `  jobs       ${jobsLine(info)}`,
    '',
    'Try it:',
    '  # put rows (202: buffered)',
    `  curl -sS -X POST ${rows} -H 'content-type: application/json' -d '{"rows":[{"hello":"world"}]}'`,
    '  # put keyed rows and wait until they are in the WAL (200: durable)',
    `  curl -sS -X POST '${rows}?durability=durable' -H 'content-type: application/json' -d '{"key":"id","rows":[{"id":"u1","name":"Ada"}]}'`,
    '  # shard status',
    `  curl -sS ${info.httpUrl}/v1/shards/demo`,
    `  # put through SQS: the aws CLI must speak SQS's JSON protocol (${SQS_JSON_CLI}); or node from this folder`,
    `  AWS_ACCESS_KEY_ID=local AWS_SECRET_ACCESS_KEY=local aws sqs send-message --region ${LOCAL_RESOURCES.region} --endpoint-url ${info.sqsEndpoint} --queue-url ${info.queueUrl} --message-body ${shellQuote(message)}`,
    `  ${quiet}node --input-type=module -e "${nodeSend}"`,
    '  # the durable rows, as JSON Lines',
    `  npx shardwal dump demo${dirFlag}`,
    '  # export now, then verify the shard against its WAL',
    `  npx shardwal export demo${dirFlag} && npx shardwal recover demo --verify${dirFlag}`,
    '',
    'Ctrl-C stops it after a final flush; the data stays in the data folder.',
    '',
  ].join('\n');
}
