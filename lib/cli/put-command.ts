/**
 * `shardwal put <shard>`: JSON Lines rows (a file or stdin) into a shard,
 * through the client (`lib/client`), over HTTP or SQS, exactly once:
 *
 * 1. Every line is checked before anything is sent (`put-input.ts`); an
 *    input with a bad line sends nothing and lists the lines.
 * 2. Batches are cut by row count and bytes only (never time), and batch `i`
 *    is keyed `<import id>-<i>`, the import id being the input's SHA-256
 *    with the cut settings (or `--import-id`). Re-running the same command
 *    after an interruption re-sends every batch under the same key: what
 *    landed answers its original ack, the rest lands once.
 * 3. The exit code is 0 only when every row was acknowledged (and, with
 *    `--durable`, is durable); otherwise 1, with the failed batches listed.
 *    Keyed rows stop at the first failed batch (their order matters).
 */
import type { Readable } from 'node:stream';
import type { PutAck } from '../client/api-types.js';
import { ProducerBatchError, ProducerStoppedError, SeqNotDurableError } from '../client/errors.js';
import { createHttpProducer, HTTP_PRODUCER_DEFAULTS } from '../client/http-producer.js';
import type { BatchOutcome, RowProducer } from '../client/producer.js';
import { frameOverheadBytes } from '../client/put-body.js';
import { rawRow } from '../client/rows.js';
import type { SqsAck } from '../client/sqs-batch-sender.js';
import { createSqsProducer } from '../client/sqs-producer.js';
import { MAX_SEQ } from '../exact-integer.js';
import {
  booleanOption,
  type CliCommand,
  type CliIo,
  type CommandInput,
  stringOption,
} from './command.js';
import { UsageError } from './errors.js';
import { integerArgument } from './integer-argument.js';
import { writeText } from './output.js';
import { importIdOf, openPutInput, readLines, scanInput } from './put-input.js';
import {
  type PutSummary,
  PutTally,
  putProgress,
  rowsPerSecond,
  summaryText,
} from './put-report.js';
import { openPutTarget, type PutTarget } from './put-target.js';
import { shardArgument } from './shard-argument.js';
import { TARGET_OPTIONS } from './target.js';

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

/** The command's settings, parsed. */
interface PutSettings {
  shard: string;
  file: string | undefined;
  keyField: string | undefined;
  durable: boolean;
  batchRows: number;
  batchBytes: number;
  concurrency: number;
  importId: string | undefined;
}

function positiveInteger(input: CommandInput, name: string, fallback: number): number {
  const text = stringOption(input, name);
  return text === undefined
    ? fallback
    : integerArgument(`--${name}`, text, { min: 1, max: MAX_SEQ });
}

function putSettings(input: CommandInput): PutSettings {
  const keyField = stringOption(input, 'key-field');
  const importId = stringOption(input, 'import-id');
  if (importId !== undefined && !/^[\x21-\x7e]{1,200}$/.test(importId)) {
    throw new UsageError(`--import-id: expected 1-200 visible ASCII characters, got ${importId}`);
  }
  if (keyField === '') throw new UsageError('--key-field: expected a field name');
  const durable = booleanOption(input, 'durable');
  if (durable && stringOption(input, 'sqs') !== undefined) {
    throw new UsageError('--durable needs the HTTP API; SQS puts are buffered');
  }
  return {
    shard: shardArgument(input),
    file: stringOption(input, 'file'),
    keyField,
    durable,
    batchRows: positiveInteger(input, 'batch-rows', PUT_DEFAULTS.batchRows),
    batchBytes: positiveInteger(input, 'batch-bytes', PUT_DEFAULTS.batchBytes),
    concurrency: positiveInteger(
      input,
      'concurrency',
      keyField === undefined ? PUT_DEFAULTS.concurrency : 1,
    ),
    importId,
  };
}

async function createProducer(
  target: PutTarget,
  settings: PutSettings,
  keyPrefix: string,
  tally: PutTally,
  onChange: () => void,
): Promise<RowProducer> {
  const common = {
    keyField: settings.keyField,
    maxBatchRows: settings.batchRows,
    maxBatchBytes: settings.batchBytes,
    // Cut by count and bytes only: the same input always makes the same batches.
    lingerMs: null,
    maxInFlight: settings.concurrency,
    keyPrefix,
    onBatch: (outcome: BatchOutcome<PutAck | SqsAck>) => {
      tally.onBatch(outcome, settings);
      onChange();
    },
  };
  if (target.transport === 'http') {
    return createHttpProducer(target.client, settings.shard, {
      ...common,
      durable: settings.durable,
    });
  }
  return createSqsProducer({
    ...common,
    sqs: target.sqs,
    queueUrl: target.queueUrl,
    shard: settings.shard,
    onRetry: () => {
      tally.counts.retries++;
      onChange();
    },
  });
}

/** Sends the input's rows; resolves when every batch settled. */
async function sendRows(file: string, producer: RowProducer): Promise<void> {
  try {
    for await (const { text } of readLines(file)) {
      if (text === undefined || text.trim() === '') continue;
      await producer.append(rawRow(text));
    }
  } catch (error) {
    // Keyed rows: the producer stopped at a failed batch, which the tally holds.
    if (!(error instanceof ProducerStoppedError)) throw error;
  }
  try {
    await producer.close();
  } catch (error) {
    // Each failed batch is in the tally already; the summary lists them.
    if (!(error instanceof ProducerBatchError)) throw error;
  }
}

