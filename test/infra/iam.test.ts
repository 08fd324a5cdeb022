import { beforeAll, describe, expect, it } from 'vitest';
import type { HandlerName } from '../../infra/constructs/functions.js';
import { logicalIdOf } from '../../infra/constructs/nag.js';
import {
  actionsOf,
  DEFAULT_HANDLERS,
  functionOf,
  type Statement,
  type Synthesized,
  statementsOf,
  synth,
} from './support.js';

let s: Synthesized;
/** The same stack with spilling off: the put handlers lose their spill grants; readers keep theirs. */
let unspilled: Synthesized;
beforeAll(() => {
  s = synth();
  unspilled = synth({ spillBytes: 'off' });
});

const ALL = DEFAULT_HANDLERS;
const s3Statements = (name: HandlerName) =>
  statementsOf(s, name).filter((st) => actionsOf([st]).some((a) => a.startsWith('s3:')));
const bucketArn = () => ({ 'Fn::GetAtt': [logicalIdOf(s.service.storage.bucket), 'Arn'] });
const objects = (pattern: string) => ({ 'Fn::Join': ['', [bucketArn(), `/${pattern}`]] });
const holders = (action: string) =>
  ALL.filter((name) => actionsOf(statementsOf(s, name)).includes(action)).sort();
/** Resources in a fixed order: the CDK sorts a statement's resources (minimizePolicies). */
const sorted = (resources: unknown) =>
  (Array.isArray(resources) ? resources : [resources]).map((r) => JSON.stringify(r)).sort();
const WAL = 'shards/*/wal/*';
const SPILL = 'spill/*';
const EXPORT_WRITTEN = ['manifest', 'seg', 'snap'].map((kind) => `shards/*/${kind}/*`);
const EXPORT_KINDS = [WAL, 'shards/*/aof/*', ...EXPORT_WRITTEN];
const IF_NONE_MATCH = JSON.stringify({ Null: { 's3:if-none-match': 'false' } });
const PARTS_ONLY = JSON.stringify({ Bool: { 's3:ObjectCreationOperation': 'false' } });

/**
 * Every S3 grant of handler `name` in `x`, one line per action and resource:
 * `<action> <key pattern or "bucket"> [<condition>]`, sorted. Comparing the
 * whole list catches a grant widened (a new action, kind or missing
 * condition) as well as one removed.
 */
function s3GrantsOf(x: Synthesized, name: HandlerName): string[] {
  const bucket = JSON.stringify({ 'Fn::GetAtt': [logicalIdOf(x.service.storage.bucket), 'Arn'] });
  const render = (resource: unknown): string => {
    if (JSON.stringify(resource) === bucket) return 'bucket';
    const join = (resource as { 'Fn::Join'?: [string, unknown[]] })['Fn::Join'];
    const [head, tail] = join?.[1] ?? [];
    if (JSON.stringify(head) === bucket && typeof tail === 'string') return tail.slice(1);
    return JSON.stringify(resource);
  };
  return statementsOf(x, name)
    .flatMap((st) =>
      actionsOf([st])
        .filter((action) => action.startsWith('s3:'))
        .flatMap((action) =>
          (Array.isArray(st.Resource) ? st.Resource : [st.Resource]).map((resource) =>
            [
              action,
              render(resource),
              ...(st.Condition ? [JSON.stringify(st.Condition)] : []),
            ].join(' '),
          ),
        ),
    )
    .sort();
}

const byAction = (statements: Statement[]) =>
  Object.fromEntries(
    statements.flatMap((st) =>
      actionsOf([st]).map((a) => [a, { resource: st.Resource, condition: st.Condition }]),
    ),
  );

