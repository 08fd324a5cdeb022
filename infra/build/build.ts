/**
 * The package build: one command producing everything `dist/` ships.
 *
 *   dist/lib, dist/functions, dist/infra   every TypeScript source, compiled
 *                                          file by file (esbuild), with the
 *                                          declarations of the public entry
 *                                          points (tsc): `shardwal/client`,
 *                                          `shardwal/cdk`
 *   dist/cli/                              the CLI, bundled with its pure-JS
 *                                          dependencies and split at its lazy
 *                                          imports, so `--help` loads one file
 *                                          (the local stack stays in
 *                                          dist/infra/local, loaded by `start`)
 *   dist/bundles/<handler>/index.mjs       each Lambda function, bundled for
 *                                          the construct (`bundles.ts`)
 *
 * `--no-types` skips the declarations (tsc, the slow part): what `npm start`
 * and the benches need. `npm pack` runs the whole build (`prepack`).
 */
import { copyFile, mkdir, readdir, rm } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { build, type Plugin } from 'esbuild';
import { buildFunctionBundles } from './bundles.js';
import { BUNDLE_DIR, DIST_DIR, REPO_ROOT } from './paths.js';

/** Source folders compiled file by file. */
const SOURCE_DIRS = ['lib', 'functions', 'infra'] as const;

/** Plain `.mjs` files that are loaded by path at run time (worker threads). */
const RUNTIME_FILES = ['lib/memtable/dynalite-thread.mjs'] as const;

async function sourceFiles(): Promise<string[]> {
  const files: string[] = [];
  for (const dir of SOURCE_DIRS) {
    for (const entry of await readdir(join(REPO_ROOT, dir), { recursive: true })) {
      if (entry.endsWith('.ts') && !entry.endsWith('.d.ts')) files.push(join(dir, entry));
    }
  }
  return files;
}

/** Every source as an ES module next to where its imports expect it (`.js` suffixes). */
async function compileSources(): Promise<void> {
  await build({
    absWorkingDir: REPO_ROOT,
    entryPoints: await sourceFiles(),
    outdir: DIST_DIR,
    outbase: '.',
    format: 'esm',
    platform: 'node',
    target: 'node20',
    logLevel: 'warning',
  });
  for (const file of RUNTIME_FILES) await copyFile(join(REPO_ROOT, file), join(DIST_DIR, file));
}

/**
 * The CLI's lazy import of the local stack stays a plain import of the
 * compiled file: the stack loads its handlers and its worker thread by path.
 */
const localStackExternal: Plugin = {
  name: 'local-stack-external',
  setup(b) {
    b.onResolve({ filter: /infra\/local\/[\w-]+\.js$/ }, (args) => ({
      path: `../${relative(REPO_ROOT, join(args.resolveDir, args.path))}`,
      external: true,
    }));
  },
};

/** The CLI: one file to start, chunks for what its commands import lazily. */
async function bundleCli(): Promise<void> {
  const outdir = join(DIST_DIR, 'cli');
  await build({
    absWorkingDir: REPO_ROOT,
    entryPoints: { main: 'lib/cli/main.ts' },
    outdir,
    outExtension: { '.js': '.mjs' },
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    mainFields: ['module', 'main'],
    minifySyntax: true,
    minifyWhitespace: true,
    banner: {
      js: "import { createRequire as __shardwalCreateRequire } from 'node:module'; const require = __shardwalCreateRequire(import.meta.url);",
    },
    // Native addons and packages that load files by path stay installed dependencies.
    external: ['classic-level', 'level', 'dynalite', 'fauxqs', 's3rver'],
    plugins: [localStackExternal],
    logLevel: 'warning',
  });
  await copyFile(
    join(REPO_ROOT, 'lib/memtable/dynalite-thread.mjs'),
    join(outdir, 'dynalite-thread.mjs'),
  );
}

/** Runs the build; `types: false` skips the declarations. */
export async function buildPackage(options: { types: boolean }): Promise<void> {
  await rm(DIST_DIR, { recursive: true, force: true });
  await mkdir(DIST_DIR, { recursive: true });
  await Promise.all([compileSources(), bundleCli(), buildFunctionBundles(BUNDLE_DIR)]);
  if (options.types) {
    const { execFileSync } = await import('node:child_process');
    execFileSync(
      process.execPath,
      [join(REPO_ROOT, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.build.json'],
      { cwd: REPO_ROOT, stdio: 'inherit' },
    );
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  await buildPackage({ types: !process.argv.includes('--no-types') });
}
