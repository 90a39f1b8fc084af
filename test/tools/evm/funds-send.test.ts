/**
 * evm_funds_send against a real node (anvil), through a real SDK client on the wallet's own
 * server: ether sent from anvil's funded account (derived from its well-known mnemonic) to a fresh
 * keystore account, both balances compared with what the node reports (eth_getBalance, asked
 * directly), and a dry run that plans and sends nothing. Its refusals of bad input are in
 * test/evm/anvil-e2e.test.ts ("bad input"), its policy in test/policy/evm-policy.test.ts.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ANVIL_FIRST_ACCOUNT, startAnvil, type AnvilNode } from '../../helpers/anvil.js';
import { tempHome } from '../../helpers/io.js';
import { closeAnvilTest, serveAnvilWallet, type ToolCaller } from '../../helpers/mcp.js';

const ETHER = 10n ** 18n;

type Funds = {
  hash: string | null;
  status: string;
  nonce: number;
  fee_wei: string | null;
  max_fee_wei: string;
  sent: boolean;
};
type Balance = { wei: string; ether: string };

describe('evm_funds_send against anvil', () => {
  let node: AnvilNode;
  let home: string;
  let wallet: ToolCaller;
  let fresh: string;

  const balanceOf = async (address: string): Promise<bigint> =>
    BigInt(await node.rpc<string>('eth_getBalance', [address, 'latest']));

  before(async () => {
    node = await startAnvil();
    home = tempHome();
    wallet = await serveAnvilWallet(home, node.url, 'funds send test passphrase', 'funded');
    await wallet.call('core_wallet_create', { alias: 'fresh', network: 'regtest' });
    fresh = (await wallet.call<{ address: string }>('evm_account_create', { wallet_id: 'fresh', alias: 'fresh' }))
      .address;
  });
  after(() => closeAnvilTest({ wallet, node, home }));

  it('sends ether to a fresh account, waits for the receipt, and both balances move by value and fee exactly', async () => {
    const before = await balanceOf(ANVIL_FIRST_ACCOUNT);
    const sent = await wallet.call<Funds>('evm_funds_send', {
      address: 'funded',
      to: fresh,
      value_wei: ((3n * ETHER) / 2n).toString(),
      network: 'local',
      wait: true,
    });
    assert.equal(sent.status, 'success');
    assert.equal(sent.sent, true);
    const freshBalance = await wallet.call<Balance>('evm_balance_get', { address: 'fresh', network: 'local' });
    assert.equal(freshBalance.wei, ((3n * ETHER) / 2n).toString());
    assert.equal(freshBalance.ether, '1.5');
    const funded = await wallet.call<Balance>('evm_balance_get', { address: ANVIL_FIRST_ACCOUNT, network: 'local' });
    assert.equal(BigInt(funded.wei), before - (3n * ETHER) / 2n - BigInt(sent.fee_wei ?? 'x'));
    assert.equal(BigInt(funded.wei), await balanceOf(ANVIL_FIRST_ACCOUNT));
    const receipt = await node.mined<{ status: string; from: string }>(String(sent.hash));
    assert.equal(receipt.status, '0x1');
  });

  it('a dry run plans and signs nothing: no transaction, same nonce, same balance', async () => {
    const before = await balanceOf(ANVIL_FIRST_ACCOUNT);
    const nonce = await node.rpc<string>('eth_getTransactionCount', [ANVIL_FIRST_ACCOUNT, 'pending']);
    const planned = await wallet.call<Funds>('evm_funds_send', {
      address: 'funded',
      to: fresh,
      value_wei: '1000',
      network: 'local',
      dry_run: true,
    });
    assert.deepEqual([planned.sent, planned.hash, planned.status], [false, null, 'planned']);
    assert.equal(planned.nonce, Number(nonce));
    assert.equal(await node.rpc<string>('eth_getTransactionCount', [ANVIL_FIRST_ACCOUNT, 'pending']), nonce);
    assert.equal(await balanceOf(ANVIL_FIRST_ACCOUNT), before);
  });
});
