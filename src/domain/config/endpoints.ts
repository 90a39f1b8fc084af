import { WalletError } from '../errors.js';
import { corePolicy, evmPolicy, type SpendingPolicy } from '../policy/spending-policy.js';
import type { ConfigFile } from './config-file.js';
import {
  BUILTIN_NETWORKS,
  CHAINS,
  DEFAULT_NETWORKS,
  LOCAL_CORE_RPC_URLS,
  type Backend,
  type Chain,
  type CoreBackend,
  type CoreNetwork,
} from './networks.js';

/**
 * Where an endpoint came from, strongest first: a flag, an environment variable, the config file,
 * a built-in local default (a node on this machine), a built-in public service.
 */
type EndpointSource = 'flag' | 'env' | 'config' | 'default' | 'public';

/** An endpoint given on the command line as `<chain>.<network>=<url>`. */
export type EndpointOverride = { chain: Chain; network: string; url: string };

export type ResolvedNetwork = {
  chain: Chain;
  network: string;
  isDefault: boolean;
  backend: Backend;
  chainId: number | null;
  /** The full URL, credentials included: never show it, use {@link redactUrl}. */
  url: string | null;
  source: EndpointSource | null;
  cookieFile: string | null;
  /** The spending rules of `<chain>.networks.<network>.policy`; null when the config sets none. */
  policy: SpendingPolicy | null;
};

export type NetworkSettings = {
  defaults: Readonly<Record<Chain, string>>;
  networks: readonly ResolvedNetwork[];
};

type Env = Readonly<Record<string, string | undefined>>;

/**
 * The networks of every chain with their endpoints, from the built-ins, the config file,
 * `WALLET_<CHAIN>_<NETWORK>_URL` and endpoint flags, in rising order of precedence.
 *
 * @example
 * resolveNetworks({}, { WALLET_EVM_LOCAL_URL: 'http://127.0.0.1:9545' }, [])
 *   .networks.find((n) => n.network === 'local')?.url // 'http://127.0.0.1:9545/'
 */
export function resolveNetworks(
  config: ConfigFile,
  env: Env,
  overrides: readonly EndpointOverride[] = [],
): NetworkSettings {
  const defaults: Record<Chain, string> = {
    core: config.core?.default_network ?? DEFAULT_NETWORKS.core,
    evm: config.evm?.default_network ?? DEFAULT_NETWORKS.evm,
  };
  const networks: ResolvedNetwork[] = [];
  /** The backend the config file names for a network, which a URL from env or a flag keeps. */
  const configuredBackends = new Map<ResolvedNetwork, Backend>();
  for (const builtin of BUILTIN_NETWORKS) {
    const configured =
      builtin.chain === 'core'
        ? config.core?.networks?.[builtin.network as 'mainnet']
        : config.evm?.networks?.[builtin.network];
    const configuredBackend = (configured && 'backend' in configured && configured.backend) || undefined;
    // A URL of one's own is a Dash Core node unless the config says `backend: insight`; the
    // built-in URL comes with its own backend (the public explorers are Insight), and
    // `backend: core-rpc` alone means a node of one's own at Dash Core's usual port.
    const backend = configuredBackend ?? (configured?.url ? ownBackend(builtin.chain) : builtin.backend);
    const fallback =
      backend === builtin.backend
        ? { url: builtin.defaultUrl, source: builtin.publicDefault ? ('public' as const) : ('default' as const) }
        : { url: LOCAL_CORE_RPC_URLS[builtin.network as CoreNetwork], source: 'default' as const };
    networks.push({
      chain: builtin.chain,
      network: builtin.network,
      isDefault: false,
      backend,
      chainId: builtin.chainId,
      url: configured?.url ?? fallback.url,
      source: configured?.url ? 'config' : fallback.source,
      cookieFile: (configured && 'cookie_file' in configured && configured.cookie_file) || null,
      policy:
        builtin.chain === 'core'
          ? corePolicy(builtin.network, config.core?.networks?.[builtin.network as 'mainnet']?.policy)
          : evmPolicy(builtin.network, builtin.chainId ?? 0, config.evm?.networks?.[builtin.network]?.policy),
    });
    const pushed = networks.at(-1);
    if (configuredBackend && pushed) configuredBackends.set(pushed, configuredBackend);
  }
  for (const [network, custom] of Object.entries(config.evm?.networks ?? {})) {
    if (networks.some((n) => n.chain === 'evm' && n.network === network)) continue;
    if (custom.chain_id === undefined) {
      throw new WalletError('INVALID_PARAM', `The config file's EVM network '${network}' has no chain_id.`, {
        hint: 'Every user-configured EVM network needs its chain_id, so a wrong node is refused.',
      });
    }
    networks.push({
      chain: 'evm',
      network,
      isDefault: false,
      backend: 'evm-rpc',
      chainId: custom.chain_id,
      url: custom.url ?? null,
      source: custom.url ? 'config' : null,
      cookieFile: null,
      policy: evmPolicy(network, custom.chain_id, custom.policy),
    });
  }
  shareEvmPolicies(networks);
  for (const entry of networks) {
    const variable = endpointEnvVar(entry.chain, entry.network);
    const fromEnv = env[variable];
    if (fromEnv) {
      applyUrl(entry, fromEnv, variable, configuredBackends.get(entry));
      entry.source = 'env';
    }
  }
  for (const override of overrides) {
    const entry = networks.find((n) => n.chain === override.chain && n.network === override.network);
    if (!entry) {
      throw new WalletError(
        'INVALID_PARAM',
        `Unknown network '${override.chain}.${override.network}' in an endpoint override.`,
        {
          hint: `Known: ${networks.map((n) => `${n.chain}.${n.network}`).join(', ')}.`,
        },
      );
    }
    applyUrl(
      entry,
      override.url,
      `The endpoint override ${override.chain}.${override.network}`,
      configuredBackends.get(entry),
    );
    entry.source = 'flag';
  }
  for (const chain of CHAINS) {
    const match = networks.find((n) => n.chain === chain && n.network === defaults[chain]);
    if (!match) {
      throw new WalletError('INVALID_PARAM', `The default ${chain} network '${defaults[chain]}' is not configured.`, {
        hint: `Add it under ${chain}.networks in the config file, or choose a known one.`,
      });
    }
    match.isDefault = true;
  }
  return { defaults, networks };
}

