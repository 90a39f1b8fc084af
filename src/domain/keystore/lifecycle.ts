import { rmSync } from 'node:fs';
import { ensurePrivateDir, syncDir, writeFileAtomic } from '../../shared/private-files.js';
import { WalletError } from '../errors.js';
import { seal, type SealedSecret } from './cipher.js';
import { serialize, walletPath } from './files.js';
import { listWallets } from './listing.js';
import { locked } from './locked.js';
import { associatedData, checkAlias, FORMAT, VERSION, type NewWallet, type WalletEntry } from './wallet-record.js';

// A wallet's file created (sealed; its alias and seed new to the keystore) and deleted.

/** Seals and stores a new wallet; refuses a taken alias or the same seed twice on one network. */
export async function createWalletFile(dir: string, wallet: NewWallet): Promise<WalletEntry> {
  const entry = await sealNewWallet(wallet);
  ensurePrivateDir(dir);
  return locked(dir, async () => {
    const { entries } = await listWallets(dir);
    checkNewWallet(entries, entry);
    writeFileAtomic(walletPath(dir, entry), serialize(entry));
    return entry;
  });
}

/**
 * A new wallet's record, its secret sealed under the passphrase (scrypt, AES-256-GCM): what a
 * keystore file holds, and what the state store's row holds (ciphertext only).
 */
export async function sealNewWallet(wallet: NewWallet): Promise<WalletEntry> {
  checkAlias(wallet.alias);
  const base = { id: wallet.id, network: wallet.network, account: wallet.account };
  const plaintext = JSON.stringify({
    mnemonic: wallet.secret.mnemonic,
    mnemonic_passphrase: wallet.secret.mnemonicPassphrase,
  });
  const crypto: SealedSecret = await seal(plaintext, wallet.passphrase, (kdf) =>
    associatedData({ ...base, account: { ...wallet.account, next_receive: 0, next_change: 0 } }, kdf),
  );
  return {
    format: FORMAT,
    version: VERSION,
    id: wallet.id,
    alias: wallet.alias,
    network: wallet.network,
    created_at: new Date().toISOString(),
    account: { ...wallet.account, next_receive: 0, next_change: 0 },
    crypto,
  };
}

/** Refuses a new wallet whose alias is taken, or whose seed the keystore holds on its network. */
export function checkNewWallet(entries: readonly WalletEntry[], entry: WalletEntry): void {
  const taken = entries.find((other) => other.alias === entry.alias);
  if (taken) {
    throw new WalletError(
      'INVALID_PARAM',
      `alias '${entry.alias}' is taken (wallet ${taken.id} on ${taken.network}).`,
      {
        hint: 'Choose another alias.',
      },
    );
  }
  const same = entries.find((other) => other.id === entry.id && other.network === entry.network);
  if (same) {
    throw new WalletError(
      'INVALID_PARAM',
      `This seed is already in the keystore as '${same.alias}' on ${same.network}.`,
    );
  }
}

/** Deletes a wallet's file for good. */
export async function removeWalletFile(dir: string, entry: WalletEntry): Promise<void> {
  await locked(dir, async () => {
    rmSync(walletPath(dir, entry), { force: true });
    syncDir(dir);
  });
}
