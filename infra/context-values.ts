/**
 * Reading one CDK context value: the error that names a deployment key, and
 * the parsers the deployment keys share (`settings.ts`, `capacity-settings.ts`,
 * `log-settings.ts`). Service settings are not read here: they go through the
 * service's own `validateSettings` and fail with its `ConfigError`.
 */

/** A CDK context value that cannot be deployed; names the key and the value. */
export class ContextError extends Error {
  readonly contextKey: string;
  constructor(contextKey: string, value: unknown, problem: string, options?: { cause?: unknown }) {
    super(`cdk context ${contextKey}=${JSON.stringify(value)}: ${problem}`, options);
    this.name = 'ContextError';
    this.contextKey = contextKey;
  }
}

/**
 * A `ShardwalService` prop that cannot be deployed; names the prop
 * (`props.settings.flushIntervalMs`) and the value. A `ContextError`, so
 * whatever catches those catches it too.
 */
export class PropError extends ContextError {
  constructor(prop: string, value: unknown, problem: string, options?: { cause?: unknown }) {
    super(prop, value, problem, options);
    this.message = `ShardwalService props.${prop}=${JSON.stringify(value)}: ${problem}`;
    this.name = 'PropError';
  }
}

/** Reads one context value (`app.node.tryGetContext`). */
export type ContextReader = (key: string) => unknown;

/** Whether a context value was given (`-c key=` and JSON null count as not given). */
export const isSet = (raw: unknown): boolean => raw !== undefined && raw !== null && raw !== '';

/** A whole number from `min` to `max`, or `fallback` when the key is not set. */
export function wholeNumber(
  get: ContextReader,
  key: string,
  fallback: number,
  min: number,
  max = Number.MAX_SAFE_INTEGER,
): number {
  const raw = get(key);
  if (!isSet(raw)) return fallback;
  const value =
    typeof raw === 'number' ? raw : typeof raw === 'string' ? Number(raw.trim()) : Number.NaN;
  if (!Number.isInteger(value) || value < min || value > max) {
    const range = max === Number.MAX_SAFE_INTEGER ? `of at least ${min}` : `from ${min} to ${max}`;
    throw new ContextError(key, raw, `expected a whole number ${range}`);
  }
  return value;
}

/** `on`/`true` or `off`/`false`, or `fallback` when the key is not set. */
export function onOff(get: ContextReader, key: string, fallback: boolean): boolean {
  const raw = get(key);
  if (!isSet(raw)) return fallback;
  if (raw === true || raw === 'on' || raw === 'true') return true;
  if (raw === false || raw === 'off' || raw === 'false') return false;
  throw new ContextError(key, raw, "expected 'on' or 'off'");
}
