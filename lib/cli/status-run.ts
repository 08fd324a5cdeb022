/** `shardwal status`: what runs (the declaration, with its help, is `status-command.ts`). */
import { seqStatus, shardStatus } from '../http/status-route.js';
import { booleanOption, type CliIo, type CommandInput } from './command.js';
import { seqArgument } from './integer-argument.js';
import { writeText } from './output.js';
import { shardArgument } from './shard-argument.js';
import { openTarget, requireTable } from './target.js';

/** Runs `shardwal status` (declared in `status-command.ts`). */
export async function runStatus(input: CommandInput, io: CliIo): Promise<number | undefined> {
  const shard = shardArgument(input);
  const seqText = input.args[1];
  const seq = seqText === undefined ? undefined : seqArgument('<seq>', seqText);
  const target = await openTarget(input, io);
  try {
    const table = requireTable(target, 'status');
    const status =
      seq === undefined
        ? await shardStatus(table, shard)
        : await seqStatus(table, shard, seq, target.store);
    const text = booleanOption(input, 'json')
      ? JSON.stringify(status)
      : JSON.stringify(status, null, 2);
    await writeText(io.stdout, `${text}\n`);
  } finally {
    await target.close();
  }
  return 0;
}
