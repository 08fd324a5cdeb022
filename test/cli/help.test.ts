/**
 * The CLI's help and the README say the same things: every command is in
 * the README's CLI section, every setting a command's help names is in the
 * README's configuration, and every short option is shown in help.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { COMMANDS } from '../../lib/cli/commands.js';
import { commandHelp } from '../../lib/cli/usage.js';

const README = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
const cliSection = README.slice(
  README.indexOf('## CLI'),
  README.indexOf('\n## ', README.indexOf('## CLI') + 1),
);

describe('commandHelp', () => {
  it('shows the short form of every option that has one (tail -f)', () => {
    for (const command of COMMANDS) {
      for (const [name, option] of Object.entries(command.options)) {
        if (option.short) expect(commandHelp(command)).toContain(`-${option.short}, --${name}`);
      }
    }
    expect(commandHelp(COMMANDS.find((c) => c.name === 'tail')!)).toContain('-f, --follow');
  });

  it('names only settings the README documents', () => {
    for (const command of COMMANDS) {
      for (const setting of commandHelp(command).match(/SHARDWAL_[A-Z_]+/g) ?? []) {
        expect(README, `${command.name} --help names ${setting}`).toContain(`\`${setting}\``);
      }
    }
  });
});

describe('README CLI section', () => {
  it('lists every command', () => {
    for (const command of COMMANDS) {
      expect(cliSection, command.name).toContain(`npx shardwal ${command.name}`);
    }
  });
});
