/**
 * docs/openapi.yaml against the code. No YAML parser is a dependency, so the
 * document is read by indentation: it is block-style YAML with JSON
 * flow-style examples, and these helpers only need keys and list items.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ROUTES } from '../../infra/constructs/api.js';
import { ErrorKind, STATUS_OF_KIND } from '../../lib/errors.js';
import { NDJSON_SUBTYPES } from '../../lib/http/media-type.js';
import { BodyQuery } from '../../lib/http/put-body-shape.js';
import { BodyForm } from '../../lib/json/exact-put-body.js';
import { ROUTES as LOCAL_ROUTES } from '../../lib/local/http-routes.js';
import { SHARD_NAME_PATTERN } from '../../lib/paths.js';
import { Durability } from '../../lib/put/put-rows.js';
import { MAX_ROW_DEPTH, parsePutText, parsePutValue } from '../../lib/put/schema.js';

const lines = readFileSync(new URL('../../docs/openapi.yaml', import.meta.url), 'utf8').split('\n');
const indentOf = (line: string) => line.length - line.trimStart().length;

/** The lines nested under the line at `at` (deeper indentation, blanks kept). */
function blockAt(block: string[], at: number): string[] {
  const indent = indentOf(block[at]!);
  const out: string[] = [];
  for (const line of block.slice(at + 1)) {
    if (line.trim() !== '' && indentOf(line) <= indent) break;
    out.push(line);
  }
  return out;
}

/** The mapping key of a line (`key:`, `key: value`, `'key':`), if it has one. */
function keyOf(line: string): string | undefined {
  const match = /^\s*(?:'([^']*)'|([^\s:'-][^:]*?)):(?:\s|$)/.exec(line);
  return match ? (match[1] ?? match[2]) : undefined;
}

const nonBlank = (line: string) => line.trim() !== '';

/** The lines of `under` at its shallowest indentation: its direct children. */
function children(under: string[]): number[] {
  const indent = Math.min(...under.filter(nonBlank).map(indentOf));
  return under.flatMap((line, at) => (nonBlank(line) && indentOf(line) === indent ? [at] : []));
}

/** The block under the key path `keys`, each key a direct child of the previous one. */
function block(...keys: string[]): string[] {
  let current = lines;
  for (const key of keys) {
    const at = children(current).find((index) => keyOf(current[index]!) === key);
    if (at === undefined) throw new Error(`openapi.yaml: no key ${keys.join(' > ')}`);
    current = blockAt(current, at);
  }
  return current;
}

/** The keys directly under a block. */
function childKeys(under: string[]): string[] {
  return children(under).flatMap((at) => {
    const key = keyOf(under[at]!);
    return key === undefined ? [] : [key];
  });
}

/** The items of a block-style list. */
function listItems(under: string[]): string[] {
  return under.filter((line) => /^\s*- /.test(line)).map((line) => line.trim().slice(2).trim());
}

const apiGatewayRoutes = Object.values(ROUTES).map((route) => ({
  method: String(route.method).toLowerCase(),
  path: route.path,
}));

