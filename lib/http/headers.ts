/**
 * Request headers as API Gateway HTTP APIs (payload 2.0) deliver them: names
 * lowercased, a repeated header joined with commas. Lookups ignore case all
 * the same, so a REST API (payload 1.0) event, whose names keep their case,
 * or an event built by hand reads the same way; `null` headers (the REST
 * console's test invocation) are no headers.
 */
import type { ProxyEvent } from './proxy-event.js';

/** The value of header `name` (any case), or undefined when absent. */
export function headerOf(
  headers: Readonly<Record<string, string | undefined>> | null | undefined,
  name: string,
): string | undefined {
  if (headers === undefined || headers === null) return undefined;
  const wanted = name.toLowerCase();
  const exact = headers[wanted];
  if (exact !== undefined) return exact;
  for (const [key, value] of Object.entries(headers)) {
    if (value !== undefined && key.toLowerCase() === wanted) return value;
  }
  return undefined;
}

/**
 * How many times header `name` was sent, as far as the event tells: the
 * values of a REST API event's `multiValueHeaders`, else 1 when present.
 */
export function headerCount(event: ProxyEvent, name: string): number {
  const wanted = name.toLowerCase();
  for (const [key, values] of Object.entries(event.multiValueHeaders ?? {})) {
    if (values !== undefined && key.toLowerCase() === wanted) return values.length;
  }
  return headerOf(event.headers, name) === undefined ? 0 : 1;
}
