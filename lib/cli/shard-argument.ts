/** The `<shard>` argument, validated like the API validates it. */
import { InvalidInputError } from '../errors.js';
import { assertShardName } from '../paths.js';
import type { CommandInput } from './command.js';
import { UsageError } from './errors.js';

/** The first positional argument as a shard name; a bad name is a usage error. */
export function shardArgument(input: CommandInput): string {
  const shard = input.args[0];
  try {
    assertShardName(shard);
  } catch (error) {
    if (error instanceof InvalidInputError) throw new UsageError(error.message);
    throw error;
  }
  return shard;
}
