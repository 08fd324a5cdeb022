/**
 * `node --import tsx bench/json-scan.ts`: what exact JSON costs on the put
 * path. One realistic body (100 event-like rows of ~1 KB, keyed by `id`,
 * seeded) goes through:
 *   (a) today: JSON.parse + parsePutBody (zod) + JSON.stringify(rows) and
 *       its UTF-8 bytes, what encodeBatchRows hands to gzip;
 *   (b) exact: scanPutBody (validate, rows' minified texts, key ids) + the
 *       same batch payload built by concatenating row texts, as bytes;
 * and (f) the honest floor of (b): plain JSON.parse + JSON.stringify of the
 * rows to bytes (no zod: the least work that turns the same body into the
 * same rows' text), printed beside (b) as a ratio;
 * plus (b) on a pretty-printed copy; the design choice (scanPutBody's three
 * built levels vs a full exact tree vs validation only); JSON.parse and gzip
 * of the payload alone for scale; the strict UTF-8 decoders; and the whole
 * put path's CPU for the same rows sent in each body form (`{"rows": [...]}`,
 * a bare array, NDJSON), each against the object form. Each case runs
 * BENCH_RUNS times (default 5) for ~BENCH_SECONDS (default 2), interleaved;
 * medians of wall and CPU time are printed (CPU is steadier on a shared box).
 */
import { createHash } from 'node:crypto';
import { gzipSync } from 'node:zlib';
import { parseExact } from '../lib/json/exact-parse.js';
import { BodyForm, type BodyShape, scanPutBody } from '../lib/json/exact-put-body.js';
import { decodeUtf8Strict } from '../lib/json/utf8.js';
import { encodeBatchRows } from '../lib/memtable/batch-codec.js';
import { requestFingerprint } from '../lib/put/fingerprint.js';
import { DELETE_MEMBER, MAX_KEY_CHARS, MAX_ROW_DEPTH, parsePutText } from '../lib/put/schema.js';
import { seededRandom } from '../lib/seeded-random.js';
import { parsePutBody } from './baseline-put-schema.js';

const RUNS = Number(process.env.BENCH_RUNS ?? 5);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 2);
const SEED = Number(process.env.BENCH_SEED ?? 7);
const ROWS = 100;
const MAX_ROWS = 1000;

const RULES = {
  maxRows: MAX_ROWS,
  maxRowDepth: MAX_ROW_DEPTH,
  maxKeyChars: MAX_KEY_CHARS,
  maxKeyNameChars: 256,
  deleteMember: DELETE_MEMBER,
} as const;

const WORDS = ['alpha', 'bravo', 'checkout', 'delta', 'echo', 'cart', 'login', 'search', 'zulu'];
const UNICODE = ['Zoë', 'Łódź', '東京', 'Ελλάδα', 'naïve café', '🎉 launch', 'Straße', 'Ωmega'];

/** One ~1 KB event row from `random`. */
function eventRow(random: () => number, i: number): Record<string, unknown> {
  const pick = <T>(list: readonly T[]): T => list[Math.floor(random() * list.length)]!;
  const hex = (n: number) =>
    Array.from({ length: n }, () => Math.floor(random() * 16).toString(16)).join('');
  const at = 1_700_000_000_000 + Math.floor(random() * 1e9);
  return {
    id: `evt-${i}-${hex(8)}`,
    ts: new Date(at).toISOString(),
    epochMs: at,
    host: `web-${Math.floor(random() * 64)}.eu-west-1.compute.internal`,
    service: pick(WORDS),
    level: pick(['debug', 'info', 'warn', 'error']),
    http: {
      method: pick(['GET', 'POST', 'PUT', 'DELETE']),
      path: `/api/v2/${pick(WORDS)}/${Math.floor(random() * 1e6)}/${pick(WORDS)}`,
      status: pick([200, 200, 200, 201, 204, 304, 400, 404, 500]),
      latencyMs: Math.round(random() * 1e5) / 100,
      bytes: Math.floor(random() * 1e6),
      userAgent: 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko)',
      referrer: `https://www.example.com/${pick(WORDS)}?utm_source=${pick(WORDS)}&ref=${hex(12)}`,
      query: { q: pick(WORDS), page: Math.floor(random() * 20), lang: pick(['en', 'de', 'ja']) },
    },
    geo: {
      country: pick(['DE', 'FR', 'JP', 'US', 'GR']),
      city: random() < 0.3 ? pick(UNICODE) : pick(WORDS),
      lat: Math.round((random() * 180 - 90) * 1e6) / 1e6,
      lon: Math.round((random() * 360 - 180) * 1e6) / 1e6,
    },
    user: {
      id: Math.floor(random() * 1e9),
      name: random() < 0.3 ? pick(UNICODE) : pick(WORDS),
      roles: [pick(WORDS), pick(WORDS)],
      verified: random() < 0.5,
    },
    trace: { traceId: hex(32), spanId: hex(16), sampled: random() < 0.1, parent: null },
    metrics: {
      cpu: Math.round(random() * 1e4) / 1e4,
      memBytes: Math.floor(random() * 2 ** 33),
      gcPauses: [random() * 3, random() * 3, random() * 3].map((x) => Math.round(x * 1e3) / 1e3),
    },
    message: `${pick(WORDS)} ${pick(WORDS)} finished for ${random() < 0.2 ? pick(UNICODE) : pick(WORDS)} in ${Math.floor(random() * 500)} ms`,
    tags: Array.from({ length: 4 }, () => `${pick(WORDS)}:${pick(WORDS)}`),
  };
}

