import type { Hex } from 'viem';
import { WalletError } from '../errors.js';
import { RESTORE } from '../keystore/keystore-format.js';
import type { WalletServices } from '../services.js';
import { unlockMaster } from '../wallet/wallets.js';
import type { EvmAccount } from './accounts.js';
import { evmAddressOfPrivateKey, evmChainXpub, evmPrivateKeyAt, privateKeyHex } from './hd.js';

/**
 * Runs `use` with the account's private key (hex), after checking that the key really is the
 * account's; the key bytes are wiped afterwards.
 */
export async function withAccountKey<T>(
  services: WalletServices,
  account: EvmAccount,
  use: (privateKey: Hex) => Promise<T>,
): Promise<T> {
  const privateKey = await unlockKey(services, account);
  try {
    if (evmAddressOfPrivateKey(privateKey) !== account.address) {
      throw new WalletError(
        'KEYSTORE_DAMAGED',
        `The key unlocked for ${account.address} is another account's; its keystore file was altered.`,
        RESTORE,
      );
    }
    return await use(privateKeyHex(privateKey));
  } finally {
    privateKey.fill(0);
  }
}

async function unlockKey(services: WalletServices, account: EvmAccount): Promise<Uint8Array> {
  if (account.key) return services.keystore.unlockImportedKey(account.key, await services.passphrase('unlock'));
  if (!account.wallet || account.index === null) throw new Error('a derived account without its wallet');
  const master = await unlockMaster(services, account.wallet);
  try {
    if (account.wallet.evm && evmChainXpub(master) !== account.wallet.evm.xpub) {
      throw new WalletError(
        'KEYSTORE_DAMAGED',
        `Wallet '${account.wallet.alias}': the stored EVM xpub does not match its seed; its keystore file was altered.`,
        RESTORE,
      );
    }
    return evmPrivateKeyAt(master, account.index);
  } finally {
    master.wipePrivateData();
  }
}
