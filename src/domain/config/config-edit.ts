import { join } from 'node:path';
import { ensurePrivateDir, readPrivateText, UnsafeFileError, writeFileAtomic } from '../../shared/private-files.js';
import { asWalletError, hasSystemCode, WalletError } from '../errors.js';
import { WalletServices } from '../services.js';
import { withNamedLock } from '../keystore/lock.js';
import { httpJson } from '../net/http.js';
import { CONFIG_FILE_NAME, parseConfigText, type ConfigFile } from './config-file.js';
import { backendPrefixed, redactUrl, resolveNetworks } from './endpoints.js';
import { BUILTIN_NETWORKS, CORE_NETWORKS } from './networks.js';
import { resolvePlatformNetworks } from '../platform/network.js';

/** One setting of config.json, by its dotted key; `editable: false` for the hand-edited policy. */
export type ConfigEntry = { key: string; value: string; editable: boolean };

/**
 * The keys `config set` writes, as patterns over the dotted key. Policy keys (`….policy.…`) stay
 * hand-edited: a spending rule is a decision worth reading docs/POLICY.md for.
 */
const EDITABLE_KEYS: readonly { pattern: RegExp; type: 'string' | 'integer' | 'url-list' }[] = [
  { pattern: /^default_wallet$/, type: 'string' },
  { pattern: /^core\.default_network$/, type: 'string' },
  {
    pattern: new RegExp(`^core\\.networks\\.(${CORE_NETWORKS.join('|')})\\.(backend|url|cookie_file)$`),
    type: 'string',
  },
  { pattern: /^evm\.default_network$/, type: 'string' },
  { pattern: /^evm\.networks\.[a-z][a-z0-9-]*\.url$/, type: 'string' },
  { pattern: /^evm\.networks\.[a-z][a-z0-9-]*\.chain_id$/, type: 'integer' },
  { pattern: /^platform\.default_network$/, type: 'string' },
  { pattern: /^platform\.networks\.[a-z][a-z0-9-]*\.quorum_url$/, type: 'string' },
  { pattern: /^platform\.networks\.[a-z][a-z0-9-]*\.dapi_addresses$/, type: 'url-list' },
];

/** The editable keys, as people type them (for help and errors). */
const EDITABLE_KEY_FORMS = [
  'default_wallet',
  'core.default_network',
  'core.networks.<mainnet|testnet|regtest>.backend | url | cookie_file',
  'evm.default_network',
  'evm.networks.<name>.url | chain_id',
  'platform.default_network',
  'platform.networks.<name>.dapi_addresses (URLs, space- or comma-separated) | quorum_url',
] as const;

const CONFIG_LOCK = 'config';

/**
 * Every setting the config file holds, policy included, as dotted keys in file order; URLs with
 * their credentials and API keys masked.
 */
export async function listConfig(dataDir: string): Promise<ConfigEntry[]> {
  const { config } = await readChecked(dataDir);
  return flatten(config, []);
}

/** The value of one key, or undefined when the file does not set it (URLs masked). */
export async function getConfigValue(dataDir: string, key: string): Promise<ConfigEntry | undefined> {
  const entries = await listConfig(dataDir);
  const exact = entries.find((entry) => entry.key === key);
  if (exact) return exact;
  const below = entries.filter((entry) => entry.key.startsWith(`${key}.`));
  if (below.length > 0) {
    throw new WalletError('INVALID_PARAM', `config key ${key} is a section: name one of its keys.`, {
      hint: `It holds ${below.map((entry) => entry.key).join(', ')}.`,
    });
  }
  return undefined;
}

/**
 * Sets one key of config.json under the config lock: the new file is validated exactly as the
 * loader reads it (schema and networks), and written atomically; a refused value leaves the file
 * as it was. `default_wallet` must name a wallet of the keystore.
 */
