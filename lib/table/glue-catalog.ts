/**
 * The AWS Glue Data Catalog adapter of the catalog port (`catalog.ts`): one
 * Glue table per Iceberg table, in one database, whose `metadata_location`
 * parameter is the pointer (the Iceberg convention: `table_type=ICEBERG`,
 * `metadata_location`, `previous_metadata_location`). The update is
 * Glue's optimistic check: `UpdateTable` with the `VersionId` `GetTable`
 * returned; Glue answers a stale one with `ConcurrentModificationException`.
 *
 * Only this file sees the Glue SDK: a missing table or database becomes a
 * `NotFoundError`, throttling and service faults an `UnavailableError`,
 * anything else an `InternalError` naming what Glue said.
 *
 * `SkipArchive`: Glue keeps a copy of the table per update unless told not
 * to, and a table holds at most 100,000 versions: at a commit a minute that
 * limit would stop the pointer within about ten weeks.
 */
import {
  GetTableCommand,
  GlueClient,
  type Table,
  type TableInput,
  UpdateTableCommand,
} from '@aws-sdk/client-glue';
import { InternalError, NotFoundError, UnavailableError } from '../errors.js';
import type { CatalogEntry, TableCatalog } from './catalog.js';

/** Glue table parameters of the Iceberg convention. */
export const GLUE_ICEBERG_PARAMETERS = {
  tableType: 'table_type',
  tableTypeValue: 'ICEBERG',
  metadataLocation: 'metadata_location',
  previousMetadataLocation: 'previous_metadata_location',
} as const;

/** Error names Glue (or the SDK) uses for conditions worth retrying later. */
const TRANSIENT_NAMES = new Set([
  'ThrottlingException',
  'InternalServiceException',
  'OperationTimeoutException',
  'TimeoutError',
]);

interface GlueErrorShape {
  name?: string;
  message?: string;
  $metadata?: { httpStatusCode?: number };
}

function shapeOf(error: unknown): GlueErrorShape {
  return typeof error === 'object' && error !== null ? (error as GlueErrorShape) : {};
}

/** The table input that writes `table` back as it is (what `UpdateTable` takes of what `GetTable` gave). */
function inputOf(table: Table): TableInput {
  return {
    Name: table.Name,
    Description: table.Description,
    Owner: table.Owner,
    Retention: table.Retention,
    StorageDescriptor: table.StorageDescriptor,
    PartitionKeys: table.PartitionKeys,
    TableType: table.TableType,
    Parameters: table.Parameters,
    TargetTable: table.TargetTable,
  };
}

/** The Glue catalog of database `database`. */
export class GlueCatalog implements TableCatalog {
  readonly name = 'glue';

  constructor(
    private readonly client: GlueClient,
    readonly database: string,
  ) {}

  async read(table: string): Promise<CatalogEntry> {
    const out = await this.call(table, 'GetTable', () =>
      this.client.send(new GetTableCommand({ DatabaseName: this.database, Name: table })),
    );
    if (!out.Table) throw new InternalError(`Glue GetTable ${this.database}.${table}: no table`);
    return {
      metadataLocation: out.Table.Parameters?.[GLUE_ICEBERG_PARAMETERS.metadataLocation],
      versionToken: out.Table.VersionId,
      definition: out.Table,
    };
  }

  async update(
    table: string,
    entry: CatalogEntry,
    metadataLocation: string,
  ): Promise<'updated' | 'conflict'> {
    const input = inputOf(entry.definition as Table);
    const parameters: Record<string, string> = {
      ...input.Parameters,
      [GLUE_ICEBERG_PARAMETERS.tableType]: GLUE_ICEBERG_PARAMETERS.tableTypeValue,
      [GLUE_ICEBERG_PARAMETERS.metadataLocation]: metadataLocation,
    };
    delete parameters[GLUE_ICEBERG_PARAMETERS.previousMetadataLocation];
    if (entry.metadataLocation !== undefined) {
      parameters[GLUE_ICEBERG_PARAMETERS.previousMetadataLocation] = entry.metadataLocation;
    }
    try {
      await this.call(table, 'UpdateTable', () =>
        this.client.send(
          new UpdateTableCommand({
            DatabaseName: this.database,
            TableInput: { ...input, Parameters: parameters },
            VersionId: entry.versionToken,
            SkipArchive: true,
          }),
        ),
      );
      return 'updated';
    } catch (error) {
      if (error instanceof ConflictSignal) return 'conflict';
      throw error;
    }
  }

  /** Sends one request; translates what Glue throws (rule 4 of STYLE.md). */
  private async call<T>(table: string, operation: string, send: () => Promise<T>): Promise<T> {
    try {
      return await send();
    } catch (error) {
      const { name, message, $metadata } = shapeOf(error);
      const what = `Glue ${operation} ${this.database}.${table}`;
      if (name === 'ConcurrentModificationException') throw new ConflictSignal();
      if (name === 'EntityNotFoundException') {
        throw new NotFoundError(`${what}: ${message ?? 'entity'}`);
      }
      const status = $metadata?.httpStatusCode;
      if ((name !== undefined && TRANSIENT_NAMES.has(name)) || (status ?? 0) >= 500) {
        throw new UnavailableError(`${what}: ${name}: ${message}`, { cause: error });
      }
      throw new InternalError(`${what}: ${name ?? 'Error'}: ${message ?? String(error)}`, {
        cause: error,
      });
    }
  }
}

/** Carries Glue's optimistic-check refusal from `call` to `update` (never leaves this file). */
class ConflictSignal extends Error {
  constructor() {
    super('concurrent modification');
    this.name = 'ConflictSignal';
  }
}

/** The Glue catalog of `database` with a client from the AWS environment (region, credentials). */
export function glueCatalogOf(database: string): GlueCatalog {
  return new GlueCatalog(new GlueClient({}), database);
}
