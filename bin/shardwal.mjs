#!/usr/bin/env node
// The shardwal CLI. Installed from the package, it runs the compiled bundle
// (`dist/cli/`, built by `npm run build`). In a checkout of the repository
// (the TypeScript sources are beside it) it runs the sources through tsx, so
// `npx shardwal` and `npm start` always run the code as it is, with no build step.
import { existsSync } from 'node:fs';

process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
// The logger and metrics read these when first loaded: set them before anything loads.
process.env.POWERTOOLS_METRICS_DISABLED ??= 'true';
process.env.POWERTOOLS_LOG_LEVEL =
  process.env.SHARDWAL_LOG_LEVEL || process.env.POWERTOOLS_LOG_LEVEL || 'WARN';

const sources = new URL('../lib/cli/main.ts', import.meta.url);
if (existsSync(sources)) {
  const { register } = await import('tsx/esm/api');
  register();
  const { main } = await import(sources.href);
  await main();
} else {
  const { main } = await import('../dist/cli/main.mjs');
  await main();
}
