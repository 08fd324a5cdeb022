/**
 * Request headers as API Gateway HTTP APIs (payload 2.0) deliver them: names
 * lowercased, a repeated header joined with commas. Lookups ignore case all
 * the same, so an event built by hand (tests, another gateway) reads the
 * same way.
 */

/** The value of header `name` (any case), or undefined when absent. */
export function headerOf(
  headers: Readonly<Record<string, string | undefined>> | undefined,
  name: string,
): string | undefined {
  if (headers === undefined) return undefined;
  const wanted = name.toLowerCase();
  const exact = headers[wanted];
  if (exact !== undefined) return exact;
  for (const [key, value] of Object.entries(headers)) {
    if (value !== undefined && key.toLowerCase() === wanted) return value;
  }
  return undefined;
}
