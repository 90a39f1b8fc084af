/**
 * What replicas of `wallet serve --http` spend through one PostgreSQL state store
 * (docs/REPLICAS.md), against a real PostgreSQL cluster and a real anvil: a token's autonomous cap
 * holds exactly across replicas, as the ether cap does (test/state/replicas.test.ts); every
 * replica lists what every replica sent.
 */
import assert from 'node:assert/strict';
import { cpSync, existsSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import nodePostgres from 'pg';
import { setTimeout as sleep } from 'node:timers/promises';
import { startAnvil, type AnvilNode } from '../helpers/anvil.js';
import { deployToken, transferToken } from '../helpers/erc20.js';
import { tempHome, wallet } from '../helpers/io.js';
import { findPostgres, startPostgres, type PgCluster } from '../helpers/postgres.js';
import { startRpcProxy } from '../helpers/rpc-proxy.js';
import {
  anvilKeystoreHome,
  connectReplica,
  errorCodeOf,
  REPLICA_ACCOUNTS,
  REPLICA_TOKEN,
  REPLICA_ADDRESSES,
  Replicas,
  writeReplicaConfig,
} from '../helpers/replicas.js';

const bin = findPostgres();
if (!bin) {
  console.error(
    '\n!!! SKIPPING the replica spend tests against PostgreSQL: initdb and pg_ctl are not installed.\n!!! .ci/run installs them (apt-get install -y postgresql); install it to run these tests.\n',
  );
}

/** anvil's sixth account: no payer here. */
const RECIPIENT = '0x9965507D1a55bcC2695C58ba16FB37d819B0A4dc';
const MILLI = 10n ** 15n;
const REPLICAS = 4;
const UNIT = 10n ** 6n;
/** Token payments of 3 units racing under an autonomous token cap with room for exactly K. */
const K = 5;
const PAYMENT = 3n * UNIT;
const TOKEN_CAP = BigInt(K) * PAYMENT + UNIT;
/** An agent's ether payment in the crash tests. */
const ETHER_PAYMENT = MILLI;
/** One account's payments go one at a time across all replicas, each unlocking its key (scrypt). */
const SLOW = { timeout: 300_000 };

const { Client } = nodePostgres;

describe('replicas spending through a PostgreSQL store', { skip: bin ? false : 'no PostgreSQL' }, () => {
  let pg: PgCluster;
  let node: AnvilNode;
  let source: string;
  let env: Record<string, string>;

  /** A store of its own (a database of the cluster), migrated: each test records its own policy. */
  const storeEnv = async (database: string): Promise<Record<string, string>> => {
    pg.sql(`CREATE DATABASE ${database}`);
    const scoped = { ...env, WALLET_STATE_URL: pg.url.replace(/\/wallet$/, `/${database}`) };
    const migrated = await wallet(['state', 'migrate'], { env: scoped });
    assert.equal(migrated.code, 0, migrated.stderr);
    return scoped;
  };
  /** The first row of `text` run in `database`, as the superuser. */
  const inDb = async (database: string, text: string): Promise<Record<string, unknown>> => {
    // node-postgres lets the URL's fields override the options beside it: the password joins the URL.
    const url = new URL(pg.url.replace(/\/wallet$/, `/${database}`));
    url.password = encodeURIComponent(pg.password);
    const client = new Client({ connectionString: url.toString() });
    await client.connect();
    try {
      return ((await client.query(text)).rows[0] ?? {}) as Record<string, unknown>;
    } finally {
      await client.end();
    }
  };

  /** A config whose agent may send ether alone: 10 milli-ether a payment, 1 ether a day. */
  const etherAutonomy = (home: string): void =>
    writeReplicaConfig(home, {
      evm: {
        networks: {
          local: {
            policy: {
              autonomous: { max_per_tx_wei: (10n * MILLI).toString(), max_per_24h_wei: (1000n * MILLI).toString() },
            },
          },
        },
      },
    });
  const pendingNonce = async (address: string): Promise<number> =>
    Number(BigInt(await node.rpc<string>('eth_getTransactionCount', [address, 'pending'])));
  const until = async (what: string, done: () => boolean): Promise<void> => {
    for (let i = 0; i < 600 && !done(); i++) await sleep(100);
    assert.ok(done(), `timed out waiting for ${what}`);
  };

  before(async () => {
    [pg, node] = await Promise.all([startPostgres(bin ?? ''), startAnvil({ chainId: 31337 })]);
    source = await anvilKeystoreHome();
    env = { PGPASSWORD: pg.password, WALLET_EVM_LOCAL_URL: node.url, MCP_API_KEY: REPLICA_TOKEN };
  });
  after(async () => {
    await node?.stop();
    pg?.remove();
    if (source) rmSync(source, { recursive: true, force: true });
  });

  it(`${REPLICAS} replicas, 40 racing token payments: exactly ${K} sent, within the token cap, each mined once`, async () => {
    const token = await deployToken(node, { name: 'Race', symbol: 'RACE', decimals: 6, supply: 1000n * UNIT });
    // p0 (anvil's first account) holds the supply; the others get enough for every attempt.
    for (const to of REPLICA_ADDRESSES.slice(1)) await transferToken(node, token, to, 100n * UNIT);
    const scoped = await storeEnv('tokens');
    const home = tempHome();
    cpSync(source, home, { recursive: true });
    writeReplicaConfig(home, {
      evm: {
        networks: {
          local: {
            policy: {
              // Ether: room for every fee; the token: exactly K payments.
              autonomous: { max_per_tx_wei: (10n * MILLI).toString(), max_per_24h_wei: (1000n * MILLI).toString() },
              tokens: {
                [token.toLowerCase()]: {
                  autonomous: { max_per_tx: PAYMENT.toString(), max_per_24h: TOKEN_CAP.toString() },
                },
              },
            },
          },
        },
      },
    });
    const replicas = new Replicas(scoped, home);
    try {
      await replicas.start(REPLICAS);
      const results = await Promise.all(
        Array.from({ length: 40 }, (_, i) =>
          replicas.clients[i % REPLICAS]?.callTool(
            {
              name: 'evm_token_transfer',
              arguments: {
                address: REPLICA_ACCOUNTS[Math.floor(i / REPLICAS) % REPLICA_ACCOUNTS.length],
                token,
                to: RECIPIENT,
                amount: PAYMENT.toString(),
                network: 'local',
              },
            },
            SLOW,
          ),
        ),
      );
      const sent = results.filter((result) => result && !result.isError);
      const refused = results.filter((result) => errorCodeOf(result) === 'APPROVAL_REQUIRED');
      assert.equal(
        sent.length,
        K,
        JSON.stringify(results.filter((r) => r?.isError && errorCodeOf(r) !== 'APPROVAL_REQUIRED').slice(0, 2)),
      );
      assert.equal(
        refused.length,
        40 - K,
        JSON.stringify(results.filter((r) => r?.isError && errorCodeOf(r) !== 'APPROVAL_REQUIRED').slice(0, 2)),
      );
      const ledger = `evm-chain-31337-${token.toLowerCase()}`;
      const row = await inDb(
        'tokens',
        `SELECT count(*)::text AS n, coalesce(sum(amount), 0)::text AS total FROM wallet_ledger_entries WHERE ledger = '${ledger}'`,
      );
      const total = String(row['total']);
      assert.equal(Number(row['n']), K);
      assert.ok(BigInt(total) <= TOKEN_CAP, `the token ledger counts ${total}, above the cap ${TOKEN_CAP}`);
      const hashes = sent.map((result) => (result?.structuredContent as { hash: string }).hash);
      assert.equal(new Set(hashes).size, K);
      const nonces = new Set<string>();
      for (const hash of hashes) {
        const receipt = await node.mined<{ status: string }>(hash);
        assert.equal(receipt.status, '0x1', `${hash} was not mined`);
        const tx = await node.rpc<{ from: string; nonce: string; to: string }>('eth_getTransactionByHash', [hash]);
        assert.equal(tx.to.toLowerCase(), token.toLowerCase());
        const used = `${tx.from.toLowerCase()}:${BigInt(tx.nonce)}`;
        assert.ok(!nonces.has(used), `nonce ${used} used twice`);
        nonces.add(used);
      }
      // Every replica lists what every replica sent (the store's sent log, not its data directory's).
      for (const client of replicas.clients) {
        const listed = await client.callTool({ name: 'evm_txs_list', arguments: { network: 'local', limit: 50 } });
        const txs = (listed.structuredContent as { txs: { hash: string; status: string; token: string | null }[] }).txs;
        assert.deepEqual(txs.map((tx) => tx.hash).sort(), [...hashes].sort());
        assert.ok(txs.every((tx) => tx.status === 'success' && tx.token?.toLowerCase() === token.toLowerCase()));
      }
      // What reached the recipient on the chain: K payments, no more.
      const balance = await node.rpc<string>('eth_call', [
        { to: token, data: `0x70a08231${RECIPIENT.slice(2).toLowerCase().padStart(64, '0')}` },
        'latest',
      ]);
      assert.equal(BigInt(balance), BigInt(K) * PAYMENT);
    } finally {
      await replicas.stop();
      rmSync(home, { recursive: true, force: true });
    }
  });

  it('evm_tx_send racing evm_funds_send of one account on 2 replicas: all mined, no nonce used twice', async () => {
    const scoped = await storeEnv('txsend');
    const home = tempHome();
    cpSync(source, home, { recursive: true });
    etherAutonomy(home);
    const replicas = new Replicas(scoped, home);
    const p2 = REPLICA_ADDRESSES[2];
    const call = async (replica: number, name: string, args: Record<string, unknown>) => {
      const result = await replicas.clients[replica]?.callTool(
        { name, arguments: { network: 'local', ...args } },
        SLOW,
      );
      return { result, code: errorCodeOf(result), out: result?.structuredContent as Record<string, unknown> };
    };
    const signed = async (replica: number, nonce?: number): Promise<{ signed_tx: string; hash: string }> => {
      const payment = { address: 'p2', to: RECIPIENT, value_wei: ETHER_PAYMENT.toString() };
      const created = await call(replica, 'evm_tx_create', nonce === undefined ? payment : { ...payment, nonce });
      assert.equal(created.code, undefined, JSON.stringify(created.result?.content));
      const done = await call(replica, 'evm_tx_sign', { address: 'p2', unsigned_tx: created.out['unsigned_tx'] });
      assert.equal(done.code, undefined, JSON.stringify(done.result?.content));
      return { signed_tx: String(done.out['signed_tx']), hash: String(done.out['hash']) };
    };
    const fundsSend = () => call(0, 'evm_funds_send', { address: 'p2', to: RECIPIENT, value_wei: '1' });
    try {
      await replicas.start(2);
      const start = await pendingNonce(p2);
      const sent: string[] = [];

      // A transaction signed with nonce N, then a payment of another replica that goes out with N:
      // sending the first is refused before its broadcast, naming the nonce.
      const early = await signed(1, start);
      const paid = await fundsSend();
      assert.equal(paid.code, undefined, JSON.stringify(paid.result?.content));
      sent.push(String(paid.out['hash']));
      const refused = await call(1, 'evm_tx_send', { signed_tx: early.signed_tx });
      assert.equal(refused.code, 'INVALID_PARAM', JSON.stringify(refused.result?.content));
      assert.match(JSON.stringify(refused.result?.content), new RegExp(`Nonce ${start} of .* went out with another`));
      assert.equal(await node.rpc('eth_getTransactionByHash', [early.hash]), null, 'the refused one went out');

      // Sent through one replica, the same transaction again through the other: harmless, one transaction.
      const once = await signed(1);
      for (const replica of [1, 0]) {
        const again = await call(replica, 'evm_tx_send', { signed_tx: once.signed_tx });
        assert.equal(again.code, undefined, JSON.stringify(again.result?.content));
        assert.equal(again.out['hash'], once.hash);
      }
      sent.push(once.hash);

      // The race: replica 0 pays four times at once while replica 1 creates, signs and sends four,
      // creating again (the node's next nonce) whenever a payment took the nonce it signed.
      const ROUNDS = 4;
      let retries = 0;
      const sendLoop = async (): Promise<void> => {
        for (let done = 0; done < ROUNDS;) {
          const tx = await signed(1);
          const result = await call(1, 'evm_tx_send', { signed_tx: tx.signed_tx });
          if (result.code === undefined) {
            sent.push(tx.hash);
            done++;
            continue;
          }
          assert.equal(result.code, 'INVALID_PARAM', JSON.stringify(result.result?.content));
          assert.match(JSON.stringify(result.result?.content), /went out with another transaction/);
          assert.ok(++retries < 40, 'evm_tx_send kept losing its nonce');
        }
      };
      const payments = Promise.all(Array.from({ length: ROUNDS }, () => fundsSend()));
      const [results] = await Promise.all([payments, sendLoop()]);
      for (const result of results) {
        assert.equal(result.code, undefined, JSON.stringify(result.result?.content));
        sent.push(String(result.out['hash']));
      }
      assert.equal(new Set(sent).size, sent.length);
      const used = new Map<number, string>();
      for (const hash of sent) {
        const receipt = await node.mined<{ status: string }>(hash);
        assert.equal(receipt.status, '0x1', `${hash} was not mined`);
        const tx = await node.rpc<{ nonce: string }>('eth_getTransactionByHash', [hash]);
        const nonce = Number(BigInt(tx.nonce));
        assert.ok(!used.has(nonce), `nonce ${nonce} used by ${used.get(nonce)} and ${hash}`);
        used.set(nonce, hash);
      }
      // Contiguous: every nonce from the first to the last is one of the sent transactions, no other.
      assert.equal(await pendingNonce(p2), start + sent.length, 'a transaction not reported sent went out');
      assert.deepEqual(
        [...used.keys()].sort((a, b) => a - b),
        Array.from({ length: sent.length }, (_, i) => start + i),
      );
    } finally {
      await replicas.stop();
      rmSync(home, { recursive: true, force: true });
    }
  });

  it("evm_tx_create on a replica whose node lags takes the nonce past another replica's broadcast", async () => {
    const scoped = await storeEnv('lagging');
    const home = tempHome();
    cpSync(source, home, { recursive: true });
    etherAutonomy(home);
    // Replica 1's node is another anvil, which never hears of what replica 0 broadcasts.
    const lagging = await startAnvil({ chainId: 31337 });
    const [p3] = [REPLICA_ADDRESSES[3]];
    const first = new Replicas(scoped, home);
    const second = new Replicas({ ...scoped, WALLET_EVM_LOCAL_URL: lagging.url }, home);
    try {
      await first.start(1);
      await second.start(1);
      const nonce = await pendingNonce(p3);
      await lagging.rpc('anvil_setNonce', [p3, `0x${nonce.toString(16)}`]);
      const paid = await first.clients[0]?.callTool(
        {
          name: 'evm_funds_send',
          arguments: { address: 'p3', to: RECIPIENT, value_wei: ETHER_PAYMENT.toString(), network: 'local' },
        },
        SLOW,
      );
      assert.equal(errorCodeOf(paid), undefined, JSON.stringify(paid?.content));
      const shown = BigInt(await lagging.rpc<string>('eth_getTransactionCount', [p3, 'pending']));
      assert.equal(shown, BigInt(nonce), 'the lagging node saw the payment');
      const created = await second.clients[0]?.callTool({
        name: 'evm_tx_create',
        arguments: { address: 'p3', to: RECIPIENT, value_wei: '1', network: 'local' },
      });
      assert.equal(errorCodeOf(created), undefined, JSON.stringify(created?.content));
      const plan = created?.structuredContent as { nonce: number; unsigned_tx: string };
      assert.equal(plan.nonce, nonce + 1, 'the nonce another replica just used was taken again');
      // Signed there, sent through the replica whose node is the chain: it follows the payment.
      const signed = await second.clients[0]?.callTool(
        { name: 'evm_tx_sign', arguments: { address: 'p3', unsigned_tx: plan.unsigned_tx, network: 'local' } },
        SLOW,
      );
      assert.equal(errorCodeOf(signed), undefined, JSON.stringify(signed?.content));
      const sent = await first.clients[0]?.callTool(
        {
          name: 'evm_tx_send',
          arguments: { signed_tx: (signed?.structuredContent as { signed_tx: string }).signed_tx, network: 'local' },
        },
        SLOW,
      );
      assert.equal(errorCodeOf(sent), undefined, JSON.stringify(sent?.content));
      const receipt = await node.mined<{ status: string }>((sent?.structuredContent as { hash: string }).hash);
      assert.equal(receipt.status, '0x1');
      assert.equal(await pendingNonce(p3), nonce + 2);
    } finally {
      await first.stop();
      await second.stop();
      await lagging.stop();
      rmSync(home, { recursive: true, force: true });
    }
  });

  it('replicas killed (kill -9) mid-payment: the next start commits the mined one, releases the other', async () => {
    const scoped = await storeEnv('crash');
    const proxy = await startRpcProxy(node.url);
    const home = tempHome();
    cpSync(source, home, { recursive: true });
    etherAutonomy(home);
    const replicas = new Replicas({ ...scoped, WALLET_EVM_LOCAL_URL: proxy.url }, home);
    const [p0, p1] = [REPLICA_ADDRESSES[0], REPLICA_ADDRESSES[1]];
    const pay = (replica: number, address: string) =>
      replicas.clients[replica]
        ?.callTool(
          {
            name: 'evm_funds_send',
            arguments: { address, to: RECIPIENT, value_wei: ETHER_PAYMENT.toString(), network: 'local' },
          },
          SLOW,
        )
        .catch(() => undefined);
    const broadcasts = () => proxy.calls.filter((method) => method === 'eth_sendRawTransaction').length;
    try {
      await replicas.start(2);
      const [p0Nonce, p1Nonce] = [await pendingNonce(p0), await pendingNonce(p1)];
      const paidBefore = BigInt(await node.rpc<string>('eth_getBalance', [RECIPIENT, 'latest']));
      // Replica 0's broadcast reaches the node (mined at once), and the replica dies before it hears back.
      proxy.faults.set('eth_sendRawTransaction', { kind: 'forward-then-hang' });
      const first = pay(0, 'p0');
      await until('the first broadcast', () => broadcasts() === 1);
      for (let i = 0; i < 100 && (await pendingNonce(p0)) === p0Nonce; i++) await sleep(100);
      replicas.served[0]?.child.kill('SIGKILL');
      // Replica 1 dies with its broadcast on the way: the node never gets it.
      proxy.faults.set('eth_sendRawTransaction', { kind: 'hang' });
      const second = pay(1, 'p1');
      await until('the second broadcast', () => broadcasts() === 2);
      replicas.served[1]?.child.kill('SIGKILL');
      await Promise.all([first, second]);
      assert.equal(await pendingNonce(p0), p0Nonce + 1, "replica 0's payment is not on the chain");
      assert.equal(await pendingNonce(p1), p1Nonce, "replica 1's payment reached the chain");
      const ledger = "SELECT count(*)::text AS n FROM wallet_ledger_entries WHERE ledger = 'evm-chain-31337'";
      assert.equal((await inDb('crash', ledger))['n'], '2', 'both payments were counted before they went out');
      // The deadline of the one the node never saw passes (the store's clock decides: moved back here).
      await inDb(
        'crash',
        `UPDATE wallet_evm_nonces SET broadcast_at = now() - interval '1 hour' WHERE address = '${p1.toLowerCase()}'`,
      );

      // A replica starts: it reconciles before it serves.
      proxy.faults.clear();
      const restarted = await replicas.serve(replicas.newHome());
      replicas.served.push(restarted);
      assert.match(
        restarted.stderr(),
        /on local, 1 payment\(s\) a stopped replica left were found mined \(recorded\), 1 never sent \(released\)/,
      );
      const entries = await inDb(
        'crash',
        "SELECT count(*)::text AS n, string_agg(txid, ',') AS txids FROM wallet_ledger_entries WHERE ledger = 'evm-chain-31337'",
      );
      assert.equal(entries['n'], '1', 'the payment never sent is still counted');
      const minedHash = String(entries['txids']);
      const receipt = await node.mined<{ status: string; from: string }>(minedHash);
      assert.equal(receipt.status, '0x1', 'the counted payment is not the mined one');
      assert.equal((await inDb('crash', 'SELECT count(*)::text AS n FROM wallet_evm_nonces'))['n'], '0');
      const audit = await inDb(
        'crash',
        `SELECT string_agg(line->>'outcome' || ':' || (line->>'hash'), ',' ORDER BY id) AS lines FROM wallet_audit WHERE line->>'tool' = 'state_reconcile'`,
      );
      assert.match(
        String(audit['lines']),
        new RegExp(`^(sent:${minedHash},ok:0x[0-9a-f]{64}|ok:0x[0-9a-f]{64},sent:${minedHash})$`),
      );
      const client = await connectReplica(restarted.url);
      replicas.clients.push(client);
      const listed = await client.callTool({ name: 'evm_txs_list', arguments: { network: 'local', address: 'p0' } });
      assert.deepEqual(
        (listed.structuredContent as { txs: { hash: string }[] }).txs.map((tx) => tx.hash),
        [minedHash],
        'the mined payment is not in the sent log',
      );
      // p1's released nonce is refilled by its next payment; nothing was paid twice.
      const again = await client.callTool(
        {
          name: 'evm_funds_send',
          arguments: { address: 'p1', to: RECIPIENT, value_wei: ETHER_PAYMENT.toString(), network: 'local' },
        },
        SLOW,
      );
      assert.equal(again.isError, undefined, JSON.stringify(again.content));
      const hash = (again.structuredContent as { hash: string }).hash;
      const tx = await node.rpc<{ nonce: string }>('eth_getTransactionByHash', [hash]);
      assert.equal(Number(BigInt(tx.nonce)), p1Nonce, 'the released nonce was not reused');
      assert.equal((await node.mined<{ status: string }>(hash)).status, '0x1');
      const paidAfter = BigInt(await node.rpc<string>('eth_getBalance', [RECIPIENT, 'latest']));
      assert.equal(paidAfter - paidBefore, 2n * ETHER_PAYMENT);
    } finally {
      await replicas.stop();
      await proxy.close();
      rmSync(home, { recursive: true, force: true });
    }
  });

  it('PostgreSQL restarted mid-run: BUSY meanwhile, nothing paid twice, no entry lost, every call audited', async () => {
    const scoped = await storeEnv('restart');
    const home = tempHome();
    cpSync(source, home, { recursive: true });
    etherAutonomy(home);
    const replicas = new Replicas(scoped, home);
    const pay = (replica: number, address: string) =>
      replicas.clients[replica]?.callTool(
        {
          name: 'evm_funds_send',
          arguments: { address, to: RECIPIENT, value_wei: ETHER_PAYMENT.toString(), network: 'local' },
        },
        SLOW,
      );
    const nonces = () => Promise.all(REPLICA_ADDRESSES.map((address) => pendingNonce(address)));
    try {
      await replicas.start(2);
      const before = await nonces();
      let calls = 0;
      const run = (replica: number, account: number) => {
        calls++;
        return pay(replica, REPLICA_ACCOUNTS[account] ?? 'p0');
      };
      let through = 0;
      const inFlight = Array.from({ length: 16 }, (_, i) =>
        run(i % 2, i % 4)?.then((result) => {
          if (!result.isError) through++;
          return result;
        }),
      );
      // Some go through, then PostgreSQL stops (fast: connections ended) while the rest are under way.
      await until('the first payments', () => through >= 2);
      pg.stop();
      const down = await run(0, 0);
      assert.equal(errorCodeOf(down), 'BUSY', JSON.stringify(down?.content));
      const error = down?._meta?.['wallet/error'] as { message: string; hint: string } | undefined;
      assert.match(error?.message ?? '', /state store .* cannot be reached; nothing was signed or sent/);
      assert.match(error?.hint ?? '', /Retry in a moment/);
      const cli = await wallet(['state', 'status'], { env: scoped });
      assert.equal(cli.code, 5, cli.stderr);
      assert.match(cli.stderr, /hint: .*Retry in a moment/);
      pg.start();
      const results = [...(await Promise.all(inFlight)), down];
      // The store is back: each replica pays again, without a restart.
      for (const replica of [0, 1]) results.push(await run(replica, 2 + replica));
      const sent = results.filter((result) => result && !result.isError);
      const failed = results.filter((result) => !result || result.isError);
      assert.ok(
        failed.every((result) => errorCodeOf(result) === 'BUSY'),
        JSON.stringify(failed.filter((result) => errorCodeOf(result) !== 'BUSY').slice(0, 2)),
      );
      assert.ok(errorCodeOf(results.at(-1)) === undefined && errorCodeOf(results.at(-2)) === undefined);
      // Nothing paid that a caller was told failed, nothing twice: the chain holds exactly the sent ones.
      const after = await nonces();
      const onChain = after.reduce((sum, nonce, i) => sum + nonce - (before[i] ?? 0), 0);
      assert.equal(onChain, sent.length, 'a payment reported failed went out, or one reported sent did not');
      const hashes = sent.map((result) => (result?.structuredContent as { hash: string }).hash);
      for (const hash of hashes) {
        const receipt = await node.mined<{ status: string }>(hash);
        assert.equal(receipt.status, '0x1', `${hash} was not mined`);
      }
      // What a dead connection left half done is settled (a start reconciles; the next payment of
      // each account releases what was never marked): the ledger then counts exactly what was sent.
      await inDb('restart', "UPDATE wallet_evm_nonces SET broadcast_at = now() - interval '1 hour'");
      replicas.served.push(await replicas.serve(replicas.newHome()));
      const settle = await connectReplica(replicas.served.at(-1)?.url ?? '');
      replicas.clients.push(settle);
      for (const address of REPLICA_ACCOUNTS) {
        calls++;
        const paid = await settle.callTool(
          { name: 'evm_funds_send', arguments: { address, to: RECIPIENT, value_wei: '1', network: 'local' } },
          SLOW,
        );
        assert.equal(paid.isError, undefined, JSON.stringify(paid.content));
        hashes.push((paid.structuredContent as { hash: string }).hash);
      }
      const counted = await inDb(
        'restart',
        "SELECT coalesce(string_agg(txid, ',' ORDER BY txid), '') AS txids FROM wallet_ledger_entries WHERE ledger = 'evm-chain-31337'",
      );
      assert.deepEqual(
        String(counted['txids']).split(',').filter(Boolean),
        [...hashes].sort(),
        'the ledger lost or kept an entry',
      );
      // Every call has its audit line: in the store, or (the store down) in its replica's audit.log.
      const stored = Number(
        (await inDb('restart', "SELECT count(*)::text AS n FROM wallet_audit WHERE line->>'tool' = 'evm_funds_send'"))[
          'n'
        ],
      );
      const local = replicas.homes
        .map((dir) => join(dir, 'audit.log'))
        .filter((file) => existsSync(file))
        .flatMap((file) => readFileSync(file, 'utf8').split('\n').filter(Boolean))
        .filter((line) => (JSON.parse(line) as { tool?: string }).tool === 'evm_funds_send').length;
      assert.equal(stored + local, calls, `${stored} audit lines in the store and ${local} local for ${calls} calls`);
    } finally {
      await replicas.stop();
      rmSync(home, { recursive: true, force: true });
    }
  });
});
