import { keccak_256 } from '@noble/hashes/sha3.js';
import { WalletError } from '../errors.js';

export type EvmAddress = `0x${string}`;

const ADDRESS_SHAPE = /^0x[0-9a-fA-F]{40}$/;

/** Whether `text` is written like an address (0x and 40 hex digits), checksum aside. */
export function looksLikeEvmAddress(text: string): boolean {
  return ADDRESS_SHAPE.test(text.trim());
}

/**
 * The address in its EIP-55 checksummed form. All-lower or all-upper hex is taken as written;
 * mixed case must carry a correct checksum, or it is refused as a likely typo.
 *
 * @example
 * parseEvmAddress('0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266', 'to') // '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266'
 */
export function parseEvmAddress(text: string, field: string): EvmAddress {
  const value = text.trim();
  if (!ADDRESS_SHAPE.test(value)) {
    throw new WalletError('INVALID_PARAM', `${field} is not an EVM address: expected 0x and 40 hex digits.`);
  }
  if (!isEvmAddress(value)) {
    throw new WalletError('INVALID_PARAM', `${field} has a wrong EIP-55 checksum (mixed case that does not match).`, {
      hint: 'Copy the address again; write it all in lower case only if you are sure it is right.',
    });
  }
  return checksumEvmAddress(value);
}

// EIP-55 here rather than viem's: config and policy checks run on every call, Dash ones too, and
// importing viem initialises all of it (docs/PERFORMANCE.md). Same rules as viem's
// `isAddress(text, { strict: true })` and `getAddress`; test/evm checks them against ethers.

/**
 * Whether `text` is an EVM address: 0x and 40 hex digits, all lower case or a correct EIP-55
 * checksum (viem's strict rule: all upper case counts as mixed case).
 */
export function isEvmAddress(text: string): boolean {
  if (!ADDRESS_SHAPE.test(text)) return false;
  return text.toLowerCase() === text || checksumEvmAddress(text) === text;
}

/** The EIP-55 form of an address written like one (0x and 40 hex digits, any case). */
export function checksumEvmAddress(text: string): EvmAddress {
  const hex = text.slice(2).toLowerCase();
  const hash = keccak_256(new TextEncoder().encode(hex));
  let out = '0x';
  for (const [i, digit] of [...hex].entries()) {
    const nibble = ((hash[i >> 1] ?? 0) >> (i % 2 === 0 ? 4 : 0)) & 0x0f;
    out += nibble >= 8 ? digit.toUpperCase() : digit;
  }
  return out as EvmAddress;
}
