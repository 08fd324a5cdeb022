/**
 * The package as `npm pack` builds it, and a fresh project that installs it,
 * for the tests of what users install (`test/client/pack.test.ts`, the
 * construct's `test/infra/package-cdk.test.ts`).
 *
 * Packing runs the whole build (`prepack`), so the tarball is cached in the
 * temp folder under a hash of everything the build reads: a second test file
 * (or run) with the same sources reuses it. The install needs no network:
 * `npm ci --offline` from a lockfile naming exactly this repo's locked
 * versions, which the npm cache holds.
 */
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import {
  cp,
  mkdir,
  mkdtemp,
  readdir,
  readFile,
  rename,
  rm,
  symlink,
  writeFile,
} from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** This repository's root. */
export const ROOT = new URL('../../', import.meta.url).pathname;

const NPM_ENV = { ...process.env, npm_config_audit: 'false', npm_config_fund: 'false' };

/** What the build reads: the sources and the configuration. */
const BUILD_INPUTS = [
  'lib',
  'functions',
  'infra',
  'bin',
  'docs',
  'types',
  'package.json',
  'README.md',
  'tsconfig.json',
  'tsconfig.build.json',
];

/** The package's manifest, as far as the tests read it. */
interface PackageJson {
  name: string;
  version: string;
  license: string;
  files: string[];
  bin: Record<string, string>;
  engines: Record<string, string>;
  dependencies: Record<string, string>;
  overrides?: Record<string, unknown>;
}

/** A packed tarball and the files it holds. */
export interface Packed {
  tarball: string;
  files: string[];
  pkg: PackageJson;
}

async function inputsHash(): Promise<string> {
  const hash = createHash('sha256');
  for (const entry of BUILD_INPUTS) {
    const full = path.join(ROOT, entry);
    if (!existsSync(full)) continue;
    const files = entry.includes('.')
      ? [entry]
      : (await readdir(full, { recursive: true })).map((f) => path.join(entry, f)).sort();
    for (const file of files) {
      const content = await readFile(path.join(ROOT, file)).catch(() => undefined);
      if (content === undefined) continue; // a folder
      hash.update(file).update('\0').update(content);
    }
  }
  return hash.digest('hex').slice(0, 16);
}

/** Packs the package (building it) or reuses the tarball of the same sources. */
export async function packedPackage(): Promise<Packed> {
  const pkg = JSON.parse(await readFile(path.join(ROOT, 'package.json'), 'utf8')) as PackageJson;
  const cacheDir = path.join(os.tmpdir(), 'shardwal-packed');
  const key = await inputsHash();
  const tarball = path.join(cacheDir, `${key}.tgz`);
  const listing = path.join(cacheDir, `${key}.json`);
  if (existsSync(tarball) && existsSync(listing)) {
    return { tarball, files: JSON.parse(await readFile(listing, 'utf8')) as string[], pkg };
  }
  const work = await mkdtemp(path.join(os.tmpdir(), 'shardwal-pack-'));
  try {
    const staging = path.join(work, 'staging');
    for (const entry of BUILD_INPUTS) {
      if (!existsSync(path.join(ROOT, entry))) continue;
      await mkdir(path.dirname(path.join(staging, entry)), { recursive: true });
      await cp(path.join(ROOT, entry), path.join(staging, entry), { recursive: true });
    }
    // The build (prepack) runs this repo's TypeScript and esbuild.
    await symlink(path.join(ROOT, 'node_modules'), path.join(staging, 'node_modules'));
    const packed = await run('npm', ['pack', '--json', '--pack-destination', work], {
      cwd: staging,
      env: NPM_ENV,
      maxBuffer: 64 * 1024 * 1024,
    });
    const [report] = JSON.parse(packed.stdout.slice(packed.stdout.indexOf('['))) as Array<{
      filename: string;
      files: Array<{ path: string }>;
    }>;
    const files = report!.files.map((file) => file.path);
    await mkdir(cacheDir, { recursive: true });
    // Written under temporary names, then renamed: a concurrent reader sees both or neither.
    await writeFile(`${listing}.${process.pid}`, JSON.stringify(files));
    await rename(`${listing}.${process.pid}`, listing);
    await rename(path.join(work, report!.filename), tarball);
    return { tarball, files, pkg };
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}

/**
 * A project in `dir` that depends on the tarball, installed with `npm ci
 * --offline` from a lockfile naming exactly the versions of this repo's
 * lockfile (its production dependencies). The project reads no file of this
 * repository; peers it needs are linked by the caller.
 */
export async function installConsumer(dir: string, packed: Packed): Promise<void> {
  const { tarball, pkg } = packed;
  const lock = JSON.parse(await readFile(path.join(ROOT, 'package-lock.json'), 'utf8')) as {
    packages: Record<string, { dev?: boolean; link?: boolean }>;
  };
  const tgz = await readFile(tarball);
  const name = 'shardwal.tgz';
  const spec = `file:${name}`;
  await cp(tarball, path.join(dir, name));
  const packages: Record<string, unknown> = {
    '': { name: 'consumer', version: '1.0.0', dependencies: { shardwal: spec } },
    'node_modules/shardwal': {
      version: pkg.version,
      resolved: spec,
      integrity: `sha512-${createHash('sha512').update(tgz).digest('base64')}`,
      license: pkg.license,
      dependencies: pkg.dependencies,
      bin: pkg.bin,
      engines: pkg.engines,
    },
  };
  for (const [key, entry] of Object.entries(lock.packages)) {
    if (key !== '' && !entry.dev && !entry.link) packages[key] = entry;
  }
  const manifest = { name: 'consumer', version: '1.0.0', private: true, type: 'module' };
  await writeFile(
    path.join(dir, 'package.json'),
    // The repo's overrides too: its lockfile's versions are the overridden ones (cookie under light-my-request).
    JSON.stringify(
      { ...manifest, dependencies: { shardwal: spec }, overrides: pkg.overrides },
      null,
      2,
    ),
  );
  await writeFile(
    path.join(dir, 'package-lock.json'),
    JSON.stringify({ ...manifest, lockfileVersion: 3, requires: true, packages }, null, 2),
  );
  await run('npm', ['ci', '--offline', '--ignore-scripts', '--legacy-peer-deps'], {
    cwd: dir,
    env: NPM_ENV,
  });
}

/** Links packages of this repo's node_modules into the consumer (peers the tarball leaves to the app). */
export async function linkFromRepo(dir: string, names: readonly string[]): Promise<void> {
  for (const name of names) {
    const target = path.join(dir, 'node_modules', name);
    await mkdir(path.dirname(target), { recursive: true });
    await symlink(path.join(ROOT, 'node_modules', name), target);
  }
}
