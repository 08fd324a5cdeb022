/** `shardwal put`: what runs (the declaration, with its help, is `put-command.ts`). */
import type { Readable } from 'node:stream';
import type { PutAck } from '../client/api-types.js';
import { ProducerBatchError, ProducerStoppedError, SeqNotDurableError } from '../client/errors.js';
import { createHttpProducer } from '../client/http-producer.js';
import type { BatchOutcome, RowProducer, SealedBatch } from '../client/producer.js';
import { frameOverheadBytes } from '../client/put-body.js';
import { rawRow } from '../client/rows.js';
import type { SqsAck } from '../client/sqs-batch-sender.js';
import { createSqsProducer } from '../client/sqs-producer.js';
import { configFromEnv, SETTINGS } from '../config.js';
import { InvalidInputError } from '../errors.js';
import { MAX_SEQ } from '../exact-integer.js';
import { booleanOption, type CliIo, type CommandInput, stringOption } from './command.js';
import { UsageError } from './errors.js';
import { integerArgument } from './integer-argument.js';
import { writeText } from './output.js';
import { assertKeyField } from './put-check.js';
import { PUT_DEFAULTS } from './put-command.js';
import { type InputScan, isBlank, openPutInput, readLines, scanInput } from './put-input.js';
import { batchKey, type PlannedBatch } from './put-plan.js';
import {
  type PutSummary,
  PutTally,
  putProgress,
  rowsPerSecond,
  summaryText,
} from './put-report.js';
import { openPutTarget, type PutTarget } from './put-target.js';
import { shardArgument } from './shard-argument.js';

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

function putSettings(input: CommandInput, env: NodeJS.ProcessEnv): PutSettings {
  const keyField = stringOption(input, 'key-field');
  const importId = stringOption(input, 'import-id');
  if (importId !== undefined && !/^[\x21-\x2b\x2d-\x7e]{1,200}$/.test(importId)) {
    throw new UsageError(
      `--import-id: expected 1-200 visible ASCII characters other than a comma, got ${importId}`,
    );
  }
  if (keyField === '') throw new UsageError('--key-field: expected a field name');
  assertKeyField(keyField);
  const durable = booleanOption(input, 'durable');
  if (durable && stringOption(input, 'sqs') !== undefined) {
    throw new UsageError('--durable needs the HTTP API; SQS puts are buffered');
  }
  const settings: PutSettings = {
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
  // The service's own limits (its defaults, or this environment's settings, as `shardwal start` reads them).
  const config = configFromEnv(env);
  if (settings.batchRows > config.maxRowsPerPut) {
    throw new UsageError(
      `--batch-rows: at most ${config.maxRowsPerPut} rows per put (${SETTINGS.maxRowsPerPut.env}), got ${settings.batchRows}`,
    );
  }
  if (settings.batchBytes > config.maxBodyBytes) {
    throw new UsageError(
      `--batch-bytes: at most ${config.maxBodyBytes} bytes per body (${SETTINGS.maxBodyBytes.env}), got ${settings.batchBytes}`,
    );
  }
  return settings;
}

/** The batch plan, read by the producer's key and the tally as batches are sent. */
interface SendPlan {
  batches: PlannedBatch[];
}

async function createProducer(
  target: PutTarget,
  settings: PutSettings,
  plan: SendPlan,
  tally: () => PutTally,
  onChange: () => void,
): Promise<RowProducer> {
  const keyPrefix = settings.importId ?? 'put';
  const scope = { shard: settings.shard, keyField: settings.keyField };
  const common = {
    keyField: settings.keyField,
    maxBatchRows: settings.batchRows,
    maxBatchBytes: settings.batchBytes,
    // Cut by the plan only (`cut()` at each planned end): the same lines always make the same batches.
    lingerMs: null,
    maxInFlight: settings.concurrency,
    keyPrefix,
    keyOf: (batch: Omit<SealedBatch, 'key'>) => {
      const planned = plan.batches[batch.index];
      if (planned === undefined || planned.rows !== batch.rowTexts.length) {
        throw new InvalidInputError(
          '--file',
          'the input changed while it was sent; run the command again',
        );
      }
      return batchKey(keyPrefix, scope, planned, batch.rowTexts);
    },
    onBatch: (outcome: BatchOutcome<PutAck | SqsAck>) => {
      tally().onBatch(outcome, settings, plan.batches[outcome.batch.index]);
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
      tally().counts.retries++;
      onChange();
    },
  });
}

