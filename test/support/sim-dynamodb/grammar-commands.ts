/**
 * Seeded random commands that cover the expression grammar beyond what
 * shardwal sends: every comparison, BETWEEN, IN, NOT/AND/OR, every function,
 * nested paths, every update action and ReturnValues, over attributes of
 * every type. Cases where dynalite is known to differ from DynamoDB are left
 * out (they have their own tests in semantics.test.ts): `size()` of non-ASCII
 * strings, list and map equality, ordering two attributes (dynalite holds two
 * missing ones equal), empty strings and binaries (dynalite treats them as
 * absent in conditions, from before DynamoDB allowed them), false
 * BOOLs (absent to dynalite in IN and attribute_type), strings whose
 * UTF-16 and UTF-8 orders differ (dynalite orders non-key strings by UTF-16
 * code units; DynamoDB by UTF-8 bytes), REMOVE-only updates of a missing item, and numbers past
 * 38 digits.
 */
import {
  type AttributeValue,
  DeleteItemCommand,
  PutItemCommand,
  QueryCommand,
  ScanCommand,
  UpdateItemCommand,
} from '@aws-sdk/client-dynamodb';
import type { GeneratedCommand } from './shardwal-commands.js';

const NUMBERS = [
  '0',
  '1',
  '-1',
  '2.5',
  '10',
  '-0.75',
  '1e2',
  '12345678901234567890',
  '0.001',
  '99',
];
const ASCII = ['a', 'ab', 'abc', 'b', 'Z', 'a b', 'ba'];
const UNICODE = ['a', 'é', '\u{1f600}', 'ab', 'Ω', 'z', '\u{1f600}x', '\u{10ffff}'];
const BYTES = [[0x61], [0x61, 0x62], [0x62], [0x7a, 0x20], [0x41, 0x42, 0x43]];
const TYPES = ['S', 'N', 'B', 'SS', 'NS', 'BS', 'M', 'L', 'NULL', 'BOOL', 'X'];
const SK = ['1', '2', '3', '4'];

