/**
 * Seeded row generator of the cost benchmark: event-like JSON rows of about
 * 1 KB, as an HTTP access log or an application event stream produces them.
 *
 * What makes them realistic for compression is what repeats: a small set of
 * hosts, paths, user agents, services and messages drawn with a skewed
 * (Zipf) distribution, timestamps that advance a few milliseconds a row, and
 * status codes that are mostly 200; beside per-row unique values (request
 * and trace ids) that no codec can shrink. The `random` variant is the
 * low-compressibility end: random ids and tokens in every field.
 *
 * Rows are sized on purpose: each row's JSON text is padded (its `msg`) to a
 * length drawn uniformly in `targetBytes` ± 20 %, so the mean is the target
 * whatever the field mix.
 */
import { gzipSync } from 'node:zlib';
import { InvalidInputError } from '../../lib/errors.js';
import { seededRandom } from '../../lib/seeded-random.js';

/** A generated row: plain JSON. */
export type JsonRow = { [field: string]: JsonValue };
type JsonValue = string | number | boolean | null | JsonValue[] | JsonRow;

/** Which rows to generate. */
export const RowVariant = {
  /** Event-like rows whose hosts, paths and agents repeat as in real logs. */
  event: 'event',
  /** Low-compressibility rows: random ids and tokens. */
  random: 'random',
} as const;
export type RowVariant = (typeof RowVariant)[keyof typeof RowVariant];

/** Options of `rowGenerator`. */
export interface RowOptions {
  variant: RowVariant;
  seed: number;
  /** Mean JSON bytes of a row (default 1024). */
  targetBytes?: number;
  /** Timestamp of the first row (default 2026-11-30T00:00:00Z). */
  startMs?: number;
}

/** Default mean row size: the "1 KB rows" of the standard workload. */
export const DEFAULT_ROW_BYTES = 1024;

/** How far a row's length may stray from the target, either way. */
export const ROW_SIZE_SPREAD = 0.2;

const START_MS = Date.UTC(2026, 10, 30);

/** A seeded, endless source of rows. */
export interface RowGenerator {
  /** The next row. */
  next(): JsonRow;
  /** The next `count` rows. */
  take(count: number): JsonRow[];
}

/** A generator of `options.variant` rows; the same options give the same rows. */
export function rowGenerator(options: RowOptions): RowGenerator {
  const targetBytes = options.targetBytes ?? DEFAULT_ROW_BYTES;
  if (!Number.isInteger(targetBytes) || targetBytes < 400) {
    throw new InvalidInputError(
      'targetBytes',
      `expected a whole number >= 400, got ${targetBytes}`,
    );
  }
  const random = seededRandom(options.seed);
  const state = { atMs: options.startMs ?? START_MS, index: 0 };
  const make = options.variant === RowVariant.event ? eventRow : randomRow;
  const next = (): JsonRow => {
    const spread = Math.round(targetBytes * ROW_SIZE_SPREAD);
    const length = targetBytes - spread + Math.floor(random() * (2 * spread + 1));
    state.atMs += 1 + Math.floor(random() * 20);
    state.index += 1;
    return padTo(make(random, state.atMs, state.index), length, random, options.variant);
  };
  return { next, take: (count) => Array.from({ length: count }, next) };
}

/** The JSON text of a put body `{"rows": [...]}`, as a producer sends it. */
export function putBodyText(rows: readonly JsonRow[]): string {
  return JSON.stringify({ rows });
}

/** Raw bytes over gzip bytes of `text` at `level`. */
export function gzipRatio(text: string, level = 6): number {
  const raw = Buffer.from(text, 'utf8');
  return raw.length / gzipSync(raw, { level }).length;
}

// --- event rows ------------------------------------------------------------

