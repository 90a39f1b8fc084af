/**
 * DIP-13 identity authentication keys, from the wallet's BIP32 master key (wallet/seed.ts):
 * `m/9'/<coin>'/5'/0'/<key type>'/<identity index>'/<key index>'`, every level hardened, so they
 * need the seed, not an xpub. Only ECDSA (secp256k1, key type 0') keys are derived: the ones a
 * Platform identity finds by the HASH160 of its compressed public key. The private keys are wiped
 * before a function returns; only public data leaves this module.
 */
import type { HDKey } from '@scure/bip32';
import type { CoreNetwork } from '../config/networks.js';
import { hash160 } from '../dash/address.js';
import { dashParams } from '../dash/params.js';

/** DIP-9's purpose for Dash features, DIP-13's feature for identities and its sub-feature for authentication keys. */
const DIP9_PURPOSE = 9;
const IDENTITY_FEATURE = 5;
const AUTHENTICATION_SUB_FEATURE = 0;
/** DIP-13's key type of ECDSA secp256k1 keys (1' is BLS). */
const ECDSA_KEY_TYPE = 0;
/** The largest identity or key index (a hardened index takes 31 bits). */
const MAX_INDEX = 0x7fffffff;

export type IdentityKeyPosition = { identityIndex: number; keyIndex: number };

export type IdentityAuthenticationKey = IdentityKeyPosition & {
  path: string;
  /** The compressed secp256k1 public key (33 bytes). */
  publicKey: Uint8Array;
  /** HASH160 (RIPEMD-160 of SHA-256) of the public key: what Platform finds an identity by. */
  publicKeyHash: Uint8Array;
};

/**
 * The DIP-13 path of an ECDSA identity authentication key; coin type 5' on mainnet, 1' on the
 * test networks (Platform's testnet, local networks and devnets use a test-network wallet).
 *
 * @example
 * identityAuthenticationPath('mainnet', { identityIndex: 0, keyIndex: 1 }) // "m/9'/5'/5'/0'/0'/0'/1'"
 */
export function identityAuthenticationPath(network: CoreNetwork, position: IdentityKeyPosition): string {
  for (const index of [position.identityIndex, position.keyIndex]) {
    if (!Number.isInteger(index) || index < 0 || index > MAX_INDEX) {
      throw new RangeError(`a DIP-13 index must be an integer from 0 to ${MAX_INDEX}, not ${index}`);
    }
  }
  const coin = dashParams(network).coinType;
  return `m/${DIP9_PURPOSE}'/${coin}'/${IDENTITY_FEATURE}'/${AUTHENTICATION_SUB_FEATURE}'/${ECDSA_KEY_TYPE}'/${position.identityIndex}'/${position.keyIndex}'`;
}

/** The public side of each ECDSA identity authentication key asked, derived from the master key. */
export function identityAuthenticationKeys(
  master: HDKey,
  network: CoreNetwork,
  positions: readonly IdentityKeyPosition[],
): IdentityAuthenticationKey[] {
  return positions.map((position) => {
    const path = identityAuthenticationPath(network, position);
    const key = master.derive(path);
    try {
      if (!key.publicKey) throw new Error(`no public key at ${path}`);
      const publicKey = Uint8Array.from(key.publicKey);
      return { ...position, path, publicKey, publicKeyHash: hash160(publicKey) };
    } finally {
      key.wipePrivateData();
    }
  });
}
