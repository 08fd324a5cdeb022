/**
 * The Lambda functions' bundles, one per handler: what the construct deploys
 * when it runs from the package (`dist/bundles/<handler>/index.mjs`), and
 * what `npm run bench:coldstart` loads. From the repository's sources the
 * construct bundles at synth with the same options (`NodejsFunction`,
 * `infra/constructs/bundling.ts`), so both paths ship the same code.
 */
import { join } from 'node:path';
import { build } from 'esbuild';
import { ESBUILD_OPTIONS } from '../constructs/bundle-options.js';
import { HANDLERS } from '../constructs/handlers.js';
import { BUNDLE_FILE, REPO_ROOT } from './paths.js';

/** Bundles every handler into `outdir/<handler>/index.mjs` (and its source map beside it). */
export async function buildFunctionBundles(outdir: string): Promise<void> {
  await Promise.all(
    Object.values(HANDLERS).map((file) =>
      build({
        ...ESBUILD_OPTIONS,
        absWorkingDir: REPO_ROOT,
        entryPoints: [join(REPO_ROOT, 'functions', `${file}.ts`)],
        outfile: join(outdir, file, BUNDLE_FILE),
        logLevel: 'warning',
      }),
    ),
  );
}
