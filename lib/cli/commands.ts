/**
 * The command table. Adding a command is its declaration and its code (see
 * `command.ts`) and one line here; help, option parsing and exit codes
 * come from the declaration.
 */
import type { CliCommand } from './command.js';
import { dumpCommand } from './dump-command.js';
import { exportCommand } from './export-command.js';
import { helpCommand } from './help-command.js';
import { putCommand } from './put-command.js';
import { recoverCommand } from './recover-command.js';
import { startCommand } from './start-command.js';
import { statusCommand } from './status-command.js';
import { tableCommand } from './table-command.js';
import { tailCommand } from './tail-command.js';

/** Every command, in the order `shardwal help` lists them. */
export const COMMANDS: readonly CliCommand[] = [
  startCommand,
  statusCommand,
  putCommand,
  dumpCommand,
  tailCommand,
  exportCommand,
  recoverCommand,
  tableCommand,
  helpCommand(() => COMMANDS),
];
