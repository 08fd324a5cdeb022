/**
 * Log lines the benchmark cannot capture because AWS writes them, not the
 * handlers: Lambda's platform lines per invocation (none when the function's
 * system log level is above INFO, as the stack sets it) and the HTTP API's access-log line
 * per request (the stage's format, from the template). Their bytes are
 * modelled from representative values, stated here.
 */

const REQUEST_ID = '3f8b0c1e-5d2a-4c4b-9d1e-2a7f6b9c0d11';

/** Levels at which Lambda writes no START, END or REPORT record (they are INFO records). */
const QUIET_SYSTEM_LEVELS = new Set(['WARN', 'ERROR', 'FATAL']);

/**
 * Bytes of START, END and REPORT for one warm invocation of a function of
 * `memoryMb` (text format); 0 when its system log level drops them.
 */
export function platformLogBytes(memoryMb: number, systemLogLevel?: string): number {
  if (systemLogLevel !== undefined && QUIET_SYSTEM_LEVELS.has(systemLogLevel.toUpperCase())) {
    return 0;
  }
  const lines = [
    `START RequestId: ${REQUEST_ID} Version: $LATEST`,
    `END RequestId: ${REQUEST_ID}`,
    `REPORT RequestId: ${REQUEST_ID}\tDuration: 23.45 ms\tBilled Duration: 24 ms\tMemory Size: ${memoryMb} MB\tMax Memory Used: 118 MB\t`,
  ];
  return lines.reduce((sum, line) => sum + Buffer.byteLength(`${line}\n`), 0);
}

/** Representative values of the `$context` variables an access-log format may name. */
const ACCESS_LOG_VALUES: Record<string, string> = {
  '$context.requestId': 'Ab1CdEfGhIjKlMn=',
  '$context.requestTime': '01/Dec/2026:00:00:00 +0000',
  '$context.requestTimeEpoch': '1796083200000',
  '$context.httpMethod': 'POST',
  '$context.path': '/v1/shards/orders/rows',
  '$context.identity.sourceIp': '203.0.113.10',
  '$context.identity.caller': 'AROAEXAMPLEROLEID12:producer-session',
  '$context.identity.userArn':
    'arn:aws:sts::123456789012:assumed-role/shardwal-producer/producer-session',
  '$context.authorizer.claims.sub': '-',
  '$context.routeKey': 'POST /v1/shards/{shard}/rows',
  '$context.status': '202',
  '$context.responseLength': '52',
  '$context.responseLatency': '27',
  '$context.integrationLatency': '25',
  '$context.integrationErrorMessage': '-',
  '$context.authorizer.error': '-',
};

/** Bytes of one access-log line of `format` for a successful put (unknown variables print `-`). */
export function accessLogBytes(format: string | undefined): number {
  if (!format) return 0;
  const line = format.replace(
    /\$context\.[A-Za-z0-9_.]+/g,
    (name) => ACCESS_LOG_VALUES[name] ?? '-',
  );
  return Buffer.byteLength(`${line}\n`);
}
