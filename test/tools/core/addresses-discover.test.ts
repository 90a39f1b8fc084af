/**
 * core_addresses_discover, through a real SDK client on the wallet's own server (in memory), on a
 * Dash Core node's stand-in (test/fixtures/dash-backends.ts): discovery walks the gap-limit windows
 * until one is unused, reporting each window to a client that asks for progress.
 */
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { describe, it } from 'node:test';
import { startDashBackends } from '../../fixtures/dash-backends.js';
import { ABANDON, addressAt, scriptOf } from '../../helpers/dash-backend-wallet.js';
import { tempHome } from '../../helpers/io.js';
import { localServer } from '../../helpers/mcp.js';

describe('core_addresses_discover', () => {
  it('finds used addresses across gaps, reporting progress to an MCP client that asks for it', async () => {
    const backends = await startDashBackends({ chain: 'test' });
    const home = tempHome();
    const server = await localServer({
      env: { WALLET_HOME: home, WALLET_CORE_TESTNET_URL: backends.rpcUrl },
      passphrase: 'backend passphrase',
    });
    try {
      // 15 is inside the first window of 20, 30 inside the second: discovery must walk three windows.
      backends.chain.fund(addressAt(0, 15), scriptOf(addressAt(0, 15)), 100_000n);
      backends.chain.mine(1);
      backends.chain.fund(addressAt(0, 30), scriptOf(addressAt(0, 30)), 100_000n);
      await server.call('core_wallet_import', {
        alias: 'main',
        network: 'testnet',
        mnemonic: ABANDON,
        discover: false,
      });
      const messages: string[] = [];
      const result = await server.call<{ receive_addresses: number }>(
        'core_addresses_discover',
        { wallet_id: 'main' },
        (message) => messages.push(message),
      );
      assert.equal(result.receive_addresses, 31);
      assert.deepEqual(messages, [
        'scanning receive addresses 0-19',
        'scanning receive addresses 20-39',
        'scanning receive addresses 40-59',
        'scanning change addresses 0-19',
        'discovery done',
      ]);
    } finally {
      await server.close();
      await backends.close();
      rmSync(home, { recursive: true, force: true });
    }
  });
});
