/** Usage lines and help text, generated from the command declarations. */
import type { CliCommand } from './command.js';

/** `shardwal <name> <args> [--option <value>] …` */
export function usageLine(command: CliCommand): string {
  const options = Object.entries(command.options).map(([name, option]) =>
    option.type === 'string' ? `[--${name} ${option.value ?? '<value>'}]` : `[--${name}]`,
  );
  return ['shardwal', command.name, ...command.args, ...options].join(' ');
}

/** Full help of one command; an option with a short form shows both (`-f, --follow`). */
export function commandHelp(command: CliCommand): string {
  const lines = [`usage: ${usageLine(command)}`, '', command.summary];
  if (command.description) lines.push('', command.description);
  const options = Object.entries(command.options);
  if (options.length > 0) {
    lines.push('', 'options:');
    const labels = options.map(([name, option]) => {
      const flag = option.short ? `-${option.short}, --${name}` : `--${name}`;
      return option.type === 'string' ? `${flag} ${option.value ?? '<value>'}` : flag;
    });
    const width = Math.max(...labels.map((label) => label.length));
    options.forEach(([, option], i) => {
      lines.push(`  ${labels[i]!.padEnd(width)}  ${option.description}`);
    });
  }
  return `${lines.join('\n')}\n`;
}

/** The command list. */
export function overallHelp(commands: readonly CliCommand[]): string {
  const width = Math.max(...commands.map((c) => c.name.length));
  return [
    'usage: shardwal <command> [arguments] [options]',
    '',
    'commands:',
    ...commands.map((c) => `  ${c.name.padEnd(width)}  ${c.summary}`),
    '',
    'Run `shardwal help <command>` (or `shardwal <command> --help`) for its options.',
    'Exit codes: 0 ok, 1 failure, 2 usage error.',
    '',
  ].join('\n');
}
