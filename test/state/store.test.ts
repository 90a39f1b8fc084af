/**
 * The PostgreSQL state store's modules against a real cluster (test/helpers/postgres.ts), each
 * fault on its own, without replicas: a connection lost mid-payment is BUSY and the process lives
 * on; all connections in use is said as such; a spend key re-recorded after its old row left the
 * window counts; a recorded policy missing from a replica's config refuses it; an abandoned
 * nonce reservation is reusable at once.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { WalletError } from '../../src/domain/errors.js';
import { closePools, openPools, query, type PgPools } from '../../src/domain/state/pg/client.js';
import { migrate, SCHEMA_VERSION } from '../../src/domain/state/pg/migrate.js';
import { checkPolicies, recordPolicies } from '../../src/domain/state/pg/policy.js';
import { openPgStore } from '../../src/domain/state/pg/store.js';
import { resolveStateLocation, type StateLocation } from '../../src/domain/state/state-url.js';
import type { StateStore } from '../../src/domain/state/store.js';
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
    await store.withAccount(1, ACCOUNT, async (slot) => {
      assert.equal(await slot?.next(7), 7);
      await slot?.reserve(7);
    });
    await store.withAccount(1, ACCOUNT, async (slot) => {
      assert.equal(await slot?.next(7), 7, 'an abandoned reservation left a gap');
      await slot?.reserve(7);
      await slot?.broadcasting(7);
    });
    await store.withAccount(1, ACCOUNT, async (slot) => {
      assert.equal(await slot?.next(7), 8, 'a nonce broadcast a moment ago, which the node may not show yet');
    });
  });

  it("is BUSY, nothing broadcast, when the account lock's connection dies mid-payment; the process lives", async () => {
    let broadcast = false;
    await assert.rejects(
      store.withAccount(1, ACCOUNT, async (slot) => {
        const nonce = (await slot?.next(20)) ?? 20;
        await slot?.reserve(nonce);
        await terminate();
        await slot?.broadcasting(nonce);
        broadcast = true;
      }),
      busy(/lock was lost; nothing was broadcast/),
    );
    assert.equal(broadcast, false);
    // The pools come back on their own.
    assert.equal(await store.withAccount(1, ACCOUNT, async (slot) => slot?.next(30)), 30);
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