/**
 * One policy per chain, not per network name: EVM network names on the same chain id share the
 * policy one of them sets (and its ledger), so a second name for a chain is no way around it. Two
 * names on one chain id that each set a policy are refused.
 */
function shareEvmPolicies(networks: ResolvedNetwork[]): void {
  const evm = networks.filter((entry) => entry.chain === 'evm' && entry.chainId !== null);
  // The networks that set one, read before any shares it (a shared one is not set twice).
  const setters = evm.filter((entry) => entry.policy !== null);
  for (const entry of evm) {
    const setting = setters.filter((other) => other.chainId === entry.chainId);
    if (setting.length > 1) {
      throw new WalletError(
        'INVALID_PARAM',
        `The config file sets a policy on EVM networks ${setting.map((other) => `'${other.network}'`).join(' and ')}, which share chain id ${entry.chainId}.`,
        { hint: 'One chain has one policy: keep it on one of those networks; the others share it.' },
      );
    }
    entry.policy = setting[0]?.policy ?? null;
  }
}

/** `WALLET_<CHAIN>_<NETWORK>_URL`, e.g. `WALLET_CORE_REGTEST_URL`. */
export function endpointEnvVar(chain: Chain, network: string): string {
  return `WALLET_${chain.toUpperCase()}_${network.toUpperCase().replace(/[^A-Z0-9]/g, '_')}_URL`;
}

/** `BACKEND_UNAVAILABLE` for a network that has no endpoint, saying the ways to set one. */
export function noEndpointError(chain: Chain, network: string): WalletError {
  return new WalletError('BACKEND_UNAVAILABLE', `No endpoint is configured for ${chain}.${network}.`, {
    hint: endpointHint(chain, network),
  });
}

/**
 * How to point a network at another endpoint, for every `BACKEND_UNAVAILABLE` hint: the config
 * key, the environment variable and the `endpoint` argument (the CLI shows it as its flag). A
 * Dash URL may name its backend: `insight+https://…` or `core-rpc+http://user:pass@…`.
 *
 * @example
 * endpointHint('core', 'testnet')
 * // 'Set another endpoint: config key core.networks.testnet.url, WALLET_CORE_TESTNET_URL, or `endpoint: core.testnet=<url>` (insight+https://… or core-rpc+http://…).'
 */
export function endpointHint(chain: Chain, network: string): string {
  const forms = chain === 'core' ? ' (insight+https://… or core-rpc+http://…)' : '';
  return `Set another endpoint: config key ${chain}.networks.${network}.url, ${endpointEnvVar(chain, network)}, or \`endpoint: ${chain}.${network}=<url>\`${forms}.`;
}

