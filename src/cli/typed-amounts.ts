import { BASE_UNITS, isBaseUnitName, parseTypedAmount, type BaseUnitName } from '../shared/amounts.js';
import { declaredUnitOf, schemaProperties, type JsonSchema } from '../shared/json-schema.js';
import { shownValue } from '../shared/text.js';
import type { FlagSpec } from './schema-flags.js';
import { UsageError } from './usage-error.js';

/**
 * Amount flags typed in coins: a flag whose argument declares a base unit (`x-unit`: duffs, wei,
 * gwei) also takes a decimal number with a unit, `--amount-duffs 1.5dash`, `--value-wei 0.01ether`,
 * `--max-fee-wei 20gwei`, converted here exactly (no floating point) into the base units the tool
 * takes. Text without a unit stays as typed (the tool checks it). An amount finer than one base unit,
 * or in a unit of another chain, is refused naming the flag. Tools only ever see base units.
 *
 * @example
 * withBaseUnits(schema, specs, { 'amount-duffs': '1.5dash' }) // { 'amount-duffs': '150000000' }
 */
export function withBaseUnits(
  schema: JsonSchema,
  specs: readonly FlagSpec[],
  parsed: Readonly<Record<string, unknown>>,
): Record<string, unknown> {
  const units = new Map(
    schemaProperties(schema).flatMap(([name, property]): [string, BaseUnitName][] => {
      const unit = declaredUnitOf(property);
      return unit?.kind === 'base' && isBaseUnitName(unit.unit) ? [[name, unit.unit]] : [];
    }),
  );
  const converted: Record<string, unknown> = { ...parsed };
  for (const spec of specs) {
    const unit = units.get(spec.property);
    const text = parsed[spec.flag];
    if (!unit || spec.secret || spec.array || typeof text !== 'string' || !/[a-z]/i.test(text)) continue;
    converted[spec.flag] = baseUnits(text, unit, spec.flag);
  }
  return converted;
}

function baseUnits(text: string, unit: BaseUnitName, flag: string): string {
  const parsed = parseTypedAmount(text, unit);
  if ('units' in parsed) return parsed.units.toString();
  const accepted = Object.keys(BASE_UNITS[unit].typed).join(', ');
  const example = EXAMPLES[unit];
  switch (parsed.problem) {
    case 'too-many-decimals':
      throw new UsageError(
        `--${flag} ${shownValue(text)} is finer than one ${BASE_UNITS[unit].names[1]}, the smallest amount there is.`,
        `Use fewer decimals, e.g. --${flag} ${example}.`,
      );
    case 'unknown-unit':
      throw new UsageError(
        `--${flag} takes ${BASE_UNITS[unit].names[0]}, or a coin amount in ${accepted}; got ${shownValue(text)}.`,
        `For example --${flag} ${example}.`,
      );
    case 'not-an-amount':
      throw new UsageError(
        `--${flag} must be a whole number of ${BASE_UNITS[unit].names[0]}, or a decimal with a unit; got ${shownValue(text)}.`,
        `For example --${flag} ${example}.`,
      );
  }
}

const EXAMPLES: Readonly<Record<BaseUnitName, string>> = {
  duffs: '1.5dash',
  wei: '0.01ether',
  gwei: '20gwei',
  credits: '0.5dash',
};
