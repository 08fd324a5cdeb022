/**
 * The AWS SDK's default credential chain as the function bundles ship it:
 * esbuild puts this module where the clients import
 * `@aws-sdk/credential-provider-node` (`alias` in
 * `infra/constructs/bundle-options.ts`), and the real chain is built on its
 * own beside each bundle (`CREDENTIAL_CHAIN_FILE`).
 *
 * Lambda puts the function's credentials in the environment, which is the
 * chain's first link (`fromEnv`): with them there (and no `AWS_PROFILE`, which
 * the chain would prefer), this is `fromEnv`, looked up at each call as the
 * chain does. Without them it loads the whole chain from its file and hands
 * over. Bundled with the functions, the chain's own dynamic imports (SSO,
 * INI files, STS, the instance metadata service…) split the code it shares
 * with the handler into more chunks, and a cold start pays per file
 * (`npm run bench:coldstart`).
 */
import { ENV_KEY, ENV_SECRET, fromEnv } from '@aws-sdk/credential-provider-env';
import type { defaultProvider as chainProvider } from '@aws-sdk/credential-provider-node';

type DefaultProvider = typeof chainProvider;
type ChainInit = Parameters<DefaultProvider>[0];

/**
 * The chain's module, built beside the bundle (`CREDENTIAL_CHAIN_FILE` in
 * `infra/build/paths.ts`); a path in a variable, which esbuild leaves as it is.
 */
const CHAIN_MODULE = './credential-chain.mjs';

/** True when `env` holds the credentials the chain's first link would take. */
function hasEnvCredentials(env: NodeJS.ProcessEnv): boolean {
  return Boolean(env[ENV_KEY] && env[ENV_SECRET] && !env.AWS_PROFILE);
}

/**
 * `defaultProvider` with `loadChain` behind it: `fromEnv` while the
 * environment holds credentials, else the chain that `loadChain` resolves
 * to (loaded once, at its first need).
 */
function envFirstProvider(
  loadChain: () => Promise<{ defaultProvider: DefaultProvider }>,
  env: NodeJS.ProcessEnv = process.env,
): DefaultProvider {
  return (init: ChainInit = {}) => {
    let chain: ReturnType<DefaultProvider> | undefined;
    return async (properties) => {
      if (hasEnvCredentials(env)) return fromEnv(init)();
      chain ??= (await loadChain()).defaultProvider(init);
      return chain(properties);
    };
  };
}

/** What the SDK's clients call in the function bundles. */
export const defaultProvider: DefaultProvider = envFirstProvider(
  () => import(CHAIN_MODULE) as Promise<{ defaultProvider: DefaultProvider }>,
);
