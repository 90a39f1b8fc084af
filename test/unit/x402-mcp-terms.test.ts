/**
 * The pieces of x402 over MCP that need no chain: the terms digest a dry run prints and
 * `--pay-terms` checks, and the `--pay-*` flags as the CLI reads them. The payment itself is
 * tested on anvil (test/evm/x402-mcp.test.ts).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { PaymentRequirements } from '@x402/core/types';
import { GLOBAL_FLAGS, parseFlags, readGlobals } from '../../src/cli/global-flags.js';
import { UsageError } from '../../src/cli/usage-error.js';
import { parseEvmAddress } from '../../src/domain/evm/address.js';
import { termsDigest } from '../../src/domain/x402/mcp-payment.js';
import type { ChosenRequirement } from '../../src/domain/x402/payments.js';

const TOKEN = '0x036CbD53842c5426634e7929541eC2318f3dCF7e';
const PAYEE = '0x209693Bc6afc0C5328bA36FaF03C514EF312287C';
const OTHER = '0x857b06519E91e3A54538791bDbb0E22373e36b66';

function chosen(overrides: Partial<PaymentRequirements> = {}): ChosenRequirement {
  const requirement: PaymentRequirements = {
    scheme: 'exact',
    network: 'eip155:84532',
    asset: TOKEN,
    amount: '10000',
    payTo: PAYEE,
    maxTimeoutSeconds: 60,
    extra: { name: 'USDC', version: '2' },
    ...overrides,
  };
  return {
    x402Version: 2,
    x402Network: requirement.network,
    payee: parseEvmAddress(requirement.payTo, 'payTo'),
    asset: parseEvmAddress(requirement.asset, 'asset'),
    amount: BigInt(requirement.amount),
    requirement,
  };
}

describe('the terms digest', () => {
  it('is 16 hex digits, the same for the same terms, however the addresses are cased', () => {
    const digest = termsDigest(chosen());
    assert.match(digest, /^[0-9a-f]{16}$/);
    assert.equal(termsDigest(chosen()), digest);
    assert.equal(termsDigest(chosen({ payTo: PAYEE.toLowerCase(), asset: TOKEN.toLowerCase() })), digest);
    // What the signature does not depend on (the token's EIP-712 name) is no part of the terms.
    assert.equal(termsDigest(chosen({ extra: { name: 'USD Coin', version: '2' } })), digest);
  });

  it('changes with each term: amount, payee, asset, network, scheme, validity', () => {
    const digests = [
      chosen(),
      chosen({ amount: '10001' }),
      chosen({ payTo: OTHER }),
      chosen({ asset: OTHER }),
      chosen({ network: 'eip155:8453' }),
      chosen({ scheme: 'upto' }),
      chosen({ maxTimeoutSeconds: 61 }),
    ].map(termsDigest);
    assert.equal(new Set(digests).size, digests.length, digests.join(' '));
  });
});

describe('the --pay-* flags', () => {
  const globals = (argv: string[]) => readGlobals(parseFlags(argv, GLOBAL_FLAGS));
  const full = ['--pay-from', 'holder', '--pay-token', TOKEN, '--pay-max-price', '10000', '--pay-network', 'base'];

  it('are absent without --pay-from', () => {
    assert.equal(globals(['--server', 'x', 'report']).payment, undefined);
  });

  it('read all together, with the dry run and the terms', () => {
    assert.deepEqual(globals([...full, '--pay-dry-run', '--pay-terms', '0123456789abcdef']).payment, {
      from: 'holder',
      token: TOKEN,
      maxPrice: '10000',
      network: 'base',
      dryRun: true,
      terms: '0123456789abcdef',
    });
  });

  it('refuse a payment flag without --pay-from, --pay-from without what it needs, a bad digest', () => {
    assert.throws(
      () => globals(['--pay-max-price', '10000']),
      (error: unknown) => {
        assert.ok(error instanceof UsageError);
        assert.match(error.message, /--pay-max-price goes with --pay-from/);
        return true;
      },
    );
    assert.throws(
      () => globals(['--pay-from', 'holder', '--pay-token', TOKEN]),
      (error: unknown) => {
        assert.ok(error instanceof UsageError);
        assert.match(error.message, /only with --pay-max-price, --pay-network too/);
        return true;
      },
    );
    assert.throws(() => globals([...full, '--pay-terms', 'xyz']), /--pay-terms takes the 16 hex digits/);
  });
});
