import type { CoreNetwork } from '../config/networks.js';
import type { WalletEntry } from '../keystore/wallet-record.js';
import { checkBackendNetwork, coreBackendFor } from '../net/backends.js';
import type { CoreChainBackend, HistoryTx } from '../net/chain-backend.js';
import type { WalletServices } from '../services.js';
import { issuedAddresses, watched } from './addresses.js';
import { openWallet } from '../wallet/wallets.js';

/** The most transactions one page lists: what an Insight explorer answers per request. */
export const HISTORY_LIMIT_MAX = 50;

export type WalletHistory = {
  entry: WalletEntry;
  backend: CoreChainBackend;
  /** The backend's tip height, for confirmations. */
  tip: number;
  /** How many transactions the wallet's addresses have in all. */
  total: number;
  txs: Array<HistoryTx & { confirmations: number }>;
};

/**
 * A page of the wallet's transactions, newest first, over every address it has handed out
 * (receive and change): `limit` of them, page `page` (from 1). No passphrase needed. A core-rpc
 * node without the address index cannot tell (`BACKEND_INVALID`).
 *
 * @example
 * const { txs } = await walletHistory(services, { walletId: 'main', network: undefined, limit: 20, page: 1 });
 */
export async function walletHistory(
  services: WalletServices,
  request: { walletId: string | undefined; network: CoreNetwork | undefined; limit: number; page: number },
  signal?: AbortSignal,
): Promise<WalletHistory> {
  const entry = await openWallet(services, request.walletId, request.network);
  const backend = coreBackendFor(await services.network('core', entry.network));
  const tip = await checkBackendNetwork(backend, entry.network);
  const addresses = await issuedAddresses(services, entry);
  const limit = Math.min(request.limit, HISTORY_LIMIT_MAX);
  const { total, txs } = await backend.history(
    watched(addresses),
    { offset: (request.page - 1) * limit, limit },
    signal,
  );
  return {
    entry,
    backend,
    tip,
    total,
    txs: txs.map((tx) => ({ ...tx, confirmations: tx.height === null ? 0 : Math.max(0, tip - tx.height + 1) })),
  };
}
