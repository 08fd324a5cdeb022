/**
 * Counts what a handler writes to stdout and stderr: in Lambda every line
 * becomes a CloudWatch Logs event, billed by its uncompressed bytes (the
 * log group's `IncomingBytes`). Powertools' logger and metrics write their
 * JSON lines through `process.stdout`, so patching its `write` sees exactly
 * what a deployed function would ship, EMF metric documents included.
 */
import { gzipSync } from 'node:zlib';

/** What was written while capturing. */
export interface CapturedOutput {
  /** Bytes written (UTF-8), all streams. */
  bytes: number;
  /** Log events: one per line. */
  events: number;
  /** Bytes of EMF metric documents among them (lines with an `_aws.CloudWatchMetrics` block). */
  emfBytes: number;
  /** Distinct custom metrics seen in EMF documents: namespace, name and dimension values. */
  metrics: Set<string>;
  /** Up to `SAMPLE_BYTES` of the text, to measure how well the logs compress (CloudWatch stores them compressed). */
  sample: string[];
}

/** Text kept to measure the logs' compression ratio. */
const SAMPLE_BYTES = 4 * 1024 * 1024;

/** An empty capture. */
export function emptyCapture(): CapturedOutput {
  return { bytes: 0, events: 0, emfBytes: 0, metrics: new Set(), sample: [] };
}

/** Adds `b` into `a`. */
export function mergeCapture(a: CapturedOutput, b: CapturedOutput): void {
  a.bytes += b.bytes;
  a.events += b.events;
  a.emfBytes += b.emfBytes;
  for (const metric of b.metrics) a.metrics.add(metric);
  for (const text of b.sample) addSample(a, text);
}

/**
 * Runs `fn` with stdout and stderr diverted into `into` (nothing reaches
 * the terminal meanwhile). Calls must not overlap.
 */
export async function captureOutput<T>(into: CapturedOutput, fn: () => Promise<T>): Promise<T> {
  const streams = [process.stdout, process.stderr];
  const originals = streams.map((stream) => stream.write);
  const write = (chunk: unknown, ...rest: unknown[]): boolean => {
    const text = typeof chunk === 'string' ? chunk : Buffer.from(chunk as Uint8Array).toString();
    record(into, text);
    const callback = rest.find((arg) => typeof arg === 'function') as (() => void) | undefined;
    callback?.();
    return true;
  };
  for (const stream of streams) stream.write = write as typeof stream.write;
  try {
    return await fn();
  } finally {
    streams.forEach((stream, i) => {
      stream.write = originals[i]!;
    });
  }
}

/** Compressed over uncompressed bytes of the sampled text at gzip level 6 (1 when nothing was sampled). */
export function compressedFraction(capture: CapturedOutput): number {
  const text = capture.sample.join('');
  if (text.length === 0) return 1;
  const raw = Buffer.from(text, 'utf8');
  return gzipSync(raw, { level: 6 }).length / raw.length;
}

function record(into: CapturedOutput, text: string): void {
  into.bytes += Buffer.byteLength(text, 'utf8');
  for (const line of text.split('\n')) {
    if (line.length === 0) continue;
    into.events += 1;
    if (line.includes('"CloudWatchMetrics"')) {
      into.emfBytes += Buffer.byteLength(line, 'utf8') + 1;
      for (const metric of emfMetrics(line)) into.metrics.add(metric);
    }
  }
  addSample(into, text);
}

function addSample(into: CapturedOutput, text: string): void {
  const held = into.sample.reduce((sum, part) => sum + part.length, 0);
  if (held < SAMPLE_BYTES) into.sample.push(text.slice(0, SAMPLE_BYTES - held));
}

interface EmfDocument {
  _aws?: {
    CloudWatchMetrics?: {
      Namespace?: string;
      Dimensions?: string[][];
      Metrics?: { Name?: string }[];
    }[];
  };
  [field: string]: unknown;
}

/**
 * The metrics an EMF line defines: one per (namespace, metric name,
 * dimension set with its values), which is what CloudWatch bills as one
 * custom metric.
 */
export function emfMetrics(line: string): string[] {
  let doc: EmfDocument;
  try {
    doc = JSON.parse(line) as EmfDocument;
  } catch {
    return [];
  }
  const out: string[] = [];
  for (const directive of doc._aws?.CloudWatchMetrics ?? []) {
    const dimensionSets = directive.Dimensions?.length ? directive.Dimensions : [[]];
    for (const metric of directive.Metrics ?? []) {
      for (const set of dimensionSets) {
        const dims = [...set]
          .sort()
          .map((name) => `${name}=${String(doc[name])}`)
          .join(',');
        out.push(`${directive.Namespace ?? ''}/${metric.Name ?? ''}{${dims}}`);
      }
    }
  }
  return out;
}
