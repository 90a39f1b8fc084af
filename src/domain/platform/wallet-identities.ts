/**
 * The Platform identities a wallet controls: its DIP-13 identity authentication keys (identity
 * index i, key index 0: the first key a wallet registers an identity with) looked up by the
 * HASH160 of each public key, identity index 0, 1, 2… until `gapLimit` in a row hold none (DIP-13:
 * identities use their indexes in order). The keys are hardened, so the seed is unlocked (the
 * keystore passphrase); only public keys and their hashes leave it.
 */
import { bytesToHex } from '@noble/hashes/utils.js';
import { WalletError } from '../errors.js';
import type { WalletServices } from '../services.js';
import { openWallet, unlockMaster } from '../wallet/wallets.js';
import { identityAuthenticationKeys } from './identity-keys.js';
import { fetchIdentitiesByKeyHashes, type PlatformIdentity } from './identities.js';
import type { PlatformNetwork } from './network.js';

/** The most identity indexes looked at: a wallet with more personas than this is not expected. */
const MAX_IDENTITY_INDEXES = 32;

type WalletIdentity = {
  identityIndex: number;
  /** The DIP-13 path of the key it was found by. */
  keyPath: string;
  /** That key's HASH160, hex. */
  publicKeyHash: string;
  identity: PlatformIdentity;
};

export type WalletIdentities = {
  walletId: string;
  identities: WalletIdentity[];
  /** How many identity indexes were looked up (0 to this less one). */
  indexesChecked: number;
};

/**
 * The wallet's identities on a Platform network, proved. A mainnet wallet's keys (coin type 5')
 * are looked up on Platform mainnet only, a test-network wallet's (1') on every other network.
 */
export async function findWalletIdentities(
  services: WalletServices,
  walletId: string | undefined,
  network: PlatformNetwork,
  gapLimit: number,
): Promise<WalletIdentities> {
  const onMainnet = network.sdkNetwork === 'mainnet';
  const entry = await openWallet(services, walletId, onMainnet ? 'mainnet' : undefined);
  if (!onMainnet && entry.network === 'mainnet') {
    throw new WalletError(
      'NETWORK_MISMATCH',
      `Wallet '${entry.alias}' is a mainnet wallet; Platform ${network.network} is not mainnet.`,
      { hint: 'Pass network: mainnet, or use a testnet wallet.' },
    );
  }
  const master = await unlockMaster(services, entry);
  let keys;
  try {
    const positions = Array.from({ length: MAX_IDENTITY_INDEXES }, (_, identityIndex) => ({
      identityIndex,
      keyIndex: 0,
    }));
    keys = identityAuthenticationKeys(master, entry.network, positions);
  } finally {
    master.wipePrivateData();
  }
  const identities: WalletIdentity[] = [];
  let misses = 0;
  let indexesChecked = 0;
  for (const key of keys) {
    if (misses >= gapLimit) break;
    const publicKeyHash = bytesToHex(key.publicKeyHash);
    const [identity] = await fetchIdentitiesByKeyHashes(network, [publicKeyHash]);
    indexesChecked += 1;
    if (identity) {
      identities.push({ identityIndex: key.identityIndex, keyPath: key.path, publicKeyHash, identity });
      misses = 0;
    } else {
      misses += 1;
    }
  }
  return { walletId: entry.id, identities, indexesChecked };
}
