import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../lib/errors.js';
import { CATALOG_ENV, catalogConfigFromEnv } from '../../lib/table/catalog-config.js';

const env = (catalog?: string, database?: string) => ({
  ...(catalog === undefined ? {} : { [CATALOG_ENV.catalog]: catalog }),
  ...(database === undefined ? {} : { [CATALOG_ENV.glueDatabase]: database }),
});

describe('catalogConfigFromEnv', () => {
  it('is path-based (undefined) when unset or path', () => {
    expect(catalogConfigFromEnv(env())).toBeUndefined();
    expect(catalogConfigFromEnv(env('path'))).toBeUndefined();
  });

  it('reads glue with its database', () => {
    expect(catalogConfigFromEnv(env('glue', 'shardwal_prod'))).toEqual({
      kind: 'glue',
      database: 'shardwal_prod',
    });
  });

  it('refuses glue without a database, naming the setting', () => {
    expect(() => catalogConfigFromEnv(env('glue'))).toThrow(
      new ConfigError(CATALOG_ENV.glueDatabase, '', 'the Glue database is required with glue'),
    );
  });

  it('refuses a database Glue would not keep as written', () => {
    expect(() => catalogConfigFromEnv(env('glue', 'Shard-DB'))).toThrow(ConfigError);
  });

  it('refuses an unknown catalog and a database without glue', () => {
    expect(() => catalogConfigFromEnv(env('hive'))).toThrow(/expected path or glue/);
    expect(() => catalogConfigFromEnv(env(undefined, 'db'))).toThrow(/set only with/);
  });
});
