/**
 * Where the package's sources and build outputs are, for the build and for
 * code that must find them at run time (the construct's function bundles).
 */
import { fileURLToPath } from 'node:url';

/** Repository (or installed package) root: `infra/build/` (or `dist/infra/build/`) is below it. */
function rootOf(moduleUrl: string): string {
  const here = fileURLToPath(new URL('.', moduleUrl));
  return here.replace(/(?:dist[\\/])?infra[\\/]build[\\/]$/, '');
}

/** The repository root when run from sources, the package root when run from `dist/`. */
export const REPO_ROOT = rootOf(import.meta.url);

/** The build's output folder. */
export const DIST_DIR = `${REPO_ROOT}dist`;

/** Where the package keeps the prebuilt function bundles (`bundles.ts`). */
export const BUNDLE_DIR = `${DIST_DIR}/bundles`;

/** Name of every bundle's entry (the Lambda handler is `index.handler`). */
export const BUNDLE_ENTRY = 'index';

/** File name of every bundle's entry inside its folder; its chunks are beside it. */
export const BUNDLE_FILE = `${BUNDLE_ENTRY}.mjs`;

/**
 * File name, beside every bundle's entry, of the AWS SDK's default credential
 * chain built on its own (`lib/runtime/lambda-credentials.ts` imports it by
 * this name when the environment holds no credentials).
 */
export const CREDENTIAL_CHAIN_FILE = 'credential-chain.mjs';
