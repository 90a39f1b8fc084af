import { WalletError } from '../errors.js';
import type { WalletEntry } from '../keystore/wallet-record.js';
import type { ProgressReporter } from '../net/chain-backend.js';
import type { WalletServices } from '../services.js';
import { discoverAddresses } from './addresses.js';
import { backendFor } from './network.js';
import { importWallet, type NewWalletRequest } from '../wallet/wallets.js';

export type ImportResult = {
  entry: WalletEntry;
  discovery: 'done' | 'skipped' | 'failed';
  discoveryError: string | null;
};

/**
 * Imports a wallet, then (when asked) discovers its used addresses. An unreachable backend does
 * not undo the import: the wallet is kept and the failure reported, to be retried by discovery.
 */
export async function importAndDiscover(
  services: WalletServices,
  request: NewWalletRequest & { discover: boolean },
  options: { progress?: ProgressReporter | undefined; signal?: AbortSignal | undefined } = {},
): Promise<ImportResult> {
  const entry = await importWallet(services, request);
  if (!request.discover) return { entry, discovery: 'skipped', discoveryError: null };
  try {
    const result = await discoverAddresses(services, entry, await backendFor(services, entry.network), options);
    return { entry: result.entry, discovery: 'done', discoveryError: null };
  } catch (error) {
    if (!(error instanceof WalletError) || error.code !== 'BACKEND_UNAVAILABLE') throw error;
    return { entry, discovery: 'failed', discoveryError: error.message };
  }
}
