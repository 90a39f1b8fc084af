/**
 * evm_tx_get against a real node (anvil), through a real SDK client on the wallet's server: a
 * transaction the node's unlocked account sent on its own (outside the wallet), reported as the
 * node's receipt says (eth_getTransactionReceipt, asked directly once mined); an unknown hash is not_found.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { getAddress } from 'viem';
import { ANVIL_FIRST_ACCOUNT, startAnvil, type AnvilNode } from '../../helpers/anvil.js';
import { tempHome } from '../../helpers/io.js';
import { closeAnvilTest, localServer, type ToolCaller } from '../../helpers/mcp.js';

type Found = {
  hash: string;
  status: string;
  from: string | null;
  to: string | null;
  value_wei: string | null;
  nonce: number | null;
  block_number: number | null;
  gas_used: string | null;
  confirmations: number | null;
};
type Receipt = { blockNumber: string; gasUsed: string; status: string };

const RECIPIENT = '0x3c44cdddb6a900fa2b585dd299e03d12fa4293bc';

describe('evm_tx_get against anvil', () => {
  let node: AnvilNode;
  let home: string;
  let wallet: ToolCaller;
  before(async () => {
    node = await startAnvil();
    home = tempHome();
    wallet = await localServer({ env: { WALLET_HOME: home, WALLET_EVM_LOCAL_URL: node.url } });
  });
  after(() => closeAnvilTest({ wallet, node, home }));

  it("reports a mined transaction as the node's receipt says, its confirmations growing", async () => {
    const hash = await node.rpc<string>('eth_sendTransaction', [
      { from: ANVIL_FIRST_ACCOUNT, to: RECIPIENT, value: '0x3039' },
    ]);
    const receipt = await node.mined<Receipt>(hash);
    const found = await wallet.call<Found>('evm_tx_get', { hash, network: 'local' });
    assert.deepEqual(
      [found.hash, found.status, found.from, found.to, found.value_wei, found.nonce],
      [hash, receipt.status === '0x1' ? 'success' : 'reverted', ANVIL_FIRST_ACCOUNT, getAddress(RECIPIENT), '12345', 0],
    );
    assert.equal(found.block_number, Number(receipt.blockNumber));
    assert.equal(found.gas_used, BigInt(receipt.gasUsed).toString());
    assert.equal(found.confirmations, 1);
    await node.rpc('evm_mine', []);
    assert.equal((await wallet.call<Found>('evm_tx_get', { hash, network: 'local' })).confirmations, 2);
  });

  it('an unknown hash is not_found, with nothing else', async () => {
    const unknown = await wallet.call<Found>('evm_tx_get', { hash: `0x${'ab'.repeat(32)}`, network: 'local' });
    assert.deepEqual([unknown.status, unknown.from, unknown.block_number], ['not_found', null, null]);
  });
});
