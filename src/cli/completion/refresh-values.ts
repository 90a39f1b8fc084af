import { readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { ensurePrivateDir, readPrivateText, readTextIfAny, writeFileAtomic } from '../../shared/private-files.js';
import { SERVER_NAME } from '../servers/names.js';
import { completionValuesPath, renderCompletionValues } from './values-file.js';

/** A configured EVM network's name, as config.json's loader accepts it. */
const NETWORK_NAME = /^[a-z][a-z0-9-]*$/;

/** An account's alias, as the keystore accepts it (its ALIAS_PATTERN; importing it would load zod). */
const ACCOUNT_ALIAS = /^[a-z][a-z0-9_-]{0,31}$/;

/** The keystore's files, as it names them: `<id>-<network>.json` (a wallet), `evm-<address>.json` (an imported key). */
const WALLET_FILE = /^[0-9a-f]{8}-[a-z]+\.json$/;
const IMPORTED_KEY_FILE = /^evm-[0-9a-f]{40}\.json$/;

/**
 * Brings `<data dir>/cache/completion-values.tsv` up to date with the EVM networks of config.json
 * (`evm.networks`; the built-in ones are the schema's examples, in the script's own table), the
 * aliases of the keystore's EVM accounts (a wallet file's `evm.accounts`, an imported key's
 * `alias`: both in clear, beside the sealed secrets) and the servers of servers.json
 * (`mcpServers`), rewriting it only when its text would change (and writing none while empty).
 * The CLI runs it after every command but help, so a network, account or server added any way (a
 * wallet verb, a tool, an editor) completes from the next command on. It reads the files as plain JSON, without their loaders,
 * so a command pays for no schema and no passphrase: a file that is missing or damaged gives no
 * names, and no failure here reaches the command. No lock, like the tool caches: the file is a
 * cache replaced whole (atomically), and when two commands end at once the one that read before
 * the other's change leaves it one command behind, which the next command mends.
 *
 * @example
 * await refreshCompletionValues(dataDir);
 */
export async function refreshCompletionValues(dataDir: string): Promise<void> {
  try {
    // Synchronous reads of a few small files: at the end of a command nothing waits on the event
    // loop, and a cold process pays less for them than for the thread pool's round trips.
    const networks = keysOf(readJson(join(dataDir, 'config.json')), ['evm', 'networks']);
    const servers = keysOf(readJson(join(dataDir, 'servers.json')), ['mcpServers']);
    const text = renderCompletionValues({
      'evm-network': networks.filter((name) => NETWORK_NAME.test(name)),
      'evm-account': evmAccountAliases(join(dataDir, 'keystore')).filter((alias) => ACCOUNT_ALIAS.test(alias)),
      server: servers.filter((name) => SERVER_NAME.test(name)),
    });
    const path = completionValuesPath(dataDir);
    const current = readTextIfAny(path);
    // Nothing to offer and no file: a data directory with no names gets no cache folder either.
    if (current === text || (current === undefined && text === '')) return;
    ensurePrivateDir(dirname(path));
    writeFileAtomic(path, text);
  } catch {
    // A read-only data directory, or one removed meanwhile: TAB offers what the file last held.
  }
}

/** The aliases of the EVM accounts of the keystore's wallets and imported keys. */
function evmAccountAliases(keystore: string): string[] {
  let names: string[];
  try {
    names = readdirSync(keystore);
  } catch {
    return [];
  }
  return names.flatMap((name) => {
    const imported = IMPORTED_KEY_FILE.test(name);
    if (!imported && !WALLET_FILE.test(name)) return [];
    const json = readJson(join(keystore, name));
    const records = imported ? [json] : arrayAt(json, ['evm', 'accounts']);
    return records.flatMap((record) => {
      const alias = isObject(record) ? record['alias'] : undefined;
      return typeof alias === 'string' ? [alias] : [];
    });
  });
}

/** A file's JSON, or undefined when it cannot be read or parsed. */
function readJson(path: string): unknown {
  try {
    return JSON.parse(readPrivateText(path)) as unknown;
  } catch {
    return undefined;
  }
}

/** The value at `path` inside `json`, or undefined. */
function valueAt(json: unknown, path: readonly string[]): unknown {
  let node = json;
  for (const key of path) node = isObject(node) ? node[key] : undefined;
  return node;
}

/** The keys of the object at `path` inside `json`, or none. */
function keysOf(json: unknown, path: readonly string[]): string[] {
  const node = valueAt(json, path);
  return isObject(node) ? Object.keys(node) : [];
}

/** The array at `path` inside `json`, or an empty one. */
function arrayAt(json: unknown, path: readonly string[]): unknown[] {
  const node = valueAt(json, path);
  return Array.isArray(node) ? (node as unknown[]) : [];
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
