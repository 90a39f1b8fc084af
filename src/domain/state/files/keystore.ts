import { Keystore, type WalletKeystore } from '../../keystore/keystore.js';

/** The keystore in the data directory: one owner-only file per wallet and imported key (src/domain/keystore/). */
export function fileKeystore(dataDir: string): WalletKeystore {
  return new Keystore(dataDir);
}
