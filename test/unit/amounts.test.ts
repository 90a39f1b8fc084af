/**
 * The one amounts module (src/shared/amounts.ts): base units ↔ coins for both chains, exact, and
 * what a person may type for an amount field. Checked against bigint arithmetic, never floats.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  formatDash,
  formatEther,
  formatGwei,
  formatUnits,
  parseTypedAmount,
  parseUnits,
  showAmount,
} from '../../src/shared/amounts.js';

describe('formatUnits and parseUnits', () => {
  it('format exactly, without trailing zeros, both signs', () => {
    assert.equal(formatUnits(226n, 8), '0.00000226');
    assert.equal(formatUnits(-150_000_000n, 8), '-1.5');
    assert.equal(formatUnits(0n, 18), '0');
    assert.equal(formatUnits(1234500n, 6), '1.2345');
    assert.equal(formatUnits(7n, 0), '7');
    assert.equal(formatDash(100_000_000n), '1');
    assert.equal(formatEther(10n ** 16n), '0.01');
    assert.equal(formatGwei(20_000_000_000n), '20');
    // Beyond what a double holds: 2^256 - 1 wei, digit for digit.
    const max = 2n ** 256n - 1n;
    assert.equal(parseUnits(formatEther(max), 18), max);
  });

  it('parse exactly and refuse what is finer than a base unit', () => {
    assert.equal(parseUnits('1.5', 8), 150_000_000n);
    assert.equal(parseUnits('0.1', 18), 10n ** 17n);
    assert.equal(parseUnits('-0.00000226', 8), -226n);
    assert.equal(parseUnits('1.000000000', 8), 100_000_000n);
    assert.equal(parseUnits('0.000000001', 8), undefined);
    assert.equal(parseUnits('1e3', 8), undefined);
    assert.equal(parseUnits('', 8), undefined);
  });

  it('shows coins with the base units after them', () => {
    assert.equal(showAmount(150_000_000n, 'duffs'), '1.5 DASH (150000000 duffs)');
    assert.equal(showAmount(1n, 'duffs'), '0.00000001 DASH (1 duff)');
    assert.equal(showAmount(10n ** 18n, 'wei'), '1 ether (1000000000000000000 wei)');
  });
});

describe('parseTypedAmount', () => {
  it('takes base units in digits as they are', () => {
    assert.deepEqual(parseTypedAmount('150000', 'duffs'), { units: 150_000n });
    assert.deepEqual(parseTypedAmount('1.5', 'duffs'), { problem: 'not-an-amount' });
  });

  it('converts coin amounts with a unit exactly', () => {
    assert.deepEqual(parseTypedAmount('1.5dash', 'duffs'), { units: 150_000_000n, typedUnit: 'dash' });
    assert.deepEqual(parseTypedAmount('1.5 DASH', 'duffs'), { units: 150_000_000n, typedUnit: 'dash' });
    assert.deepEqual(parseTypedAmount('0.01ether', 'wei'), { units: 10n ** 16n, typedUnit: 'ether' });
    assert.deepEqual(parseTypedAmount('20gwei', 'wei'), { units: 20n * 10n ** 9n, typedUnit: 'gwei' });
    assert.deepEqual(parseTypedAmount('0.1eth', 'wei'), { units: 10n ** 17n, typedUnit: 'eth' });
    assert.deepEqual(parseTypedAmount('.5dash', 'duffs'), { units: 50_000_000n, typedUnit: 'dash' });
    assert.deepEqual(parseTypedAmount('1ether', 'gwei'), { units: 10n ** 9n, typedUnit: 'ether' });
    assert.deepEqual(parseTypedAmount('3000000000wei', 'gwei'), { units: 3n, typedUnit: 'wei' });
  });

  it('refuses amounts finer than a base unit, units of another chain, and non-numbers', () => {
    assert.deepEqual(parseTypedAmount('1.000000001dash', 'duffs'), { problem: 'too-many-decimals' });
    assert.deepEqual(parseTypedAmount('0.5wei', 'wei'), { problem: 'too-many-decimals' });
    assert.deepEqual(parseTypedAmount('1500000001wei', 'gwei'), { problem: 'too-many-decimals' });
    assert.deepEqual(parseTypedAmount('1ether', 'duffs'), { problem: 'unknown-unit' });
    assert.deepEqual(parseTypedAmount('1dash', 'wei'), { problem: 'unknown-unit' });
    assert.deepEqual(parseTypedAmount('-1dash', 'duffs'), { problem: 'not-an-amount' });
    assert.deepEqual(parseTypedAmount('1e18wei', 'wei'), { problem: 'not-an-amount' });
  });
});
