/**
 * How every function is bundled: the project's own esbuild, never Docker.
 * `test/infra/bundle.test.ts` bundles with these same values through esbuild's
 * JS API, so what the test loads is what `cdk deploy` ships.
 */
import { Runtime } from 'aws-cdk-lib/aws-lambda';
import { type BundlingOptions, OutputFormat } from 'aws-cdk-lib/aws-lambda-nodejs';

/** The Lambda runtime of every function (the newest Node the CDK knows; cdk-nag L1 holds us to it). */
export const RUNTIME = Runtime.NODEJS_24_X;

/** esbuild target matching `RUNTIME`. */
export const ESBUILD_TARGET = 'node24';

/**
 * ESM bundles inline CommonJS dependencies that call `require` (the AWS SDK's
 * and middy's transitive deps); ESM has no `require`, so the banner defines one.
 */
export const ESM_REQUIRE_BANNER =
  "import { createRequire as __shardwalCreateRequire } from 'node:module'; const require = __shardwalCreateRequire(import.meta.url);";

/** Prefer packages' ESM entry points: smaller bundles and real tree shaking. */
export const MAIN_FIELDS = ['module', 'main'];

/**
 * `NodejsFunction` bundling options. The AWS SDK is bundled (`externalModules:
 * []`) instead of taken from the runtime: the versions pinned in package.json
 * are the ones tested, and a tree-shaken ESM bundle starts faster.
 */
export const BUNDLING: BundlingOptions = {
  forceDockerBundling: false,
  format: OutputFormat.ESM,
  target: ESBUILD_TARGET,
  mainFields: MAIN_FIELDS,
  banner: ESM_REQUIRE_BANNER,
  minify: true,
  sourceMap: true,
  externalModules: [],
};
