/**
 * Reads `docs/openapi.yaml` the way `test/http/openapi.test.ts` does: by
 * indentation (block-style YAML with flow-style lists; no YAML parser is a
 * dependency). Enough to read a schema's properties, their types and the
 * required list.
 */
import { readFileSync } from 'node:fs';

const lines = readFileSync(new URL('../../docs/openapi.yaml', import.meta.url), 'utf8').split('\n');
const indentOf = (line: string) => line.length - line.trimStart().length;
const nonBlank = (line: string) => line.trim() !== '';

function blockAt(block: string[], at: number): string[] {
  const indent = indentOf(block[at]!);
  const out: string[] = [];
  for (const line of block.slice(at + 1)) {
    if (nonBlank(line) && indentOf(line) <= indent) break;
    out.push(line);
  }
  return out;
}

function keyOf(line: string): string | undefined {
  const match = /^\s*(?:- )?(?:'([^']*)'|([^\s:'-][^:]*?)):(?:\s|$)/.exec(line);
  return match ? (match[1] ?? match[2]) : undefined;
}

function children(under: string[]): number[] {
  const indent = Math.min(...under.filter(nonBlank).map(indentOf));
  return under.flatMap((line, at) => (nonBlank(line) && indentOf(line) === indent ? [at] : []));
}

/** The block under the key path `keys`. */
export function yamlBlock(...keys: string[]): string[] {
  let current = lines;
  for (const key of keys) {
    const at = children(current).find((index) => keyOf(current[index]!) === key);
    if (at === undefined) throw new Error(`openapi.yaml: no key ${keys.join(' > ')}`);
    current = blockAt(current, at);
  }
  return current;
}

/** The keys directly under a block. */
function yamlChildKeys(under: string[]): string[] {
  return children(under).flatMap((at) => {
    const key = keyOf(under[at]!);
    return key === undefined ? [] : [key];
  });
}

/** The scalar or flow-list value of `key` directly under a block, as a list of strings. */
function yamlValues(under: string[], key: string): string[] | undefined {
  const at = children(under).find((index) => keyOf(under[index]!) === key);
  if (at === undefined) return undefined;
  const raw = under[at]!.slice(under[at]!.indexOf(':') + 1).trim();
  const inner = raw.startsWith('[') ? raw.slice(1, -1) : raw;
  return inner
    .split(',')
    .map((part) => part.trim().replace(/^'(.*)'$/, '$1'))
    .filter((part) => part !== '');
}

/** A schema's properties: each one's JSON types (`oneOf` alternatives flattened). */
export function schemaProperties(schema: string): Record<string, string[]> {
  const properties = yamlBlock('components', 'schemas', schema, 'properties');
  const out: Record<string, string[]> = {};
  for (const name of yamlChildKeys(properties)) {
    const property = yamlBlock('components', 'schemas', schema, 'properties', name);
    const direct = yamlValues(property, 'type');
    if (direct) {
      out[name] = direct;
      continue;
    }
    const alternatives = property
      .filter((line) => /^\s*- type: /.test(line))
      .map((line) =>
        line
          .trim()
          .slice('- type: '.length)
          .replace(/^'(.*)'$/, '$1'),
      );
    out[name] = alternatives;
  }
  return out;
}

/** A schema's `required` list. */
export function schemaRequired(schema: string): string[] {
  return yamlValues(yamlBlock('components', 'schemas', schema), 'required') ?? [];
}