/** Parses an endpoint override, `<chain>.<network>=<url>` (the CLI's and serve's `--endpoint`). */
export function parseEndpointOverride(text: string): EndpointOverride {
  const match = /^([a-z]+)\.([a-z][a-z0-9-]*)=(.+)$/.exec(text);
  const chain = match?.[1];
  if (!match || !isChain(chain)) {
    throw new WalletError('INVALID_PARAM', 'An endpoint override takes <chain>.<network>=<url>.', {
      hint: `For example evm.local=http://127.0.0.1:8545 (chains: ${CHAINS.join(', ')}).`,
    });
  }
  return { chain, network: match[2] ?? '', url: match[3] ?? '' };
}

/**
 * The URL safe to print: a user name and password, any path segment that looks like an API key
 * (16+ letters, digits, `-` or `_`, as in `/v3/<key>`), the fragment, and every query parameter
 * but the few known to be harmless (`q`, `chain`, `network`, `format`, … with a value that looks
 * like no key) become `***`; an Insight status check (`status?q=getInfo`) stays readable. A URL
 * with nothing to hide is returned as it was written.
 *
 * @example
 * redactUrl('https://u:p@mainnet.example/v3/0123456789abcdef0123?apikey=x&chain=1') // 'https://***@mainnet.example/v3/***?apikey=***&chain=1'
 */
export function redactUrl(url: string): string {
  const parsed = new URL(url);
  const path = parsed.pathname
    .split('/')
    .map((segment) => (API_KEY_SEGMENT.test(segment) ? '***' : segment))
    .join('/');
  const query = parsed.search
    .slice(1)
    .split(/[&;]/)
    .map((pair) => {
      const at = pair.indexOf('=');
      const name = at === -1 ? pair : pair.slice(0, at);
      const value = at === -1 ? '' : pair.slice(at + 1);
      return HARMLESS_PARAMETER.test(name) && HARMLESS_VALUE.test(value) ? pair : `${name.slice(0, 64)}=***`;
    })
    .join('&');
  const search = parsed.search ? `?${query}` : '';
  const fragment = parsed.hash ? '#***' : '';
  if (!parsed.username && !parsed.password && search === parsed.search && !fragment && path === parsed.pathname) {
    return url;
  }
  const auth = parsed.username || parsed.password ? '***@' : '';
  return `${parsed.protocol}//${auth}${parsed.host}${path}${search}${fragment}`;
}

/** Query parameters known to carry no credential (an explorer's query, a chain or format). */
const HARMLESS_PARAMETER = /^(q|chain|chainid|chain_id|network|format|v|version|limit|page|from|to|block|tag)$/i;
/** A short plain value: no key hides in it. */
const HARMLESS_VALUE = /^[A-Za-z0-9_.-]{0,15}$/;
const API_KEY_SEGMENT = /^[A-Za-z0-9_-]{16,}$/;

/**
 * Sets an entry's URL from an environment variable or flag. A Dash Core URL may name its backend
 * kind first, `insight+https://…` or `core-rpc+http://…`, so env and flags can switch it too.
 */
function applyUrl(entry: ResolvedNetwork, text: string, origin: string, configuredBackend: Backend | undefined): void {
  const prefixed = backendPrefixed(text);
  if (prefixed && entry.chain === 'core') {
    entry.backend = prefixed.backend;
    entry.url = checkedUrl(prefixed.url, origin);
    return;
  }
  entry.backend = configuredBackend ?? ownBackend(entry.chain);
  entry.url = checkedUrl(text, origin);
}

/** A Dash endpoint that names its backend first (`insight+https://…`), split; else undefined. */
export function backendPrefixed(text: string): { backend: CoreBackend; url: string } | undefined {
  const prefixed = /^(core-rpc|insight)\+(.*)$/.exec(text);
  return prefixed ? { backend: prefixed[1] as CoreBackend, url: prefixed[2] ?? '' } : undefined;
}

/** The backend of an endpoint someone gives without naming one: a Dash Core node, or an EVM node. */
function ownBackend(chain: Chain): Backend {
  return chain === 'core' ? 'core-rpc' : 'evm-rpc';
}

function checkedUrl(text: string, origin: string): string {
  let parsed: URL;
  try {
    parsed = new URL(text);
  } catch (error) {
    throw new WalletError('INVALID_PARAM', `${origin} is not a valid URL.`, { cause: error });
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
    throw new WalletError('INVALID_PARAM', `${origin} must be an http or https URL.`);
  }
  return text;
}

function isChain(value: string | undefined): value is Chain {
  return (CHAINS as readonly (string | undefined)[]).includes(value);
}