const SERVICES = ['checkout', 'catalog', 'search', 'accounts', 'payments', 'inventory', 'auth'];
const REGIONS = ['us-east-1', 'us-east-2', 'us-west-2', 'eu-west-1', 'ap-southeast-2'];
const LEVELS = ['info', 'info', 'info', 'info', 'info', 'info', 'warn', 'debug', 'error'];
const METHODS = ['GET', 'GET', 'GET', 'GET', 'POST', 'POST', 'PUT', 'DELETE', 'PATCH'];
const HOSTS = Array.from(
  { length: 40 },
  (_, i) => `${SERVICES[i % SERVICES.length]}-${String(i).padStart(2, '0')}.prod.internal`,
);
const RESOURCES = ['users', 'orders', 'carts', 'products', 'sessions', 'invoices', 'reviews'];
const ACTIONS = ['', '/items', '/status', '/history', '/preferences', '/refunds', '/lines'];
const PATHS = Array.from({ length: 60 }, (_, i) => {
  const resource = RESOURCES[i % RESOURCES.length];
  const action = ACTIONS[Math.floor(i / RESOURCES.length) % ACTIONS.length];
  return `/api/v${1 + (i % 3)}/${resource}/{id}${action}`;
});
const AGENTS = [
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36',
  'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.1 Safari/605.1.15',
  'Mozilla/5.0 (iPhone; CPU iPhone OS 18_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.1 Mobile/15E148 Safari/604.1',
  'Mozilla/5.0 (X11; Linux x86_64; rv:132.0) Gecko/20100101 Firefox/132.0',
  'Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.6778.81 Mobile Safari/537.36',
  'okhttp/4.12.0',
  'aws-sdk-js/3.699.0 ua/2.1 os/linux#6.1 lang/js md/nodejs#20.18.0 api/dynamodb#3.699.0',
  'python-requests/2.32.3',
  'Go-http-client/2.0',
  'curl/8.11.0',
  'Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)',
  'PostmanRuntime/7.42.0',
];
const STATUSES = [200, 200, 200, 200, 200, 200, 200, 201, 204, 304, 400, 401, 404, 429, 500, 503];
const TAGS = ['web', 'mobile', 'beta', 'canary', 'internal', 'partner', 'batch', 'retry', 'sync'];
const COUNTRIES = [
  ['US', 'Ashburn', 39.04, -77.49],
  ['US', 'Seattle', 47.61, -122.33],
  ['DE', 'Frankfurt', 50.11, 8.68],
  ['GB', 'London', 51.51, -0.13],
  ['AU', 'Sydney', -33.87, 151.21],
  ['JP', 'Tokyo', 35.68, 139.69],
  ['BR', 'Sao Paulo', -23.55, -46.63],
] as const;
const TABLES = ['orders', 'users', 'carts', 'ledger', 'stock'];
const SCOPES = ['read', 'write', 'admin', 'read write'];
/** Log message templates: fixed words around the values that change from line to line. */
const MESSAGES: ((random: () => number) => string)[] = [
  (r) =>
    `cache ${r() < 0.4 ? 'hit' : 'miss'} for ${pickOf(r, RESOURCES)}:${int(r, 1e6)} ttl=${int(r, 3600)}s`,
  (r) =>
    `upstream ${HOSTS[hostOf(r)]} responded ${pickOf(r, STATUSES)} in ${int(r, 900)}ms after ${int(r, 3)} retries`,
  (r) => `order ${int(r, 1e8)} placed: ${1 + int(r, 9)} items, total ${int(r, 50_000) / 100} USD`,
  (r) =>
    `token validated for u_${int(r, 5e6)} scope=${pickOf(r, SCOPES)} exp=${1_790_000_000 + int(r, 1e6)}`,
  (r) =>
    `query on ${pickOf(r, TABLES)} used index by_${pickOf(r, TABLES)}_id, ${int(r, 500)} rows in ${int(r, 80)}ms`,
  (r) => `connection pool ${pickOf(r, SERVICES)} at ${int(r, 64)}/64, ${int(r, 10)} waiting`,
];

const hostOf = zipf(HOSTS.length, 1.1);
const pathOf = zipf(PATHS.length, 1.0);
const agentOf = zipf(AGENTS.length, 1.3);
const userOf = zipf(5_000, 1.05);
const messageOf = zipf(MESSAGES.length, 0.8);

