/**
 * Dash payments of one wallet from replicas of `wallet serve --http` sharing a PostgreSQL state
 * store (docs/REPLICAS.md), on a real regtest node (Debian's litecoind standing in for Dash Core)
 * and a real PostgreSQL cluster: the coins a payment chose are held in the store until its
 * broadcast, so payments racing on two replicas never choose one coin twice (the node would refuse
 * the second); a payment that fails gives its coins back.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { rmSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { generateMnemonic } from '@scure/bip39';
import { wordlist } from '@scure/bip39/wordlists/english.js';
import nodePostgres from 'pg';
import { addressScript, encodeAddress, requireAddress } from '../../src/domain/dash/address.js';
import { passphraseFileIn, tempHome, wallet } from '../helpers/io.js';
import { findLitecoind, startRegtestNode, type RegtestNode } from '../helpers/litecoind.js';
import { findPostgres, startPostgres, type PgCluster } from '../helpers/postgres.js';
import {
  errorCodeOf,
  REPLICA_PASSPHRASE,
  REPLICA_TOKEN,
  Replicas,
  writeReplicaConfig,
  type CallResult,
} from '../helpers/replicas.js';

const bin = findPostgres();
const litecoind = findLitecoind();
if (!bin || !litecoind) {
  console.error(
    `\n!!! SKIPPING the replica coin tests: ${bin ? '' : 'initdb and pg_ctl '}${litecoind ? '' : 'litecoind '}not installed.\n!!! .ci/run installs them (apt-get install -y postgresql litecoind); install them to run these tests.\n`,
  );
}

const BURN = 'raw(76a914000000000000000000000000000000000000000088ac)';
/** Coinbase coins mined to the wallet's first receive addresses: one per payment. */
const FUNDED = 4;
const PAYMENT = 100_000_000n;
const SLOW = { timeout: 180_000 };

const scriptHex = (address: string): string =>
  Buffer.from(addressScript(requireAddress(address, 'regtest'))).toString('hex');

type FundsSent = { txid: string; inputs: { txid: string; vout: number }[] };

