/** Errors of the CLI itself. */
import { ErrorKind, ShardwalError } from '../errors.js';

/** A command line that cannot run as typed (exit code 2). */
export class UsageError extends ShardwalError {
  constructor(message: string) {
    super(ErrorKind.invalidInput, message);
    this.name = 'UsageError';
  }
}

/** What a file system error code means to the person who typed the path. */
const FILE_SYSTEM_REASONS: Readonly<Record<string, string>> = {
  ENOENT: 'no such file or directory',
  ENOTDIR: 'a part of the path is not a directory',
  EISDIR: 'is a directory',
  EACCES: 'permission denied',
  EPERM: 'permission denied',
  EROFS: 'read-only file system',
  ENOSPC: 'no space left on the device',
  ELOOP: 'too many symbolic links',
  ENAMETOOLONG: 'name too long',
};

/**
 * A file system error (a path the user gave, or one under it) as one line,
 * `<path>: <reason>`; undefined for anything else. Such an error is the
 * user's to fix, never a bug to show a stack for.
 */
export function fileSystemProblem(error: unknown): string | undefined {
  const { path } = (error ?? {}) as NodeJS.ErrnoException;
  const reason = fileSystemReason(error);
  if (reason === undefined || typeof path !== 'string') return undefined;
  return `${path}: ${reason}`;
}

/** The reason of a file system error, or undefined for anything else. */
export function fileSystemReason(error: unknown): string | undefined {
  const { code } = (error ?? {}) as NodeJS.ErrnoException;
  return code === undefined ? undefined : FILE_SYSTEM_REASONS[code];
}
