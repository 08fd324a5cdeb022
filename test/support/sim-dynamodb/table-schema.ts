/**
 * A table's definition (from CreateTable) and the key rules DynamoDB applies
 * to every item request: a Key names exactly the key attributes with their
 * declared types; key values are non-empty and bounded; secondary index keys,
 * when present, have their declared types and are non-empty.
 */
import type {
  AttributeValue,
  CreateTableCommandInput,
  TableDescription,
} from '@aws-sdk/client-dynamodb';
import { acceptValue, type Item, typeOf } from './attribute-values.js';
import { validationError } from './sdk-errors.js';

/** A key attribute and its declared type. */
interface KeyAttribute {
  name: string;
  type: 'S' | 'N' | 'B';
}

/** A hash key and an optional range key. */
export interface KeySchema {
  hash: KeyAttribute;
  range?: KeyAttribute;
}

/** A global secondary index. */
export interface IndexSchema {
  name: string;
  key: KeySchema;
  projection: 'ALL' | 'KEYS_ONLY' | 'INCLUDE';
  /** Attributes an index entry holds besides keys (INCLUDE). */
  nonKeyAttributes: readonly string[];
}

/** What the table was created with. */
export interface TableSchema {
  name: string;
  key: KeySchema;
  /** Names of the table's key attributes. */
  keyNames: readonly string[];
  indexes: ReadonlyMap<string, IndexSchema>;
  input: CreateTableCommandInput;
}

const TABLE_NAME = /^[a-zA-Z0-9_.-]{3,255}$/;
const MAX_HASH_KEY_BYTES = 2048;
const MAX_RANGE_KEY_BYTES = 1024;

/** Validates a CreateTable request and returns the schema. */
export function tableSchema(input: CreateTableCommandInput): TableSchema {
  const name = input.TableName ?? '';
  if (!TABLE_NAME.test(name)) {
    throw validationError(
      `TableName must be at least 3 characters long and at most 255 characters long, and match [a-zA-Z0-9_.-]+; got ${JSON.stringify(name)}`,
    );
  }
  const definitions = new Map<string, string>();
  for (const d of input.AttributeDefinitions ?? []) {
    definitions.set(d.AttributeName ?? '', d.AttributeType ?? '');
  }
  const used = new Set<string>();
  const keySchema = (elements: CreateTableCommandInput['KeySchema']): KeySchema => {
    const [hash, range, ...extra] = elements ?? [];
    if (hash?.KeyType !== 'HASH' || (range && range.KeyType !== 'RANGE') || extra.length > 0) {
      throw validationError(
        'Invalid KeySchema: expected one HASH element, optionally followed by one RANGE element',
      );
    }
    const attribute = (name: string): KeyAttribute => {
      const type = definitions.get(name);
      if (type !== 'S' && type !== 'N' && type !== 'B') {
        throw validationError(
          `One or more parameter values were invalid: Some index key attributes are not defined in AttributeDefinitions. Keys: [${name}], AttributeDefinitions: [${[...definitions.keys()].join(', ')}]`,
        );
      }
      used.add(name);
      return { name, type };
    };
    return {
      hash: attribute(hash.AttributeName ?? ''),
      ...(range ? { range: attribute(range.AttributeName ?? '') } : {}),
    };
  };
  const key = keySchema(input.KeySchema);
  const indexes = new Map<string, IndexSchema>();
  for (const gsi of input.GlobalSecondaryIndexes ?? []) {
    const indexName = gsi.IndexName ?? '';
    if (indexes.has(indexName)) {
      throw validationError(
        `One or more parameter values were invalid: Duplicate index name: ${indexName}`,
      );
    }
    const projection = gsi.Projection?.ProjectionType ?? 'ALL';
    indexes.set(indexName, {
      name: indexName,
      key: keySchema(gsi.KeySchema),
      projection,
      nonKeyAttributes: gsi.Projection?.NonKeyAttributes ?? [],
    });
  }
  if (input.LocalSecondaryIndexes?.length) {
    throw validationError('MemoryDynamoDB does not model LocalSecondaryIndexes');
  }
  const unused = [...definitions.keys()].filter((attribute) => !used.has(attribute));
  if (unused.length > 0) {
    throw validationError(
      `One or more parameter values were invalid: Some AttributeDefinitions are not used. AttributeDefinitions: [${[...definitions.keys()].join(', ')}], keys used: [${[...used].join(', ')}]`,
    );
  }
  const keyNames = [key.hash.name, ...(key.range ? [key.range.name] : [])];
  return { name, key, keyNames, indexes, input };
}

