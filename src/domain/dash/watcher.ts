import type { CoreNetwork } from '../config/networks.js';
import { WalletError } from '../errors.js';
import type { WalletEntry } from '../keystore/wallet-record.js';
import { RESTORE, walletFilePath } from '../keystore/keystore-format.js';
import { publicKeyAddress } from './address.js';
import { dashParams } from './params.js';
import { CHAIN_INDEX, type AddressChain } from './paths.js';
import { publicChild, readStoredXpub, type PublicNode } from './public-derivation.js';

/** An account's extended key is at m/44'/coin'/account': depth 3. */
const ACCOUNT_DEPTH = 3;

/**
 * The watch-only view of a wallet's account, from the xpub its keystore file (in the data
 * directory `dataDir`) stores in clear: an xpub edited into the file is `KEYSTORE_DAMAGED` naming
 * that file.
 */
export function watcherOf(entry: Pick<WalletEntry, 'id' | 'network' | 'account'>, dataDir: string): AccountWatcher {
  try {
    return new AccountWatcher(entry.account.xpub, entry.network);
  } catch (error) {
    if (!(error instanceof WalletError && error.code === 'KEYSTORE_DAMAGED')) throw error;
    throw new WalletError(
      'KEYSTORE_DAMAGED',
      `The keystore file ${walletFilePath(dataDir, entry)} holds an account xpub that is not a ${entry.network} account's extended public key.`,
      { ...RESTORE, cause: error },
    );
  }
}

/**
 * A watch-only view of one account: addresses from its xpub, no secret needed. It loads no seed
 * or bip32 module, nor noble's `secp256k1` (only noble's generic curve code: `public-derivation.ts`),
 * so handing out an address does not.
 */
export class AccountWatcher {
  private readonly account: PublicNode;
  private readonly chains = new Map<number, PublicNode>();

  constructor(
    xpub: string,
    readonly network: CoreNetwork,
  ) {
    this.account = readStoredXpub(
      xpub,
      dashParams(network).bip32.public,
      ACCOUNT_DEPTH,
      `The stored account xpub is not a ${network} account's extended public key.`,
    );
  }

  publicKey(chain: AddressChain, index: number): Uint8Array {
    const chainIndex = CHAIN_INDEX[chain];
    let chainKey = this.chains.get(chainIndex);
    if (!chainKey) {
      chainKey = publicChild(this.account, chainIndex);
      this.chains.set(chainIndex, chainKey);
    }
    return publicChild(chainKey, index).publicKey;
  }

  address(chain: AddressChain, index: number): string {
    return publicKeyAddress(this.publicKey(chain, index), this.network);
  }
}
