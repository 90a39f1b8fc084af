/**
 * Platform credits and DASH: 1 DASH = 10^11 credits (1 duff = 1000 credits), exact, as bigint
 * and decimal strings.
 */
import { CREDIT_DECIMALS, formatUnits } from '../../shared/amounts.js';

/**
 * Credits as DASH, exact, without trailing zeros.
 *
 * @example
 * creditsToDash(150_000_000_000n) // '1.5'
 */
export function creditsToDash(credits: bigint): string {
  return formatUnits(credits, CREDIT_DECIMALS);
}
