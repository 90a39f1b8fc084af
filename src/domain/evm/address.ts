import { getAddress, isAddress } from 'viem';
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
  if (!isAddress(value, { strict: true })) {
    throw new WalletError('INVALID_PARAM', `${field} has a wrong EIP-55 checksum (mixed case that does not match).`, {
      hint: 'Copy the address again; write it all in lower case only if you are sure it is right.',
    });
  }
  return getAddress(value);
}
