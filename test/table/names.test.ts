import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../lib/errors.js';
import {
  defaultTableName,
  groupShardsByTable,
  parseTableRoutes,
  tableOfShard,
} from '../../lib/table/names.js';
import { tablesConfigFromEnv } from '../../lib/table/table-config.js';

describe('tableOfShard', () => {
  it('routes by the first matching pattern, and names a shard own table by turning - into _', () => {
    const routes = parseTableRoutes('clicks-*=clicks, orders=orders_v1, *');
    expect(tableOfShard(routes, 'clicks-7')).toBe('clicks');
    expect(tableOfShard(routes, 'orders')).toBe('orders_v1');
    expect(tableOfShard(routes, 'eu-payments')).toBe('eu_payments');
    expect(defaultTableName('a-b-c')).toBe('a_b_c');
    expect(groupShardsByTable(routes, ['clicks-1', 'clicks-0', 'x'])).toEqual(
      new Map([
        ['clicks', ['clicks-0', 'clicks-1']],
        ['x', ['x']],
      ]),
    );
  });

  it('gives no table to a shard no entry matches', () => {
    expect(tableOfShard(parseTableRoutes('clicks-*=clicks'), 'orders')).toBeUndefined();
  });
});

describe('tablesConfigFromEnv', () => {
  it('is off when SHARDWAL_TABLES is unset', () => {
    expect(tablesConfigFromEnv({})).toBeUndefined();
  });

  it('refuses, naming the setting, table names Glue would refuse, bad columns and a bad commit interval', () => {
    expect(() => tablesConfigFromEnv({ SHARDWAL_TABLES: 'a=Bad-Name' })).toThrow(ConfigError);
    expect(() =>
      tablesConfigFromEnv({
        SHARDWAL_TABLES: '*',
        SHARDWAL_TABLE_SCHEMAS: '{"t":{"columns":{"row":"string"}}}',
      }),
    ).toThrow(/fixed column/);
    expect(() =>
      tablesConfigFromEnv({
        SHARDWAL_TABLES: '*',
        SHARDWAL_TABLE_SCHEMAS: '{"t":{"columns":{"x":"int"}}}',
      }),
    ).toThrow(/SHARDWAL_TABLE_SCHEMAS/);
    expect(() =>
      tablesConfigFromEnv({ SHARDWAL_TABLES: '*', SHARDWAL_TABLE_COMMIT_MS: '0' }),
    ).toThrow(/SHARDWAL_TABLE_COMMIT_MS/);
  });

  it('reads declared columns, partitioning and the 60 s commit default', () => {
    const config = tablesConfigFromEnv({
      SHARDWAL_TABLES: '*',
      SHARDWAL_TABLE_SCHEMAS:
        '{"t":{"partition":"hour","columns":{"amount":"decimal(12, 2)","at":"timestamptz"}}}',
    })!;
    expect(config.commitMs).toBe(60_000);
    expect(config.options.get('t')).toEqual({
      partition: 'hour',
      columns: [
        { name: 'amount', type: 'decimal(12,2)' },
        { name: 'at', type: 'timestamptz' },
      ],
    });
  });
});
