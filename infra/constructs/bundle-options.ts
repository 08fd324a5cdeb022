/**
 * esbuild options of every function bundle, in esbuild's own terms: for the
 * package build (`infra/build/bundles.ts`), for the construct when it runs
 * from the sources and bundles at synth (`bundling.ts`), for the bundle test
 * and the cold start bench. No CDK import here: the build reads it.
 *
 * Each function is split at its dynamic imports (`splitting`): `index.mjs`
 * and the chunks it imports statically are what its cold start loads; what
 * it loads on first use only (the S3 client of the put and status functions)
 * sits in chunks of its own beside them, never read unless called.
 *
 * Dynamic imports are not free: esbuild puts the code an entry shares with
 * each of them in chunks of their own, so each one adds files to the cold
 * start, and a file costs its resolve, read, compile and link. The SDK's
 * default credential chain imports a provider dynamically for each source
 * (SSO, INI files, STS, the instance metadata service…), which split every
 * function into 10-13 files at its cold start; Lambda's credentials are in
 * the environment, the chain's first link. So the chain is aliased to
 * `lib/runtime/lambda-credentials.ts` (`fromEnv` while the environment holds
 * credentials) and built whole, on its own, beside each bundle
 * (`credentialChainBuildOptions`), loaded only where the environment holds
 * none. Loading the rare paths of the put and status functions (the rebuild
 * takeover, the WAL lookup of an expired seq) on first use cut their bytes
 * by a tenth but nearly doubled their files, and made them slower (commit
 * 0e6699a): only the S3 client is worth its chunks.
 *
 * Source maps are written beside each file and linked from it, but no
 * function runs with `--enable-source-maps`: with it Node reads every map at
 * every cold start (`npm run bench:coldstart` prints the cost beside the
 * plain import); without it Node never opens them. To read source lines in
 * stack traces while debugging, set `NODE_OPTIONS=--enable-source-maps` on
 * the function (docs/deploy.md, "Function sizes"). Identifiers are kept, so
 * a stack trace in the logs names the functions it passed through even
 * without the maps: minifying them shrinks a bundle but saves only a few ms
 * of import, and `keepNames` (names kept for the traces) gives those back.
 *
 * What else was weighed (`npm run bench:coldstart` prints where the floor
 * lies): a client built on first use instead of at module scope moves its
 * cost into the first invocation, which is the same cold start, so
 * functions build theirs at module scope and the bench counts it. Legal
 * comments stay (at the end of each file): the package ships these bundles.
 */
import { join } from 'node:path';
import type { BuildOptions } from 'esbuild';
import { BUNDLE_ENTRY, CREDENTIAL_CHAIN_FILE, REPO_ROOT } from '../build/paths.js';

/** esbuild target matching the Lambda runtime (`bundling.ts`). */
const ESBUILD_TARGET = 'node24';

/**
 * ESM bundles inline CommonJS dependencies that call `require` (the AWS SDK's
 * and middy's transitive deps); ESM has no `require`, so the banner defines one.
 */
export const ESM_REQUIRE_BANNER =
  "import { createRequire as __shardwalCreateRequire } from 'node:module'; const require = __shardwalCreateRequire(import.meta.url);";

/** Prefer packages' ESM entry points: smaller bundles and real tree shaking. */
const MAIN_FIELDS = ['module', 'main'];

/** The options, without entry and output. */
export const ESBUILD_OPTIONS = {
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: ESBUILD_TARGET,
  mainFields: MAIN_FIELDS,
  banner: { js: ESM_REQUIRE_BANNER },
  splitting: true,
  outExtension: { '.js': '.mjs' },
  minifySyntax: true,
  minifyWhitespace: true,
  minifyIdentifiers: false,
  sourcemap: 'linked',
  // The AWS SDK is bundled, not taken from the runtime: the versions pinned in
  // package.json are the ones tested, and a tree-shaken bundle starts faster.
  external: [],
  // The clients' default credential chain: `fromEnv` while Lambda's
  // credentials are in the environment, else the real chain from its own file
  // (`credentialChainBuildOptions`), so its dynamic imports do not split the
  // handler into more chunks (`lib/runtime/lambda-credentials.ts`).
  alias: {
    '@aws-sdk/credential-provider-node': join(REPO_ROOT, 'lib/runtime/lambda-credentials.ts'),
  },
} as const satisfies BuildOptions;

/**
 * The options that build the SDK's default credential chain, whole, into
 * `outdir/credential-chain.mjs`, beside a function's entry: one file with
 * the same options otherwise, loaded only where the environment holds no
 * credentials.
 */
export function credentialChainBuildOptions(outdir: string): BuildOptions {
  const { alias: _chainItself, ...options } = ESBUILD_OPTIONS;
  return {
    ...options,
    splitting: false,
    absWorkingDir: REPO_ROOT,
    stdin: {
      contents: "export { defaultProvider } from '@aws-sdk/credential-provider-node';",
      resolveDir: REPO_ROOT,
      sourcefile: 'credential-chain.ts',
      loader: 'ts',
    },
    outfile: join(outdir, CREDENTIAL_CHAIN_FILE),
    logLevel: 'warning',
  };
}

/** The options that bundle `functions/<file>.ts` into `outdir`: `index.mjs`, its chunks beside it. */
export function functionBuildOptions(file: string, outdir: string): BuildOptions {
  return {
    ...ESBUILD_OPTIONS,
    absWorkingDir: REPO_ROOT,
    entryPoints: { [BUNDLE_ENTRY]: join(REPO_ROOT, 'functions', `${file}.ts`) },
    outdir,
    logLevel: 'warning',
  };
}