export async function setConfigValue(dataDir: string, key: string, text: string): Promise<void> {
  const editable = editableKey(key);
  const builtin = /^evm\.networks\.([a-z][a-z0-9-]*)\.chain_id$/.exec(key)?.[1];
  if (builtin !== undefined && BUILTIN_NETWORKS.some((known) => known.chain === 'evm' && known.network === builtin)) {
    throw new WalletError('INVALID_PARAM', `config key ${key} is fixed: '${builtin}' is a built-in EVM network.`);
  }
  const value =
    editable.type === 'integer'
      ? integerValue(key, text)
      : editable.type === 'url-list'
        ? text.split(/[\s,]+/).filter((url) => url !== '')
        : text;
  // A Dash endpoint may name its backend first, as the environment and --endpoint take it
  // (`insight+https://…`, `core-rpc+http://…`): the file keeps the two apart, url and backend.
  const path = key.split('.');
  const prefixed = /^core\.networks\.[a-z][a-z0-9-]*\.url$/.test(key) ? backendPrefixed(text) : undefined;
  await editConfig(
    dataDir,
    key,
    (raw) => {
      setPath(raw, path, prefixed ? prefixed.url : value);
      if (prefixed) setPath(raw, [...path.slice(0, -1), 'backend'], prefixed.backend);
    },
    key === 'default_wallet' ? defaultWalletExists(dataDir) : undefined,
  );
}

/** The check of `default_wallet`: it names a wallet of the keystore (an id or an alias). */
function defaultWalletExists(dataDir: string): (config: ConfigFile) => Promise<void> {
  return async (config) => {
    if (config.default_wallet === undefined) return;
    // The keystore the wallet reads: the data directory's, or the state store's when one is set.
    const services = new WalletServices({ dataDir });
    try {
      await services.keystore.resolve(config.default_wallet);
    } finally {
      await services.closeState();
    }
  };
}

/** Removes one key (and sections it leaves empty); the same validation and lock as set. */
export async function unsetConfigValue(dataDir: string, key: string): Promise<boolean> {
  editableKey(key);
  let removed = false;
  await editConfig(dataDir, key, (raw) => {
    removed = deletePath(raw, key.split('.'));
  });
  return removed;
}

/**
 * Adds (or re-points) a user EVM network: its URL and chain id. The node is asked for its chain
 * id when it answers: a chain id that differs from the one given is refused; without a chain id
 * given, the node's is taken (and an unreachable node is refused, since a network needs one).
 */
export async function addEvmNetwork(
  dataDir: string,
  request: { name: string; url: string; chainId: number | undefined },
): Promise<{ chainId: number; checked: boolean }> {
  if (!/^[a-z][a-z0-9-]*$/.test(request.name)) {
    throw new WalletError('INVALID_PARAM', 'A network name is lower-case letters, digits and dashes.', {
      hint: 'For example base or base-sepolia.',
    });
  }
  if (BUILTIN_NETWORKS.some((builtin) => builtin.chain === 'evm' && builtin.network === request.name)) {
    throw new WalletError('INVALID_PARAM', `'${request.name}' is a built-in EVM network; its chain id is fixed.`, {
      hint: `Set its endpoint with the config key evm.networks.${request.name}.url.`,
    });
  }
  const served = await nodeChainId(request.url);
  if (served !== undefined && request.chainId !== undefined && served !== request.chainId) {
    throw new WalletError(
      'NETWORK_MISMATCH',
      `The node at ${redactUrl(request.url)} serves chain id ${served}, not ${request.chainId}; nothing was saved.`,
      { hint: 'Check the URL, or give the chain id the node serves.' },
    );
  }
  const chainId = request.chainId ?? served;
  if (chainId === undefined) {
    throw new WalletError(
      'BACKEND_UNAVAILABLE',
      `The node at ${redactUrl(request.url)} did not answer eth_chainId, and no chain id was given; nothing was saved.`,
      { hint: 'Give the network its chain id (chain_id), or check the URL.' },
    );
  }
  await editConfig(dataDir, `evm.networks.${request.name}`, (raw) => {
    setPath(raw, ['evm', 'networks', request.name, 'url'], request.url);
    setPath(raw, ['evm', 'networks', request.name, 'chain_id'], chainId);
  });
  return { chainId, checked: served !== undefined };
}

/** The chain id an EVM node serves, or undefined when it cannot be asked. */
async function nodeChainId(url: string): Promise<number | undefined> {
  try {
    const response = await httpJson({
      url,
      method: 'POST',
      body: { jsonrpc: '2.0', id: 1, method: 'eth_chainId', params: [] },
      idempotent: false,
      timeoutMs: 5_000,
    });
    const result = (response.json as { result?: unknown } | undefined)?.result;
    return typeof result === 'string' && /^0x[0-9a-f]+$/i.test(result) ? Number.parseInt(result, 16) : undefined;
  } catch (error) {
    if (error instanceof WalletError && error.code === 'BACKEND_UNAVAILABLE') return undefined;
    throw error;
  }
}

