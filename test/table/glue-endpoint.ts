/**
 * A Glue endpoint for tests, at the HTTP layer: a real `GlueClient` sends
 * through it, so requests are the SDK's own serialized `AWSGlue.GetTable` /
 * `AWSGlue.UpdateTable` JSON and answers are parsed by the SDK's own
 * deserializer (errors by their `__type`, as Glue sends them). It keeps
 * tables with a `VersionId` and refuses a stale one with
 * `ConcurrentModificationException`, as Glue's optimistic check does.
 * No emulator of Glue exists; this is its documented wire shape, not AWS.
 */
import { GlueClient } from '@aws-sdk/client-glue';

/** One request the endpoint received. */
export interface GlueRequest {
  operation: string;
  body: Record<string, unknown>;
}

/** A scripted answer: an error Glue sends (`__type`, HTTP status), or a hook run before the real answer. */
export type Scripted =
  | { error: string; status: number; message?: string }
  | { before: () => void | Promise<void> };

/** A Glue table as GetTable returns it. */
export type GlueTable = Record<string, unknown> & {
  Name: string;
  Parameters?: Record<string, string>;
  VersionId?: string;
};

/** The endpoint: tables by `database.name`, requests seen, answers scripted per operation. */
export class GlueEndpoint {
  readonly tables = new Map<string, GlueTable>();
  readonly requests: GlueRequest[] = [];
  /** Answers used before the real one, in order, per operation (`GetTable`, `UpdateTable`). */
  readonly script: Record<string, Scripted[]> = {};

  /** Creates a table as the construct does: Iceberg, no metadata location yet. */
  createTable(database: string, name: string, location = `s3://bucket/tables/${name}`): void {
    this.tables.set(`${database}.${name}`, {
      Name: name,
      DatabaseName: database,
      CreateTime: 1764590400,
      UpdateTime: 1764590400,
      Retention: 0,
      StorageDescriptor: {
        Columns: [{ Name: 'row', Type: 'string' }],
        Location: location,
        Compressed: false,
        NumberOfBuckets: 0,
        SerdeInfo: {},
        SortColumns: [],
        StoredAsSubDirectories: false,
      },
      PartitionKeys: [],
      TableType: 'EXTERNAL_TABLE',
      Parameters: { table_type: 'ICEBERG' },
      CreatedBy: 'arn:aws:iam::123456789012:role/cfn',
      IsRegisteredWithLakeFormation: false,
      CatalogId: '123456789012',
      VersionId: '0',
    });
  }

  /** The `metadata_location` of a table. */
  location(database: string, name: string): string | undefined {
    return this.tables.get(`${database}.${name}`)?.Parameters?.metadata_location;
  }

  /** A real Glue client whose requests this endpoint answers. */
  client(): GlueClient {
    return new GlueClient({
      region: 'us-east-1',
      credentials: { accessKeyId: 'test', secretAccessKey: 'test' },
      maxAttempts: 1,
      requestHandler: {
        handle: async (request: { headers: Record<string, string>; body?: unknown }) => ({
          response: await this.answer(request),
        }),
      } as never,
    });
  }

  private async answer(request: { headers: Record<string, string>; body?: unknown }) {
    const target = request.headers['x-amz-target'] ?? request.headers['X-Amz-Target'] ?? '';
    const operation = target.replace(/^AWSGlue\./, '');
    const raw = request.body;
    const text = typeof raw === 'string' ? raw : new TextDecoder().decode(raw as Uint8Array);
    const body = JSON.parse(text || '{}') as Record<string, unknown>;
    this.requests.push({ operation, body });
    const scripted = this.script[operation]?.shift();
    if (scripted && 'error' in scripted) {
      return reply(scripted.status, { __type: scripted.error, Message: scripted.message ?? '' });
    }
    if (scripted) await scripted.before();
    const key = `${body.DatabaseName}.${
      operation === 'GetTable' ? body.Name : (body.TableInput as { Name: string }).Name
    }`;
    const table = this.tables.get(key);
    if (!table) {
      return reply(400, {
        __type: 'EntityNotFoundException',
        Message: `Table ${key} not found.`,
      });
    }
    if (operation === 'GetTable') return reply(200, { Table: table });
    if (operation === 'UpdateTable') {
      if (body.VersionId !== undefined && body.VersionId !== table.VersionId) {
        return reply(400, {
          __type: 'ConcurrentModificationException',
          Message: 'Update table failed due to concurrent modifications.',
        });
      }
      this.update(key, body.TableInput as Record<string, unknown>);
      return reply(200, {});
    }
    return reply(400, { __type: 'InvalidInputException', Message: `unknown ${operation}` });
  }

  /** Replaces a table's definition as UpdateTable does, and moves its version. */
  update(key: string, input: Record<string, unknown>): void {
    const table = this.tables.get(key)!;
    this.tables.set(key, {
      ...table,
      ...input,
      Name: table.Name,
      UpdateTime: 1764590460,
      VersionId: String(Number(table.VersionId) + 1),
    } as GlueTable);
  }
}

function reply(status: number, json: unknown) {
  return {
    statusCode: status,
    headers: { 'content-type': 'application/x-amz-json-1.1' },
    body: new TextEncoder().encode(JSON.stringify(json)),
  };
}