/** Draws grammar-covering commands for `tableName` (key pk, sk; all items in partition `g`). */
export function grammarCommands(tableName: string, random: () => number) {
  const int = (n: number) => Math.floor(random() * n);
  const pick = <T>(items: readonly T[]): T => items[int(items.length)]!;
  const some = <T>(items: readonly T[]): T[] => [...new Set(items.filter(() => random() < 0.5))];
  const num = (): AttributeValue => ({ N: pick(NUMBERS) });
  const bin = (): AttributeValue => ({ B: Uint8Array.from(pick(BYTES)) });
  const scalar = (): AttributeValue =>
    pick([num, () => ({ S: pick(ASCII) }), () => ({ S: pick(UNICODE) }), bin])();
  const value = (): AttributeValue =>
    pick<() => AttributeValue>([
      scalar,
      scalar,
      () => ({ SS: [pick(ASCII), ...some(['x', 'y'])] }),
      () => ({ NS: [...new Set([pick(['1', '2', '3']), ...some(['4', '5'])])] }),
      () => ({ L: [{ S: pick(ASCII) }, num()] }),
      // Only true: dynalite treats a false BOOL as absent in IN and attribute_type.
      () => ({ BOOL: true }),
      () => ({ NULL: true }),
    ])();
  const item = (): Record<string, AttributeValue> => {
    const attributes: Record<string, AttributeValue> = {
      n: num(),
      s: { S: pick(ASCII) },
      u: { S: pick(UNICODE) },
      b: bin(),
      ss: { SS: ['a', ...some(['b', 'c', 'd'])] },
      ns: { NS: ['1', ...some(['2', '3', '10'])] },
      l: { L: [{ S: pick(ASCII) }, num(), ...(random() < 0.5 ? [{ S: 'x' }] : [])] },
      m: { M: { a: num(), b: { S: pick(ASCII) }, c: { L: [num()] } } },
      t: { BOOL: true },
      z: { NULL: true },
    };
    for (const name of Object.keys(attributes)) if (random() < 0.2) delete attributes[name];
    return { pk: { S: 'g' }, sk: { S: pick(SK) }, ...attributes };
  };

  // Values are numbered per command; names go through placeholders half the time.
  let values: Record<string, AttributeValue> = {};
  let names: Record<string, string> = {};
  const val = (v: AttributeValue) => {
    const name = `:v${Object.keys(values).length}`;
    values[name] = v;
    return name;
  };
  const attr = (name: string) => {
    if (random() < 0.5) return name;
    names[`#${name}`] = name;
    return `#${name}`;
  };
  const path = () =>
    pick([
      () => attr('n'),
      () => attr('s'),
      () => attr('u'),
      () => attr('b'),
      () => attr('ss'),
      () => attr('ns'),
      () => attr('t'),
      () => attr('z'),
      () => attr('absent'),
      () => `${attr('m')}.${attr('a')}`,
      () => `${attr('m')}.b`,
      () => `${attr('l')}[${int(3)}]`,
      () => `${attr('m')}.c[0]`,
    ])();
  const scalarPath = () => pick(['n', 's', 'u', 'b', 'absent', 'm.a', 'm.b', 'l[0]', 'l[1]']);
  const sizable = () => pick(['s', 'b', 'ss', 'ns', 'l', 'm', 'absent']);

  const condition = (depth: number): string => {
    const leaf = () =>
      pick([
        () => `${scalarPath()} ${pick(['=', '<>', '<', '<=', '>', '>='])} ${val(scalar())}`,
        () => `${path()} ${pick(['=', '<>'])} ${val(value())}`,
        () => `size(${sizable()}) ${pick(['=', '<', '>='])} ${val({ N: String(int(4)) })}`,
        () => {
          const [lo, hi] = [scalar(), scalar()];
          return `${scalarPath()} BETWEEN ${val(lo)} AND ${val(hi)}`;
        },
        () => `${path()} IN (${[scalar(), value(), scalar()].map(val).join(', ')})`,
        () => `${pick(['attribute_exists', 'attribute_not_exists'])}(${path()})`,
        () => `attribute_type(${path()}, ${val({ S: pick(TYPES) })})`,
        () =>
          `begins_with(${pick(['s', 'u', 'b', 'n', 'm.b'])}, ${val(pick([{ S: pick(ASCII) }, { S: pick(UNICODE) }, bin()]))})`,
        () => `contains(${pick(['s', 'u', 'b', 'ss', 'ns', 'l', 'absent'])}, ${val(scalar())})`,
      ])();
    if (depth <= 0 || random() < 0.4) return leaf();
    return pick([
      () => `${condition(depth - 1)} ${pick(['AND', 'OR', 'and', 'or'])} ${condition(depth - 1)}`,
      () => `NOT ${condition(depth - 1)}`,
      () => `(${condition(depth - 1)})`,
    ])();
  };

  const updateExpression = (): { text: string; onlyRemoves: boolean } => {
    const used = new Set<string>();
    // One action per top-level attribute: how DynamoDB orders actions on one list is not pinned down.
    const top = (p: string) => p.split(/[.[]/)[0]!;
    const fresh = (candidates: string[]): string | undefined => {
      const free = candidates.filter((c) => !used.has(top(c)));
      if (free.length === 0) return undefined;
      const chosen = pick(free);
      used.add(top(chosen));
      return chosen;
    };
    const actions = <T>(count: number, make: () => T | undefined): T[] =>
      Array.from({ length: count }, make).filter((a): a is T => a !== undefined);
    // dynalite aliases a value read on the right of SET with its source, so an ADD or DELETE
    // of the source in the same update would change the copy too: no update writes what it reads.
    const read = (p: string) => {
      used.add(top(p));
      return p;
    };
    const sets = actions(int(3), () => {
      const target = fresh(['n', 's', 'u', 'x', 'y', 'm.a', 'm.d', 'l[1]', 'l[5]', 'ss']);
      if (!target) return undefined;
      const operand = () =>
        pick([() => val(num()), () => read(pick(['n', 'm.a', 'l[1]', 'absent']))])();
      const rhs = pick([
        () => val(value()),
        () => `${operand()} ${pick(['+', '-'])} ${operand()}`,
        () => `if_not_exists(${read(pick(['n', 'x', 'absent']))}, ${val(value())})`,
        () => `if_not_exists(${read(pick(['n', 'x']))}, ${val(num())}) + ${val(num())}`,
        () => `list_append(${read(pick(['l', 'absent', 'n']))}, ${val({ L: [num()] })})`,
        () =>
          `list_append(${val({ L: [{ S: 'first' }] })}, if_not_exists(${read('l')}, ${val({ L: [] })}))`,
        // Scalars only: dynalite would alias a copied map or list with its source.
        () => read(pick(['s', 'u', 'n', 'absent'])),
      ])();
      return `${attr(top(target))}${target.slice(top(target).length)} = ${rhs}`;
    });
    const removes = actions(int(2), () => fresh(['t', 'z', 'l[0]', 'm.b', 'absent', 'u']));
    const adds = actions(int(2), () => {
      const target = fresh(['n', 'ns', 'ss', 'x', 'm.a']);
      if (!target) return undefined;
      const operand = pick([num(), { NS: ['2', '7'] }, { SS: ['b', 'q'] }, { S: 'bad' }]);
      return `${target} ${val(operand)}`;
    });
    const deletes = actions(int(2), () => {
      const target = fresh(['ss', 'ns', 'n']);
      return target && `${target} ${val(pick([{ SS: ['a', 'b'] }, { NS: ['1', '10'] }]))}`;
    });
    const clauses = [
      sets.length ? `SET ${sets.join(', ')}` : '',
      removes.length ? `REMOVE ${removes.join(', ')}` : '',
      adds.length ? `ADD ${adds.join(', ')}` : '',
      deletes.length ? `DELETE ${deletes.join(', ')}` : '',
    ].filter(Boolean);
    if (clauses.length === 0) return updateExpression();
    // DynamoDB accepts the clauses in any order.
    clauses.sort(() => (random() < 0.5 ? -1 : 1));
    return { text: clauses.join(' '), onlyRemoves: sets.length + adds.length === 0 };
  };

  const key = () => ({ pk: { S: 'g' }, sk: { S: pick(SK) } });
  const finish = (label: string, build: () => object): GeneratedCommand => {
    values = {};
    names = {};
    const command = build();
    return { kind: 'single', label, command };
  };
  const expressionParams = () => ({
    ExpressionAttributeNames: Object.keys(names).length ? names : undefined,
    ExpressionAttributeValues: Object.keys(values).length ? values : undefined,
  });

  const generators: (() => GeneratedCommand)[] = [
    () =>
      finish('put', () => {
        const conditional = random() < 0.6 ? condition(2) : undefined;
        return new PutItemCommand({
          TableName: tableName,
          Item: item(),
          ConditionExpression: conditional,
          ReturnValues: random() < 0.5 ? 'ALL_OLD' : 'NONE',
          ...expressionParams(),
        });
      }),
    () =>
      finish('update', () => {
        const update = updateExpression();
        let conditional = random() < 0.5 ? condition(2) : undefined;
        // dynalite creates a key-only item where DynamoDB creates none: keep to existing items.
        if (update.onlyRemoves)
          conditional = `attribute_exists(pk)${conditional ? ` AND (${conditional})` : ''}`;
        return new UpdateItemCommand({
          TableName: tableName,
          Key: key(),
          UpdateExpression: update.text,
          ConditionExpression: conditional,
          ReturnValues: pick(['NONE', 'ALL_OLD', 'UPDATED_OLD', 'ALL_NEW', 'UPDATED_NEW']),
          ...expressionParams(),
        });
      }),
    () =>
      finish('delete', () => {
        const conditional = condition(2);
        return new DeleteItemCommand({
          TableName: tableName,
          Key: key(),
          ConditionExpression: conditional,
          ReturnValues: 'ALL_OLD',
          ...expressionParams(),
        });
      }),
    () => {
      const limit = random() < 0.5 ? 1 + int(3) : undefined;
      values = {};
      names = {};
      const filter = random() < 0.7 ? condition(2) : undefined;
      const projection =
        random() < 0.5
          ? some(['sk', 'n', 'm.a', 'l[1]', 'l[0]', 'ss', 'absent', 'm.c[0]']).join(', ')
          : '';
      const range = pick([
        () => 'sk = :r0',
        () => 'sk < :r0',
        () => 'sk >= :r0',
        () => 'sk BETWEEN :r0 AND :r1',
        () => 'begins_with(sk, :r0)',
        () => ':r0 <= sk',
      ])();
      const fixedValues = {
        ...values,
        ':g': { S: 'g' },
        ':r0': { S: pick(SK) },
        ':r1': { S: '4' },
      };
      if (!range.includes(':r1')) delete (fixedValues as Record<string, unknown>)[':r1'];
      const fixedNames = Object.keys(names).length ? { ...names } : undefined;
      const forward = random() < 0.5;
      return {
        kind: 'pages',
        label: 'query',
        page: (startKey) =>
          new QueryCommand({
            TableName: tableName,
            KeyConditionExpression: `pk = :g AND ${range}`,
            FilterExpression: filter,
            ProjectionExpression: projection || undefined,
            ExpressionAttributeNames: fixedNames,
            ExpressionAttributeValues: fixedValues,
            ExclusiveStartKey: startKey,
            Limit: limit,
            ScanIndexForward: forward,
          }),
      };
    },
    () => {
      values = {};
      names = {};
      const filter = condition(2);
      const fixedValues = { ...values };
      const fixedNames = Object.keys(names).length ? { ...names } : undefined;
      const limit = random() < 0.5 ? 1 + int(3) : undefined;
      return {
        kind: 'pages',
        label: 'scan',
        page: (startKey) =>
          new ScanCommand({
            TableName: tableName,
            FilterExpression: filter,
            ExpressionAttributeNames: fixedNames,
            ExpressionAttributeValues: Object.keys(fixedValues).length ? fixedValues : undefined,
            ExclusiveStartKey: startKey,
            Limit: limit,
          }),
      };
    },
  ];
  return (): GeneratedCommand => pick(generators)();
}
