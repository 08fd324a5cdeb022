/**
 * The Glue Data Catalog registration of the Iceberg tables (`tableCatalog:
 * 'glue'`, docs/tables.md): a database and one Glue table per table, of
 * the Iceberg convention Athena reads (`table_type=ICEBERG`, the location
 * `s3://<bucket>/tables/<name>`). The table is created with no
 * `metadata_location`: the committer sets it at the table's first commit
 * and moves it at every commit after (`lib/table/catalog.ts`).
 *
 * The committer gets `glue:GetTable` and `glue:UpdateTable` on exactly these
 * tables (and their database and the catalog, which Glue checks too),
 * nothing else in Glue.
 */
import { Stack } from 'aws-cdk-lib';
import { CfnDatabase, CfnTable } from 'aws-cdk-lib/aws-glue';
import { type IGrantable, PolicyStatement } from 'aws-cdk-lib/aws-iam';
import type { IBucket } from 'aws-cdk-lib/aws-s3';
import { Construct } from 'constructs';
import { GLUE_ICEBERG_PARAMETERS } from '../../lib/table/glue-catalog.js';
import { tablePrefix } from '../../lib/table/paths.js';
import { decimalOf, FIXED_FIELDS, type TypedColumn } from '../../lib/table/schema.js';

/** What the committer may do in Glue (`lib/table/glue-catalog.ts` sends these two). */
const GLUE_COMMITTER_ACTIONS = ['glue:GetTable', 'glue:UpdateTable'] as const;

/** Props of `GlueTables`. */
export interface GlueTablesProps {
  bucket: IBucket;
  database: string;
  /** Table names, each with its declared typed columns. */
  tables: ReadonlyArray<{ name: string; columns: readonly TypedColumn[] }>;
}

/** The Glue type of an Iceberg column type (Athena's names). */
function glueTypeOf(type: string): string {
  if (decimalOf(type)) return type;
  const names: Record<string, string> = {
    string: 'string',
    long: 'bigint',
    double: 'double',
    boolean: 'boolean',
    timestamptz: 'timestamp',
    date: 'date',
  };
  const name = names[type];
  if (name === undefined) throw new Error(`no Glue type for Iceberg type ${type}`);
  return name;
}

/** The Glue database and tables. */
export class GlueTables extends Construct {
  readonly database: CfnDatabase;
  readonly tables: CfnTable[];
  /** ARNs the committer's grant names: the catalog, the database, each table. */
  readonly arns: string[];

  constructor(scope: Construct, id: string, props: GlueTablesProps) {
    super(scope, id);
    const stack = Stack.of(this);
    this.database = new CfnDatabase(this, 'Database', {
      catalogId: stack.account,
      databaseInput: {
        name: props.database,
        description: 'shardwal: Iceberg tables of the shards’ history (docs/tables.md)',
      },
    });
    this.tables = props.tables.map((table) => {
      const created = new CfnTable(this, `Table-${table.name}`, {
        catalogId: stack.account,
        databaseName: props.database,
        tableInput: {
          name: table.name,
          description: `shardwal Iceberg table ${table.name}; metadata_location follows each commit`,
          tableType: 'EXTERNAL_TABLE',
          parameters: {
            [GLUE_ICEBERG_PARAMETERS.tableType]: GLUE_ICEBERG_PARAMETERS.tableTypeValue,
          },
          storageDescriptor: {
            location: `s3://${props.bucket.bucketName}/${tablePrefix(table.name).slice(0, -1)}`,
            columns: [
              ...FIXED_FIELDS.map((f) => ({ name: f.name, type: glueTypeOf(f.type) })),
              ...table.columns.map((c) => ({ name: c.name, type: glueTypeOf(c.type) })),
            ],
          },
        },
      });
      created.addResourceDependency(this.database);
      return created;
    });
    const arn = (resource: string) =>
      stack.formatArn({ service: 'glue', resource, resourceName: undefined });
    this.arns = [
      arn('catalog'),
      arn(`database/${props.database}`),
      ...props.tables.map((t) => arn(`table/${props.database}/${t.name}`)),
    ];
  }

  /** Lets `grantee` (the committer) read and move exactly these tables' pointers. */
  grantCommit(grantee: IGrantable): void {
    grantee.grantPrincipal.addToPrincipalPolicy(
      new PolicyStatement({ actions: [...GLUE_COMMITTER_ACTIONS], resources: this.arns }),
    );
  }
}
