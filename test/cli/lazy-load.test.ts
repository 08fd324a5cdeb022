import { build, type Metafile } from 'esbuild';
import { describe, expect, it } from 'vitest';

/** Every input file `main.ts` loads before a command runs: the static-import closure of the bundle's entry. */
async function loadedAtStart(): Promise<string[]> {
  const result = await build({
    entryPoints: ['lib/cli/main.ts'],
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'node',
    write: false,
    outdir: 'out',
    metafile: true,
    external: ['classic-level', 'level', 'dynalite', 'fauxqs', 's3rver'],
    logLevel: 'silent',
  });
  const outputs: Metafile['outputs'] = result.metafile.outputs;
  const entry = Object.keys(outputs).find(
    (name) => outputs[name]!.entryPoint === 'lib/cli/main.ts',
  )!;
  const seen = new Set<string>();
  const stack = [entry];
  while (stack.length > 0) {
    const name = stack.pop()!;
    if (seen.has(name)) continue;
    seen.add(name);
    for (const imported of outputs[name]!.imports) {
      if (imported.kind === 'import-statement' && outputs[imported.path]) stack.push(imported.path);
    }
  }
  return [...seen].flatMap((name) => Object.keys(outputs[name]!.inputs));
}

describe('the CLI', () => {
  describe('start', () => {
    it('loads no command code, SDK client or emulator before a command runs', async () => {
      const inputs = await loadedAtStart();
      expect(inputs).toContain('lib/cli/commands.ts');
      expect(
        inputs.filter((input) =>
          /node_modules|-run\.ts$|lib\/(store|memtable|wal|export|recovery|table)\//.test(input),
        ),
      ).toEqual([]);
    });
  });
});
