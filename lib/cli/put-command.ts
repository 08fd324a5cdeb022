/**
 * `shardwal put <shard>`: JSON Lines rows (a file or stdin) into a shard,
 * through the client (`lib/client`), over HTTP or SQS, exactly once:
 *
 * 1. Every line is checked before anything is sent, by the service's own
 *    put-body reader and limits (`put-check.ts`); an input with a bad line
 *    sends nothing and lists the lines with their columns.
 * 2. Batches are fixed line ranges of the file, halved while over
 *    `--batch-bytes`, and each is keyed by its line range and its rows
 *    (`put-plan.ts`). Re-running after an interruption, or after fixing
 *    lines in place, re-sends every batch: an unchanged batch answers its
 *    original ack, a changed or unlanded one lands once.
 * 3. The exit code is 0 only when every row was acknowledged (and, with
 *    `--durable`, is durable); otherwise 1, with the failed batches listed.
 *    Keyed rows stop at the first failed batch (their order matters).
 */
import { HTTP_PRODUCER_DEFAULTS } from '../client/http-producer.js';
import type { CliCommand } from './command.js';
import { TARGET_OPTIONS } from './options.js';

/** Defaults of the cut and the concurrency. */
export const PUT_DEFAULTS = {
  batchRows: 1000,
  batchBytes: HTTP_PRODUCER_DEFAULTS.maxBatchBytes,
  concurrency: 4,
  /** Bad lines listed before giving up on listing. */
  maxProblems: 20,
  /** How long `--durable` waits for acked batches the service could not wait for. */
  durableWaitMs: 60_000,
} as const;

/** The put command: its declaration; the code runs from `put-run.ts`, loaded only when it runs. */
export const putCommand: CliCommand = {
  name: 'put',
  args: ['<shard>'],
  summary: 'put JSON Lines rows into a shard over HTTP or SQS, exactly once per import',
  description:
    'Reads one JSON object per line from --file or stdin and checks every line with the\n' +
    'service’s own rules and limits first: a bad line sends nothing, and is listed with its\n' +
    'line and column. Then sends batches: lines 1-R, R+1-2R, … (R = --batch-rows, blank lines\n' +
    'count), each halved by line range while over --batch-bytes, each keyed by its line range\n' +
    'and its rows. Exit 0 only when every row is acknowledged (and, with --durable, durable).\n' +
    '\n' +
    'Re-running lands only what did not land before, within the idempotency window\n' +
    '(SHARDWAL_IDEMPOTENCY_TTL_MS, 24 h by default), with the same shard, --key-field,\n' +
    '--batch-rows, --batch-bytes and --import-id:\n' +
    '  exact:     the same input again (after an interruption or a failed batch); lines fixed\n' +
    '             in place (to drop a row, empty its line: keep the line count);\n' +
    '  not exact: inserting or deleting lines (every later batch lands again); appending\n' +
    '             lines (the last, partial batch lands again: put new lines as a file of\n' +
    '             their own); editing a line of a batch that landed (that batch lands\n' +
    '             again); a fix that moves its batch across --batch-bytes (the rows of\n' +
    '             that half-block land again). docs/client.md says more.\n' +
    '\n' +
    'Default destination: the running local stack on --data-dir. Requests to\n' +
    '*.amazonaws.com (or with --region) are signed with SigV4 from the AWS credential\n' +
    'chain. Each batch keeps its lines in order; with more than one batch in flight batches\n' +
    'may land in any order (--concurrency 1 keeps the input order).',
  options: {
    file: {
      type: 'string',
      value: '<path>',
      description: 'read rows from <path> (default: stdin)',
    },
    endpoint: {
      type: 'string',
      value: '<url>',
      description: 'the HTTP API base URL (default: the running local stack)',
    },
    sqs: {
      type: 'string',
      value: '<queue-url>',
      description: 'send SQS messages to this ingest queue instead of HTTP puts',
    },
    region: {
      type: 'string',
      value: '<region>',
      description: 'AWS region: signs HTTP requests with SigV4, and the SQS client’s region',
    },
    durable: {
      type: 'boolean',
      description: 'wait until every batch is durable (in the WAL), HTTP only',
    },
    'key-field': {
      type: 'string',
      value: '<name>',
      description:
        'key every row by this field (upserts; "$delete": true deletes); one batch in flight',
    },
    'import-id': {
      type: 'string',
      value: '<id>',
      description: 'batch keys are <id>-<hash of the batch’s lines and rows> (default id: put)',
    },
    'batch-rows': {
      type: 'string',
      value: '<n>',
      description: `rows per batch (default ${PUT_DEFAULTS.batchRows})`,
    },
    'batch-bytes': {
      type: 'string',
      value: '<n>',
      description: `body bytes per batch (default ${PUT_DEFAULTS.batchBytes})`,
    },
    concurrency: {
      type: 'string',
      value: '<n>',
      description: `batches in flight (default ${PUT_DEFAULTS.concurrency}; 1 with --key-field)`,
    },
    'data-dir': TARGET_OPTIONS['data-dir'],
    progress: {
      type: 'boolean',
      description: 'print progress once a second even when stderr is not a terminal',
    },
    json: { type: 'boolean', description: 'print the summary as JSON' },
  },
  run: (input, io) => import('./put-run.js').then((m) => m.runPut(input, io)),
};
