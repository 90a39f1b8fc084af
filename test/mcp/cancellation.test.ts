/**
 * Cancellation over `wallet serve`: a payment that waits for a block that never comes is cancelled
 * by the client (notifications/cancelled); the server stops polling the node at once and keeps
 * serving. anvil is real; a JSON-RPC proxy in front of it counts what the wallet asks.
 */
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, describe, it } from 'node:test';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { startAnvil, type AnvilNode } from '../helpers/anvil.js';
import { passphraseFileIn, tempHome } from '../helpers/io.js';
import { importAnvilAccount } from '../helpers/mcp.js';
import { WALLET_BIN } from '../helpers/paths.js';
import { startRpcProxy, type RpcProxy } from '../helpers/rpc-proxy.js';
import { writeLocalPolicy } from '../helpers/policy.js';

const PASSPHRASE = 'cancel passphrase';
const RECIPIENT = '0x90F79bf6EB2c4f870365E785982E1f101E93b906';

describe('cancelling a long call over wallet serve', () => {
  let node: AnvilNode;
  let proxy: RpcProxy;
  let home: string;
  let client: Client;

  before(async () => {
    node = await startAnvil();
    proxy = await startRpcProxy(node.url);
    home = tempHome();
    await importAnvilAccount(home, PASSPHRASE, { walletAlias: 'w', accountAlias: 'payer' });
    // The agent may pay this much alone, so the payment runs without an approval.
    writeLocalPolicy(home, {
      autonomous: { max_per_tx_wei: '10000000000000000000', max_per_24h_wei: '10000000000000000000' },
    });
    client = new Client({ name: 'cancel-test', version: '1' });
    await client.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: [WALLET_BIN, 'serve', '--passphrase-file', passphraseFileIn(home, PASSPHRASE)],
        env: { PATH: process.env['PATH'] ?? '', WALLET_HOME: home, WALLET_EVM_LOCAL_URL: proxy.url },
        stderr: 'ignore',
      }),
    );
  });
  after(async () => {
    await client.close();
    await proxy.close();
    await node.stop();
    rmSync(home, { recursive: true, force: true });
  });

  it('stops waiting for the receipt when the client cancels, and goes on serving', async () => {
    await node.rpc('evm_setAutomine', [false]);
    const controller = new AbortController();
    let progressed = 0;
    const call = client.callTool(
      {
        name: 'evm_funds_send',
        arguments: {
          address: 'payer',
          to: RECIPIENT,
          value_wei: '1000',
          network: 'local',
          wait: true,
          wait_seconds: 120,
        },
      },
      {
        signal: controller.signal,
        onprogress: () => {
          progressed += 1;
          if (progressed === 2) controller.abort('the user changed their mind');
        },
      },
    );
    await assert.rejects(call, /changed their mind|abort/i);
    // The client gives up at once; the server learns of it from notifications/cancelled. A ping
    // sent after it is answered only once the server has read the cancel (stdio keeps order), so
    // the count starts when the server knows, however slow the machine.
    await client.ping();
    const polledAtCancel = proxy.calls.filter((method) => method === 'eth_getTransactionReceipt').length;
    assert.ok(polledAtCancel >= 2, `polled ${polledAtCancel} times before the cancel`);
    // A window of four poll intervals to see that no more polls come (a slower machine only
    // watches a shorter part of the loop; at most one poll may have been in flight at the cancel).
    await sleep(2_000); // four of the wallet's 500 ms poll intervals
    const polledAfter = proxy.calls.filter((method) => method === 'eth_getTransactionReceipt').length;
    assert.ok(polledAfter - polledAtCancel <= 1, `still polling: ${polledAfter - polledAtCancel} more receipts asked`);

    // The payment itself went out before the wait (a cancel cannot unsend it); the server is fine.
    const pending = await node.rpc<{ pending: Record<string, unknown> }>('txpool_content');
    assert.equal(Object.keys(pending.pending).length, 1);
    const balance = await client.callTool({
      name: 'evm_balance_get',
      arguments: { address: RECIPIENT, network: 'local' },
    });
    assert.notEqual(balance.isError, true);
  });
});
