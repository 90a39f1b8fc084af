import { readFile, stat } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { ensurePrivateDir, writeFileAtomic } from '../../shared/private-files.js';
import { SERVER_NAME } from '../servers/names.js';
import { completionValuesPath, renderCompletionValues } from './values-file.js';

/** A configured EVM network's name, as config.json's loader accepts it. */
const NETWORK_NAME = /^[a-z][a-z0-9-]*$/;

/**
 * Brings `<data dir>/cache/completion-values.tsv` up to date with the EVM networks of config.json
 * (`evm.networks`; the built-in ones are the schema's examples, in the script's own table) and the
 * servers of servers.json (`mcpServers`), rewriting it only when its text would change. The CLI
 * runs it after every command, so a network or server added any way (a wallet verb, a tool, an
 * editor) completes from the next command on. It reads the two files as plain JSON, without their
 * loaders, so a command pays for no schema: a file that is missing or damaged gives no names, and
 * no failure here reaches the command.
 *
 * @example
 * await refreshCompletionValues(dataDir);
 */
export async function refreshCompletionValues(dataDir: string): Promise<void> {
  try {
    if (!(await stat(dataDir)).isDirectory()) return;
    const [config, servers] = await Promise.all([
      readJson(join(dataDir, 'config.json')),
      readJson(join(dataDir, 'servers.json')),
    ]);
    const text = renderCompletionValues({
      'evm-network': keysOf(config, ['evm', 'networks']).filter((name) => NETWORK_NAME.test(name)),
      server: keysOf(servers, ['mcpServers']).filter((name) => SERVER_NAME.test(name)),
    });
    const path = completionValuesPath(dataDir);
    if ((await readFile(path, 'utf8').catch(() => undefined)) === text) return;
    await ensurePrivateDir(dirname(path));
    await writeFileAtomic(path, text);
  } catch {
    // No data dir yet, or a read-only one: TAB offers what the file last held.
  }
}

async function readJson(path: string): Promise<unknown> {
  try {
    return JSON.parse(await readFile(path, 'utf8')) as unknown;
  } catch {
    return undefined;
  }
}

/** The keys of the object at `path` inside `json`, or none. */
function keysOf(json: unknown, path: readonly string[]): string[] {
  let node = json;
  for (const key of path) node = isObject(node) ? node[key] : undefined;
  return isObject(node) ? Object.keys(node) : [];
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
