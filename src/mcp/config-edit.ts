import {
  addEvmNetwork,
  getConfigValue,
  listConfig,
  setConfigValue,
  unsetConfigValue,
  type ConfigEntry,
} from '../domain/config/config-edit.js';
import { WalletError } from '../domain/errors.js';
import { Keystore } from '../domain/keystore/keystore.js';
import { withNamedLock } from '../domain/keystore/lock.js';
import { BusyError, UsageError } from '../shared/usage-error.js';

export type { ConfigEntry };

/**
 * config.json for the CLI's `wallet config` and `wallet networks add` (the CLI reaches the domain
 * only through mcp/). A refusal (unknown key, a value the loader would refuse, a wallet that does
 * not exist, a node of another chain) is a UsageError (exit 2) with its hint; the file is unchanged.
 */
export class OwnerConfig {
  constructor(private readonly dataDir: string) {}

  list(): Promise<ConfigEntry[]> {
    return explained(() => listConfig(this.dataDir));
  }

  get(key: string): Promise<ConfigEntry | undefined> {
    return explained(() => getConfigValue(this.dataDir, key));
  }

  /** Sets a key; `default_wallet` must name a wallet of the keystore. */
  set(key: string, value: string): Promise<void> {
    return explained(() =>
      setConfigValue(this.dataDir, key, value, async (config) => {
        if (key === 'default_wallet' && config.default_wallet !== undefined) {
          await new Keystore(this.dataDir).resolve(config.default_wallet);
        }
      }),
    );
  }

  unset(key: string): Promise<boolean> {
    return explained(() => unsetConfigValue(this.dataDir, key));
  }

  addEvmNetwork(request: { name: string; url: string; chainId: number | undefined }) {
    return explained(() => addEvmNetwork(this.dataDir, request));
  }
}

/**
 * Runs a read-modify-write of servers.json holding its lock (`<dataDir>/locks/servers-json`), so
 * two `wallet servers add` at once both land: the second reads the first one's file.
 */
export function withServersFileLock<T>(dataDir: string, task: () => Promise<T>): Promise<T> {
  return explained(() => withNamedLock(dataDir, 'servers-json', task));
}

async function explained<T>(task: () => Promise<T>): Promise<T> {
  try {
    return await task();
  } catch (error) {
    if (error instanceof WalletError && error.code === 'BUSY') {
      throw new BusyError(`${error.code}: ${error.message}`, error.hint);
    }
    if (error instanceof WalletError) throw new UsageError(`${error.code}: ${error.message}`, error.hint);
    throw error;
  }
}
