import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { writeFileAtomic } from '../../shared/private-files.js';
import { hasSystemCode, WalletError } from '../errors.js';
import { COMMIT_RECORD, finishCommit } from './commit.js';
import { readWalletFile, serialize, walletPath } from './files.js';
import { withLock } from './lock.js';
import type { WalletEntry } from './wallet-record.js';

// The keystore's writes: each under the lock, after finishing a passphrase change a crash cut short.

/** Runs `task` under the keystore lock, after finishing a passphrase change a crash cut short. */
export async function locked<T>(dir: string, task: () => Promise<T>): Promise<T> {
  return withLock(dir, async () => {
    await finishCommit(dir);
    return task();
  });
}

/**
 * Finishes a passphrase change that a crash cut short between its renames (its commit record is
 * still there), so the files never stay half under the old passphrase and half under the new.
 * One `stat` when there is none.
 */
export async function settle(dir: string): Promise<void> {
  // Every locked section finishes such a change first (`locked`), so inside one there is none.
  if (existsSync(join(dir, COMMIT_RECORD))) await locked(dir, async () => undefined);
}

/** Changes a wallet's file under the lock, re-reading it there first; `WALLET_NOT_FOUND` when it is gone. */
export async function updateWallet<T>(
  dir: string,
  entry: WalletEntry,
  change: (current: WalletEntry) => { next: WalletEntry; result: T } | Promise<{ next: WalletEntry; result: T }>,
): Promise<{ entry: WalletEntry; result: T }> {
  return locked(dir, async () => {
    const path = walletPath(dir, entry);
    const current = await readWalletFile(path).catch((error: unknown) => {
      if (hasSystemCode(error, 'ENOENT'))
        throw new WalletError('WALLET_NOT_FOUND', `Wallet '${entry.alias}' was deleted meanwhile.`);
      throw error;
    });
    const { next, result } = await change(current);
    writeFileAtomic(path, serialize(next));
    return { entry: next, result };
  });
}
