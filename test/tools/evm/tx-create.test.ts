/**
 * evm_tx_create against a real node (anvil), through a real SDK client on the wallet's own server:
 * an unsigned EIP-1559 transaction that ethers (an independent implementation) decodes to exactly
 * what was asked, at the node's next nonce and chain id, with nothing signed or sent.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ethers } from 'ethers';
import { ANVIL_FIRST_ACCOUNT, startAnvil, type AnvilNode } from '../../helpers/anvil.js';
import { tempHome } from '../../helpers/io.js';
import { closeAnvilTest, failureCode, serveAnvilWallet, type ToolCaller } from '../../helpers/mcp.js';

type Created = { unsigned_tx: string; nonce: number; chain_id: number; gas_limit: string; from: string };

const RECIPIENT = '0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC';

describe('evm_tx_create against anvil', () => {
  let node: AnvilNode;
  let home: string;
  let wallet: ToolCaller;
  before(async () => {
    node = await startAnvil();
    home = tempHome();
    wallet = await serveAnvilWallet(home, node.url, 'tx create test passphrase', 'funded');
  });
  after(() => closeAnvilTest({ wallet, node, home }));

  it("builds the unsigned transaction asked for, at the node's nonce, sending nothing", async () => {
    // The node's unlocked account sends one first, outside the wallet: the next nonce is 1.
    await node.rpc('eth_sendTransaction', [{ from: ANVIL_FIRST_ACCOUNT, to: RECIPIENT, value: '0x1' }]);
    const nonce = await node.rpc<string>('eth_getTransactionCount', [ANVIL_FIRST_ACCOUNT, 'pending']);
    const created = await wallet.call<Created>('evm_tx_create', {
      address: 'funded',
      to: RECIPIENT.toLowerCase(),
      value_wei: '12345',
      network: 'local',
    });
    assert.deepEqual(
      [created.from, created.chain_id, created.nonce, created.gas_limit],
      [ANVIL_FIRST_ACCOUNT, 31337, Number(nonce), '21000'],
    );
    const decoded = ethers.Transaction.from(created.unsigned_tx);
    assert.equal(decoded.signature, null);
    assert.deepEqual(
      [decoded.type, decoded.to, decoded.value, decoded.chainId, decoded.nonce, decoded.gasLimit],
      [2, RECIPIENT, 12345n, 31337n, Number(nonce), 21000n],
    );
    assert.equal(await node.rpc<string>('eth_getTransactionCount', [ANVIL_FIRST_ACCOUNT, 'pending']), nonce);
  });

  it('refuses a recipient that is no address: INVALID_PARAM', async () => {
    assert.equal(
      await failureCode(
        wallet.call('evm_tx_create', { address: 'funded', to: '0x1234', value_wei: '1', network: 'local' }),
      ),
      'INVALID_PARAM',
    );
  });
});