/** The description DescribeTable and CreateTable return; the table is ACTIVE at once. */
export function describeTable(
  schema: TableSchema,
  itemCount: number,
  sizeBytes: number,
): TableDescription {
  const { input } = schema;
  const arn = `arn:aws:dynamodb:us-east-1:000000000000:table/${schema.name}`;
  return {
    TableName: schema.name,
    TableArn: arn,
    TableStatus: 'ACTIVE',
    // Deterministic: a simulation must not read the wall clock.
    CreationDateTime: new Date(0),
    AttributeDefinitions: structuredClone(input.AttributeDefinitions),
    KeySchema: structuredClone(input.KeySchema),
    ItemCount: itemCount,
    TableSizeBytes: sizeBytes,
    BillingModeSummary: { BillingMode: input.BillingMode ?? 'PROVISIONED' },
    ...(input.GlobalSecondaryIndexes?.length
      ? {
          GlobalSecondaryIndexes: input.GlobalSecondaryIndexes.map((gsi) => ({
            IndexName: gsi.IndexName,
            KeySchema: structuredClone(gsi.KeySchema),
            Projection: structuredClone(gsi.Projection),
            IndexStatus: 'ACTIVE',
            IndexArn: `${arn}/index/${gsi.IndexName}`,
          })),
        }
      : {}),
  };
}

/** A string that identifies a key value (S, N or B) inside maps. */
export function keyToken(value: AttributeValue): string {
  if (value.S !== undefined) return value.S;
  if (value.N !== undefined) return value.N;
  return Buffer.from(value.B!).toString('hex');
}

function checkKeyValue(attribute: KeyAttribute, value: AttributeValue, isHash: boolean): void {
  if ((value.S ?? value.B)?.length === 0) {
    throw validationError(
      `One or more parameter values were invalid: The AttributeValue for a key attribute cannot contain an empty ${value.S !== undefined ? 'string' : 'binary'} value. Key: ${attribute.name}`,
    );
  }
  const bytes =
    value.S !== undefined ? Buffer.byteLength(value.S) : value.B !== undefined ? value.B.length : 0;
  if (isHash && bytes > MAX_HASH_KEY_BYTES) {
    throw validationError(
      'One or more parameter values were invalid: Size of hashkey has exceeded the maximum size limit of2048 bytes',
    );
  }
  if (!isHash && bytes > MAX_RANGE_KEY_BYTES) {
    throw validationError(
      'One or more parameter values were invalid: Aggregated size of all range keys has exceeded the size limit of 1024 bytes',
    );
  }
}

function keyAttributes(key: KeySchema): [KeyAttribute, boolean][] {
  return [[key.hash, true], ...(key.range ? [[key.range, false] as [KeyAttribute, boolean]] : [])];
}

/** Validates a request's `Key` and returns its canonical copy. */
export function acceptKey(
  schema: TableSchema,
  key: Record<string, AttributeValue> | undefined,
): Item {
  const names = Object.keys(key ?? {});
  const mismatch = () => validationError('The provided key element does not match the schema');
  if (names.length !== schema.keyNames.length) throw mismatch();
  const accepted: Item = {};
  for (const [attribute, isHash] of keyAttributes(schema.key)) {
    const raw = key?.[attribute.name];
    if (raw === undefined) throw mismatch();
    const value = acceptValue(raw);
    if (typeOf(value) !== attribute.type) throw mismatch();
    checkKeyValue(attribute, value, isHash);
    accepted[attribute.name] = value;
  }
  return accepted;
}

/** Validates the keys of a whole item (PutItem): table keys present and typed; index keys typed. */
export function checkItemKeys(schema: TableSchema, item: Item): void {
  for (const [attribute, isHash] of keyAttributes(schema.key)) {
    const value = item[attribute.name];
    if (value === undefined) {
      throw validationError(
        `One or more parameter values were invalid: Missing the key ${attribute.name} in the item`,
      );
    }
    if (typeOf(value) !== attribute.type) {
      throw validationError(
        `One or more parameter values were invalid: Type mismatch for key ${attribute.name} expected: ${attribute.type} actual: ${typeOf(value)}`,
      );
    }
    checkKeyValue(attribute, value, isHash);
  }
  checkIndexKeys(schema, item);
}

/** Index key attributes an item carries must have the index's declared types and be non-empty. */
export function checkIndexKeys(schema: TableSchema, item: Item): void {
  for (const index of schema.indexes.values()) {
    for (const [attribute] of keyAttributes(index.key)) {
      const value = Object.hasOwn(item, attribute.name) ? item[attribute.name] : undefined;
      if (value === undefined) continue;
      if (typeOf(value) !== attribute.type) {
        throw validationError(
          `One or more parameter values were invalid: Type mismatch for Index Key ${attribute.name} Expected: ${attribute.type} Actual: ${typeOf(value)} IndexName: ${index.name}`,
        );
      }
      if ((value.S ?? value.B)?.length === 0) {
        throw validationError(
          `One or more parameter values are not valid. A value specified for a secondary index key is not supported. The AttributeValue for a key attribute cannot contain an empty ${value.S !== undefined ? 'string' : 'binary'} value. IndexName: ${index.name}, IndexKey: ${attribute.name}`,
        );
      }
    }
  }
}
