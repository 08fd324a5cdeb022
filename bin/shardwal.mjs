#!/usr/bin/env node
// The shardwal CLI. Runs the TypeScript sources through tsx, so `npx shardwal`
// and `npm start` work from a fresh checkout with no build step.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
// The logger and metrics read these when first loaded: set them before anything loads.
process.env.POWERTOOLS_METRICS_DISABLED ??= 'true';
process.env.POWERTOOLS_LOG_LEVEL =
  process.env.SHARDWAL_LOG_LEVEL || process.env.POWERTOOLS_LOG_LEVEL || 'WARN';

const { register } = await import('tsx/esm/api');
register();
const { main } = await import('../lib/cli/main.ts');
await main();
