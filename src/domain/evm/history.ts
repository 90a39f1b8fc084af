import type { Hash } from 'viem';
import type { WalletServices } from '../services.js';
import { resolveAddress } from './accounts.js';
import type { EvmAddress } from './address.js';
import { connectNode, evmNetwork } from './network.js';
import type { SentRecord } from './sent-log.js';

/** The most transactions one page lists (each costs a receipt lookup). */
export const SENT_PAGE_MAX = 50;

/** Where a recorded transaction stands now, by the node: `unknown` when the node has never seen it. */
export type LiveStatus = 'pending' | 'success' | 'reverted' | 'unknown';

export type SentTx = SentRecord & {
  status: LiveStatus;
  blockNumber: bigint | null;
  confirmations: bigint;
  fee: bigint | null;
};

/**
 * What this wallet broadcast on an EVM network, newest first, from its own record
 * (the state store's sent log: the data directory's file, or every replica's rows; plain JSON-RPC has no history by address), each with its live status from the
 * node's receipt. `address` (an address or a keystore alias) keeps only what that account sent.
 *
 * @example
 * const { txs } = await listSent(services, { network: 'local', address: 'spend', limit: 20, page: 1 });
 */
export async function listSent(
  services: WalletServices,
  request: { network: string | undefined; address: string | undefined; limit: number; page: number },
  signal?: AbortSignal,
): Promise<{ network: string; chainId: number; total: number; txs: SentTx[] }> {
  const network = await evmNetwork(services, request.network);
  const from: EvmAddress | undefined =
    request.address === undefined ? undefined : await resolveAddress(services, request.address, 'address');
  const records = (await (await services.stateStore()).sentLog(network.chainId).records())
    .filter((record) => from === undefined || record.from === from)
    .reverse();
  const limit = Math.min(request.limit, SENT_PAGE_MAX);
  const shown = records.slice((request.page - 1) * limit, request.page * limit);
  const base = { network: network.network, chainId: network.chainId, total: records.length };
  if (shown.length === 0) return { ...base, txs: [] };
  const node = await connectNode(network, signal);
  const tip = await node.blockNumber();
  const txs: SentTx[] = [];
  for (const record of shown) {
    const hash = record.hash as Hash;
    const receipt = await node.receipt(hash);
    if (receipt) {
      txs.push({
        ...record,
        status: receipt.status,
        blockNumber: receipt.blockNumber,
        confirmations: tip >= receipt.blockNumber ? tip - receipt.blockNumber + 1n : 0n,
        fee: receipt.gasUsed * receipt.effectiveGasPrice,
      });
      continue;
    }
    const known = await node.transaction(hash);
    txs.push({ ...record, status: known ? 'pending' : 'unknown', blockNumber: null, confirmations: 0n, fee: null });
  }
  return { ...base, txs };
}
