/**
 * `duckdb -c "<sql>"` for the docs test: the DuckDB engine (`@duckdb/node-api`,
 * the same engine as the DuckDB CLI) runs the SQL and prints the last
 * statement's rows, one per line, columns joined by `|`. The DuckDB CLI itself
 * is neither a Debian nor an npm package on these machines; this shim lets the
 * docs' one-command recipes run exactly as written.
 */
import { DuckDBInstance } from '@duckdb/node-api';

const at = process.argv.indexOf('-c');
const sql = at < 0 ? undefined : process.argv[at + 1];
if (sql === undefined) {
  process.stderr.write('duckdb (docs test shim): expected -c "<sql>"\n');
  process.exit(2);
}
const db = await DuckDBInstance.create(':memory:');
const connection = await db.connect();
const reader = await connection.runAndReadAll(sql);
for (const row of reader.getRows()) process.stdout.write(`${row.map(String).join('|')}\n`);
connection.closeSync();