/** Sends the input's rows, cutting each planned batch at its last line; resolves when every batch settled. */
async function sendRows(
  file: string,
  batches: readonly PlannedBatch[],
  producer: RowProducer,
): Promise<void> {
  let next = 0;
  try {
    for await (const line of readLines(file)) {
      if (!isBlank(line) && line.text !== undefined) await producer.append(rawRow(line.text));
      while (next < batches.length && batches[next]!.lastLine <= line.line) {
        await producer.cut();
        next++;
      }
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

/** Checks and plans `file` for batches of `limits`; undefined (after listing the bad lines) when a line is bad. */
async function scanOrReport(
  file: string,
  name: string,
  settings: PutSettings,
  limits: { maxBytes: number; overheadBytes: number },
  io: CliIo,
): Promise<InputScan | undefined> {
  const scan = await scanInput(file, {
    keyField: settings.keyField,
    maxRowBytes: limits.maxBytes - limits.overheadBytes,
    linesPerBlock: settings.batchRows,
    maxBytes: limits.maxBytes,
    overheadBytes: limits.overheadBytes,
    maxProblems: PUT_DEFAULTS.maxProblems,
  });
  if (scan.problemCount === 0) return scan;
  const listed = scan.problems.map(
    ({ line, column, problem }) => `  line ${line}, column ${column}: ${problem}\n`,
  );
  await writeText(
    io.stderr,
    `shardwal put: ${scan.problemCount} bad line(s) in ${name}; nothing was sent\n${listed.join('')}` +
      (scan.problemCount > scan.problems.length ? '  …\n' : ''),
  );
  return undefined;
}

/** Runs `shardwal put` (declared in `put-command.ts`). */
export async function runPut(input: CommandInput, io: CliIo): Promise<number> {
  const settings = putSettings(input, io.env);
  const stdin = io.stdin ?? (process.stdin as Readable);
  if (settings.file === undefined && (stdin as Partial<NodeJS.ReadStream>).isTTY === true) {
    throw new UsageError('no input: pass --file <path> or pipe JSON Lines to stdin');
  }
  const source = await openPutInput(settings.file, stdin);
  try {
    // SQS messages name the shard in the body; HTTP puts in the path.
    const viaSqs = stringOption(input, 'sqs') !== undefined;
    const frame = { shard: viaSqs ? settings.shard : undefined, keyField: settings.keyField };
    const planned = { maxBytes: settings.batchBytes, overheadBytes: frameOverheadBytes(frame) };
    let scan = await scanOrReport(source.file, source.name, settings, planned, io);
    if (scan === undefined) return 1;
    let tally = new PutTally(scan.rows);
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
    let summary: PutSummary;
    try {
      const plan: SendPlan = { batches: scan.batches };
      const producer = await createProducer(target, settings, plan, () => tally, onChange);
      const { limits } = producer;
      if (limits.maxBytes !== planned.maxBytes || limits.overheadBytes !== planned.overheadBytes) {
        // The queue's message size is below --batch-bytes: plan again for the batches it takes.
        scan = await scanOrReport(source.file, source.name, settings, producer.limits, io);
        if (scan === undefined) return 1;
        plan.batches = scan.batches;
        tally = new PutTally(scan.rows);
      }
      const startedAt = Date.now();
      await sendRows(source.file, scan.batches, producer);
      tally.batches = producer.stats().sentBatches;
      const notDurableRows = await awaitDurability(target, settings, tally);
      const elapsedMs = Date.now() - startedAt;
      summary = {
        shard: settings.shard,
        transport: target.transport,
        target: target.description,
        importId: settings.importId ?? 'put',
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
