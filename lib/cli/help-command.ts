/** `shardwal help [command]`: the command list, or one command's help. */
import type { CliCommand } from './command.js';
import { UsageError } from './errors.js';
import { writeText } from './output.js';
import { commandHelp, overallHelp } from './usage.js';

/** The help command over `commands()` (a thunk: the table lists help itself). */
export function helpCommand(commands: () => readonly CliCommand[]): CliCommand {
  return {
    name: 'help',
    args: ['[command]'],
    summary: 'show the commands, or the options of one',
    options: {},
    async run(input, io) {
      const name = input.args[0];
      if (name === undefined) {
        await writeText(io.stdout, overallHelp(commands()));
        return 0;
      }
      const command = commands().find((c) => c.name === name);
      if (!command) throw new UsageError(`unknown command ${JSON.stringify(name)}`);
      await writeText(io.stdout, commandHelp(command));
      return 0;
    },
  };
}
