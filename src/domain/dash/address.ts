import { createBase58check } from '@scure/base';
import { sha256 } from '@noble/hashes/sha2.js';
import { ripemd160 } from '@noble/hashes/legacy.js';
import { CORE_NETWORKS, type CoreNetwork } from '../config/networks.js';
import { WalletError } from '../errors.js';
import { ALIAS_PATTERN } from '../keystore/keystore-format.js';
import { dashParams } from './params.js';

const base58check = createBase58check(sha256);

export type AddressType = 'p2pkh' | 'p2sh';

/** A Dash address taken apart: which networks it belongs to, its type and its 20-byte hash. */
export type DecodedAddress = {
  address: string;
  type: AddressType;
  /** Testnet and regtest share version bytes, so an address names every network it is valid on. */
  networks: CoreNetwork[];
  hash: Uint8Array;
};

export function hash160(bytes: Uint8Array): Uint8Array {
  return ripemd160(sha256(bytes));
}

export function encodeAddress(hash: Uint8Array, type: AddressType, network: CoreNetwork): string {
  const params = dashParams(network);
  const version = type === 'p2pkh' ? params.pubKeyHash : params.scriptHash;
  const payload = new Uint8Array(21);
  payload[0] = version;
  payload.set(hash, 1);
  return base58check.encode(payload);
}

/** The P2PKH address of a compressed public key. */
export function publicKeyAddress(publicKey: Uint8Array, network: CoreNetwork): string {
  return encodeAddress(hash160(publicKey), 'p2pkh', network);
}

/**
 * Decodes a Base58Check address; `undefined` when it is not a Dash address at all (bad
 * characters, checksum, length or version byte). Why it failed is in {@link addressProblem}.
 */
export function decodeAddress(address: string): DecodedAddress | undefined {
  return addressProblem(address).decoded;
}

export function addressProblem(address: string): { decoded?: DecodedAddress; problem?: string } {
  if (!/^[1-9A-HJ-NP-Za-km-z]{25,40}$/.test(address)) return { problem: 'not Base58 text of an address length' };
  let payload: Uint8Array;
  try {
    payload = base58check.decode(address);
  } catch {
    return { problem: 'bad Base58Check checksum' };
  }
  if (payload.length !== 21) return { problem: `payload is ${payload.length} bytes, not 21` };
  const version = payload[0];
  const networks = CORE_NETWORKS.filter((network) => {
    const params = dashParams(network);
    return params.pubKeyHash === version || params.scriptHash === version;
  });
  const first = networks[0];
  if (first === undefined) return { problem: `version byte 0x${(version ?? 0).toString(16)} is not a Dash address` };
  const type: AddressType = dashParams(first).pubKeyHash === version ? 'p2pkh' : 'p2sh';
  return { decoded: { address, type, networks, hash: payload.slice(1) } };
}

export type AddressCheck = {
  valid: boolean;
  networks: CoreNetwork[];
  type: AddressType | null;
  problem: string | null;
};

/** Whether `address` is a Dash address, of which networks, and (given `network`) valid there. */
export function validateAddress(address: string, network?: CoreNetwork): AddressCheck {
  const { decoded, problem } = addressProblem(address.trim());
  if (!decoded) return { valid: false, networks: [], type: null, problem: problem ?? 'invalid' };
  if (network !== undefined && !decoded.networks.includes(network)) {
    return {
      valid: false,
      networks: decoded.networks,
      type: decoded.type,
      problem: `a ${decoded.networks.join('/')} address, not ${network}`,
    };
  }
  return { valid: true, networks: decoded.networks, type: decoded.type, problem: null };
}

/** The address, checked to be valid on `network`, or an `INVALID_PARAM` / `NETWORK_MISMATCH` error. */
export function requireAddress(address: string, network: CoreNetwork, field = 'address'): DecodedAddress {
  const { decoded, problem } = addressProblem(address);
  if (!decoded) {
    // A wallet alias is not taken for one of its addresses: which one would it be? (docs/CLI.md)
    const hint = ALIAS_PATTERN.test(address.trim())
      ? 'A wallet alias names many addresses, not one: ask that wallet for one with core_address_create, or pick one from core_addresses_list.'
      : undefined;
    throw new WalletError('INVALID_PARAM', `${field} is not a valid Dash address: ${problem ?? 'invalid'}.`, { hint });
  }
  if (!decoded.networks.includes(network)) {
    throw new WalletError(
      'NETWORK_MISMATCH',
      `${field} is a ${decoded.networks.join('/')} address, not a ${network} one.`,
      { hint: 'Mainnet addresses start with X or 7; testnet and regtest ones with y or 8.' },
    );
  }
  return decoded;
}

/** The output script paying to an address. */
export function addressScript(decoded: DecodedAddress): Uint8Array {
  const hash = decoded.hash;
  if (decoded.type === 'p2pkh') return concat([0x76, 0xa9, 0x14], hash, [0x88, 0xac]);
  return concat([0xa9, 0x14], hash, [0x87]);
}

/** The address an output script pays to, when it is a standard P2PKH or P2SH script. */
export function scriptAddress(script: Uint8Array, network: CoreNetwork): string | undefined {
  if (
    script.length === 25 &&
    script[0] === 0x76 &&
    script[1] === 0xa9 &&
    script[2] === 0x14 &&
    script[23] === 0x88 &&
    script[24] === 0xac
  ) {
    return encodeAddress(script.slice(3, 23), 'p2pkh', network);
  }
  if (script.length === 23 && script[0] === 0xa9 && script[1] === 0x14 && script[22] === 0x87) {
    return encodeAddress(script.slice(2, 22), 'p2sh', network);
  }
  return undefined;
}

function concat(head: readonly number[], middle: Uint8Array, tail: readonly number[]): Uint8Array {
  const out = new Uint8Array(head.length + middle.length + tail.length);
  out.set(head, 0);
  out.set(middle, head.length);
  out.set(tail, head.length + middle.length);
  return out;
}
