/**
 * The PostgreSQL state store's modules against a real cluster (test/helpers/postgres.ts), each
 * fault on its own, without replicas: a connection lost mid-payment is BUSY and the process lives
 * on; all connections in use is said as such; a spend key re-recorded after its old row left the
 * window counts; a recorded policy missing from a replica's config refuses it; an abandoned
 * nonce reservation is reusable at once and its spend uncounted; a start reconciles the
 * reservations a replica left marked broadcast against the chain.
 */
import assert from 'node:assert/strict';
import nodePostgres from 'pg';
import { after, before, describe, it } from 'node:test';
import { WalletError } from '../../src/domain/errors.js';
import { SentLog } from '../../src/domain/evm/sent-log.js';
import { Keystore } from '../../src/domain/keystore/keystore.js';
import { closePools, openPools, query, type PgPools } from '../../src/domain/state/pg/client.js';
import { importDataDir } from '../../src/domain/state/pg/import.js';
import { migrate, SCHEMA_VERSION } from '../../src/domain/state/pg/migrate.js';
import { checkPolicies, recordPolicies } from '../../src/domain/state/pg/policy.js';
import { openPgStore } from '../../src/domain/state/pg/store.js';
import { resolveStateLocation, type StateLocation } from '../../src/domain/state/state-url.js';
import type { ChainVerdict, StateStore } from '../../src/domain/state/store.js';
import { tempHome } from '../helpers/io.js';
import { findPostgres, startPostgres, type PgCluster } from '../helpers/postgres.js';

const bin = findPostgres();
if (!bin) {
  console.error(
    '\n!!! SKIPPING the state store tests against PostgreSQL: initdb and pg_ctl are not installed.\n!!! .ci/run installs them (apt-get install -y postgresql); install it to run these tests.\n',
  );
}

const DAY_MS = 24 * 60 * 60 * 1000;
const ACCOUNT = '0x90F79bf6EB2c4f870365E785982E1f101E93b906';

const busy = (pattern: RegExp) => (error: unknown) =>
  error instanceof WalletError && error.code === 'BUSY' && pattern.test(error.message);

