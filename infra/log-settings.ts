/**
 * The deployed functions' log level (`logLevel` context key). Lambda's
 * advanced logging controls filter what the functions write
 * (`constructs/functions.ts`), and two facts bound the level:
 *
 * - Lambda files a JSON line without a `level` field as INFO, and the EMF
 *   metric documents Powertools writes have none. Above INFO, Lambda would
 *   drop every metric, and every alarm built on one would go quiet. So the
 *   level is at most INFO; what makes the logs small is that nothing logs
 *   at INFO per put (the per-put line is DEBUG) and that system level WARN
 *   drops Lambda's START/END/REPORT lines.
 * - With a level set, Lambda sets `AWS_LAMBDA_LOG_LEVEL`, which Powertools'
 *   logger obeys over `POWERTOOLS_LOG_LEVEL` and over debug sampling
 *   (`POWERTOOLS_LOGGER_SAMPLE_RATE` would raise it to DEBUG, Lambda would
 *   drop the lines). So sampling is not offered: `logLevel=DEBUG` is the way
 *   to see the per-put lines, for every invocation while it is set.
 *
 * The names are the local stack's (`SHARDWAL_LOG_LEVEL`, `lib/local/local-settings.ts`).
 */
import { ContextError, type ContextReader, isSet } from './context-values.js';

/** Context key of the level. */
export const LOG_LEVEL_CONTEXT = 'logLevel';

/** Levels a deployed function may log at: INFO or more detail (see above). */
const DEPLOY_LOG_LEVELS = ['TRACE', 'DEBUG', 'INFO'] as const;
export type DeployLogLevel = (typeof DEPLOY_LOG_LEVELS)[number];

/** The level when none is set: operational lines (ticks, flushes, jobs), warnings and errors. */
const DEFAULT_DEPLOY_LOG_LEVEL: DeployLogLevel = 'INFO';

/** Levels above INFO: refused, with the reason. */
const ABOVE_INFO: readonly string[] = ['WARN', 'ERROR', 'CRITICAL', 'FATAL', 'SILENT'];

const ABOVE_INFO_REASON =
  'above INFO, Lambda drops the EMF metric lines (it files a line without a level as INFO) and the alarms on them go quiet';

/** The validated level; throws `ContextError` naming `logLevel`. */
export function logLevelFrom(get: ContextReader): DeployLogLevel {
  const raw = get(LOG_LEVEL_CONTEXT);
  if (!isSet(raw)) return DEFAULT_DEPLOY_LOG_LEVEL;
  const level = typeof raw === 'string' ? raw.trim().toUpperCase() : '';
  const known = DEPLOY_LOG_LEVELS.find((candidate) => candidate === level);
  if (known) return known;
  const why = ABOVE_INFO.includes(level) ? `; ${ABOVE_INFO_REASON}` : '';
  throw new ContextError(
    LOG_LEVEL_CONTEXT,
    raw,
    `expected one of ${DEPLOY_LOG_LEVELS.join(', ')}${why}`,
  );
}
