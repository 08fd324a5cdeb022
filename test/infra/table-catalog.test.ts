import { App, Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { AccountRootPrincipal, Role } from 'aws-cdk-lib/aws-iam';
import type { IConstruct } from 'constructs';
import { beforeAll, describe, expect, it } from 'vitest';
import { HANDLERS, type HandlerName } from '../../infra/constructs/functions.js';
import { logicalIdOf } from '../../infra/constructs/nag.js';
import { ShardwalService } from '../../infra/shardwal-service.js';
import {
  actionsOf,
  functionId,
  INLINE_CODE,
  nagReport,
  type Synthesized,
  statementsOf,
  synth,
  tablesPropsError,
} from './support.js';

let glue: Synthesized;
let plain: Synthesized;
let off: Synthesized;
// Three synths: a minute or more on a busy machine.
beforeAll(() => {
  glue = synth({
    tables: 'clicks-*=clicks,orders',
    tableSchemas: {
      clicks: { columns: { user: 'string', amount: 'decimal(12,2)', at: 'timestamptz' } },
    },
    tableCommitMs: 300_000,
    walRetentionMs: 86_400_000,
    tableCatalog: 'glue',
    tableGlueDatabase: 'shardwal_events',
  });
  plain = synth({ tables: '*' });
  off = synth();
}, 180_000);

const resources = (x: Synthesized) => x.template.toJSON().Resources;
const ofType = (x: Synthesized, type: string) => Object.values(x.template.findResources(type));
const alarm = (x: Synthesized, id: string) =>
  resources(x)[logicalIdOf(x.service.alarms.node.findChild(id) as IConstruct)].Properties;
const arn = (resource: string) => ({
  'Fn::Join': [
    '',
    [
      'arn:',
      { Ref: 'AWS::Partition' },
      ':glue:',
      { Ref: 'AWS::Region' },
      ':',
      { Ref: 'AWS::AccountId' },
      `:${resource}`,
    ],
  ],
});

describe('ShardwalService', () => {
  describe('with tableCatalog glue', () => {
    it('creates the Glue database and one Iceberg table per table, with no metadata location yet', () => {
      const [database] = ofType(glue, 'AWS::Glue::Database');
      expect(database!.Properties.DatabaseInput.Name).toBe('shardwal_events');
      const tables = ofType(glue, 'AWS::Glue::Table').map((t) => t.Properties);
      expect(tables.map((t) => t.TableInput.Name).sort()).toEqual(['clicks', 'orders']);
      const clicks = tables.find((t) => t.TableInput.Name === 'clicks')!;
      expect(clicks.DatabaseName).toBe('shardwal_events');
      const [databaseId] = Object.keys(glue.template.findResources('AWS::Glue::Database'));
      for (const table of Object.values(glue.template.findResources('AWS::Glue::Table'))) {
        expect(table.DependsOn).toEqual([databaseId]);
      }
      expect(clicks.TableInput.TableType).toBe('EXTERNAL_TABLE');
      expect(clicks.TableInput.Parameters).toEqual({ table_type: 'ICEBERG' });
      expect(clicks.TableInput.StorageDescriptor.Location).toEqual({
        'Fn::Join': [
          '',
          ['s3://', { Ref: logicalIdOf(glue.service.storage.bucket) }, '/tables/clicks'],
        ],
      });
      expect(clicks.TableInput.StorageDescriptor.Columns).toEqual([
        { Name: 'shard', Type: 'string' },
        { Name: 'seq', Type: 'bigint' },
        { Name: 'offset', Type: 'bigint' },
        { Name: 'position', Type: 'bigint' },
        { Name: 'ingested_at', Type: 'timestamp' },
        { Name: 'key', Type: 'string' },
        { Name: 'op', Type: 'string' },
        { Name: 'row', Type: 'string' },
        { Name: 'user', Type: 'string' },
        { Name: 'amount', Type: 'decimal(12,2)' },
        { Name: 'at', Type: 'timestamp' },
      ]);
    });

    it('grants the committer GetTable and UpdateTable on exactly its tables, database and catalog', () => {
      const statements = statementsOf(glue, 'tableCommit').filter((s) =>
        actionsOf([s]).some((a) => a.startsWith('glue:')),
      );
      expect(statements).toEqual([
        {
          Effect: 'Allow',
          Action: ['glue:GetTable', 'glue:UpdateTable'],
          Resource: [
            arn('catalog'),
            arn('database/shardwal_events'),
            arn('table/shardwal_events/clicks'),
            arn('table/shardwal_events/orders'),
          ],
        },
      ]);
    });

    it('gives no other function anything in Glue', () => {
      for (const name of Object.keys(HANDLERS) as HandlerName[]) {
        if (name === 'tableCommit') continue;
        expect(actionsOf(statementsOf(glue, name)).filter((a) => a.startsWith('glue:'))).toEqual(
          [],
        );
      }
    });

    it('lets readers read the Glue database and tables as Athena does, nothing more in Glue', () => {
      const [policy] = ofType(glue, 'AWS::IAM::ManagedPolicy').filter((p) =>
        p.Properties.Description?.startsWith('shardwal readers'),
      );
      const statements = policy!.Properties.PolicyDocument.Statement as Array<{
        Action: string | string[];
        Resource: unknown;
      }>;
      expect(statements.filter((s) => JSON.stringify(s.Action).includes('glue:'))).toEqual([
        {
          Effect: 'Allow',
          Action: ['glue:GetDatabase', 'glue:GetTable', 'glue:GetTables'],
          Resource: [
            arn('catalog'),
            arn('database/shardwal_events'),
            arn('table/shardwal_events/clicks'),
            arn('table/shardwal_events/orders'),
          ],
        },
      ]);
      const plainPolicies = JSON.stringify(ofType(plain, 'AWS::IAM::ManagedPolicy'));
      expect(plainPolicies).not.toContain('glue:');
    });

    it('grants the same Glue reads through grantRead', () => {
      const stack = new Stack(new App(), 'Readers');
      const service = new ShardwalService(stack, 'S', {
        tables: { routes: 'clicks-*=clicks', catalog: 'glue', glueDatabase: 'db' },
        functionCode: INLINE_CODE,
      });
      const role = new Role(stack, 'Reader', { assumedBy: new AccountRootPrincipal() });
      service.grantRead(role);
      const policy = Template.fromStack(stack).findResources('AWS::IAM::Policy', {
        Properties: { Roles: [{ Ref: logicalIdOf(role) }] },
      });
      const actions = Object.values(policy).flatMap((p) =>
        actionsOf(p.Properties.PolicyDocument.Statement),
      );
      expect(actions.filter((a) => a.startsWith('glue:')).sort()).toEqual([
        'glue:GetDatabase',
        'glue:GetTable',
        'glue:GetTables',
      ]);
    }, 120_000);

    it('tells the committer its catalog and database', () => {
      expect(
        resources(glue)[functionId(glue, 'tableCommit')].Properties.Environment.Variables,
      ).toMatchObject({
        SHARDWAL_TABLE_CATALOG: 'glue',
        SHARDWAL_TABLE_GLUE_DATABASE: 'shardwal_events',
      });
      expect(glue.template.toJSON().Outputs.GlueDatabaseName.Value).toBe('shardwal_events');
    });

    it('tells verify to report the table appends of one verify period', () => {
      const vars = (x: Synthesized) =>
        resources(x)[functionId(x, 'recover')].Properties.Environment.Variables;
      expect(vars(glue).SHARDWAL_TABLE_FINDING_WINDOW_MS).toBe('3600000');
      expect(vars(off).SHARDWAL_TABLE_FINDING_WINDOW_MS).toBeUndefined();
    });

    it('leaves no unacknowledged AwsSolutions or Serverless finding', () => {
      expect(nagReport(glue.stack.node.root)).toEqual([]);
    });
  });

  describe('without tableCatalog', () => {
    it('creates nothing in Glue and grants nothing in Glue', () => {
      expect(ofType(plain, 'AWS::Glue::Database')).toEqual([]);
      expect(ofType(plain, 'AWS::Glue::Table')).toEqual([]);
      expect(JSON.stringify(ofType(plain, 'AWS::IAM::Policy'))).not.toContain('glue:');
      expect(plain.service.glueTables).toBeUndefined();
    });
  });

  describe('catalog settings', () => {
    it('refuses a tables entry whose table is known only at run time', () => {
      const error = tablesPropsError({ routes: 'clicks-*', catalog: 'glue', glueDatabase: 'db' });
      expect(error.message).toMatch(
        /^ShardwalService props\.tables\.routes="clicks-\*": entry "clicks-\*" names no table, .* write it as pattern=table/,
      );
    });

    it('refuses glue without a database, a database without glue, and either without table routes', () => {
      expect(tablesPropsError({ routes: 'a=a', catalog: 'glue' }).message).toMatch(
        /^ShardwalService props\.tables\.glueDatabase=undefined: the Glue database is required/,
      );
      expect(tablesPropsError({ routes: 'a=a', glueDatabase: 'db' }).message).toMatch(
        /^ShardwalService props\.tables\.glueDatabase="db": set only with SHARDWAL_TABLE_CATALOG=glue/,
      );
      expect(tablesPropsError({ catalog: 'glue' }).message).toMatch(
        /^ShardwalService props\.tables\.routes=undefined: expected the shard → table routes/,
      );
      expect(() => synth({ tables: 'a=a', tableCatalog: 'hive' })).toThrow(
        /^cdk context tableCatalog="hive": expected path or glue/,
      );
    });
  });

  describe('table alarms', () => {
    it('alarms when a table lags its WAL by more than 5 commit intervals, or the committer is silent', () => {
      expect(alarm(glue, 'TableLag')).toMatchObject({
        MetricName: 'TableLagMs',
        Namespace: 'shardwal',
        Statistic: 'Maximum',
        Period: 600,
        Threshold: 1_500_000,
        ComparisonOperator: 'GreaterThanThreshold',
        TreatMissingData: 'breaching',
        EvaluationPeriods: 1,
      });
      expect(alarm(plain, 'TableLag')).toMatchObject({ Period: 300, Threshold: 300_000 });
    });

    it('alarms when a table’s uncommitted WAL reaches 80% of the WAL retention', () => {
      expect(alarm(glue, 'TableRetentionFloor')).toMatchObject({
        MetricName: 'TableLagMs',
        Statistic: 'Maximum',
        Threshold: 69_120_000,
        ComparisonOperator: 'GreaterThanThreshold',
        TreatMissingData: 'notBreaching',
      });
      // The default WAL retention is 7 days.
      expect(alarm(plain, 'TableRetentionFloor').Threshold).toBe(483_840_000);
    });

    it('counts the committer’s error lines and alarms on two periods of them', () => {
      const filters = ofType(glue, 'AWS::Logs::MetricFilter').filter((f) =>
        f.Properties.MetricTransformations.some(
          (m: { MetricName: string }) => m.MetricName === 'TableErrorLogs',
        ),
      );
      expect(filters).toHaveLength(1);
      expect(filters[0]!.Properties.LogGroupName).toEqual({
        Ref: logicalIdOf(glue.service.functions.logGroups.tableCommit!),
      });
      expect(alarm(glue, 'TableErrors')).toMatchObject({
        MetricName: 'TableErrorLogs',
        Threshold: 1,
        EvaluationPeriods: 2,
      });
    });

    it('notifies the alarm topic', () => {
      const topic = { Ref: logicalIdOf(glue.service.alarms.topic) };
      for (const id of ['TableLag', 'TableRetentionFloor', 'TableErrors']) {
        expect(alarm(glue, id).AlarmActions).toEqual([topic]);
        expect(alarm(glue, id).OKActions).toEqual([topic]);
      }
    });

    it('adds no table alarm without tables', () => {
      expect(off.service.alarms.node.tryFindChild('TableLag')).toBeUndefined();
      expect(off.service.alarms.node.tryFindChild('TableRetentionFloor')).toBeUndefined();
      expect(off.service.alarms.node.tryFindChild('TableErrors')).toBeUndefined();
    });
  });
});
