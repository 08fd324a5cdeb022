/**
 * Options several commands share, declared apart from the code that reads
 * them so a command's declaration (and `--help`) loads none of that code.
 */
import { LOCAL_SETTINGS } from '../local/local-settings.js';
import type { CliOption } from './command.js';

/** The options that choose a target. */
export const TARGET_OPTIONS = {
  'data-dir': {
    type: 'string',
    value: '<dir>',
    description: `local data folder (default: $${LOCAL_SETTINGS.dataDir.env} or ${LOCAL_SETTINGS.dataDir.default})`,
  },
  table: {
    type: 'string',
    value: '<name>',
    description: 'use the DynamoDB table <name> in AWS instead of the local data folder',
  },
  bucket: {
    type: 'string',
    value: '<name>',
    description: 'use the S3 bucket <name> in AWS instead of the local data folder',
  },
} as const satisfies Record<string, CliOption>;

/** The options every job command takes besides the target's. */
export const REPORT_OPTIONS = {
  json: { type: 'boolean', description: 'print the report as JSON (default: readable text)' },
  progress: {
    type: 'boolean',
    description: 'show progress on stderr when it is not a terminal (a terminal always shows it)',
  },
} as const satisfies Record<string, CliOption>;
