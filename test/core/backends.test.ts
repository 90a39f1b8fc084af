/**
 * The Dash backends through the real tools: a Dash Core node's JSON-RPC with the address index,
 * the same node without it (scantxoutset), and an Insight explorer, all served by
 * test/fixtures/dash-backends.ts, a local stand-in speaking the documented response shapes (no
 * Dash node runs here). Its mempool checks every P2PKH signature with node:crypto, an
 * implementation independent of the wallet's. Reading balances and coins is in the tools' own
 * tests (test/tools/core/: balances-get, utxos-list, addresses-discover, funds-send, tx-sign,
 * tx-send), on the same backends.
 */
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { rmSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { WalletError } from '../../src/domain/errors.js';
import { httpJson } from '../../src/domain/net/http.js';
import { startDashBackends } from '../fixtures/dash-backends.js';
import {
  ABANDON,
  addressAt,
  dashcore,
  KINDS,
  onBackends,
  scriptOf,
  STRANGER,
  type BackendWallet,
} from '../helpers/dash-backend-wallet.js';
import { passphraseFileIn, tempHome, wallet } from '../helpers/io.js';
import { fundsSendArgs, importArgs } from '../helpers/core-argv.js';

for (const kind of KINDS) {
  describe(`Dash backend: ${kind.name}`, () => {
    let on: BackendWallet;
    before(async () => {
      on = await onBackends(kind);
    });
    after(() => on.close());

    it('discovers used addresses across gaps on both chains after an import', async () => {
      const imported = await on.ok(
        ['core-wallet-import', '--alias', 'main', '--network', 'testnet', '--mnemonic-stdin'],
        ABANDON,
      );
      assert.equal(imported['discovery'], 'done');
      assert.equal(imported['receive_addresses'], 8, 'receive 0..7 (7 is used)');
      assert.equal(imported['change_addresses'], 3, 'change 0..2 (2 is used)');
    });
  });
}

describe('Dash backend safety and plumbing', () => {
  it('refuses a backend that serves another network', async () => {
    const mainnet = await startDashBackends({ chain: 'main' });
    const home = tempHome();
    const passphraseFile = passphraseFileIn(home, 'backend passphrase');
    const env = { WALLET_CORE_TESTNET_URL: mainnet.rpcUrl };
    try {
      const imported = await wallet(importArgs(['--no-discover', '--passphrase-file', passphraseFile]), {
        home,
        env,
        stdin: ABANDON,
      });
      assert.equal(imported.code, 0, imported.stderr);
      const send = await wallet(fundsSendArgs(STRANGER, '100000', ['--passphrase-file', passphraseFile, '--yes']), {
        home,
        env,
      });
      assert.equal(send.code, 1);
      assert.match(send.stderr, /NETWORK_MISMATCH: .* serves mainnet, not testnet/);
      assert.doesNotMatch(send.stderr, /fake-password/);
      assert.equal(mainnet.chain.broadcasts.length, 0);
    } finally {
      await mainnet.close();
      rmSync(home, { recursive: true, force: true });
    }
  });

  it('marks young coinbase outputs unspendable (gettxout)', async () => {
    const backends = await startDashBackends({ chain: 'test' });
    const home = tempHome();
    const passphraseFile = passphraseFileIn(home, 'backend passphrase');
    const env = { WALLET_CORE_TESTNET_URL: backends.rpcUrl };
    try {
      backends.chain.fund(addressAt(0, 0), scriptOf(addressAt(0, 0)), 500_000_000n, { coinbase: true });
      const imported = await wallet(importArgs(['--passphrase-file', passphraseFile]), { home, env, stdin: ABANDON });
      assert.equal(imported.code, 0, imported.stderr);
      const utxos = JSON.parse(
        (await wallet(['core-utxos-list', '--wallet-id', 'main', '--json'], { home, env })).stdout,
      ) as { utxos: Array<{ spendable: boolean }>; spendable_duffs: string };
      assert.deepEqual(
        utxos.utxos.map((u) => u.spendable),
        [false],
      );
      assert.equal(utxos.spendable_duffs, '0');
      const send = await wallet(fundsSendArgs(STRANGER, '100000', ['--passphrase-file', passphraseFile, '--yes']), {
        home,
        env,
      });
      assert.match(send.stderr, /INSUFFICIENT_FUNDS/);
    } finally {
      await backends.close();
      rmSync(home, { recursive: true, force: true });
    }
  });

  it('retries idempotent reads after a 5xx, and names an unreachable endpoint without credentials', async () => {
    let hits = 0;
    const flaky = createServer((_request, response) => {
      hits += 1;
      if (hits === 1) {
        response.writeHead(503).end('busy');
        return;
      }
      response.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}');
    });
    await new Promise<void>((resolve) => flaky.listen(0, '127.0.0.1', resolve));
    const address = flaky.address();
    const port = typeof address === 'object' && address ? address.port : 0;
    try {
      const response = await httpJson({ url: `http://127.0.0.1:${port}/`, method: 'GET', idempotent: true });
      assert.deepEqual(response.json, { ok: true });
      assert.equal(hits, 2);
    } finally {
      flaky.close();
    }
    await assert.rejects(
      () => httpJson({ url: `http://user:hunter2@127.0.0.1:${port}/`, method: 'POST', body: {}, idempotent: false }),
      (error: unknown) =>
        error instanceof WalletError &&
        error.code === 'BACKEND_UNAVAILABLE' &&
        /127\.0\.0\.1/.test(error.message) &&
        !/hunter2|user/.test(error.message),
    );
  });
});

describe("an address's balance without network", () => {
  it('takes no wallet alias for an address, and says to pass it as wallet_id', async () => {
    const home = tempHome();
    try {
      const result = await wallet(['core-balances-get', '--address', 'main'], { home });
      assert.equal(result.code, 2);
      assert.match(result.stderr, /INVALID_PARAM: address is not a valid Dash address\.\nhint: .*--wallet-id/);
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  });

  it('reads a mainnet address on mainnet, whatever the default network (testnet)', async () => {
    const backends = await startDashBackends({ chain: 'main' });
    const home = tempHome();
    try {
      const address = new dashcore.Mnemonic(ABANDON)
        .toHDPrivateKey('', 'livenet')
        .deriveChild("m/44'/5'/0'/0/0")
        .privateKey.toAddress('livenet')
        .toString();
      backends.chain.fund(address, scriptOf(address), 123_456_789n);
      const result = await wallet(['core-balances-get', '--address', address, '--json'], {
        home,
        env: { WALLET_CORE_MAINNET_URL: `insight+${backends.insightUrl}` },
      });
      assert.equal(result.code, 0, result.stderr);
      const balance = JSON.parse(result.stdout) as Record<string, unknown>;
      assert.deepEqual(
        [balance['network'], balance['backend'], balance['confirmed_duffs'], balance['total_dash']],
        ['mainnet', 'insight', '123456789', '1.23456789'],
      );
    } finally {
      await backends.close();
      rmSync(home, { recursive: true, force: true });
    }
  });
});
