/**
 * The app's one mapping of its CDK context onto `ShardwalService`'s typed
 * props: validated as context (errors name the context key), handed over
 * typed, and what was not set stays unset.
 */
import { App, Stack } from 'aws-cdk-lib';
import { describe, expect, it } from 'vitest';
import { propsFromContext } from '../../infra/context-props.js';
import { ContextError } from '../../infra/context-values.js';

const propsOf = (context: Record<string, unknown>) =>
  propsFromContext(new Stack(new App({ context }), 'S'));

describe('propsFromContext', () => {
  it('hands over only the keys that were set, typed, with the default stage', () => {
    expect(propsOf({ flushIntervalMs: '10000' })).toEqual({
      stage: 'default',
      flushIntervalMs: 10_000,
    });
  });

  it('reads on/off as booleans, lists as arrays, the JWT keys as one authorizer', () => {
    const props = propsOf({
      stage: 'staging',
      reservedConcurrency: 'off',
      durablePuts: 'on',
      spillBytes: 'off',
      logLevel: 'debug',
      producerAccounts: '111122223333, 444455556666',
      authorizer: 'jwt',
      jwtIssuer: 'https://idp.example.com',
      jwtAudience: 'a,b',
      ingestFifoMaxConcurrency: '5',
    });
    expect(props).toEqual({
      stage: 'staging',
      reservedConcurrency: false,
      durablePuts: true,
      spillBytes: 'off',
      logLevel: 'DEBUG',
      producerAccounts: ['111122223333', '444455556666'],
      authorizer: { kind: 'jwt', issuer: 'https://idp.example.com', audience: ['a', 'b'] },
      ingestFifoMaxConcurrency: 5,
    });
  });

  it('turns capacity ranges into { min, max } and the table keys into the tables prop', () => {
    const props = propsOf({
      capacityMode: 'provisioned',
      tableWriteCapacity: '20-300',
      tables: '*',
      tableCommitMs: 90_000,
    });
    expect(props.capacityMode).toBe('provisioned');
    expect(props.capacity?.table?.write).toEqual({ min: 20, max: 300 });
    expect(props.capacity?.registryIndex?.read).toEqual({ min: 1, max: 100 });
    expect(props.tables).toEqual({ routes: '*', commitMs: 90_000 });
  });

  it('turns the Glue keys into tables.catalog and tables.glueDatabase', () => {
    const props = propsOf({ tables: 'a=a', tableCatalog: 'glue', tableGlueDatabase: 'events' });
    expect(props.tables).toEqual({ routes: 'a=a', catalog: 'glue', glueDatabase: 'events' });
  });

  it('makes an alarm topic ARN the alarmTopic prop', () => {
    const arn = 'arn:aws:sns:eu-west-1:111122223333:pager';
    expect(propsOf({ alarmTopicArn: arn }).alarmTopic?.topicArn).toBe(arn);
  });

  it('refuses a bad value naming the context key, before any prop exists', () => {
    expect(() => propsOf({ reservedConcurrency: 'no' })).toThrow(ContextError);
    expect(() => propsOf({ tableWriteCapacity: '5-1' })).toThrow(/^cdk context tableWriteCapacity/);
  });
});
