import { beforeAll, describe, expect, it } from 'vitest';
import { HANDLERS, type HandlerName } from '../../infra/constructs/functions.js';
import { logicalIdOf } from '../../infra/constructs/nag.js';
import { actionsOf, type Statement, type Synthesized, statementsOf, synth } from './support.js';

let s: Synthesized;
beforeAll(() => {
  s = synth();
});

const ALL = Object.keys(HANDLERS) as HandlerName[];
const s3Statements = (name: HandlerName) =>
  statementsOf(s, name).filter((st) => actionsOf([st]).some((a) => a.startsWith('s3:')));
const bucketArn = () => ({ 'Fn::GetAtt': [logicalIdOf(s.stack.storage.bucket), 'Arn'] });
const objects = (pattern: string) => ({ 'Fn::Join': ['', [bucketArn(), `/${pattern}`]] });
const holders = (action: string) =>
  ALL.filter((name) => actionsOf(statementsOf(s, name)).includes(action)).sort();
const byAction = (statements: Statement[]) =>
  Object.fromEntries(
    statements.flatMap((st) =>
      actionsOf([st]).map((a) => [a, { resource: st.Resource, condition: st.Condition }]),
    ),
  );

describe('grantLeastPrivilege', () => {
  it('attaches no managed policy to any function role', () => {
    for (const name of ALL) {
      const role = s.template.toJSON().Resources[logicalIdOf(s.stack.functions.byName[name].role!)];
      expect(role.Properties.ManagedPolicyArns).toBeUndefined();
    }
  });

  it('gives no statement a wildcard action or a bare * resource', () => {
    for (const name of ALL) {
      for (const st of statementsOf(s, name)) {
        expect(st.Effect).toBe('Allow');
        for (const action of actionsOf([st])) expect(action).not.toMatch(/\*/);
        expect(st.Resource).not.toBe('*');
      }
    }
  });

  it('gives the put handlers no S3 action at all', () => {
    expect(s3Statements('putHttp')).toEqual([]);
    expect(s3Statements('putSqs')).toEqual([]);
  });

  it('lets the put handlers buffer in the table and request flushes, nothing more', () => {
    for (const name of ['putHttp', 'putSqs'] as const) {
      const actions = actionsOf(statementsOf(s, name)).filter(
        (a) => a.startsWith('dynamodb:') || a === 'sqs:SendMessage',
      );
      expect(actions.sort()).toEqual([
        'dynamodb:DeleteItem',
        'dynamodb:GetItem',
        'dynamodb:PutItem',
        'dynamodb:Query',
        'dynamodb:UpdateItem',
        'sqs:SendMessage',
      ]);
    }
    const sends = statementsOf(s, 'putHttp').filter((st) =>
      actionsOf([st]).includes('sqs:SendMessage'),
    );
    expect(sends.map((st) => st.Resource)).toEqual([
      { 'Fn::GetAtt': [logicalIdOf(s.stack.queues.flush), 'Arn'] },
    ]);
  });

  it('gives the status handler reads only', () => {
    const actions = actionsOf(statementsOf(s, 'statusHttp')).filter((a) => !a.startsWith('logs:'));
    expect(actions.sort()).toEqual(['dynamodb:GetItem', 'dynamodb:Query']);
  });

  it('lets the flushers read and create-if-absent WAL objects and list the bucket, nothing else on S3', () => {
    for (const name of ['flushTick', 'flushWorker'] as const) {
      const granted = byAction(s3Statements(name));
      expect(Object.keys(granted).sort()).toEqual([
        's3:GetObject',
        's3:ListBucket',
        's3:PutObject',
      ]);
      expect(granted['s3:GetObject']).toEqual({
        resource: objects('shards/*/wal/*'),
        condition: undefined,
      });
      expect(granted['s3:PutObject']).toEqual({
        resource: objects('shards/*/wal/*'),
        condition: { Null: { 's3:if-none-match': 'false' } },
      });
      expect(granted['s3:ListBucket']).toEqual({ resource: bucketArn(), condition: undefined });
    }
  });

  it('lets only the flushers write WAL objects, only export write exports, only export delete', () => {
    expect(holders('s3:PutObject')).toEqual(['export', 'flushTick', 'flushWorker']);
    expect(byAction(s3Statements('export'))['s3:PutObject']).toEqual({
      resource: objects('shards/*/aof/*'),
      condition: { Null: { 's3:if-none-match': 'false' } },
    });
    expect(holders('s3:DeleteObject')).toEqual(['export']);
    expect(byAction(s3Statements('export'))['s3:DeleteObject']?.resource).toEqual(
      objects('shards/*/wal/*'),
    );
  });

  it('lets recovery read every shard object and write none', () => {
    const granted = byAction(s3Statements('recover'));
    expect(Object.keys(granted).sort()).toEqual(['s3:GetObject', 's3:ListBucket']);
    expect(granted['s3:GetObject']?.resource).toEqual(objects('shards/*'));
  });

  it('lets only the flushers query the pending index', () => {
    const indexArn = {
      'Fn::Join': [
        '',
        [{ 'Fn::GetAtt': [logicalIdOf(s.stack.storage.table), 'Arn'] }, '/index/pending'],
      ],
    };
    const queriers = ALL.filter((name) =>
      statementsOf(s, name).some((st) => JSON.stringify(st.Resource) === JSON.stringify(indexArn)),
    );
    expect(queriers.sort()).toEqual(['flushTick', 'flushWorker']);
  });

  it('lets only the put handlers and the tick send flush requests', () => {
    expect(holders('sqs:SendMessage')).toEqual(['flushTick', 'putHttp', 'putSqs']);
  });

  it('lets each function write only its own log group', () => {
    for (const name of ALL) {
      const logs = statementsOf(s, name).filter((st) =>
        actionsOf([st]).some((a) => a.startsWith('logs:')),
      );
      expect(logs).toHaveLength(1);
      expect(actionsOf(logs).sort()).toEqual(['logs:CreateLogStream', 'logs:PutLogEvents']);
      const fn = s.template.toJSON().Resources[logicalIdOf(s.stack.functions.byName[name])];
      expect(logs[0]!.Resource).toEqual({
        'Fn::GetAtt': [fn.Properties.LoggingConfig.LogGroup.Ref, 'Arn'],
      });
    }
  });
});

describe('ProducerPolicy', () => {
  it('allows sending to the ingest queue and invoking exactly the three routes', () => {
    const [policy] = Object.values(s.template.findResources('AWS::IAM::ManagedPolicy'));
    const statements = policy!.Properties.PolicyDocument.Statement as Statement[];
    expect(actionsOf(statements).sort()).toEqual(['execute-api:Invoke', 'sqs:SendMessage']);
    const invoke = statements.find((st) => actionsOf([st]).includes('execute-api:Invoke'))!;
    const arns = JSON.stringify(invoke.Resource);
    for (const route of [
      '/$default/POST/v1/shards/*/rows',
      '/$default/GET/v1/shards/*"',
      '/$default/GET/v1/shards/*/seqs/*',
    ]) {
      expect(arns).toContain(route);
    }
    expect((invoke.Resource as unknown[]).length).toBe(3);
  });
});
