/**
 * The Dash backends through the real tools: a Dash Core node's JSON-RPC with the address index,
 * the same node without it (scantxoutset), and an Insight explorer, all served by
 * test/fixtures/dash-backends.ts, a local stand-in speaking the documented response shapes (no
 * Dash node runs here). Its mempool checks every P2PKH signature with node:crypto, an
 * implementation independent of the wallet's. Reading balances and coins is in the tools' own
 * tests (test/tools/core/balances-get.test.ts, utxos-list.test.ts, addresses-discover.test.ts), on
 * the same backends.
 */
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { rmSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { base64 } from '@scure/base';
import { Transaction } from '@scure/btc-signer';
import { WalletError } from '../../src/domain/errors.js';
import { httpJson } from '../../src/domain/net/http.js';
import { startDashBackends, type DashBackends } from '../fixtures/dash-backends.js';
import { ABANDON, addressAt, dashcore, fundWallet, KINDS, scriptOf, STRANGER } from '../helpers/dash-backend-wallet.js';
import { passphraseFileIn, tempHome, wallet } from '../helpers/io.js';

for (const kind of KINDS) {
  describe(`Dash backend: ${kind.name}`, () => {
    let backends: DashBackends;
    let home: string;
    let passphraseFile: string;
    let env: Record<string, string>;
    const ok = async (argv: string[], stdin?: string) => {
      const result = await wallet([...argv, '--passphrase-file', passphraseFile, '--yes', '--json'], {
        home,
        env,
        ...(stdin === undefined ? {} : { stdin }),
      });
      assert.equal(result.code, 0, `${argv[0]}: ${result.stderr}`);
      return JSON.parse(result.stdout) as Record<string, unknown>;
    };
    const fails = async (argv: string[]) => {
      const result = await wallet([...argv, '--passphrase-file', passphraseFile, '--yes'], { home, env });
      assert.notEqual(result.code, 0);
      return result.stderr;
    };

    before(async () => {
      backends = await startDashBackends({ chain: 'test', addressIndex: kind.index });
      home = tempHome();
      passphraseFile = passphraseFileIn(home, 'backend passphrase');
      env = { WALLET_CORE_TESTNET_URL: kind.url(backends) };
      fundWallet(backends);
    });
    after(async () => {
      await backends.close();
      rmSync(home, { recursive: true, force: true });
    });

    it('discovers used addresses across gaps on both chains after an import', async () => {
      const imported = await ok(
        ['core-wallet-import', '--alias', 'main', '--network', 'testnet', '--mnemonic-stdin'],
        ABANDON,
      );
      assert.equal(imported['discovery'], 'done');
      assert.equal(imported['receive_addresses'], 8, 'receive 0..7 (7 is used)');
      assert.equal(imported['change_addresses'], 3, 'change 0..2 (2 is used)');
    });

    it('a refused or previewed payment uses up no change address and signs nothing', async () => {
      const changeCount = async () =>
        ((await ok(['core-wallets-list']))['wallets'] as Array<{ change_addresses: number }>)[0]?.change_addresses;
      const before = await changeCount();
      const pay = ['core-funds-send', '--wallet-id', 'main', '--network', 'testnet', '--address', STRANGER];
      const dry = await ok([...pay, '--amount-duffs', '120000000', '--dry-run']);
      assert.deepEqual([dry['sent'], dry['hex'], dry['txid']], [false, null, null]);
      assert.equal(dry['change_address'], addressAt(1, 3), 'shows the change address it would use');
      assert.match(await fails([...pay, '--amount-duffs', '120000000', '--max-fee-duffs', '10']), /POLICY_VIOLATION/);
      const locked = await wallet([...pay, '--amount-duffs', '120000000', '--passphrase-stdin', '--yes'], {
        home,
        env,
        stdin: 'not the passphrase',
      });
      assert.match(locked.stderr, /WALLET_LOCKED/);
      assert.equal(await changeCount(), before);
      assert.equal(backends.chain.broadcasts.length, 0);
    });

    it('pays an address: the node accepts the signatures; change comes back', async () => {
      const sent = await ok([
        'core-funds-send',
        '--wallet-id',
        'main',
        '--network',
        'testnet',
        '--address',
        STRANGER,
        '--amount-duffs',
        '120000000',
      ]);
      assert.equal(sent['sent'], true);
      assert.equal(backends.chain.broadcasts.length, 1);
      const change = (sent['outputs'] as Array<{ change: boolean; address: string }>).find((output) => output.change);
      assert.equal(change?.address, addressAt(1, 3), 'change to the next change address (3, after discovery)');
      const spent = new Set(
        (sent['inputs'] as Array<{ txid: string; vout: number }>).map((i) => `${i.txid}:${i.vout}`),
      );
      const pending = (await ok(['core-utxos-list', '--wallet-id', 'main']))['utxos'] as Array<{
        txid: string;
        vout: number;
      }>;
      assert.ok(
        pending.every((utxo) => !spent.has(`${utxo.txid}:${utxo.vout}`)),
        'coins spent in the mempool are not offered again',
      );
      backends.chain.mine(1);
      const balance = await ok(['core-balances-get', '--wallet-id', 'main']);
      const fee = BigInt(sent['fee_duffs'] as string);
      assert.equal(BigInt(balance['confirmed_duffs'] as string), 380_000_000n - 120_000_000n - fee);
      assert.equal(balance['unconfirmed_duffs'], '0');
    });

    it('refuses to sign a PSBT that understates an input amount, or whose fee is above max_fee_duffs', async () => {
      const created = await ok([
        'core-tx-create',
        '--wallet-id',
        'main',
        '--network',
        'testnet',
        '--outputs',
        JSON.stringify({ address: STRANGER, amount_duffs: '1000000' }),
      ]);
      const tx = Transaction.fromPSBT(base64.decode(created['psbt'] as string), {
        version: 3,
        allowLegacyWitnessUtxo: true,
      });
      const input = tx.getInput(0);
      assert.ok(input.witnessUtxo);
      // A forger lowers the amount the PSBT records for an input and the change by as much: the PSBT's
      // fee looks unchanged, while the real fee (legacy signatures do not commit to amounts) grows.
      const forged = 50_000_000n;
      tx.updateInput(
        0,
        { witnessUtxo: { script: input.witnessUtxo.script, amount: input.witnessUtxo.amount - forged } },
        true,
      );
      const last = tx.outputsLength - 1;
      const change = tx.getOutput(last);
      assert.ok(change.amount !== undefined && change.amount > forged);
      tx.updateOutput(last, { amount: change.amount - forged }, true);
      const sign = ['core-tx-sign', '--wallet-id', 'main', '--network', 'testnet', '--psbt'];
      assert.match(
        await fails([...sign, base64.encode(tx.toPSBT())]),
        /INVALID_PARAM: psbt input 0 claims .* the chain says/,
      );
      assert.match(await fails([...sign, created['psbt'] as string, '--max-fee-duffs', '10']), /POLICY_VIOLATION/);
    });

    it('creates, signs, and refuses to send above max_fee_duffs; then sends', async () => {
      const created = await ok([
        'core-tx-create',
        '--wallet-id',
        'main',
        '--network',
        'testnet',
        '--outputs',
        JSON.stringify({ address: STRANGER, amount_duffs: '1000000' }),
      ]);
      const signed = await ok([
        'core-tx-sign',
        '--wallet-id',
        'main',
        '--network',
        'testnet',
        '--psbt',
        created['psbt'] as string,
      ]);
      const refused = await fails([
        'core-tx-send',
        '--network',
        'testnet',
        '--hex',
        signed['hex'] as string,
        '--max-fee-duffs',
        '100',
      ]);
      assert.match(refused, /POLICY_VIOLATION/);
      assert.equal(backends.chain.broadcasts.length, 1, 'nothing new broadcast');
      const sent = await ok(['core-tx-send', '--network', 'testnet', '--hex', signed['hex'] as string]);
      assert.equal(sent['txid'], signed['txid']);
      assert.equal(sent['fee_duffs'], created['fee_duffs']);
      assert.equal(backends.chain.broadcasts.length, 2);
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
      const imported = await wallet(
        [
          'core-wallet-import',
          '--alias',
          'main',
          '--network',
          'testnet',
          '--mnemonic-stdin',
          '--no-discover',
          '--passphrase-file',
          passphraseFile,
        ],
        { home, env, stdin: ABANDON },
      );
      assert.equal(imported.code, 0, imported.stderr);
      const send = await wallet(
        [
          'core-funds-send',
          '--wallet-id',
          'main',
          '--network',
          'testnet',
          '--address',
          STRANGER,
          '--amount-duffs',
          '100000',
          '--passphrase-file',
          passphraseFile,
          '--yes',
        ],
        { home, env },
      );
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
      const imported = await wallet(
        [
          'core-wallet-import',
          '--alias',
          'main',
          '--network',
          'testnet',
          '--mnemonic-stdin',
          '--passphrase-file',
          passphraseFile,
        ],
        { home, env, stdin: ABANDON },
      );
      assert.equal(imported.code, 0, imported.stderr);
      const utxos = JSON.parse(
        (await wallet(['core-utxos-list', '--wallet-id', 'main', '--json'], { home, env })).stdout,
      ) as { utxos: Array<{ spendable: boolean }>; spendable_duffs: string };
      assert.deepEqual(
        utxos.utxos.map((u) => u.spendable),
        [false],
      );
      assert.equal(utxos.spendable_duffs, '0');
      const send = await wallet(
        [
          'core-funds-send',
          '--wallet-id',
          'main',
          '--network',
          'testnet',
          '--address',
          STRANGER,
          '--amount-duffs',
          '100000',
          '--passphrase-file',
          passphraseFile,
          '--yes',
        ],
        { home, env },
      );
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
