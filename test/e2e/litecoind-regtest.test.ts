/**
 * The `core-rpc` backend end to end against a real node. No Dash node installs here; Debian's
 * litecoind is a real Bitcoin-Core-family node with the same RPC, run in regtest with
 * -acceptnonstdtxn=1 so it relays Dash's version-3 transactions. Coins are mined to the wallet's
 * scripts with generatetodescriptor; the wallet then discovers, spends and sees them through the
 * real tools (scantxoutset, gettxout, sendrawtransaction).
 */
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { rmSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { passphraseFileIn, tempHome, wallet } from '../helpers/io.js';
import { findLitecoind, startRegtestNode, type RegtestNode } from '../helpers/litecoind.js';
import { fundsSendArgs } from '../helpers/core-argv.js';

const require = createRequire(import.meta.url);
type Dashcore = {
  Mnemonic: new (words?: string) => {
    toString(): string;
    toHDPrivateKey(
      passphrase: string,
      network: string,
    ): { deriveChild(path: string): { privateKey: { toAddress(network: string): { toString(): string } } } };
  };
  Script: { fromAddress(address: string): { toHex(): string } };
};
const dashcore = require('@dashevo/dashcore-lib') as Dashcore;

const binary = findLitecoind();
if (!binary) {
  console.error(
    '\n!!! SKIPPING the litecoind regtest end-to-end tests: litecoind is not installed.\n!!! .ci/run installs it (apt-get install -y litecoind); install it to run these tests.\n',
  );
}

const PASSPHRASE = 'regtest passphrase';
const BURN = 'raw(76a914000000000000000000000000000000000000000088ac)';

describe(
  'core-rpc backend against a real regtest node (litecoind)',
  { skip: binary ? false : 'litecoind is not installed' },
  () => {
    let node: RegtestNode;
    let home: string;
    let passphraseFile: string;
    let env: Record<string, string>;
    const mnemonic = new dashcore.Mnemonic().toString();
    const hd = new dashcore.Mnemonic(mnemonic).toHDPrivateKey('', 'regtest');
    const addressOf = (path: string): string => hd.deriveChild(path).privateKey.toAddress('regtest').toString();
    const descriptorOf = (address: string): string => `raw(${dashcore.Script.fromAddress(address).toHex()})`;

    const run = async (argv: string[], stdin?: string) => {
      const result = await wallet([...argv, '--passphrase-file', passphraseFile, '--yes'], {
        home,
        env,
        ...(stdin === undefined ? {} : { stdin }),
      });
      return { ...result, json: result.code === 0 ? (JSON.parse(result.stdout) as Record<string, unknown>) : {} };
    };
    const ok = async (argv: string[], stdin?: string) => {
      const result = await run([...argv, '--json'], stdin);
      assert.equal(result.code, 0, `${argv[0]} failed: ${result.stderr}`);
      return result.json;
    };
    const mempool = () => node.rpc<string[]>('getrawmempool');

    before(async () => {
      node = await startRegtestNode(binary ?? '');
      home = tempHome();
      passphraseFile = passphraseFileIn(home, PASSPHRASE);
      env = { WALLET_CORE_REGTEST_URL: node.url };
      // Coins on receive addresses 0 and 5 (a gap discovery must cross), then 100 blocks to mature them.
      await node.rpc('generatetodescriptor', [1, descriptorOf(addressOf("m/44'/1'/0'/0/0"))]);
      await node.rpc('generatetodescriptor', [1, descriptorOf(addressOf("m/44'/1'/0'/0/5"))]);
      await node.rpc('generatetodescriptor', [100, BURN]);
    });
    after(async () => {
      await node?.stop();
      if (home) rmSync(home, { recursive: true, force: true });
    });

    it('imports a wallet and discovers its used addresses across a gap (scantxoutset)', async () => {
      const imported = await ok(
        ['core-wallet-import', '--alias', 'alice', '--network', 'regtest', '--mnemonic-stdin'],
        mnemonic,
      );
      assert.equal(imported['discovery'], 'done');
      assert.equal(imported['receive_addresses'], 6);
      assert.equal(imported['change_addresses'], 0);
      const listed = await ok(['core-addresses-list', '--wallet-id', 'alice', '--chain', 'receive']);
      const addresses = (listed['addresses'] as Array<{ address: string }>).map((a) => a.address);
      assert.equal(addresses[0], addressOf("m/44'/1'/0'/0/0"), 'our derivation agrees with dashcore-lib');
      assert.equal(addresses[5], addressOf("m/44'/1'/0'/0/5"));
    });

    it('reads the balance and the mature coinbase coins', async () => {
      const balance = await ok(['core-balances-get', '--wallet-id', 'alice']);
      assert.equal(balance['confirmed_duffs'], '10000000000');
      assert.equal(balance['total_dash'], '100');
      assert.equal(balance['backend'], 'core-rpc');
      const utxos = await ok(['core-utxos-list', '--wallet-id', 'alice']);
      assert.equal(utxos['tip_height'], 102);
      assert.equal((utxos['utxos'] as unknown[]).length, 2);
      assert.equal(utxos['spendable_duffs'], '10000000000');
    });

    it("reads any address's balance with scantxoutset, no wallet asked", async () => {
      const coinbase = await ok([
        'core-balances-get',
        '--address',
        addressOf("m/44'/1'/0'/0/5"),
        '--network',
        'regtest',
      ]);
      assert.deepEqual(
        [coinbase['wallet_id'], coinbase['backend'], coinbase['confirmed_duffs'], coinbase['unconfirmed_duffs']],
        [null, 'core-rpc', '5000000000', '0'],
      );
      const unused = await ok(['core-balances-get', '--address', addressOf("m/44'/1'/0'/0/3"), '--network', 'regtest']);
      assert.equal(unused['total_duffs'], '0');
    });

    it('sends funds: a dry run broadcasts nothing, a real send reaches the node and confirms', async () => {
      await ok(['core-wallet-create', '--alias', 'bob', '--network', 'regtest']);
      const bob = (await ok(['core-address-create', '--wallet-id', 'bob']))['address'] as string;

      const dry = await ok(fundsSendArgs(bob, '150000000', ['--dry-run'], { from: 'alice', network: 'regtest' }));
      assert.equal(dry['sent'], false);
      assert.deepEqual(await mempool(), []);

      const sent = await ok(fundsSendArgs(bob, '150000000', [], { from: 'alice', network: 'regtest' }));
      assert.equal(sent['sent'], true);
      assert.deepEqual(await mempool(), [sent['txid']]);
      const decoded = await node.rpc<{ version: number }>('getrawtransaction', [sent['txid'], true]);
      assert.equal(decoded.version, 3, 'a Dash version-3 transaction');
      await node.rpc('generatetodescriptor', [1, BURN]);

      const bobBalance = await ok(['core-balances-get', '--wallet-id', 'bob']);
      assert.equal(bobBalance['confirmed_duffs'], '150000000');
      const fee = BigInt(sent['fee_duffs'] as string);
      assert.ok(fee > 0n && fee < 10_000n, `fee ${fee} at 1000 duffs/kB`);
      const alice = await ok(['core-balances-get', '--wallet-id', 'alice']);
      assert.equal(BigInt(alice['confirmed_duffs'] as string), 10_000_000_000n - 150_000_000n - fee);
      const change = (sent['outputs'] as Array<{ change: boolean; address: string }>).find((o) => o.change);
      assert.equal(change?.address, addressOf("m/44'/1'/0'/1/0"), 'change went to change address 0');
      const utxos = await ok(['core-utxos-list', '--wallet-id', 'alice']);
      assert.ok(
        (utxos['utxos'] as Array<{ path: string }>).some((u) => u.path === "m/44'/1'/0'/1/0"),
        'the change is seen',
      );
    });

    it('creates, signs and sends in steps, refusing a fee above max_fee_duffs', async () => {
      const bob =
        ((await ok(['core-addresses-list', '--wallet-id', 'bob']))['addresses'] as Array<{ address: string }>)[0]
          ?.address ?? '';
      const created = await ok([
        'core-tx-create',
        '--wallet-id',
        'alice',
        '--network',
        'regtest',
        '--outputs',
        JSON.stringify({ address: bob, amount_duffs: '200000000' }),
        '--fee-rate-duffs-per-kb',
        '2000',
      ]);
      assert.match(created['psbt'] as string, /^cHNidP8/);
      const signed = await ok([
        'core-tx-sign',
        '--wallet-id',
        'alice',
        '--network',
        'regtest',
        '--psbt',
        created['psbt'] as string,
      ]);
      assert.equal(signed['fee_duffs'], created['fee_duffs']);

      const refused = await run([
        'core-tx-send',
        '--network',
        'regtest',
        '--hex',
        signed['hex'] as string,
        '--max-fee-duffs',
        '1',
      ]);
      assert.equal(refused.code, 1);
      assert.match(refused.stderr, /POLICY_VIOLATION/);
      assert.deepEqual(await mempool(), [], 'nothing broadcast');

      const sent = await ok(['core-tx-send', '--network', 'regtest', '--hex', signed['hex'] as string]);
      assert.equal(sent['txid'], signed['txid']);
      assert.equal(sent['fee_duffs'], created['fee_duffs'], 'the fee the node sees is the fee we planned');
      await node.rpc('generatetodescriptor', [1, BURN]);
      assert.equal((await ok(['core-balances-get', '--wallet-id', 'bob']))['confirmed_duffs'], '350000000');
    });

    it('refuses overspending, the wrong network, and immature coinbase coins', async () => {
      const bob =
        ((await ok(['core-addresses-list', '--wallet-id', 'bob']))['addresses'] as Array<{ address: string }>)[0]
          ?.address ?? '';
      const before = await ok(['core-wallets-list']);
      const broke = await run(fundsSendArgs(bob, '1000000000000', [], { from: 'alice', network: 'regtest' }));
      assert.equal(broke.code, 1);
      assert.match(broke.stderr, /INSUFFICIENT_FUNDS/);
      const wrong = await run(fundsSendArgs(bob, '1000', [], { from: 'alice' }));
      assert.match(wrong.stderr, /NETWORK_MISMATCH/);
      assert.deepEqual(await ok(['core-wallets-list']), before, 'no address index used up by the failures');

      await node.rpc('generatetodescriptor', [1, descriptorOf(addressOf("m/44'/1'/0'/0/0"))]);
      const utxos = await ok(['core-utxos-list', '--wallet-id', 'alice']);
      const young = (utxos['utxos'] as Array<{ height: number; spendable: boolean }>).filter((u) => !u.spendable);
      assert.equal(young.length, 1, 'the new coinbase output is not spendable yet');
    });
  },
);
