import type { HDKey } from '@scure/bip32';
import { createBase58check } from '@scure/base';
import { sha256 } from '@noble/hashes/sha2.js';
import type { CoreNetwork } from '../config/networks.js';
import { dashParams } from './params.js';
import { accountPath } from './paths.js';

// The Dash side of a wallet's master key (made in wallet/seed.ts): its account xpub, WIF private keys.

/** The account's extended public key (xpub on mainnet, tpub elsewhere). */
export function accountXpub(master: HDKey, network: CoreNetwork, account: number): string {
  return master.derive(accountPath(network, account)).publicExtendedKey;
}

/** The private key at a path, as the node's WIF (compressed) for export or cross-checks. */
export function toWif(privateKey: Uint8Array, network: CoreNetwork): string {
  const payload = new Uint8Array(34);
  payload[0] = dashParams(network).wif;
  payload.set(privateKey, 1);
  payload[33] = 0x01;
  return createBase58check(sha256).encode(payload);
}
