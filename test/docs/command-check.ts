/**
 * Checks the commands of a `check` block against the real tools' options:
 * `npx shardwal …` by the CLI's own argument parser (usage placeholders
 * such as `<shard>` and `[--from <seq|end>]` read as values), `npm run …`
 * against package.json's scripts, `npx cdk …` and `aws <service> <op> …`
 * flags against the installed tool's help, anything else by its presence.
 * Returns the problems found; none is the pass.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { COMMANDS } from '../../lib/cli/commands.js';
import { parseCommandArgs } from '../../lib/cli/main.js';

const helpCache = new Map<string, string>();
/** A character and a backspace: how man pages print bold. */
const OVERSTRIKE = new RegExp(`.${String.fromCharCode(8)}`, 'g');

/** A tool's help text, overstrike (`N\bN`) removed; undefined when the tool is missing. */
function help(command: string, args: string[], repo: string): string | undefined {
  const cacheKey = [command, ...args].join(' ');
  if (!helpCache.has(cacheKey)) {
    let text = '';
    try {
      text = execFileSync(command, args, {
        cwd: repo,
        encoding: 'utf8',
        stdio: ['ignore', 'pipe', 'pipe'],
        env: { ...process.env, PAGER: 'cat', CDK_DISABLE_VERSION_CHECK: '1' },
        timeout: 30_000,
      });
    } catch (error) {
      const failed = error as { stdout?: string; stderr?: string; code?: string };
      if (failed.code === 'ENOENT') return undefined;
      text = `${failed.stdout ?? ''}${failed.stderr ?? ''}`;
    }
    helpCache.set(cacheKey, text.replace(OVERSTRIKE, ''));
  }
  return helpCache.get(cacheKey);
}

const flagsOf = (args: string[]) =>
  args.filter((a) => /^--?[a-zA-Z]/.test(a)).map((a) => a.replace(/=.*$/, ''));

function checkShardwal(args: string[]): string[] {
  // Usage notation: `[--flag <value>]` is the flag and a value.
  const words = args.map((a) => a.replace(/^\[|\]$/g, '')).filter((a) => a !== '');
  const values = words.map((a) => (/^<[^>]+>$/.test(a) ? 'x1' : a));
  const [name, ...rest] = values;
  if (name === undefined || name === '--help') return [];
  const command = COMMANDS.find((c) => c.name === name);
  if (!command) return [`shardwal has no command ${name}`];
  try {
    parseCommandArgs(command, rest);
    return [];
  } catch (error) {
    return [`shardwal ${words.join(' ')}: ${(error as Error).message}`];
  }
}

/** The problems of one command vector. */
export function checkCommand(argv: string[], repo: string): string[] {
  const [tool, ...args] = argv;
  if (tool === undefined) return [];
  if (tool === 'npx' && args[0] === 'shardwal') return checkShardwal(args.slice(1));
  if (tool === 'npm') {
    const scripts = (
      JSON.parse(readFileSync(path.join(repo, 'package.json'), 'utf8')) as {
        scripts: Record<string, string>;
      }
    ).scripts;
    const [sub, script] = args;
    if (sub === 'run') return script && scripts[script] ? [] : [`no npm script ${script}`];
    if (sub === 'start' || sub === 'test') return scripts[sub] ? [] : [`no npm script ${sub}`];
    return ['ci', 'install', 'pack'].includes(sub ?? '') ? [] : [`npm ${sub}: not checked`];
  }
  if (tool === 'npx' && args[0] === 'cdk') {
    const sub = args[1]!;
    const text = help(path.join(repo, 'node_modules', '.bin', 'cdk'), [sub, '--help'], repo);
    if (text === undefined) return ['cdk is not installed'];
    return flagsOf(args.slice(2))
      .filter((flag) => !new RegExp(`(^|[\\s,])${flag}(\\b|$)`, 'm').test(text))
      .map((flag) => `cdk ${sub} has no option ${flag}`);
  }
  if (tool === 'aws') {
    const [service, operation] = args;
    const text = help('aws', [service!, operation!, 'help'], repo);
    if (text === undefined) return []; // no AWS CLI here: the flags cannot be checked
    if (/Invalid choice/i.test(text)) return [`aws ${service} ${operation}: no such command`];
    return flagsOf(args.slice(2))
      .filter((flag) => !text.includes(flag))
      .map((flag) => `aws ${service} ${operation} has no option ${flag}`);
  }
  try {
    execFileSync('sh', ['-c', `command -v ${tool}`], { stdio: 'ignore' });
    return [];
  } catch {
    return [`${tool}: not a command here`];
  }
}
