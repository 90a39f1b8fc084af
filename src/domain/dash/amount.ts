import { DASH_DECIMALS, parseUnits } from '../../shared/amounts.js';
import { WalletError } from '../errors.js';

/** Duffs per DASH. */
const DUFFS_PER_DASH = 100_000_000n;

/** Dash Core's MAX_MONEY: no amount, balance or fee can exceed it. */
export const MAX_MONEY_DUFFS = 21_000_000n * DUFFS_PER_DASH;

/** The fee `core_tx_send` and `core_funds_send` refuse to exceed unless told otherwise: 0.01 DASH. */
export const DEFAULT_MAX_FEE_DUFFS = 1_000_000n;

/** Canonical decimal digits of a non-negative integer: no sign, no leading zeros, no fraction. */
export const DUFFS_PATTERN = /^(0|[1-9][0-9]*)$/;

/** Parses an amount of duffs given as a decimal string; never a float. */
export function parseDuffs(text: string, field: string, options: { allowZero?: boolean } = {}): bigint {
  if (!DUFFS_PATTERN.test(text)) {
    throw new WalletError(
      'INVALID_PARAM',
      `${field} must be a whole number of duffs written in digits (1 DASH = 100000000).`,
    );
  }
  const value = BigInt(text);
  if (value === 0n && !options.allowZero) throw new WalletError('INVALID_PARAM', `${field} must be more than 0 duffs.`);
  if (value > MAX_MONEY_DUFFS)
    throw new WalletError('INVALID_PARAM', `${field} is more than all the Dash there can be.`);
  return value;
}

/** An exact DASH decimal (as a node reports it, e.g. 0.001 or "0.00100000") to duffs. */
export function dashToDuffs(value: number | string): bigint {
  const text = typeof value === 'number' ? value.toFixed(DASH_DECIMALS) : value;
  const duffs = /^\d+(?:\.\d+)?$/.test(text) ? parseUnits(text, DASH_DECIMALS) : undefined;
  if (duffs === undefined)
    throw new WalletError(
      'BACKEND_UNAVAILABLE',
      `The backend sent an amount that is not a DASH decimal: ${text.slice(0, 32)}.`,
    );
  return duffs;
}