function median(values: number[]): number {
  const sorted = [...values].sort((x, y) => x - y);
  return sorted[Math.floor(sorted.length / 2)]!;
}

interface Case {
  label: string;
  bytes: number;
  run: () => unknown;
  wall: number[];
  cpu: number[];
}

/** Wall-clock and CPU microseconds per call of `run`, over ~SECONDS. */
function measure(run: () => unknown): { wall: number; cpu: number } {
  let calls = 0;
  const started = process.hrtime.bigint();
  const cpuStarted = process.cpuUsage();
  const budget = BigInt(Math.round(SECONDS * 1e9));
  let elapsed = 0n;
  let sink = 0;
  while (elapsed < budget) {
    for (let i = 0; i < 20; i++) sink ^= run() === undefined ? 1 : 0;
    calls += 20;
    elapsed = process.hrtime.bigint() - started;
  }
  if (sink === 42) console.log('');
  const cpu = process.cpuUsage(cpuStarted);
  return { wall: Number(elapsed) / 1e3 / calls, cpu: (cpu.user + cpu.system) / calls };
}

function main() {
  const random = seededRandom(SEED);
  const rows = Array.from({ length: ROWS }, (_, i) => eventRow(random, i));
  const text = JSON.stringify({ key: 'id', rows });
  const pretty = JSON.stringify({ key: 'id', rows }, null, 2);
  const bytes = Buffer.from(text, 'utf8');

  // Both end in the UTF-8 bytes encodeBatchRows hands to gzip.
  const todayJson = () => JSON.stringify(parsePutBody(JSON.parse(text), MAX_ROWS).rows);
  const today = () => Buffer.from(todayJson(), 'utf8');
  const exactJson = (body: string) => {
    const scanned = scanPutBody(body, RULES);
    let payload = '[';
    for (let i = 0; i < scanned.rows.length; i++) {
      const row = scanned.rows[i]!;
      if (i > 0) payload += ',';
      payload += `{"key":${row.key!.id},"row":${row.text}}`;
    }
    return `${payload}]`;
  };
  const exact = (body: string) => () => Buffer.from(exactJson(body), 'utf8');
  const payload = todayJson();
  if (JSON.stringify(JSON.parse(exactJson(text))) !== payload) {
    throw new Error('the exact payload does not hold the same rows as today’s');
  }
  const strictDecoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

  // The whole CPU side of a put, before and after exact rows: decode, validate, the batch
  // payload as stored (gzip 6) and the idempotency fingerprint.
  const putBefore = () => {
    const json = Buffer.from(todayJson(), 'utf8');
    createHash('sha256').update(json).digest('hex');
    return gzipSync(json, { level: 6 });
  };
  const putAfter = () => {
    const parsed = parsePutText(decodeUtf8Strict(bytes), MAX_ROWS);
    const batch = encodeBatchRows(parsed.rows);
    return requestFingerprint('bench', batch.json);
  };
  // The same rows in the other body forms, keyed by ?key=id.
  const forms: { form: BodyForm; bytes: Buffer }[] = [
    { form: BodyForm.array, bytes: Buffer.from(JSON.stringify(rows)) },
    {
      form: BodyForm.ndjson,
      bytes: Buffer.from(rows.map((row) => `${JSON.stringify(row)}\n`).join('')),
    },
  ];
  const putForm = (form: BodyForm, body: Buffer) => {
    const shape: BodyShape = { form, key: 'id' };
    return () => {
      const parsed = parsePutText(decodeUtf8Strict(body), MAX_ROWS, [], shape);
      return requestFingerprint('bench', encodeBatchRows(parsed.rows).json);
    };
  };
  const objectBatch = encodeBatchRows(parsePutText(text, MAX_ROWS).rows).json;
  for (const { form, bytes: body } of forms) {
    const batch = encodeBatchRows(
      parsePutText(body.toString(), MAX_ROWS, [], { form, key: 'id' }).rows,
    );
    if (Buffer.compare(batch.json, objectBatch) !== 0) {
      throw new Error(`the ${form} form does not give the object form's batch`);
    }
  }
  const cases: Case[] = [
    { label: '(a) JSON.parse+parsePutBody+stringify', bytes: bytes.length, run: today },
    { label: '(b) scanPutBody + payload concat', bytes: bytes.length, run: exact(text) },
    {
      label: '(f) floor: JSON.parse+stringify, no zod',
      bytes: bytes.length,
      run: () => Buffer.from(JSON.stringify((JSON.parse(text) as { rows: unknown }).rows), 'utf8'),
    },
    {
      label: '(b) on the pretty-printed body',
      bytes: Buffer.byteLength(pretty),
      run: exact(pretty),
    },
    {
      label: 'design: scanPutBody alone (3 levels built)',
      bytes: bytes.length,
      run: () => scanPutBody(text, RULES),
    },
    {
      label: 'design: parseExact, full tree',
      bytes: bytes.length,
      run: () => parseExact(text),
    },
    {
      label: 'design: parseExact, validate only (depth 0)',
      bytes: bytes.length,
      run: () => parseExact(text, { materializeDepth: 0 }),
    },
    { label: 'scale: JSON.parse alone', bytes: bytes.length, run: () => JSON.parse(text) },
    {
      label: 'gzip level 6 of the payload alone',
      bytes: bytes.length,
      run: () => gzipSync(payload, { level: 6 }),
    },
    {
      label: 'utf8: decodeUtf8Strict (isUtf8 + toString)',
      bytes: bytes.length,
      run: () => decodeUtf8Strict(bytes),
    },
    {
      label: 'utf8: TextDecoder fatal',
      bytes: bytes.length,
      run: () => strictDecoder.decode(bytes),
    },
    {
      label: 'utf8: Buffer#toString (lenient, today)',
      bytes: bytes.length,
      run: () => bytes.toString('utf8'),
    },
    ...forms.map(({ form, bytes: body }) => ({
      label: `put path CPU, ${form} form`,
      bytes: body.length,
      run: putForm(form, body),
    })),
    { label: 'put path CPU before (parse..gzip..sha256)', bytes: bytes.length, run: putBefore },
    { label: 'put path CPU after (parse..gzip..sha256)', bytes: bytes.length, run: putAfter },
  ].map((c) => ({ ...c, wall: [], cpu: [] }));

  console.log(
    `body: ${ROWS} rows, ${bytes.length} bytes (${(bytes.length / ROWS).toFixed(0)} B/row), pretty ${Buffer.byteLength(pretty)} bytes; ${RUNS} runs x ~${SECONDS}s, median`,
  );
  for (const c of cases) measure(c.run); // warm up every case before timing any
  for (let run = 0; run < RUNS; run++) {
    for (const c of cases) {
      const { wall, cpu } = measure(c.run);
      c.wall.push(wall);
      c.cpu.push(cpu);
    }
  }
  // CPU time is printed beside wall time: on a shared machine it is the steadier figure.
  console.log(
    `${'case'.padEnd(44)} ${'wall µs'.padStart(8)} ${'MB/s'.padStart(5)}  ${'cpu µs'.padStart(8)} ${'MB/s'.padStart(5)}  wall runs`,
  );
  for (const c of cases) {
    const wall = median(c.wall);
    const cpu = median(c.cpu);
    const spread = `${Math.min(...c.wall).toFixed(0)}–${Math.max(...c.wall).toFixed(0)}`;
    // bytes per µs = MB/s
    console.log(
      `${c.label.padEnd(44)} ${wall.toFixed(1).padStart(8)} ${(c.bytes / wall).toFixed(0).padStart(5)}  ${cpu.toFixed(1).padStart(8)} ${(c.bytes / cpu).toFixed(0).padStart(5)}  ${spread}`,
    );
  }
  const [a, b, floor] = cases;
  console.log(
    `ratio (b)/(a): wall ${(median(b!.wall) / median(a!.wall)).toFixed(2)}, cpu ${(median(b!.cpu) / median(a!.cpu)).toFixed(2)}`,
  );
  console.log(
    `scanner against its honest floor (f)/(b), higher is better: wall ${(median(floor!.wall) / median(b!.wall)).toFixed(2)}x, cpu ${(median(floor!.cpu) / median(b!.cpu)).toFixed(2)}x`,
  );
  const before = cases.at(-2)!;
  const after = cases.at(-1)!;
  const byForm = forms.map(({ form }) => {
    const c = cases.find((x) => x.label === `put path CPU, ${form} form`)!;
    return `${form} ${(median(c.cpu) / median(after.cpu)).toFixed(2)}x`;
  });
  console.log(`put path CPU per row by body form, against {"rows": [...]}: ${byForm.join(', ')}`);
  const rowsPerSecond = (us: number) => Math.round((ROWS * 1e6) / us);
  console.log(
    `put path CPU, rows/s of one core (CPU time): before ${rowsPerSecond(median(before.cpu))}, after ${rowsPerSecond(median(after.cpu))} (after/before ${(median(before.cpu) / median(after.cpu)).toFixed(2)}x)`,
  );
}

main();