describe('grantLeastPrivilege', () => {
  it('attaches no managed policy to any function role', () => {
    for (const name of ALL) {
      const role = s.template.toJSON().Resources[logicalIdOf(functionOf(s, name).role!)];
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

  it('gives the put handlers no S3 action at all when spilling is off', () => {
    for (const name of ['putHttp', 'putSqs'] as const)
      expect(s3GrantsOf(unspilled, name)).toEqual([]);
  });

  it('gives the put handlers, when spilling, only: create-if-absent spill objects, read them, list', () => {
    expect(s.service.settings.service.spillBytes).toBeDefined();
    for (const name of ['putHttp', 'putSqs'] as const) {
      expect(s3GrantsOf(s, name)).toEqual(
        [
          `s3:GetObject ${SPILL}`,
          's3:ListBucket bucket',
          `s3:PutObject ${SPILL} ${IF_NONE_MATCH}`,
        ].sort(),
      );
    }
  });

  describe.each([
    ['spilling', () => s, true],
    ['spilling off', () => unspilled, false],
  ] as const)('S3 grants, %s', (_mode, stack, spilling) => {
    /** Grants only while puts spill; the flushers' and recovery's reads stay for batches spilled before. */
    const spill = (...grants: string[]) => (spilling ? grants : []);
    const expected: Record<(typeof ALL)[number], string[]> = {
      putHttp: spill(
        `s3:GetObject ${SPILL}`,
        's3:ListBucket bucket',
        `s3:PutObject ${SPILL} ${IF_NONE_MATCH}`,
      ),
      putSqs: spill(
        `s3:GetObject ${SPILL}`,
        's3:ListBucket bucket',
        `s3:PutObject ${SPILL} ${IF_NONE_MATCH}`,
      ),
      statusHttp: [`s3:GetObject ${WAL}`, 's3:ListBucket bucket'],
      flushTick: [
        `s3:GetObject ${WAL}`,
        `s3:GetObject ${SPILL}`,
        's3:ListBucket bucket',
        `s3:PutObject ${WAL} ${IF_NONE_MATCH}`,
      ],
      flushWorker: [
        `s3:GetObject ${WAL}`,
        `s3:GetObject ${SPILL}`,
        's3:ListBucket bucket',
        `s3:PutObject ${WAL} ${IF_NONE_MATCH}`,
      ],
      export: [
        ...EXPORT_KINDS.map((kind) => `s3:GetObject ${kind}`),
        ...EXPORT_KINDS.map((kind) => `s3:DeleteObject ${kind}`),
        ...EXPORT_WRITTEN.map((kind) => `s3:PutObject ${kind} ${IF_NONE_MATCH}`),
        ...EXPORT_WRITTEN.map((kind) => `s3:PutObject ${kind} ${PARTS_ONLY}`),
        ...EXPORT_WRITTEN.map((kind) => `s3:AbortMultipartUpload ${kind}`),
        's3:ListBucket bucket',
      ],
      recover: [
        ...EXPORT_KINDS.map((kind) => `s3:GetObject ${kind}`),
        `s3:GetObject ${SPILL}`,
        `s3:PutObject ${SPILL} ${IF_NONE_MATCH}`,
        's3:ListBucket bucket',
      ],
    };

    it.each(ALL)('grants %s exactly its S3 actions, on exactly its key kinds', (name) => {
      expect(s3GrantsOf(stack(), name)).toEqual([...expected[name]].sort());
    });
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
        'dynamodb:UpdateItem',
        'sqs:SendMessage',
      ]);
    }
    const sends = statementsOf(s, 'putHttp').filter((st) =>
      actionsOf([st]).includes('sqs:SendMessage'),
    );
    expect(sends.map((st) => st.Resource)).toEqual([
      { 'Fn::GetAtt': [logicalIdOf(s.service.queues.flush), 'Arn'] },
    ]);
  });

  it('gives the status handler reads only: items by key and WAL objects', () => {
    const actions = actionsOf(statementsOf(s, 'statusHttp')).filter((a) => !a.startsWith('logs:'));
    expect(actions.sort()).toEqual(['dynamodb:GetItem', 's3:GetObject', 's3:ListBucket']);
  });

  it('grants on the table only the DynamoDB actions each handler sends', () => {
    const tableArn = { 'Fn::GetAtt': [logicalIdOf(s.service.storage.table), 'Arn'] };
    const onTable = (name: HandlerName) =>
      actionsOf(
        statementsOf(s, name).filter(
          (st) => JSON.stringify(st.Resource) === JSON.stringify(tableArn),
        ),
      ).sort();
    expect(onTable('flushTick')).toEqual([
      'dynamodb:GetItem',
      'dynamodb:PutItem',
      'dynamodb:Query',
      'dynamodb:UpdateItem',
    ]);
    expect(onTable('flushWorker')).toEqual(onTable('flushTick'));
    expect(onTable('export')).toEqual([
      'dynamodb:GetItem',
      'dynamodb:PutItem',
      'dynamodb:Scan',
      'dynamodb:UpdateItem',
    ]);
    expect(onTable('recover')).toEqual([
      'dynamodb:BatchWriteItem',
      'dynamodb:GetItem',
      'dynamodb:PutItem',
      'dynamodb:Query',
      'dynamodb:Scan',
      'dynamodb:UpdateItem',
    ]);
    expect(holders('dynamodb:DeleteItem')).toEqual(['putHttp', 'putSqs']);
  });

  it('lets the flushers read and create-if-absent WAL objects, read spilled payloads and list the bucket, nothing else on S3', () => {
    for (const name of ['flushTick', 'flushWorker'] as const) {
      const granted = byAction(s3Statements(name));
      expect(Object.keys(granted).sort()).toEqual([
        's3:GetObject',
        's3:ListBucket',
        's3:PutObject',
      ]);
      expect(sorted(granted['s3:GetObject']?.resource)).toEqual(
        sorted([objects('shards/*/wal/*'), objects('spill/*')]),
      );
      expect(granted['s3:GetObject']?.condition).toBeUndefined();
      expect(granted['s3:PutObject']).toEqual({
        resource: objects('shards/*/wal/*'),
        condition: { Null: { 's3:if-none-match': 'false' } },
      });
      expect(granted['s3:ListBucket']).toEqual({ resource: bucketArn(), condition: undefined });
    }
  });

  it('lets only the flushers write WAL objects, only export write exports, only export delete', () => {
    const writers = (x: Synthesized, pattern: string) =>
      ALL.filter((name) =>
        s3GrantsOf(x, name).some((g) => g.startsWith(`s3:PutObject ${pattern} `)),
      ).sort();
    expect(writers(s, WAL)).toEqual(['flushTick', 'flushWorker']);
    for (const kind of EXPORT_WRITTEN) expect(writers(s, kind)).toEqual(['export']);
    expect(writers(s, SPILL)).toEqual(['putHttp', 'putSqs', 'recover']);
    expect(writers(unspilled, SPILL)).toEqual(['recover']); // verify's copies of batches spilled before
    expect(holders('s3:PutObject')).toEqual([
      'export',
      'flushTick',
      'flushWorker',
      'putHttp',
      'putSqs',
      'recover',
    ]);
    const written = ['manifest', 'seg', 'snap'].map((kind) => objects(`shards/*/${kind}/*`));
    const puts = s3Statements('export').filter((st) => actionsOf([st]).includes('s3:PutObject'));
    // Completions create-if-absent; the parts of a multipart upload, which create nothing, apart.
    expect(puts.map((st) => ({ resource: sorted(st.Resource), condition: st.Condition }))).toEqual([
      { resource: sorted(written), condition: { Null: { 's3:if-none-match': 'false' } } },
      { resource: sorted(written), condition: { Bool: { 's3:ObjectCreationOperation': 'false' } } },
    ]);
    expect(sorted(byAction(s3Statements('export'))['s3:AbortMultipartUpload']?.resource)).toEqual(
      sorted(written),
    );
    expect(holders('s3:DeleteObject')).toEqual(['export']);
    expect(sorted(byAction(s3Statements('export'))['s3:DeleteObject']?.resource)).toEqual(
      sorted([objects('shards/*/wal/*'), objects('shards/*/aof/*'), ...written]),
    );
  });

  it('lets export and recovery read WAL objects and exports of every kind, recovery spilled payloads too, nothing else of the bucket', () => {
    const exports = ['wal', 'aof', 'manifest', 'seg', 'snap'].map((kind) =>
      objects(`shards/*/${kind}/*`),
    );
    const readBy = (name: HandlerName) => byAction(s3Statements(name))['s3:GetObject']?.resource;
    expect(sorted(readBy('export'))).toEqual(sorted(exports));
    expect(sorted(readBy('recover'))).toEqual(sorted([...exports, objects('spill/*')]));
  });

  it('lets recovery read and list, and create only spill objects, create-if-absent', () => {
    const granted = byAction(s3Statements('recover'));
    expect(Object.keys(granted).sort()).toEqual(['s3:GetObject', 's3:ListBucket', 's3:PutObject']);
    expect(granted['s3:PutObject']).toEqual({
      resource: objects('spill/*'),
      condition: { Null: { 's3:if-none-match': 'false' } },
    });
  });

  it('lets nobody delete a spilled payload (the lifecycle rule expires them)', () => {
    for (const x of [s, unspilled]) {
      for (const name of ALL) {
        expect(s3GrantsOf(x, name).filter((g) => g.startsWith(`s3:DeleteObject ${SPILL}`))).toEqual(
          [],
        );
      }
    }
  });

  it('lets only the flushers query the pending index', () => {
    const indexArn = {
      'Fn::Join': [
        '',
        [{ 'Fn::GetAtt': [logicalIdOf(s.service.storage.table), 'Arn'] }, '/index/pending'],
      ],
    };
    const queriers = ALL.filter((name) =>
      statementsOf(s, name).some((st) => JSON.stringify(st.Resource) === JSON.stringify(indexArn)),
    );
    expect(queriers.sort()).toEqual(['flushTick', 'flushWorker']);
  });

  it('lets only export and recovery query the registry index', () => {
    const indexArn = {
      'Fn::Join': [
        '',
        [{ 'Fn::GetAtt': [logicalIdOf(s.service.storage.table), 'Arn'] }, '/index/registry'],
      ],
    };
    const queriers = ALL.filter((name) =>
      statementsOf(s, name).some(
        (st) =>
          JSON.stringify(st.Resource) === JSON.stringify(indexArn) &&
          actionsOf([st]).includes('dynamodb:Query'),
      ),
    );
    expect(queriers.sort()).toEqual(['export', 'recover']);
  });

  it('lets only the put handlers and the tick send flush requests', () => {
    expect(sendersTo(s.service.queues.flush)).toEqual(['flushTick', 'putHttp', 'putSqs']);
  });

  it('lets only put-sqs send to the ingest dead-letter queues (its permanent refusals)', () => {
    expect(sendersTo(s.service.queues.ingestDlq!)).toEqual(['putSqs']);
    expect(sendersTo(s.service.queues.ingestFifoDlq!)).toEqual(['putSqs']);
    expect(sendersTo(s.service.queues.ingest!)).toEqual([]);
  });

  it('lets only the scheduled functions report their failures to the failures queue', () => {
    expect(sendersTo(s.service.queues.failures)).toEqual(['export', 'flushTick', 'recover']);
  });

  it('lets each function write only its own log group', () => {
    for (const name of ALL) {
      const logs = statementsOf(s, name).filter((st) =>
        actionsOf([st]).some((a) => a.startsWith('logs:')),
      );
      expect(logs).toHaveLength(1);
      expect(actionsOf(logs).sort()).toEqual(['logs:CreateLogStream', 'logs:PutLogEvents']);
      const fn = s.template.toJSON().Resources[logicalIdOf(functionOf(s, name))];
      expect(logs[0]!.Resource).toEqual({
        'Fn::GetAtt': [fn.Properties.LoggingConfig.LogGroup.Ref, 'Arn'],
      });
    }
  });
});

