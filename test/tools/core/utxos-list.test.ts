/**
 * core_utxos_list through the CLI on each Dash backend (test/helpers/dash-backend-wallet.ts: a
 * Dash Core node's JSON-RPC with the address index, without it, an Insight explorer): a wallet's
 * unspent outputs after discovery, each with its path, read through the backend's own call.
 */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { describeOnMainWallet } from '../../helpers/dash-backend-wallet.js';

describeOnMainWallet('core_utxos_list', (on, kind) => {
  it('lists the unspent outputs, the mempool’s where the backend reads it', async () => {
    const utxos = await on.ok(['core-utxos-list', '--wallet-id', 'main']);
    const rows = utxos['utxos'] as Array<{ height: number | null; amount_duffs: string; path: string }>;
    assert.equal(rows.length, kind.readsMempool ? 4 : 3);
    if (kind.readsMempool) assert.ok(rows.some((row) => row.height === null && row.amount_duffs === '30000000'));
    assert.ok(rows.some((row) => row.path === "m/44'/1'/0'/1/2" && row.amount_duffs === '50000000'));
    assert.ok(
      on.backends.chain.requests.some((request) => request.method === kind.marker),
      `read through ${kind.marker}`,
    );
  });
});
