/**
 * core_balances_get through the CLI on each Dash backend (test/helpers/dash-backend-wallet.ts: a
 * Dash Core node's JSON-RPC with the address index, without it, an Insight explorer): a wallet's
 * balance after discovery, and any address's without a wallet.
 */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { addressAt, dashcore, describeOnMainWallet, STRANGER } from '../../helpers/dash-backend-wallet.js';

describeOnMainWallet('core_balances_get', (on, kind) => {
  it("reads the wallet's confirmed balance, and the mempool's where the backend reads it", async () => {
    const balance = await on.ok(['core-balances-get', '--wallet-id', 'main']);
    assert.equal(balance['confirmed_duffs'], '350000000');
    assert.equal(balance['unconfirmed_duffs'], kind.readsMempool ? '30000000' : '0');
  });

  it("reads any address's balance with address, no wallet asked", async () => {
    on.backends.chain.requests.length = 0;
    // No network given: testnet, the default Dash network, whose addresses start with y.
    const funded = await on.ok(['core-balances-get', '--address', addressAt(0, 0)]);
    assert.deepEqual(
      [
        funded['wallet_id'],
        funded['network'],
        funded['backend'],
        funded['confirmed_duffs'],
        funded['unconfirmed_duffs'],
      ],
      [null, 'testnet', kind.backend, '200000000', kind.readsMempool ? '30000000' : '0'],
    );
    assert.equal(funded['total_duffs'], kind.readsMempool ? '230000000' : '200000000');
    assert.deepEqual(funded['addresses'], [
      {
        address: addressAt(0, 0),
        path: null,
        confirmed_duffs: '200000000',
        unconfirmed_duffs: kind.readsMempool ? '30000000' : '0',
      },
    ]);
    assert.ok(
      on.backends.chain.requests.some((request) => request.method === kind.balanceMarker),
      `read through ${kind.balanceMarker}`,
    );
    const empty = await on.ok(['core-balances-get', '--address', STRANGER, '--network', 'testnet']);
    assert.deepEqual([empty['confirmed_duffs'], empty['unconfirmed_duffs'], empty['total_dash']], ['0', '0', '0']);
    assert.match(
      await on.fails(['core-balances-get', '--wallet-id', 'main', '--address', STRANGER]),
      /INVALID_PARAM.*wallet_id or address, not both/s,
    );
    const mainnet = new dashcore.PrivateKey().toAddress('livenet').toString();
    assert.match(
      await on.fails(['core-balances-get', '--address', mainnet, '--network', 'testnet']),
      /NETWORK_MISMATCH/,
    );
  });
});
