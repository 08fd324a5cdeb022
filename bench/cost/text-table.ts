/**
 * Plain-text tables for the benchmark's output: aligned columns, numbers
 * right-aligned, no box drawing (the output is pasted into reports).
 */

/** Prints one line of the report (an empty line by default). */
export function out(line = ''): void {
  console.log(line);
}

/** A cell: text, or a number printed as given by `fmt`. */
export type Cell = string | number;

/** Renders `rows` (objects with the same keys) under their keys as headers. */
export function textTable(rows: readonly Record<string, Cell>[]): string {
  if (rows.length === 0) return '(none)';
  const headers = Object.keys(rows[0]!);
  const cells = rows.map((row) => headers.map((h) => String(row[h] ?? '')));
  const widths = headers.map((h, i) => Math.max(h.length, ...cells.map((c) => c[i]!.length)));
  const numeric = headers.map((_, i) => rows.every((row) => typeof row[headers[i]!] === 'number'));
  const render = (values: string[]) =>
    values
      .map((v, i) => (numeric[i] ? v.padStart(widths[i]!) : v.padEnd(widths[i]!)))
      .join('  ')
      .trimEnd();
  return [render(headers), render(widths.map((w) => '-'.repeat(w))), ...cells.map(render)].join(
    '\n',
  );
}

/** `value` with `digits` significant digits, without exponent notation for ordinary sizes. */
export function sig(value: number, digits = 3): string {
  // Least-squares fits leave float dust where the true value is zero.
  if (Math.abs(value) < 1e-9) return '0';
  const magnitude = Math.floor(Math.log10(Math.abs(value)));
  const decimals = Math.max(0, digits - 1 - magnitude);
  return value.toFixed(Math.min(decimals, 10));
}

/** USD with enough decimals to read small per-GB figures. */
export function usd(value: number): string {
  return `$${value < 0.01 ? value.toFixed(5) : value.toFixed(3)}`;
}

/** A share as a percentage with one decimal. */
export function pct(part: number, whole: number): string {
  return whole === 0 ? '-' : `${((100 * part) / whole).toFixed(1)} %`;
}
