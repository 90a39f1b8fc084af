/**
 * evm_tx_sign and evm_tx_send: what their dry runs (which `wallet serve` runs before it asks
 * anyone or files an approval) refuse, and the canonical hex its arguments must be (issue 36).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { encodeFunctionData, erc20Abi, serializeTransaction, type Hex } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { WalletError } from '../../../src/domain/errors.js';
import { WalletServices } from '../../../src/domain/services.js';
import { validateInput } from '../../../src/tools/invoke.js';
import { evmTxSend } from '../../../src/tools/evm/tx-send.js';
import { evmTxSign } from '../../../src/tools/evm/tx-sign.js';
import type { ToolContext } from '../../../src/tools/define.js';
import { tempHome } from '../../helpers/io.js';

const TOKEN = '0x5FbDB2315678afecb367f032d93F642f64180aa3';
const RECIPIENT = '0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC';
const transfer = encodeFunctionData({ abi: erc20Abi, functionName: 'transfer', args: [RECIPIENT, 1_000_000n] });

const transaction = (data: Hex, chainId: number) =>
  ({
    type: 'eip1559',
    chainId,
    nonce: 0,
    to: TOKEN,
    value: 0n,
    data,
    gas: 60_000n,
    maxFeePerGas: 2_000_000_000n,
    maxPriorityFeePerGas: 1_000_000_000n,
  }) as const;

/** Signed by a throwaway key: evm_tx_send reads whoever signed it. */
function signed(data: Hex, chainId = 31337): Promise<Hex> {
  return privateKeyToAccount(generatePrivateKey()).signTransaction(transaction(data, chainId));
}

function unsigned(data: Hex, chainId = 31337): Hex {
  return serializeTransaction(transaction(data, chainId));
}

const context = { services: new WalletServices({ dataDir: tempHome() }) } as ToolContext;

describe('evm_tx_sign and evm_tx_send: refused before anyone is asked', () => {
  for (const [tool, field] of [
    [evmTxSign, 'unsigned_tx'],
    [evmTxSend, 'signed_tx'],
  ] as const) {
    it(`${tool.name}: its dry run (what wallet serve plans before asking) refuses a garbled token call, a transaction of another chain`, async () => {
      assert.equal(tool.dryRunField, 'dry_run', `${tool.name} declares a dry run`);
      assert.equal(tool.precheck, undefined, 'its dry run checks: no precheck besides');
      const base = tool.name === 'evm_tx_sign' ? { address: 'agent' } : {};
      const hex = (data: Hex, chainId?: number) =>
        tool.name === 'evm_tx_sign' ? unsigned(data, chainId) : signed(data, chainId);
      const dryRun = async (data: Hex, chainId?: number) => {
        const input = validateInput(tool, {
          ...base,
          [field]: await hex(data, chainId),
          network: 'local',
          dry_run: true,
        });
        assert.ok(input.ok);
        return tool.handler(input.input.data, context);
      };
      await assert.rejects(
        dryRun(transfer.slice(0, 74) as Hex),
        (error: unknown) =>
          error instanceof WalletError && error.code === 'INVALID_PARAM' && /do not decode/.test(error.message),
      );
      await assert.rejects(
        dryRun(transfer, 1),
        (error: unknown) => error instanceof WalletError && error.code === 'NETWORK_MISMATCH',
      );
    });
  }

  it('hex arguments are canonical: a leading space (which once hid a transfer from the question) is refused', () => {
    const refused = validateInput(evmTxSign, {
      address: 'agent',
      unsigned_tx: ` ${unsigned(transfer)}`,
      network: 'local',
    });
    assert.equal(refused.ok, false);
    assert.equal(
      validateInput(evmTxSign, { address: 'agent', unsigned_tx: unsigned(transfer), network: 'local' }).ok,
      true,
    );
  });
});
