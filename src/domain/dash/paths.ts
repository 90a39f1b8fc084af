import type { CoreNetwork } from '../config/networks.js';
import { dashParams } from './params.js';

/** BIP44 chains of an account: 0 receives payments, 1 takes change. */
export type AddressChain = 'receive' | 'change';
export const CHAIN_INDEX: Readonly<Record<AddressChain, number>> = { receive: 0, change: 1 };

/** Added to a BIP32 index to make it hardened (the ' in m/44'). */
export const HARDENED = 0x80000000;

/**
 * BIP44 account path: m/44'/coin'/account'. Apart from hd.ts, which derives from the seed: handing
 * out and listing addresses shows paths without loading bip39, bip32 or the seed's code
 * (docs/PERFORMANCE.md).
 */
export function accountPath(network: CoreNetwork, account: number): string {
  return `m/44'/${dashParams(network).coinType}'/${account}'`;
}

export function addressPath(network: CoreNetwork, account: number, chain: AddressChain, index: number): string {
  return `${accountPath(network, account)}/${CHAIN_INDEX[chain]}/${index}`;
}
