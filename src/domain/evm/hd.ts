import { HDKey } from '@scure/bip32';
import { secp256k1 } from '../secp256k1.js';
import { keccak_256 } from '@noble/hashes/sha3.js';
import { publicChild, readStoredXpub } from '../dash/public-derivation.js';
import { checksumEvmAddress, type EvmAddress } from './address.js';
import { ETH_COIN_TYPE, evmAccountPath } from './paths.js';

/** Bitcoin's xpub version bytes, which `HDKey` writes by default and {@link evmChainXpub} uses. */
const XPUB_VERSION = 0x0488b21e;
/** The chain's extended key is at m/44'/60'/0'/0: depth 4. */
const CHAIN_DEPTH = 4;

/**
 * The xpub of m/44'/60'/0'/0, whose children are the accounts: stored so new accounts need no
 * passphrase. Written with Bitcoin's version bytes (xpub…), as EVM wallets do, whatever the Dash
 * network of the wallet's master key.
 */
export function evmChainXpub(master: HDKey): string {
  const node = master.derive(`m/44'/${ETH_COIN_TYPE}'/0'/0`);
  if (!node.publicKey || !node.chainCode) throw new Error('derived an incomplete EVM chain key');
  return new HDKey({
    publicKey: node.publicKey,
    chainCode: node.chainCode,
    depth: node.depth,
    index: node.index,
    parentFingerprint: node.parentFingerprint,
  }).publicExtendedKey;
}

/**
 * The checksummed address of account `index` under a chain xpub, or `KEYSTORE_DAMAGED` when the
 * stored xpub is not the extended public key of an EVM chain (it is kept in clear: edited in).
 */
export function evmAddressAt(chainXpub: string, index: number): EvmAddress {
  const chain = readStoredXpub(
    chainXpub,
    XPUB_VERSION,
    CHAIN_DEPTH,
    "The stored EVM chain xpub is not a chain's extended public key.",
  );
  return addressOfPublicKey(publicChild(chain, index).point.toBytes(false));
}

/**
 * The checksummed address of a private key. viem's `privateKeyToAddress` does the same, but
 * importing viem initialises all of it (docs/PERFORMANCE.md): listing accounts needs none of it.
 */
export function evmAddressOfPrivateKey(privateKey: Uint8Array): EvmAddress {
  return addressOfPublicKey(secp256k1.getPublicKey(privateKey, false));
}

/** The last 20 bytes of the keccak-256 of an uncompressed public key (without its 0x04 prefix), EIP-55. */
function addressOfPublicKey(uncompressed: Uint8Array): EvmAddress {
  return checksumEvmAddress(`0x${Buffer.from(keccak_256(uncompressed.subarray(1)).subarray(12)).toString('hex')}`);
}

/** A private key as the hex viem's signers take. */
export function privateKeyHex(privateKey: Uint8Array): `0x${string}` {
  return `0x${Buffer.from(privateKey).toString('hex')}`;
}

/** The private key of account `index`; the caller must wipe it when done. */
export function evmPrivateKeyAt(master: HDKey, index: number): Uint8Array {
  const key = master.derive(evmAccountPath(index)).privateKey;
  if (!key) throw new Error('the master key has no private key');
  return Uint8Array.from(key);
}