function eventRow(random: () => number, atMs: number, index: number): JsonRow {
  const pick = <T>(values: readonly T[]) => values[Math.floor(random() * values.length)]!;
  const host = HOSTS[hostOf(random)]!;
  const status = pick(STATUSES);
  const id = String(1 + userOf(random) * 7919);
  const [country, city, lat, lon] = COUNTRIES[Math.min(COUNTRIES.length - 1, zipfSmall(random))]!;
  const tagCount = 1 + Math.floor(random() * 3);
  return {
    ts: new Date(atMs).toISOString(),
    level: status >= 500 ? 'error' : pick(LEVELS),
    service: host.slice(0, host.indexOf('-')),
    host,
    region: REGIONS[zipfSmall(random) % REGIONS.length]!,
    method: pick(METHODS),
    path: PATHS[pathOf(random)]!.replace('{id}', id),
    status,
    latency_ms: Math.round(Math.exp(2 + random() * 3) * 1000) / 1000,
    bytes_out: Math.floor(200 + random() * 40_000),
    user_agent: AGENTS[agentOf(random)]!,
    request_id: uuid(random),
    trace_id: hex(random, 32),
    user_id: `u_${id}`,
    client_ip: `10.${zipfSmall(random)}.${Math.floor(random() * 4)}.${1 + Math.floor(random() * 254)}`,
    cache_hit: random() < 0.35,
    seq: index,
    tags: Array.from({ length: tagCount }, () => pick(TAGS)),
    geo: { country, city, lat, lon },
    error: status >= 400 ? { code: `E${status}`, retryable: status >= 500 } : null,
  };
}

function randomRow(random: () => number, atMs: number, index: number): JsonRow {
  return {
    ts: new Date(atMs).toISOString(),
    id: uuid(random),
    seq: index,
    nonce: hex(random, 32),
    value: Math.floor(random() * 2 ** 48),
    score: random(),
    ok: random() < 0.5,
  };
}

/** Adds `msg` so the row's JSON is `length` bytes (never shorter than the row without it). */
function padTo(row: JsonRow, length: number, random: () => number, variant: RowVariant): JsonRow {
  const base = Buffer.byteLength(JSON.stringify({ ...row, msg: '' }));
  const room = Math.max(0, length - base);
  let msg = '';
  if (variant === RowVariant.event) {
    while (msg.length < room) msg += `${msg ? '; ' : ''}${MESSAGES[messageOf(random)]!(random)}`;
  } else {
    while (msg.length < room) msg += token(random, 43);
  }
  return { ...row, msg: msg.slice(0, room) };
}

/** A sampler of ranks 0..n-1 with probability proportional to 1 / (rank + 1)^s. */
function zipf(n: number, s: number): (random: () => number) => number {
  const cumulative: number[] = [];
  let total = 0;
  for (let rank = 0; rank < n; rank++) {
    total += 1 / (rank + 1) ** s;
    cumulative.push(total);
  }
  return (random) => {
    const target = random() * total;
    let lo = 0;
    let hi = n - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (cumulative[mid]! < target) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  };
}

const zipfSmall = (
  (sample) => (random: () => number) =>
    sample(random)
)(zipf(8, 1.2));

function pickOf<T>(random: () => number, values: readonly T[]): T {
  return values[Math.floor(random() * values.length)]!;
}

function int(random: () => number, below: number): number {
  return Math.floor(random() * below);
}

function hex(random: () => number, digits: number): string {
  let out = '';
  while (out.length < digits) out += Math.floor(random() * 16).toString(16);
  return out;
}

function uuid(random: () => number): string {
  const h = hex(random, 32);
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-a${h.slice(17, 20)}-${h.slice(20)}`;
}

const TOKEN_CHARS = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';

function token(random: () => number, length: number): string {
  let out = '';
  for (let i = 0; i < length; i++) out += TOKEN_CHARS[Math.floor(random() * 64)];
  return out;
}
