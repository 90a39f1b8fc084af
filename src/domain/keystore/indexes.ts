import { WalletError } from '../errors.js';
import { updateWallet } from './locked.js';
import { MAX_ISSUED_ADDRESSES, type WalletEntry } from './wallet-record.js';

// A wallet's next receive and change indexes: handed out and raised under the lock, never twice.

/**
 * Hands out the next `count` indexes of a chain and records them before returning, under the
 * lock, re-reading the file first: no index is ever given twice, even across a crash.
 */
export async function reserveIndexes(
  dir: string,
  entry: WalletEntry,
  chain: 'receive' | 'change',
  count = 1,
): Promise<{ entry: WalletEntry; first: number }> {
  return updateWallet(dir, entry, (current) => withReserved(current, chain, count)).then(({ entry: next, result }) => ({
    entry: next,
    first: result,
  }));
}

/** `current` with the next `count` indexes of a chain handed out, and the first of them. */
export function withReserved(
  current: WalletEntry,
  chain: 'receive' | 'change',
  count: number,
): { next: WalletEntry; result: number } {
  const key = chain === 'receive' ? 'next_receive' : 'next_change';
  const first = current.account[key];
  if (first + count > MAX_ISSUED_ADDRESSES) {
    throw new WalletError(
      'INVALID_PARAM',
      `Wallet '${current.alias}' has handed out ${first} ${chain} addresses, the most one account issues (${MAX_ISSUED_ADDRESSES}).`,
      { hint: 'Reuse an address the wallet already issued (core_addresses_list), or create another wallet.' },
    );
  }
  return { next: { ...current, account: { ...current.account, [key]: first + count } }, result: first };
}

/** Raises a chain's next index to at least `next` (discovery); never lowers it. */
export async function advanceIndexes(
  dir: string,
  entry: WalletEntry,
  next: { receive: number; change: number },
): Promise<WalletEntry> {
  const { entry: updated } = await updateWallet(dir, entry, (current) => ({
    next: withAdvanced(current, next),
    result: undefined,
  }));
  return updated;
}

/** `current` with each chain's next index raised to at least `next`'s; never lowered. */
export function withAdvanced(current: WalletEntry, next: { receive: number; change: number }): WalletEntry {
  return {
    ...current,
    account: {
      ...current.account,
      next_receive: Math.max(current.account.next_receive, next.receive),
      next_change: Math.max(current.account.next_change, next.change),
    },
  };
}