async function editConfig(
  dataDir: string,
  key: string,
  change: (raw: Record<string, unknown>) => void,
  check?: (config: ConfigFile) => Promise<void>,
): Promise<void> {
  ensurePrivateDir(dataDir);
  await withNamedLock(dataDir, CONFIG_LOCK, async () => {
    const { raw, path } = await readChecked(dataDir);
    change(raw);
    const text = `${JSON.stringify(raw, null, 2)}\n`;
    let next: ConfigFile;
    try {
      next = parseConfigText(text, path);
      resolveNetworks(next, {});
      resolvePlatformNetworks(next);
    } catch (error) {
      if (!(error instanceof WalletError)) throw error;
      throw new WalletError(error.code, `config key ${key} refused: ${error.message} ${path} is unchanged.`, {
        ...(error.hint === undefined ? {} : { hint: error.hint }),
        cause: error,
      });
    }
    await check?.(next);
    writeFileAtomic(path, text);
  });
}

/** The file as JSON and as the loader reads it; a file the loader refuses is refused here too. */
async function readChecked(
  dataDir: string,
): Promise<{ raw: Record<string, unknown>; config: ConfigFile; path: string }> {
  const path = join(dataDir, CONFIG_FILE_NAME);
  let text: string;
  try {
    // The spending policy is a security file: never read through a link, nor from a file others can write.
    text = readPrivateText(path);
  } catch (error) {
    if (error instanceof UnsafeFileError) throw asWalletError(error);
    if (hasSystemCode(error, 'ENOENT')) return { raw: {}, config: {}, path };
    throw new WalletError('INVALID_PARAM', `Cannot read the config file ${path}.`, { cause: error });
  }
  const config = parseConfigText(text, path);
  return { raw: JSON.parse(text) as Record<string, unknown>, config, path };
}

function editableKey(key: string): { type: 'string' | 'integer' | 'url-list' } {
  const found = EDITABLE_KEYS.find((candidate) => candidate.pattern.test(key));
  if (found) return found;
  if (/(^|\.)policy(\.|$)/.test(key)) {
    throw new WalletError('INVALID_PARAM', `config key ${key} is part of a spending policy, which is edited by hand.`, {
      hint: 'Edit config.json itself; docs/POLICY.md describes the policy.',
    });
  }
  throw new WalletError('INVALID_PARAM', `Unknown config key ${key}.`, {
    hint: `Keys: ${EDITABLE_KEY_FORMS.join(', ')}.`,
  });
}

function integerValue(key: string, text: string): number {
  if (!/^[1-9][0-9]{0,15}$/.test(text.trim())) {
    throw new WalletError('INVALID_PARAM', `config key ${key} takes a positive whole number.`);
  }
  return Number(text.trim());
}

function setPath(raw: Record<string, unknown>, path: readonly string[], value: unknown): void {
  let node = raw;
  for (const part of path.slice(0, -1)) {
    const child = node[part];
    if (typeof child !== 'object' || child === null || Array.isArray(child)) node[part] = {};
    node = node[part] as Record<string, unknown>;
  }
  node[path.at(-1) ?? ''] = value;
}

function deletePath(raw: Record<string, unknown>, path: readonly string[]): boolean {
  const [head, ...rest] = path;
  if (head === undefined || !(head in raw)) return false;
  if (rest.length === 0) {
    Reflect.deleteProperty(raw, head);
    return true;
  }
  const child = raw[head];
  if (typeof child !== 'object' || child === null || Array.isArray(child)) return false;
  const removed = deletePath(child as Record<string, unknown>, rest);
  if (removed && Object.keys(child).length === 0) Reflect.deleteProperty(raw, head);
  return removed;
}

function flatten(node: unknown, path: readonly string[]): ConfigEntry[] {
  if (typeof node === 'object' && node !== null && !Array.isArray(node)) {
    return Object.entries(node).flatMap(([key, child]) => flatten(child, [...path, key]));
  }
  const key = path.join('.');
  const isUrl = path.at(-1) === 'url' || path.at(-1) === 'quorum_url';
  const shown =
    typeof node === 'string'
      ? isUrl
        ? redactUrl(node)
        : node
      : path.at(-1) === 'dapi_addresses' && Array.isArray(node)
        ? node.map((url) => redactUrl(String(url))).join(' ')
        : JSON.stringify(node);
  return [{ key, value: shown, editable: EDITABLE_KEYS.some((candidate) => candidate.pattern.test(key)) }];
}
