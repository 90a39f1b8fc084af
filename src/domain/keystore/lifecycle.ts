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
  checkAlias(wallet.alias);
  ensurePrivateDir(dir);
  const base = { id: wallet.id, network: wallet.network, account: wallet.account };
  const plaintext = JSON.stringify({
    mnemonic: wallet.secret.mnemonic,
    mnemonic_passphrase: wallet.secret.mnemonicPassphrase,
  });
  const crypto: SealedSecret = await seal(plaintext, wallet.passphrase, (kdf) =>
    associatedData({ ...base, account: { ...wallet.account, next_receive: 0, next_change: 0 } }, kdf),
  );
  const entry: WalletEntry = {
    format: FORMAT,
    version: VERSION,
    id: wallet.id,
    alias: wallet.alias,
    network: wallet.network,
    created_at: new Date().toISOString(),
    account: { ...wallet.account, next_receive: 0, next_change: 0 },
    crypto,
  };
  return locked(dir, async () => {
    const { entries } = await listWallets(dir);
    const taken = entries.find((other) => other.alias === wallet.alias);
    if (taken) {
      throw new WalletError(
        'INVALID_PARAM',
        `alias '${wallet.alias}' is taken (wallet ${taken.id} on ${taken.network}).`,
        {
          hint: 'Choose another alias.',
        },
      );
    }
    const same = entries.find((other) => other.id === wallet.id && other.network === wallet.network);
    if (same) {
      throw new WalletError(
        'INVALID_PARAM',
        `This seed is already in the keystore as '${same.alias}' on ${same.network}.`,
      );
    }
    writeFileAtomic(walletPath(dir, entry), serialize(entry));
    return entry;
  });
}

/** Deletes a wallet's file for good. */
export async function removeWalletFile(dir: string, entry: WalletEntry): Promise<void> {
  await locked(dir, async () => {
    rmSync(walletPath(dir, entry), { force: true });
    syncDir(dir);
  });
}
