import type { HDKey } from '@scure/bip32';
import { WalletError } from '../errors.js';
import type { WalletEntry } from '../keystore/wallet-record.js';
import type { WalletServices } from '../services.js';
import { confirmOwned, findIssued, type WalletAddress } from './addresses.js';
import { unlockMaster } from '../wallet/wallets.js';

/** The private key of one of the wallet's issued addresses, for message signing. */
export async function withAddressKey<T>(
  services: WalletServices,
  entry: WalletEntry,
  address: string,
  use: (key: Uint8Array, owned: WalletAddress) => T,
): Promise<T> {
  const owned = await issuedAddress(services, entry, address);
  const master = await unlockMaster(services, entry);
  const key = master.derive(owned.path);
  try {
    if (!key.privateKey) throw new WalletError('INTERNAL', 'Derived a key without its private part.');
    return use(key.privateKey, owned);
  } finally {
    wipe(key);
    wipe(master);
  }
}

/**
 * One of the wallet's issued addresses, derived again from its account key to confirm it is the
 * wallet's own; `INVALID_PARAM` for any other. Needs no passphrase.
 */
export async function issuedAddress(
  services: WalletServices,
  entry: WalletEntry,
  address: string,
): Promise<WalletAddress> {
  const owned = await findIssued(services, entry, address);
  if (!owned) {
    throw new WalletError('INVALID_PARAM', `address is not one of wallet '${entry.alias}'s issued addresses.`, {
      hint: 'core_addresses_list shows them.',
    });
  }
  await confirmOwned(services, entry, owned);
  return owned;
}

/** Wipes the private part of a key (or of a master key), tolerating one already wiped. */
export function wipe(key: HDKey): void {
  try {
    key.wipePrivateData();
  } catch {
    // Already wiped.
  }
}
