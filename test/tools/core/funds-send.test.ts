/**
 * core_funds_send through the CLI on each Dash backend (test/helpers/dash-backend-wallet.ts: a
 * Dash Core node's JSON-RPC with the address index, without it, an Insight explorer, whose mempool
 * checks every signature with node:crypto): a refused or previewed payment changes nothing; a
 * payment is accepted, its change comes back to the next change address, its coins are not offered
 * again. Its policy is in test/policy/core-policy.test.ts.
 */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { addressAt, describeOnMainWallet, STRANGER } from '../../helpers/dash-backend-wallet.js';
import { wallet } from '../../helpers/io.js';
import { fundsSendArgs } from '../../helpers/core-argv.js';

describeOnMainWallet('core_funds_send', (on) => {
  it('a refused or previewed payment uses up no change address and signs nothing', async () => {
    const changeCount = async () =>
      ((await on.ok(['core-wallets-list']))['wallets'] as Array<{ change_addresses: number }>)[0]?.change_addresses;
    const before = await changeCount();
    const pay = ['core-funds-send', '--wallet-id', 'main', '--network', 'testnet', '--address', STRANGER];
    const dry = await on.ok([...pay, '--amount-duffs', '120000000', '--dry-run']);
    assert.deepEqual([dry['sent'], dry['hex'], dry['txid']], [false, null, null]);
    assert.equal(dry['change_address'], addressAt(1, 3), 'shows the change address it would use');
    assert.match(await on.fails([...pay, '--amount-duffs', '120000000', '--max-fee-duffs', '10']), /POLICY_VIOLATION/);
    const locked = await wallet([...pay, '--amount-duffs', '120000000', '--passphrase-stdin', '--yes'], {
      home: on.home,
      env: on.env,
      stdin: 'not the passphrase',
    });
    assert.match(locked.stderr, /WALLET_LOCKED/);
    assert.equal(await changeCount(), before);
    assert.equal(on.backends.chain.broadcasts.length, 0);
  });

  it('pays an address: the node accepts the signatures; change comes back', async () => {
    const sent = await on.ok(fundsSendArgs(STRANGER, '120000000'));
    assert.equal(sent['sent'], true);
    assert.equal(on.backends.chain.broadcasts.length, 1);
    const change = (sent['outputs'] as Array<{ change: boolean; address: string }>).find((output) => output.change);
    assert.equal(change?.address, addressAt(1, 3), 'change to the next change address (3, after discovery)');
    const spent = new Set((sent['inputs'] as Array<{ txid: string; vout: number }>).map((i) => `${i.txid}:${i.vout}`));
    const pending = (await on.ok(['core-utxos-list', '--wallet-id', 'main']))['utxos'] as Array<{
      txid: string;
      vout: number;
    }>;
    assert.ok(
      pending.every((utxo) => !spent.has(`${utxo.txid}:${utxo.vout}`)),
      'coins spent in the mempool are not offered again',
    );
    on.backends.chain.mine(1);
    const balance = await on.ok(['core-balances-get', '--wallet-id', 'main']);
    const fee = BigInt(sent['fee_duffs'] as string);
    assert.equal(BigInt(balance['confirmed_duffs'] as string), 380_000_000n - 120_000_000n - fee);
    assert.equal(balance['unconfirmed_duffs'], '0');
  });
});
