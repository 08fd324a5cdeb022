/** CDK entry point (`cdk.json` runs it with tsx). */
import { ConfigError } from '../lib/errors.js';
import { ContextError } from './settings.js';
import { createShardwalApp } from './shardwal-app.js';

try {
  createShardwalApp();
} catch (error) {
  // A bad setting is the user's to fix: say which and why, without a stack trace.
  if (!(error instanceof ConfigError || error instanceof ContextError)) throw error;
  console.error(`${error.name}: ${error.message}`);
  process.exitCode = 1;
}
