import { setTimeout as sleep } from 'node:timers/promises';
import { getAddress, type Hash, type Hex } from 'viem';
import { WalletError } from '../errors.js';
import type { ProgressReporter } from '../net/chain-backend.js';
import type { EvmNode } from '../net/evm-rpc.js';
import type { WalletServices } from '../services.js';
import type { EvmAddress } from './address.js';
import { connectEvm } from './network.js';

const RECEIPT_POLL_MS = 500;

/** Where a sent transaction stands. */
export type TxStatus = {
  hash: Hash;
  status: 'pending' | 'success' | 'reverted';
  blockNumber: bigint | null;
  gasUsed: bigint | null;
  fee: bigint | null;
  contractAddress: EvmAddress | null;
};

/** The receipt's verdict, polling up to `waitSeconds` for one while reporting progress. */
export async function statusOf(
  node: EvmNode,
  hash: Hash,
  waitSeconds: number,
  options: { signal?: AbortSignal; progress?: ProgressReporter },
): Promise<TxStatus> {
  const deadline = Date.now() + waitSeconds * 1000;
  for (let poll = 0; ; poll++) {
    const receipt = await node.receipt(hash);
    if (receipt) {
      options.progress?.(1, 1, `${hash} mined in block ${receipt.blockNumber}`);
      return {
        hash,
        status: receipt.status,
        blockNumber: receipt.blockNumber,
        gasUsed: receipt.gasUsed,
        fee: receipt.gasUsed * receipt.effectiveGasPrice,
        contractAddress: receipt.contractAddress ? getAddress(receipt.contractAddress) : null,
      };
    }
    if (Date.now() >= deadline)
      return { hash, status: 'pending', blockNumber: null, gasUsed: null, fee: null, contractAddress: null };
    const waited = Math.min(waitSeconds, poll * (RECEIPT_POLL_MS / 1000));
    options.progress?.(waited, waitSeconds, `waiting for ${hash} to be mined`);
    await sleep(RECEIPT_POLL_MS, undefined, options.signal ? { signal: options.signal } : undefined);
  }
}

/** A transaction and its receipt by hash; `found` is false when the node has never seen it. */
export async function getTransaction(
  services: WalletServices,
  request: { hash: string; network: string | undefined },
  signal?: AbortSignal,
): Promise<
  | { found: false; hash: Hash; network: string }
  | ({
      found: true;
      network: string;
      from: EvmAddress;
      to: EvmAddress | null;
      value: bigint;
      nonce: number;
      data: Hex;
      confirmations: bigint;
    } & TxStatus)
> {
  const hash = request.hash.trim();
  if (!/^0x[0-9a-fA-F]{64}$/.test(hash)) {
    throw new WalletError('INVALID_PARAM', 'hash must be 0x followed by 64 hex digits.');
  }
  const node = await connectEvm(services, request.network, signal);
  const transaction = await node.transaction(hash as Hash);
  if (!transaction) return { found: false, hash: hash as Hash, network: node.network.network };
  const status = await statusOf(node, transaction.hash, 0, {});
  const tip = status.blockNumber === null ? null : await node.blockNumber();
  return {
    found: true,
    network: node.network.network,
    from: getAddress(transaction.from),
    to: transaction.to ? getAddress(transaction.to) : null,
    value: transaction.value,
    nonce: transaction.nonce,
    data: transaction.input,
    confirmations: tip === null || status.blockNumber === null ? 0n : tip - status.blockNumber + 1n,
    ...status,
  };
}
