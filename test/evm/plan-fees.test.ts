/**
 * A plan estimates gas with the fee fields the transaction will be signed with (issue 36 review):
 * a node estimating a call with no fee fields runs it at gas price 0, so a contract that reads
 * `tx.gasprice` (or the sender's means to pay for gas) is estimated as it will never run. Against
 * anvil, with a 11-byte contract that reverts when the gas price is 0: without fee fields anvil's
 * own eth_estimateGas reverts; the wallet's plan and payment go through.
 */
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { ANVIL_FIRST_ACCOUNT, startAnvil, type AnvilNode } from '../helpers/anvil.js';
import { tempHome } from '../helpers/io.js';
import { importAnvilAccount, localServer, type ToolCaller } from '../helpers/mcp.js';

const PASSPHRASE = 'plan fees passphrase';
/** Runtime `GASPRICE ISZERO PUSH1 6 JUMPI STOP JUMPDEST PUSH1 0 DUP1 REVERT`, behind init code that returns it. */
const GAS_PRICE_GATE = '0x600b600c600039600b6000f3' + '3a15600657005b600080fd';

describe('plan: gas estimated with the fee fields it is signed with (anvil)', () => {
  let node: AnvilNode;
  let home: string;
  let owner: ToolCaller;
  let gate: string;
  before(async () => {
    node = await startAnvil();
    home = tempHome();
    const deployed = await node.rpc<string>('eth_sendTransaction', [
      { from: ANVIL_FIRST_ACCOUNT, data: GAS_PRICE_GATE },
    ]);
    gate = (await node.mined<{ contractAddress: string }>(deployed)).contractAddress;
    await importAnvilAccount(home, PASSPHRASE, { walletAlias: 'w', accountAlias: 'payer' });
    owner = await localServer({ env: { WALLET_HOME: home, WALLET_EVM_LOCAL_URL: node.url }, passphrase: PASSPHRASE });
  });
  after(async () => {
    await owner.close();
    await node.stop();
    rmSync(home, { recursive: true, force: true });
  });

  it("the contract refuses a gas price of 0: the node's estimate without fee fields reverts", async () => {
    await assert.rejects(
      node.rpc('eth_estimateGas', [{ from: ANVIL_FIRST_ACCOUNT, to: gate, value: '0x1' }]),
      /revert/i,
    );
  });

  it('the plan (a dry run) and the payment estimate it with their fees, and it is mined', async () => {
    const args = { address: 'payer', to: gate, value_wei: '1', network: 'local' };
    const planned = await owner.call<{ gas_limit?: string; status?: string }>('evm_funds_send', {
      ...args,
      dry_run: true,
    });
    assert.equal(planned.status, 'planned', JSON.stringify(planned));
    const sent = await owner.call<{ hash: string }>('evm_funds_send', args);
    assert.equal((await node.mined(sent.hash)).status, '0x1', 'mined, not reverted');
  });
});
