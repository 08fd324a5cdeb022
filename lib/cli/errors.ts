/** Errors of the CLI itself. */
import { ErrorKind, ShardwalError } from '../errors.js';

/** A command line that cannot run as typed (exit code 2). */
export class UsageError extends ShardwalError {
  constructor(message: string) {
    super(ErrorKind.invalidInput, message);
    this.name = 'UsageError';
  }
}
