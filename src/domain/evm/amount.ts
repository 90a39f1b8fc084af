import { WalletError } from '../errors.js';

/**
 * The fee `evm_tx_sign`, `evm_tx_send` and `evm_funds_send` refuse to exceed unless told
 * otherwise: 0.01 ether (gas limit × max fee per gas). A hostile or broken node cannot make a
 * payment burn the balance as fees.
 */
export const DEFAULT_MAX_FEE_WEI = 10n ** 16n;

/** A whole number of wei in digits (1 ether = 10^18 wei), at most 2^256 - 1. */
export const WEI_PATTERN = /^(0|[1-9][0-9]{0,77})$/;
/** A whole number of token base units in digits: an ERC-20 amount is a uint256, as wei is. */
export const TOKEN_UNITS_PATTERN = WEI_PATTERN;
/** The largest wei amount an EVM value holds. */
export const MAX_UINT256 = 2n ** 256n - 1n;

/** Parses a wei amount given as a string of digits; `INVALID_PARAM` naming the field otherwise. */
export function parseWei(text: string, field: string): bigint {
  if (!WEI_PATTERN.test(text)) {
    throw new WalletError(
      'INVALID_PARAM',
      `${field} must be a whole number of wei in digits, e.g. "1000000000000000000" (1 ether).`,
    );
  }
  const value = BigInt(text);
  if (value > MAX_UINT256) throw new WalletError('INVALID_PARAM', `${field} is larger than 2^256 - 1.`);
  return value;
}