const sendersTo = (queue: Parameters<typeof logicalIdOf>[0]) =>
  ALL.filter((name) =>
    statementsOf(s, name).some((st) => {
      const arn = JSON.stringify({ 'Fn::GetAtt': [logicalIdOf(queue), 'Arn'] });
      // One statement may name several queues (CDK merges statements of one action).
      const resources = Array.isArray(st.Resource) ? st.Resource : [st.Resource];
      return (
        actionsOf([st]).includes('sqs:SendMessage') &&
        resources.some((resource: unknown) => JSON.stringify(resource) === arn)
      );
    }),
  ).sort();

describe('ProducerPolicy', () => {
  it('creates no producer role unless producer accounts are given', () => {
    expect(s.service.producers.role).toBeUndefined();
  });

  it('lets the producer accounts assume a role carrying the producer policy, nothing else', () => {
    const x = synth({ producerAccounts: '111122223333,444455556666' });
    const role = x.template.toJSON().Resources[logicalIdOf(x.service.producers.role!)];
    const principals = JSON.stringify(role.Properties.AssumeRolePolicyDocument);
    expect(principals).toContain(':iam::111122223333:root');
    expect(principals).toContain(':iam::444455556666:root');
    expect(role.Properties.ManagedPolicyArns).toEqual([
      { Ref: logicalIdOf(x.service.producers.policy!) },
    ]);
    expect(role.Properties.Policies).toBeUndefined();
    expect(x.template.toJSON().Outputs.ProducerRoleArn).toBeDefined();
  });

  it('allows sending to the ingest queues, reading their size limit, and invoking exactly the three routes', () => {
    const policy = s.template.toJSON().Resources[logicalIdOf(s.service.producers.policy!)];
    const statements = policy!.Properties.PolicyDocument.Statement as Statement[];
    expect(actionsOf(statements).sort()).toEqual([
      'execute-api:Invoke',
      'sqs:GetQueueAttributes',
      'sqs:SendMessage',
    ]);
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
