/** Turns a failed `listen` into an error naming the setting that chose the port. */
import { ConfigError } from '../errors.js';

/** A `ConfigError` for a port already taken; other errors pass through. */
export function listenError(setting: string, port: number, error: unknown): unknown {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  if (code === 'EADDRINUSE') {
    return new ConfigError(setting, port, 'address already in use on 127.0.0.1; pick another port');
  }
  if (code === 'EACCES') {
    return new ConfigError(setting, port, 'permission denied; pick a port above 1023');
  }
  return error;
}