describe('docs/openapi.yaml', () => {
  it('is OpenAPI 3.1', () => {
    expect(lines[0]).toBe('openapi: 3.1.0');
  });

  it('documents exactly the routes API Gateway and the local server serve', () => {
    const documented = childKeys(block('paths')).flatMap((path) =>
      childKeys(block('paths', path)).map((method) => ({ method, path })),
    );
    const local = LOCAL_ROUTES.map((route) => ({
      method: route.method.toLowerCase(),
      path: route.path,
    }));
    expect(documented.sort(byRoute)).toEqual(apiGatewayRoutes.sort(byRoute));
    expect(documented.sort(byRoute)).toEqual(local.sort(byRoute));
  });

  it('documents exactly the ErrorKind values', () => {
    const kinds = listItems(block('components', 'schemas', 'ErrorKind', 'enum'));
    expect(kinds.sort()).toEqual(Object.values(ErrorKind).sort());
  });

  it('states the HTTP status of every error kind as the handlers map it', () => {
    const description = block('components', 'schemas', 'ErrorKind', 'description').join(' ');
    for (const [kind, status] of Object.entries(STATUS_OF_KIND)) {
      expect(description).toContain(`${kind} ${status}`);
    }
  });

  it('documents every status the put route can answer, with Retry-After on 429', () => {
    const put = childKeys(block('paths', '/v1/shards/{shard}/rows', 'post', 'responses'));
    const possible = new Set(['200', '202', ...Object.values(STATUS_OF_KIND).map(String)]);
    // API Gateway's own answers (authorizers, a failed invocation), beside the handler's.
    const gateway = ['401', '403', '502'];
    expect(put.sort()).toEqual(
      [...possible, '400', '413', '429', '503', ...gateway].filter(unique).sort(),
    );
    const tooMany = block('paths', '/v1/shards/{shard}/rows', 'post', 'responses', '429');
    expect(
      childKeys(block('paths', '/v1/shards/{shard}/rows', 'post', 'responses', '429', 'headers')),
    ).toEqual(['Retry-After']);
    expect(tooMany.join('\n')).toContain('backpressure');
  });

  it("documents API Gateway's own answers with its body, which has no error.kind", () => {
    const responses = block('components', 'responses');
    for (const name of ['ApiGatewayUnauthorized', 'ApiGatewayForbidden', 'ApiGatewayBadGateway']) {
      const response = block('components', 'responses', name).join('\n');
      expect(response).toContain("$ref: '#/components/schemas/ApiGatewayError'");
      expect(response).not.toContain("$ref: '#/components/schemas/Error'");
    }
    expect(responses.length).toBeGreaterThan(0);
    const apiGatewayError = block('components', 'schemas', 'ApiGatewayError').join('\n');
    expect(apiGatewayError).toContain('message:');
    expect(apiGatewayError).not.toContain('kind:');
    const description = block('info', 'description').join('\n');
    for (const status of ['401', '403', '413', '429', '500', '502', '503']) {
      expect(description).toMatch(new RegExp(`^\\s*\\| ${status} \\|`, 'm'));
    }
  });

  it('states the media types, encodings and both body limits the handler enforces', () => {
    const description = block('info', 'description').join('\n');
    for (const text of [
      'application/*+json',
      'charset=utf-8',
      'Content-Encoding',
      'SHARDWAL_MAX_BODY_BYTES',
      'SHARDWAL_MAX_DECODED_BODY_BYTES',
    ]) {
      expect(description).toContain(text);
    }
    expect(
      childKeys(block('paths', '/v1/shards/{shard}/rows', 'post', 'requestBody', 'content')).sort(),
    ).toEqual(['application/*+json', 'application/json', 'application/x-ndjson']);
    for (const subtype of NDJSON_SUBTYPES) expect(description).toContain(`application/${subtype}`);
  });

  it('documents the body-form query parameters with the code’s names and forms', () => {
    const parameters = listItems(block('paths', '/v1/shards/{shard}/rows', 'post', 'parameters'));
    for (const name of ['BodyFormat', 'RowsMember', 'KeyField']) {
      expect(parameters).toContain(`$ref: '#/components/parameters/${name}'`);
    }
    const names = ['BodyFormat', 'RowsMember', 'KeyField'].map((name) =>
      block('components', 'parameters', name)
        .find((line) => /^\s+name: /.test(line))
        ?.trim(),
    );
    expect(names).toEqual(Object.values(BodyQuery).map((name) => `name: ${name}`));
    const format = block('components', 'parameters', 'BodyFormat', 'schema').join('\n');
    expect(format).toContain(`enum: [${Object.values(BodyForm).join(', ')}]`);
  });

  it('states the key rule the put path keeps: any JSON number, 1e400 too, and the message it answers', () => {
    const text = lines.join('\n');
    // The service keys a row by 1e400 exactly (docs/exact-rows.md): the spec must not say "finite".
    const parsed = parsePutText(
      '{"key":"id","rows":[{"id":1e400},{"id":1E400},{"id":"1e400"}]}',
      10,
    );
    expect(parsed.rows.map((row) => row.key)).toEqual(['1e+400', '1e+400', '"1e400"']);
    expect(text).not.toMatch(/finite number/);
    expect(text).toContain('`1e400`');
    // The spec's example refusal is the one the put path answers.
    const refusal = (() => {
      try {
        parsePutText('{"key":"orderId","rows":[{"orderId":"o-1"},{"total":1}]}', 10);
      } catch (error) {
        return (error as Error).message;
      }
    })();
    expect(text).toContain(`"message": ${JSON.stringify(refusal)}`);
  });

  it('documents the error body as {"error": {"kind", "message"}}', () => {
    const error = block('components', 'schemas', 'Error');
    expect(listItems(error).length).toBe(0);
    expect(error.join('\n')).toMatch(/required: \[error\]/);
    expect(error.join('\n')).toMatch(/required: \[kind, message\]/);
  });

  it('uses the code’s shard pattern, durability values and nesting limit', () => {
    const shard = block('components', 'parameters', 'Shard', 'schema').join('\n');
    expect(shard).toContain(`pattern: '${SHARD_NAME_PATTERN.source}'`);
    const durability = block('components', 'parameters', 'Durability', 'schema').join('\n');
    expect(durability).toContain(`enum: [${Object.values(Durability).join(', ')}]`);
    expect(block('components', 'schemas', 'Row', 'description').join(' ')).toContain(
      `nested at most ${MAX_ROW_DEPTH} levels`,
    );
  });

  it('has request examples the validator accepts', () => {
    const examples = block('paths', '/v1/shards/{shard}/rows', 'post', 'requestBody')
      .filter((line) => /^\s+value: \{/.test(line))
      .map((line) => JSON.parse(line.trim().slice('value: '.length)) as unknown);
    expect(examples).toHaveLength(3);
    for (const example of examples) expect(() => parsePutValue(example, 10)).not.toThrow();
  });
});

function byRoute(a: { method: string; path: string }, b: { method: string; path: string }) {
  return `${a.path} ${a.method}`.localeCompare(`${b.path} ${b.method}`);
}

function unique<T>(value: T, index: number, all: T[]): boolean {
  return all.indexOf(value) === index;
}