describe('Dash coins held across replicas', { skip: bin && litecoind ? false : 'no PostgreSQL or litecoind' }, () => {
  let pg: PgCluster;
  let node: RegtestNode;
  let home: string;
  let env: Record<string, string>;
  const recipient = encodeAddress(randomBytes(20), 'p2pkh', 'regtest');

  const inStore = async (text: string): Promise<Record<string, unknown>[]> => {
    // node-postgres lets the URL's fields override the options beside it: the password joins the URL.
    const url = new URL(pg.url);
    url.password = encodeURIComponent(pg.password);
    const client = new nodePostgres.Client({ connectionString: url.toString() });
    await client.connect();
    try {
      return (await client.query(text)).rows as Record<string, unknown>[];
    } finally {
      await client.end();
    }
  };

  before(async () => {
    [pg, node] = await Promise.all([startPostgres(bin ?? ''), startRegtestNode(litecoind ?? '')]);
    env = {
      WALLET_STATE_URL: pg.url,
      PGPASSWORD: pg.password,
      WALLET_CORE_REGTEST_URL: node.url,
      MCP_API_KEY: REPLICA_TOKEN,
    };
    home = tempHome();
    const passphraseFile = passphraseFileIn(home, REPLICA_PASSPHRASE);
    const cli = async (argv: string[], stdin?: string): Promise<Record<string, unknown>> => {
      const result = await wallet([...argv, '--passphrase-file', passphraseFile, '--yes', '--json'], {
        home,
        env,
        ...(stdin === undefined ? {} : { stdin }),
      });
      assert.equal(result.code, 0, `${argv[0]} failed: ${result.stderr}`);
      return JSON.parse(result.stdout) as Record<string, unknown>;
    };
    assert.equal((await wallet(['state', 'migrate'], { env })).code, 0);
    await cli(
      ['core-wallet-import', '--alias', 'main', '--network', 'regtest', '--mnemonic-stdin'],
      generateMnemonic(wordlist, 128),
    );
    for (let i = 0; i < FUNDED; i++) {
      const { address } = (await cli(['core-address-create', '--wallet-id', 'main'])) as { address: string };
      await node.rpc('generatetodescriptor', [1, `raw(${scriptHex(address)})`]);
    }
    await node.rpc('generatetodescriptor', [100, BURN]);
    rmSync(passphraseFile);
    writeReplicaConfig(home, {
      core: {
        networks: {
          regtest: {
            policy: { autonomous: { max_per_tx_duffs: '1000000000', max_per_24h_duffs: '100000000000' } },
          },
        },
      },
    });
  });
  after(async () => {
    await node?.stop();
    pg?.remove();
    if (home) rmSync(home, { recursive: true, force: true });
  });

  it('payments racing on two replicas each spend coins of their own; a failed one gives its coins back', async () => {
    const replicas = new Replicas(env, home);
    const pay = (replica: number, extra: Record<string, unknown> = {}): Promise<CallResult> | undefined =>
      replicas.clients[replica]?.callTool(
        {
          name: 'core_funds_send',
          arguments: {
            wallet_id: 'main',
            network: 'regtest',
            address: recipient,
            amount_duffs: PAYMENT.toString(),
            ...extra,
          },
        },
        SLOW,
      );
    try {
      await replicas.start(2);
      // A payment refused after its coins were chosen (the fee cap): its coins are free again.
      const refused = await pay(0, { max_fee_duffs: '1' });
      assert.equal(errorCodeOf(refused), 'POLICY_VIOLATION', JSON.stringify(refused?.content));
      assert.deepEqual(await inStore('SELECT outpoint FROM wallet_coin_reservations'), []);

      const results = await Promise.all(Array.from({ length: FUNDED }, (_, i) => pay(i % 2)));
      const failed = results.filter((result) => !result || result.isError);
      assert.deepEqual(failed, [], 'a payment lost its coin to another replica');
      const sent = results.map((result) => result?.structuredContent as FundsSent);
      const spent = sent.flatMap((payment) => payment.inputs.map((input) => `${input.txid}:${input.vout}`));
      assert.equal(new Set(spent).size, spent.length, `a coin was chosen twice: ${spent.join(', ')}`);
      const mempool = await node.rpc<string[]>('getrawmempool');
      assert.deepEqual([...mempool].sort(), sent.map((payment) => payment.txid).sort());
      // Each coin stays held, committed to its transaction, until the node shows it spent.
      const held = await inStore('SELECT outpoint, txid FROM wallet_coin_reservations ORDER BY outpoint');
      assert.deepEqual(
        held.map((row) => String(row['outpoint'])),
        [...spent].sort(),
      );
      assert.ok(held.every((row) => sent.some((payment) => payment.txid === row['txid'])));
      assert.equal(errorCodeOf(await pay(1)), 'INSUFFICIENT_FUNDS', 'a held coin was spent again');
    } finally {
      await replicas.stop();
    }
  });

  it('transactions created at once on two replicas hold coins of their own until sent (or 30 minutes)', async () => {
    // What earlier payments left in the mempool is mined: their change is what the wallet holds now.
    await node.rpc('generatetodescriptor', [1, BURN]);
    const replicas = new Replicas(env, home);
    const call = async (replica: number, name: string, args: Record<string, unknown>) => {
      const result = await replicas.clients[replica]?.callTool(
        { name, arguments: { wallet_id: 'main', network: 'regtest', ...args } },
        SLOW,
      );
      return { result, code: errorCodeOf(result), out: result?.structuredContent as Record<string, unknown> };
    };
    const create = (replica: number) =>
      call(replica, 'core_tx_create', { outputs: [{ address: recipient, amount_duffs: PAYMENT.toString() }] });
    const outpointsOf = (created: { out: Record<string, unknown> }): string[] =>
      (created.out['inputs'] as { txid: string; vout: number }[]).map((input) => `${input.txid}:${input.vout}`);
    const send = async (replica: number, created: { out: Record<string, unknown> }) => {
      const signed = await call(replica, 'core_tx_sign', { psbt: created.out['psbt'] });
      assert.equal(signed.code, undefined, JSON.stringify(signed.result?.content));
      // core_tx_send takes no wallet: the transaction names its coins.
      const result = await replicas.clients[replica]?.callTool(
        { name: 'core_tx_send', arguments: { network: 'regtest', hex: signed.out['hex'] } },
        SLOW,
      );
      return { result, code: errorCodeOf(result), txid: String(signed.out['txid']) };
    };
    try {
      await replicas.start(2);
      // The wallet's coins: one change output of each earlier payment (or, run alone, the coinbases).
      const created = await Promise.all(Array.from({ length: FUNDED }, (_, i) => create(i % 2)));
      assert.deepEqual(
        created.filter((one) => one.code !== undefined).map((one) => one.result?.content),
        [],
        'a transaction lost its coin to another replica',
      );
      const chosen = created.flatMap(outpointsOf);
      assert.equal(new Set(chosen).size, chosen.length, `a coin was chosen twice: ${chosen.join(', ')}`);
      // Each is held for its transaction, for 30 minutes: no other payment takes them meanwhile.
      const held = await inStore(
        `SELECT outpoint, reservation, txid, extract(epoch FROM expires_at - now())::int AS left
         FROM wallet_coin_reservations WHERE reservation LIKE 'created:%' ORDER BY outpoint`,
      );
      assert.deepEqual(
        held.map((row) => String(row['outpoint'])),
        [...chosen].sort(),
      );
      assert.ok(held.every((row) => row['txid'] === null && Number(row['left']) > 1700 && Number(row['left']) <= 1800));
      assert.equal((await create(0)).code, 'INSUFFICIENT_FUNDS', 'a held coin was chosen again');
      assert.equal(
        errorCodeOf(
          await replicas.clients[1]?.callTool(
            {
              name: 'core_funds_send',
              arguments: { wallet_id: 'main', network: 'regtest', address: recipient, amount_duffs: '100000' },
            },
            SLOW,
          ),
        ),
        'INSUFFICIENT_FUNDS',
        'a payment spent a coin a created transaction holds',
      );

      // The first one's hold lapses (the store's clock, moved here): another transaction takes its
      // coin, and sending the first is refused before its broadcast.
      const [first, second] = created;
      assert.ok(first && second);
      await inStore(
        `UPDATE wallet_coin_reservations SET expires_at = now() - interval '1 second'
         WHERE outpoint IN (${outpointsOf(first)
           .map((outpoint) => `'${outpoint}'`)
           .join(', ')})`,
      );
      const taker = await create(1);
      assert.equal(taker.code, undefined, JSON.stringify(taker.result?.content));
      assert.deepEqual(outpointsOf(taker), outpointsOf(first));
      const late = await send(0, first);
      assert.equal(late.code, 'BUSY', JSON.stringify(late.result?.content));
      assert.match(
        JSON.stringify(late.result?.content),
        /Another payment of this wallet holds .*nothing was broadcast/,
      );
      assert.deepEqual(await node.rpc<string[]>('getrawmempool'), [], 'the refused transaction went out');

      // Sent through the other replica: the coins are committed to the transaction broadcast.
      for (const [replica, transaction] of [
        [1, second],
        [0, taker],
      ] as const) {
        const sent = await send(replica, transaction);
        assert.equal(sent.code, undefined, JSON.stringify(sent.result?.content));
        const rows = await inStore(
          `SELECT txid, extract(epoch FROM expires_at - now())::int AS left FROM wallet_coin_reservations
           WHERE outpoint IN (${outpointsOf(transaction)
             .map((outpoint) => `'${outpoint}'`)
             .join(', ')})`,
        );
        assert.equal(rows.length, outpointsOf(transaction).length);
        assert.ok(
          rows.every((row) => row['txid'] === sent.txid && Number(row['left']) > 3500),
          JSON.stringify(rows),
        );
      }
      assert.equal((await node.rpc<string[]>('getrawmempool')).length, 2);
    } finally {
      await replicas.stop();
    }
  });
});
