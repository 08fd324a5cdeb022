/** Turns a failed `listen` into an error naming the setting that chose the port. */
import { ConfigError } from '../errors.js';

/** Where a port came from when no setting of its own named it: `PORT` plus an offset. */
export interface DerivedPort {
  /** The setting the port derives from (`PORT`) and its value. */
  from: string;
  base: number;
  offset: number;
  /** What listens there, for the message (`DynamoDB`, `SQS`). */
  role: string;
}

/**
 * A `ConfigError` for a port already taken (or not allowed); other errors
 * pass through. A port derived from `PORT` names `PORT`, the setting the
 * user chose, rather than the override they never set.
 */
export function listenError(
  setting: string,
  port: number,
  error: unknown,
  derived?: DerivedPort,
): unknown {
  // A Node listen error carries its code; dynalite's thread reports it in the message only.
  const code =
    (error as NodeJS.ErrnoException | undefined)?.code ??
    /\b(EADDRINUSE|EACCES)\b/.exec(error instanceof Error ? error.message : '')?.[1];
  const problem =
    code === 'EADDRINUSE'
      ? 'address already in use on 127.0.0.1; pick another port'
      : code === 'EACCES'
        ? 'permission denied; pick a port above 1023'
        : undefined;
  if (problem === undefined) return error;
  if (derived === undefined) return new ConfigError(setting, port, problem);
  return new ConfigError(
    derived.from,
    derived.base,
    `${derived.role} listens on ${derived.from} + ${derived.offset} = ${port}: ${problem} (another ${derived.from}, or ${setting} for ${derived.role} alone)`,
  );
}
