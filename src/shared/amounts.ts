/**
 * Amounts both ways between base units (duffs, wei, a token's base units) and coins (DASH, ether,
 * whole tokens), for both chains, exact: bigint and decimal strings, never floating point. Every
 * call loads this module, so it imports nothing (no viem: a Dash call must not initialise it).
 */

/** Digits after the decimal point of one DASH (1 DASH = 10^8 duffs). */
export const DASH_DECIMALS = 8;
/** Digits after the decimal point of one ether (1 ether = 10^18 wei). */
const ETHER_DECIMALS = 18;
/** Wei per gwei, as a power of ten (1 gwei = 10^9 wei). */
export const GWEI_DECIMALS = 9;

/**
 * Base units as a decimal number of coins, exact, without trailing zeros (viem's `formatUnits`).
 *
 * @example
 * formatUnits(226n, 8) // '0.00000226'
 * formatUnits(-1500000000000000000n, 18) // '-1.5'
 */
export function formatUnits(units: bigint, decimals: number): string {
  const negative = units < 0n;
  const digits = (negative ? -units : units).toString().padStart(decimals + 1, '0');
  const whole = digits.slice(0, digits.length - decimals);
  const fraction = digits.slice(digits.length - decimals).replace(/0+$/, '');
  return `${negative ? '-' : ''}${whole}${fraction ? `.${fraction}` : ''}`;
}

/**
 * A decimal number of coins as base units, exact; undefined when the text is not a decimal number
 * or is finer than one base unit (trailing zeros aside).
 *
 * @example
 * parseUnits('1.5', 8) // 150000000n
 * parseUnits('0.000000001', 8) // undefined: finer than a duff
 */
export function parseUnits(text: string, decimals: number): bigint | undefined {
  const match = /^(-?)([0-9]+)(?:\.([0-9]+))?$/.exec(text);
  if (!match) return undefined;
  const fraction = (match[3] ?? '').replace(/0+$/, '');
  if (fraction.length > decimals) return undefined;
  const magnitude = BigInt(match[2] ?? '0') * 10n ** BigInt(decimals) + BigInt(fraction.padEnd(decimals, '0') || '0');
  return match[1] === '-' ? -magnitude : magnitude;
}

/** Duffs as DASH: 150000000n -> "1.5". */
export function formatDash(duffs: bigint): string {
  return formatUnits(duffs, DASH_DECIMALS);
}

/** Wei as ether: 1500000000000000000n -> "1.5". */
export function formatEther(wei: bigint): string {
  return formatUnits(wei, ETHER_DECIMALS);
}

/** Wei as gwei: 20000000000n -> "20". */
export function formatGwei(wei: bigint): string {
  return formatUnits(wei, GWEI_DECIMALS);
}

/**
 * The base units an amount field can declare (its JSON Schema's `x-unit`, see
 * `src/shared/json-schema.ts`): the coin it counts, the power of ten of one coin, the base unit's
 * names, and the other units a person may type it in (name → power of ten of one of them).
 */
export type BaseUnit = {
  coin: string;
  decimals: number;
  names: readonly [plural: string, singular: string];
  /** Units a coin amount may be written in, e.g. `0.01ether` or `20gwei` for a wei field. */
  typed: Readonly<Record<string, number>>;
};

const EVM_TYPED = { wei: 0, gwei: GWEI_DECIMALS, ether: ETHER_DECIMALS, eth: ETHER_DECIMALS };

/** Digits after the decimal point of one DASH in Platform credits (1 DASH = 10^11 credits, 1 duff = 1000). */
export const CREDIT_DECIMALS = 11;

export const BASE_UNITS: Readonly<Record<'duffs' | 'wei' | 'gwei' | 'credits', BaseUnit>> = {
  duffs: { coin: 'DASH', decimals: DASH_DECIMALS, names: ['duffs', 'duff'], typed: { duff: 0, duffs: 0, dash: 8 } },
  credits: {
    coin: 'DASH',
    decimals: CREDIT_DECIMALS,
    names: ['credits', 'credit'],
    typed: { credit: 0, credits: 0, dash: CREDIT_DECIMALS },
  },
  wei: { coin: 'ether', decimals: ETHER_DECIMALS, names: ['wei', 'wei'], typed: EVM_TYPED },
  gwei: {
    coin: 'ether',
    decimals: ETHER_DECIMALS - GWEI_DECIMALS,
    names: ['gwei', 'gwei'],
    typed: Object.fromEntries(Object.entries(EVM_TYPED).map(([name, power]) => [name, power - GWEI_DECIMALS])),
  },
};

export type BaseUnitName = keyof typeof BASE_UNITS;

export function isBaseUnitName(name: unknown): name is BaseUnitName {
  return typeof name === 'string' && Object.hasOwn(BASE_UNITS, name);
}

/**
 * An amount as people read it, coins first and the exact base units after:
 * "1.5 ether (1500000000000000000 wei)", "0.00000226 DASH (226 duffs)".
 */
export function showAmount(amount: bigint, unit: BaseUnitName): string {
  const { coin, decimals, names } = BASE_UNITS[unit];
  return `${formatUnits(amount, decimals)} ${coin} (${amount} ${amount === 1n || amount === -1n ? names[1] : names[0]})`;
}

/** Why a typed coin amount was refused (see {@link parseTypedAmount}). */
export type TypedAmountProblem = 'not-an-amount' | 'unknown-unit' | 'too-many-decimals';

/**
 * An amount as a person types it for a field in `unit`: base units in digits (`150000`), or a
 * decimal number with a unit the field accepts (`1.5dash`, `0.01ether`, `20gwei`, `1.5 DASH`),
 * converted exactly. Refused when finer than one base unit.
 *
 * @example
 * parseTypedAmount('0.01ether', 'wei') // { units: 10000000000000000n }
 * parseTypedAmount('1.000000001dash', 'duffs') // { problem: 'too-many-decimals' }
 */
export function parseTypedAmount(
  text: string,
  unit: BaseUnitName,
): { units: bigint; typedUnit?: string } | { problem: TypedAmountProblem } {
  const match = /^\s*([0-9]+(?:\.[0-9]+)?|\.[0-9]+)\s*([A-Za-z]*)\s*$/.exec(text);
  if (!match) return { problem: 'not-an-amount' };
  const number = (match[1] ?? '').startsWith('.') ? `0${match[1]}` : (match[1] ?? '');
  const typedUnit = (match[2] ?? '').toLowerCase();
  if (typedUnit === '') {
    return /^[0-9]+$/.test(number) ? { units: BigInt(number) } : { problem: 'not-an-amount' };
  }
  const power = BASE_UNITS[unit].typed[typedUnit];
  if (power === undefined) return { problem: 'unknown-unit' };
  if (power < 0) {
    // A unit finer than the field's own (wei for a gwei field): whole multiples only.
    const finer = parseUnits(number, 0);
    const scale = 10n ** BigInt(-power);
    return finer === undefined || finer % scale !== 0n
      ? { problem: 'too-many-decimals' }
      : { units: finer / scale, typedUnit };
  }
  const units = parseUnits(number, power);
  return units === undefined ? { problem: 'too-many-decimals' } : { units, typedUnit };
}
