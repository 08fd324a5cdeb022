/**
 * How every function is bundled when the construct runs from the sources:
 * the project's own esbuild at synth, never Docker, with the options of
 * `bundle-options.ts` (which the package build uses for its prebuilt bundles).
 * `test/infra/bundle.test.ts` bundles with those options through esbuild's JS
 * API, and `cdk-synth.test.ts` checks what `cdk synth` writes.
 */
import { Runtime } from 'aws-cdk-lib/aws-lambda';
import { type BundlingOptions, OutputFormat, SourceMapMode } from 'aws-cdk-lib/aws-lambda-nodejs';
import {
  ESBUILD_OPTIONS,
  ESBUILD_TARGET,
  ESM_REQUIRE_BANNER,
  MAIN_FIELDS,
} from './bundle-options.js';

export { ESBUILD_TARGET, ESM_REQUIRE_BANNER, MAIN_FIELDS };

/** The Lambda runtime of every function (the newest Node the CDK knows; cdk-nag L1 holds us to it). */
export const RUNTIME = Runtime.NODEJS_24_X;

/** `NodejsFunction` bundling options: `ESBUILD_OPTIONS` in the CDK's terms. */
export const BUNDLING: BundlingOptions = {
  forceDockerBundling: false,
  format: OutputFormat.ESM,
  target: ESBUILD_OPTIONS.target,
  mainFields: [...ESBUILD_OPTIONS.mainFields],
  banner: ESBUILD_OPTIONS.banner.js,
  // `minify` would rename identifiers; stack traces keep the names instead.
  minify: false,
  esbuildArgs: {
    '--minify-whitespace': ESBUILD_OPTIONS.minifyWhitespace,
    '--minify-syntax': ESBUILD_OPTIONS.minifySyntax,
  },
  sourceMap: true,
  sourceMapMode: SourceMapMode.EXTERNAL,
  externalModules: [...ESBUILD_OPTIONS.external],
};