/** With `--durable`: waits for the batches acked before their tick; returns the rows still not durable. */
async function awaitDurability(target: PutTarget, settings: PutSettings, tally: PutTally) {
  if (target.transport !== 'http' || tally.notDurable.length === 0) return 0;
  // durableSeq ≥ seq covers every lower seq too: waiting for the highest is enough.
  const highest = Math.max(...tally.notDurable.map((batch) => batch.seq));
  const status = await target.client
    .waitDurable(settings.shard, highest, { timeoutMs: PUT_DEFAULTS.durableWaitMs })
    .catch((error: unknown) => {
      // Still pending (timeout) or a poisoned shard: count what durableSeq covers. A void,
      // quarantined or unknown seq is never counted durable: that error stands.
      const stillOpen =
        error instanceof SeqNotDurableError && ['timeout', 'poisoned'].includes(error.end);
      if (stillOpen) return error.status;
      throw error;
    });
  return tally.notDurable
    .filter((batch) => batch.seq > status.durableSeq)
    .reduce((sum, batch) => sum + batch.rows, 0);
}

async function run(input: CommandInput, io: CliIo): Promise<number> {
  const settings = putSettings(input);
  const stdin = io.stdin ?? (process.stdin as Readable);
  if (settings.file === undefined && (stdin as Partial<NodeJS.ReadStream>).isTTY === true) {
    throw new UsageError('no input: pass --file <path> or pipe JSON Lines to stdin');
  }
  const source = await openPutInput(settings.file, stdin);
  try {
    const maxRowBytes =
      settings.batchBytes -
      frameOverheadBytes({ shard: settings.shard, keyField: settings.keyField });
    const scan = await scanInput(source.file, {
      keyField: settings.keyField,
      maxRowBytes,
      maxProblems: PUT_DEFAULTS.maxProblems,
    });
    if (scan.problemCount > 0) {
      const listed = scan.problems.map(({ line, problem }) => `  line ${line}: ${problem}\n`);
      await writeText(
        io.stderr,
        `shardwal put: ${scan.problemCount} bad line(s) in ${source.name}; nothing was sent\n${listed.join('')}` +
          (scan.problemCount > scan.problems.length ? '  …\n' : ''),
      );
      return 1;
    }
    const importId =
      settings.importId ??
      importIdOf(scan.sha256, {
        batchRows: settings.batchRows,
        batchBytes: settings.batchBytes,
        keyField: settings.keyField,
      });
    const tally = new PutTally(scan.rows);
    const progress = putProgress(io.stderr, settings.shard, {
      forced: booleanOption(input, 'progress'),
      now: Date.now,
    });
    const onChange = () => progress.update(tally.counts);
    const target = await openPutTarget(input, io, {
      onRetry: () => {
        tally.counts.retries++;
        onChange();
      },
    });
    const startedAt = Date.now();
    let summary: PutSummary;
    try {
      const producer = await createProducer(target, settings, importId, tally, onChange);
      await sendRows(source.file, producer);
      tally.batches = producer.stats().sentBatches;
      const notDurableRows = await awaitDurability(target, settings, tally);
      const elapsedMs = Date.now() - startedAt;
      summary = {
        shard: settings.shard,
        transport: target.transport,
        target: target.description,
        importId,
        ...tally.counts,
        batches: tally.batches,
        ackedBatches: tally.ackedBatches,
        unsentRows: scan.rows - tally.counts.ackedRows - tally.counts.failedRows,
        notDurableRows,
        seqs: tally.seqs,
        elapsedMs,
        rowsPerSecond: rowsPerSecond(tally.counts.ackedRows, elapsedMs),
        failures: tally.failures.sort((a, b) => a.batch - b.batch).slice(0, 10),
        ok: tally.counts.ackedRows === scan.rows && notDurableRows === 0,
      };
    } finally {
      progress.end();
      target.close();
    }
    await writeText(
      io.stdout,
      booleanOption(input, 'json') ? `${JSON.stringify(summary)}\n` : summaryText(summary),
    );
    return summary.ok ? 0 : 1;
  } finally {
    await source.cleanup();
  }
}

/** The put command. */
export const putCommand: CliCommand = {
  name: 'put',
  args: ['<shard>'],
  summary: 'put JSON Lines rows into a shard over HTTP or SQS, exactly once per import',
  description:
    'Reads one JSON object per line from --file or stdin, checks every line first (a bad line\n' +
    'sends nothing), then sends batches cut by --batch-rows and --batch-bytes, batch i keyed\n' +
    '<import id>-<i>. The import id is the input’s SHA-256 with the cut settings, or --import-id:\n' +
    're-running the same command after an interruption lands nothing twice within the\n' +
    'idempotency window (24 h by default). Exit 0 only when every row is acknowledged (and, with\n' +
    '--durable, durable). Default destination: the running local stack on --data-dir.\n' +
    'Requests to *.amazonaws.com (or with --region) are signed with SigV4 from the AWS\n' +
    'credential chain. Each batch keeps its lines in order; with more than one batch in\n' +
    'flight batches may land in any order (--concurrency 1 keeps the input order).',
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
      description: 'batch keys are <id>-<batch index> (default: from the input’s SHA-256)',
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
  run,
};
