/**
 * The Lambda functions' bundles, one folder per handler: what the construct
 * deploys when it runs from the package (`dist/bundles/<handler>/`), and
 * what `npm run bench:coldstart` loads. From the repository's sources the
 * construct bundles at synth with the same options
 * (`infra/constructs/bundling.ts`), so both paths ship the same code.
 */
import { join } from 'node:path';
import { build, type Metafile } from 'esbuild';
import { credentialChainBuildOptions, functionBuildOptions } from '../constructs/bundle-options.js';
import { HANDLERS } from '../constructs/handlers.js';
import { BUNDLE_FILE } from './paths.js';

/**
 * Bundles every handler into `outdir/<handler>/` (`index.mjs`, its chunks,
 * the SDK's credential chain, their source maps); resolves to each
 * handler's esbuild metafile, the chain's outputs included.
 */
export async function buildFunctionBundles(outdir: string): Promise<Record<string, Metafile>> {
  const built = await Promise.all(
    Object.values(HANDLERS).map(async (file) => {
      const [handler, chain] = await Promise.all([
        build({ ...functionBuildOptions(file, join(outdir, file)), metafile: true }),
        build({ ...credentialChainBuildOptions(join(outdir, file)), metafile: true }),
      ]);
      const metafile: Metafile = {
        inputs: { ...chain.metafile.inputs, ...handler.metafile.inputs },
        outputs: { ...handler.metafile.outputs, ...chain.metafile.outputs },
      };
      return [file, metafile] as const;
    }),
  );
  return Object.fromEntries(built);
}

/**
 * The output files of a bundle that its cold start loads: `index.mjs` and
 * every chunk it imports statically, transitively (paths as `meta` names
 * them). The chunks of dynamic imports are loaded on first use only.
 */
export function coldStartOutputs(meta: Metafile): string[] {
  const outputs = meta.outputs;
  // Not by `entryPoint`: esbuild sets it on the chunks of dynamic imports too.
  const entry = Object.keys(outputs).find((path) => path.endsWith(`/${BUNDLE_FILE}`));
  const loaded = new Set<string>();
  for (const stack = entry ? [entry] : []; stack.length > 0; ) {
    const path = stack.pop()!;
    if (loaded.has(path)) continue;
    loaded.add(path);
    for (const imported of outputs[path]!.imports) {
      if (imported.kind === 'import-statement' && outputs[imported.path]) stack.push(imported.path);
    }
  }
  return [...loaded];
}