describe('the PostgreSQL state store', { skip: bin ? false : 'no PostgreSQL' }, () => {
  let pg: PgCluster;
  let location: StateLocation;
  let pools: PgPools;
  let store: StateStore;
  let tempDataDir: string;

  /** Ends every connection of the wallet, as a restart or an administrator would. */
  const terminate = async (): Promise<void> => {
    pg.sql("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'wallet'");
    // Let the sockets' end reach the clients.
    await new Promise((resolve) => setTimeout(resolve, 200));
  };

  before(async () => {
    pg = await startPostgres(bin ?? '');
    tempDataDir = tempHome();
    const found = resolveStateLocation({ WALLET_STATE_URL: pg.url, PGPASSWORD: pg.password }, undefined);
    assert.ok(found);
    location = found;
    pools = await openPools(location);
    assert.deepEqual(await migrate(pools), { from: 0, to: SCHEMA_VERSION });
    assert.deepEqual(
      await migrate(pools),
      { from: SCHEMA_VERSION, to: SCHEMA_VERSION },
      'a second run changes nothing',
    );
    store = await openPgStore(location, [], tempDataDir);
  });
  after(async () => {
    await store?.close();
    if (pools) await closePools(pools);
    pg?.remove();
  });

  it('counts a spend key again once its old row left the 24-hour window', async () => {
    const ledger = store.ledger('evm', 'rerecord');
    const entry = (time: number) => ({ key: 'tx-1', txid: null, amount: 5n, time, by: 'agent' as const });
    await ledger.update(async (recent, now) => ({ entries: [...recent, entry(now - DAY_MS - 60_000)], result: 0 }));
    assert.deepEqual(await ledger.recent(), [], 'the old entry is out of the window');
    await ledger.update(async (recent, now) => ({ entries: [...recent, entry(now)], result: 0 }));
    const counted = await ledger.recent();
    assert.equal(counted.length, 1, 'the key recorded again is not counted');
    assert.equal(counted[0]?.amount, 5n);
  });

  it('says every connection was in use, not that the store cannot be reached, when the pool is exhausted', async () => {
    const held = await Promise.all(Array.from({ length: 8 }, () => pools.pool.connect()));
    try {
      await assert.rejects(query(pools, 'SELECT 1'), busy(/^Every connection of this replica .* stayed in use/));
    } finally {
      for (const client of held) client.release();
    }
    assert.equal((await query(pools, 'SELECT 1 AS one'))[0]?.['one'], 1);
  });

  it('reserves a change index inside a ledger update without a second connection (all held)', async () => {
    // A Dash payment reserves its change index while its ledger update holds a connection, and as
    // many payments as the pool has connections wait for that ledger's lock, each holding one.
    const entry = await store.keystore.create({
      alias: 'pool',
      network: 'regtest',
      id: '0a1b2c3d',
      account: { index: 0, path: "m/44'/1'/0'", xpub: 'tpubPoolTest' },
      secret: { mnemonic: 'not a real mnemonic', mnemonicPassphrase: '' },
      passphrase: 'pool test passphrase',
    });
    const ledger = store.ledger('core', 'pool');
    const payments = 8;
    const firsts = await Promise.all(
      Array.from({ length: payments }, (_, i) =>
        ledger.update(async (recent, now) => {
          const { first } = await store.keystore.reserve(entry, 'change');
          return {
            entries: [...recent, { key: `pool-${i}`, txid: null, amount: 1n, time: now, by: 'agent' }],
            result: first,
          };
        }),
      ),
    );
    assert.deepEqual(
      [...firsts].sort((a, b) => a - b),
      Array.from({ length: payments }, (_, i) => i),
    );
    assert.equal((await ledger.recent()).length, payments);
    // A ledger update that fails after the reservation uses up no index: one transaction.
    await assert.rejects(
      ledger.update(async () => {
        await store.keystore.reserve(entry, 'change');
        throw new Error('refused after the change was reserved');
      }),
      /refused after/,
    );
    const [stored] = (await store.keystore.list()).entries.filter((each) => each.alias === 'pool');
    assert.equal(stored?.account.next_change, payments);
  });

  it('imports a data directory without lowering an index a replica raised meanwhile', async () => {
    // A data directory imported once, whose wallet then moved on in both places: the store's
    // receive index (a replica) and the file's change index.
    const dataDir = tempHome();
    const files = new Keystore(dataDir);
    const entry = await files.create({
      alias: 'raced',
      network: 'regtest',
      id: '0d0e0f10',
      account: { index: 0, path: "m/44'/1'/0'", xpub: 'tpubImportRace' },
      secret: { mnemonic: 'not a real mnemonic either', mnemonicPassphrase: '' },
      passphrase: 'import race passphrase',
    });
    await importDataDir(pools, dataDir);
    await store.keystore.reserve(entry, 'receive', 5);
    await files.reserve(entry, 'change', 2);
    // A replica handing out receive index 5 right now: its row held, its raise not yet committed.
    const url = new URL(pg.url);
    url.password = encodeURIComponent(pg.password);
    const replica = new nodePostgres.Client({ connectionString: url.toString() });
    await replica.connect();
    try {
      await replica.query('BEGIN');
      await replica.query("SELECT record FROM wallet_keystore_wallets WHERE id = '0d0e0f10' FOR UPDATE");
      await replica.query(
        `UPDATE wallet_keystore_wallets SET record = jsonb_set(record, '{account,next_receive}', '6')
         WHERE id = '0d0e0f10'`,
      );
      const imported = importDataDir(pools, dataDir);
      await new Promise((resolve) => setTimeout(resolve, 500));
      await replica.query('COMMIT');
      assert.equal((await imported).wallets.merged, 1);
    } finally {
      await replica.end();
    }
    const [stored] = (await store.keystore.list()).entries.filter((each) => each.alias === 'raced');
    assert.equal(stored?.account.next_receive, 6, 'the import wrote back an index a replica had raised');
    assert.equal(stored?.account.next_change, 2);
  });

  it("imports a data directory's sent transactions once, for evm_txs_list on every replica", async () => {
    const dataDir = tempHome();
    const sent = {
      hash: `0x${'ab'.repeat(32)}`,
      from: ACCOUNT,
      to: '0x15d34AAf54267DB7D7c367839AAf71A00a2C6A65',
      value: '1000',
      nonce: 3,
      sent_at: '2026-11-01T10:00:00.000Z',
      token: null,
    };
    await new SentLog(dataDir, 31337).append(sent);
    await new SentLog(dataDir, 31337).append({ ...sent, hash: `0x${'cd'.repeat(32)}`, nonce: 4 });
    const first = await importDataDir(pools, dataDir);
    assert.deepEqual(first.sent_transactions, { imported: 2, merged: 0, unchanged: 0 });
    assert.deepEqual(
      (await store.sentLog(31337).records()).map((record) => record.nonce),
      [3, 4],
    );
    const again = await importDataDir(pools, dataDir);
    assert.deepEqual(again.sent_transactions, { imported: 0, merged: 0, unchanged: 2 });
    assert.equal((await store.sentLog(31337).records()).length, 2);
  });

  it('refuses a replica whose config lacks a policy the store recorded, naming it', async () => {
    const a = { key: 'evm.networks.a.policy', policy: { max_per_tx_wei: '1' } };
    const b = { key: 'evm.networks.b.policy', policy: { max_per_tx_wei: '2' } };
    await checkPolicies(pools, [a]);
    const refused = (key: string) => (error: unknown) =>
      error instanceof WalletError && error.code === 'POLICY_VIOLATION' && error.message.includes(`has no ${key}`);
    await assert.rejects(checkPolicies(pools, []), refused(a.key));
    await checkPolicies(pools, [a, b]);
    await assert.rejects(checkPolicies(pools, [a]), refused(b.key));
    await assert.rejects(openPgStore(location, [b], tempDataDir), refused(a.key));
    // Dropped on purpose, everywhere: policy-record makes this config's set the store's.
    await recordPolicies(pools, [a]);
    await checkPolicies(pools, [a]);
    await recordPolicies(pools, []);
  });

  it('reuses an abandoned nonce reservation at once, and skips one marked broadcast', async () => {
    // A holder that reserved 7 and stopped before the broadcast (a crash): nothing marks it.
    const ledger = store.ledger('evm', 'abandoned');
    await store.withAccount(1, ACCOUNT, async (slot) => {
      assert.equal(await slot?.next(7), 7);
      await slot?.reserve(7, 'key-7');
      // Signed and counted under its spend key, then the replica died before its broadcast.
      await ledger.update(async (recent, now) => ({
        entries: [...recent, { key: 'key-7', txid: '0x07', amount: 9n, time: now, by: 'agent' }],
        result: 0,
      }));
    });
    assert.equal((await ledger.recent()).length, 1);
    await store.withAccount(1, ACCOUNT, async (slot) => {
      assert.deepEqual(await ledger.recent(), [], 'the spend of an abandoned reservation is still counted');
      assert.equal(await slot?.next(7), 7, 'an abandoned reservation left a gap');
      await slot?.reserve(7, 'key-7b');
      await slot?.broadcasting(7, '0x7b');
    });
    await store.withAccount(1, ACCOUNT, async (slot) => {
      assert.equal(await slot?.next(7), 8, 'a nonce broadcast a moment ago, which the node may not show yet');
    });
  });

  it('reconciles reservations marked broadcast but unrecorded: mined committed, never mined released', async () => {
    const chainId = 5;
    const ledger = store.ledger('evm', 'reconcile');
    /** A payment of nonce `n` whose replica died after marking it broadcast (before recording it sent). */
    const leave = async (n: number): Promise<void> => {
      await store.withAccount(chainId, ACCOUNT, async (slot) => {
        await slot?.reserve(n, `key-${n}`);
        await ledger.update(async (recent, now) => ({
          entries: [...recent, { key: `key-${n}`, txid: `0x${n}`, amount: 1n, time: now, by: 'agent' }],
          result: 0,
        }));
        await slot?.broadcasting(n, `0x${n}`);
      });
    };
    for (const n of [1, 2, 3, 4, 5]) await leave(n);
    // 5 went out and was recorded: nothing to ask the chain.
    await store.sentLog(chainId).append({
      hash: `0x${'5'.repeat(64)}`,
      from: ACCOUNT,
      to: null,
      value: '0',
      nonce: 5,
      sent_at: new Date().toISOString(),
      token: null,
    });
    pg.sql(`UPDATE wallet_evm_nonces SET hash = '0x${'5'.repeat(64)}' WHERE chain_id = ${chainId} AND nonce = 5`);
    const verdicts: Record<string, ChainVerdict> = {
      '0x1': 'mined',
      '0x2': 'pending',
      '0x3': 'replaced',
      '0x4': 'absent',
    };
    const judged: string[] = [];
    const recorded: string[] = [];
    const reconcile = () =>
      store.reconcile(
        chainId,
        async ({ hash }) => {
          judged.push(hash);
          return verdicts[hash] ?? 'absent';
        },
        async ({ hash }) => {
          recorded.push(hash);
        },
      );
    const first = await reconcile();
    assert.deepEqual(judged.sort(), ['0x1', '0x2', '0x3', '0x4'], 'a recorded payment was asked of the chain');
    assert.deepEqual(recorded, ['0x1']);
    assert.deepEqual(
      first.committed.map((r) => r.hash),
      ['0x1'],
    );
    // Absent, but broadcast a moment ago (the node may not have it yet): kept until the deadline.
    assert.deepEqual(
      first.released.map((r) => r.hash),
      ['0x3'],
    );
    assert.deepEqual(
      (await ledger.recent()).map((entry) => entry.key).sort(),
      ['key-1', 'key-2', 'key-4', 'key-5'],
      'mined, pending, absent for now and recorded stay counted; the replaced one is taken out',
    );
    const nextFrom = (pending: number) => store.withAccount(chainId, ACCOUNT, async (slot) => slot?.next(pending));
    assert.equal(await nextFrom(3), 3, 'the replaced nonce 3 is not refilled');
    assert.equal(await nextFrom(4), 6, 'nonce 4 (absent for now) is not skipped');
    // The deadline passes (the store's clock decides): the absent one is released, its nonce free.
    pg.sql(
      `UPDATE wallet_evm_nonces SET broadcast_at = now() - interval '1 hour' WHERE chain_id = ${chainId} AND nonce = 4`,
    );
    judged.length = 0;
    const second = await reconcile();
    assert.deepEqual(judged.sort(), ['0x2', '0x4']);
    assert.deepEqual(
      second.released.map((r) => r.hash),
      ['0x4'],
    );
    assert.deepEqual((await ledger.recent()).map((entry) => entry.key).sort(), ['key-1', 'key-2', 'key-5']);
    assert.equal(await nextFrom(4), 4, 'the released nonce 4 is not refilled');
  });

  it("is BUSY, nothing broadcast, when the account lock's connection dies mid-payment; the process lives", async () => {
    let broadcast = false;
    await assert.rejects(
      store.withAccount(1, ACCOUNT, async (slot) => {
        const nonce = (await slot?.next(20)) ?? 20;
        await slot?.reserve(nonce, `key-${nonce}`);
        await terminate();
        await slot?.broadcasting(nonce, '0x20');
        broadcast = true;
      }),
      busy(/lock was lost; nothing was broadcast/),
    );
    assert.equal(broadcast, false);
    // The pools come back on their own.
    assert.equal(await store.withAccount(1, ACCOUNT, async (slot) => slot?.next(30)), 30);
  });

  it("reserves a nonce only while its lock is held: a lost lock never overwrites another's broadcast", async () => {
    await assert.rejects(
      store.withAccount(1, ACCOUNT, async (slot) => {
        const nonce = (await slot?.next(40)) ?? 40;
        // The lock's connection ends (a restart, a failover) before this process has heard of it
        // (psql runs synchronously: no event is handled until the reservation starts)...
        pg.sql(
          "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'wallet' AND query LIKE 'SELECT pg_advisory_lock%'",
        );
        // ...and another replica, holding the lock now, broadcast that nonce.
        pg.sql(
          `INSERT INTO wallet_evm_nonces (chain_id, address, nonce, spend_key, broadcast_at, hash)
           VALUES (1, '${ACCOUNT.toLowerCase()}', ${nonce}, 'key-other', now(), '0xother')`,
        );
        await slot?.reserve(nonce, `key-${nonce}`);
      }),
      busy(/lock was lost; nothing was broadcast/),
    );
    const row = await query(
      pools,
      'SELECT spend_key, hash, broadcast_at IS NOT NULL AS marked FROM wallet_evm_nonces WHERE chain_id = 1 AND address = $1 AND nonce = 40',
      [ACCOUNT.toLowerCase()],
    );
    assert.deepEqual(row, [{ spend_key: 'key-other', hash: '0xother', marked: true }]);
  });

  it('is BUSY, saying it signed and did not broadcast, when the ledger connection dies mid-update', async () => {
    const ledger = store.ledger('evm', 'lost');
    await assert.rejects(
      ledger.update(async (recent, now) => {
        await terminate();
        return { entries: [...recent, { key: 'tx-2', txid: null, amount: 1n, time: now, by: 'owner' }], result: 0 };
      }),
      busy(/cannot be reached; the transaction was signed, but neither counted nor broadcast/),
    );
    assert.deepEqual(await ledger.recent(), []);
    assert.equal(await ledger.update(async (recent) => ({ entries: recent, result: 'again' })), 'again');
  });
});
