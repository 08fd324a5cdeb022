/**
 * How every function is bundled when the construct runs from the sources:
 * the project's own esbuild at synth, never Docker, with the options of
 * `bundle-options.ts` (which the package build uses for its prebuilt
 * bundles). Each function is a folder (`index.mjs` and the chunks it splits
 * into), which `NodejsFunction`'s own bundling cannot write (it names one
 * output file), so the asset is bundled here through the CDK's local
 * bundling. `test/infra/bundle.test.ts` loads bundles built with those
 * options, and `cdk-synth.test.ts` checks what `cdk synth` writes.
 */
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { AssetHashType, DockerImage, type ILocalBundling } from 'aws-cdk-lib';
import { Code, Runtime } from 'aws-cdk-lib/aws-lambda';
import { REPO_ROOT } from '../build/paths.js';
import {
  credentialChainBuildOptions,
  ESM_REQUIRE_BANNER,
  functionBuildOptions,
} from './bundle-options.js';

export { ESM_REQUIRE_BANNER };

/** The Lambda runtime of every function (the newest Node the CDK knows; cdk-nag L1 holds us to it). */
export const RUNTIME = Runtime.NODEJS_24_X;

/**
 * esbuild, loaded when a synth bundles: an app that runs the construct from
 * the package deploys its prebuilt bundles and need not install esbuild.
 */
const requireEsbuild = () => createRequire(import.meta.url)('esbuild') as typeof import('esbuild');

/**
 * Local bundling of one handler. The CDK keys its bundling cache by the
 * bundling options serialized as JSON: `file`, a property, keeps the
 * handlers' assets apart.
 */
class EsbuildBundling implements ILocalBundling {
  constructor(readonly file: string) {}

  tryBundle(outputDir: string): boolean {
    const esbuild = requireEsbuild();
    esbuild.buildSync(functionBuildOptions(this.file, outputDir));
    esbuild.buildSync(credentialChainBuildOptions(outputDir));
    return true;
  }
}

/** The code of handler `file` (`functions/<file>.ts`), bundled at synth. */
export function bundledCode(file: string): Code {
  return Code.fromAsset(join(REPO_ROOT, 'functions'), {
    assetHashType: AssetHashType.OUTPUT,
    bundling: {
      // Required by the type, never pulled: the local bundling runs, or throws.
      image: DockerImage.fromRegistry('scratch'),
      local: new EsbuildBundling(file),
    },
  });
}
