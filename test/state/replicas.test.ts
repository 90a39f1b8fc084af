/**
 * Replicas of `wallet serve --http` sharing one PostgreSQL state store (docs/REPLICAS.md), against
 * a real PostgreSQL cluster and a real anvil: the caps hold whatever the number of replicas, one
 * account's nonces stay contiguous across them, and a store that is down is BUSY, nothing signed.
 * The keystore is imported into the store (`wallet state import`); each replica's data directory
 * holds its config.json only, and replicas creating Dash addresses at once never share an index.
 */
import assert from 'node:assert/strict';
import { cpSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { SCHEMA_VERSION } from '../../src/domain/state/pg/migrate.js';
import { startAnvil, type AnvilNode } from '../helpers/anvil.js';
import { startHttpServe } from '../helpers/http-serve.js';
import { passphraseFileIn, tempHome, wallet } from '../helpers/io.js';
import { ROOT } from '../helpers/paths.js';
import { writeLocalPolicy } from '../helpers/policy.js';
import { findPostgres, startPostgres, type PgCluster } from '../helpers/postgres.js';
import {
  anvilKeystoreHome,
  errorCodeOf,
  REPLICA_ACCOUNTS,
  REPLICA_PASSPHRASE,
  REPLICA_TOKEN,
  Replicas,
} from '../helpers/replicas.js';

const bin = findPostgres();
if (!bin) {
  console.error(
    '\n!!! SKIPPING the replica tests against PostgreSQL: initdb and pg_ctl are not installed.\n!!! .ci/run installs them (apt-get install -y postgresql); install it to run these tests.\n',
  );
}

const RECIPIENT = '0x90F79bf6EB2c4f870365E785982E1f101E93b906';
const MILLI = 10n ** 15n;
const REPLICAS = 4;
/** Payments of 10 milli-ether racing under an autonomous 24-hour cap with room for exactly K. */
const K = 7;
const PAYMENT = 10n * MILLI;
// K payments and their fees (a few hundredths of a milli-ether each on anvil) fit; K + 1 do not.
const CAP = BigInt(K) * PAYMENT + 5n * MILLI;
/**
 * One account's payments go one at a time across all replicas, each unlocking its key (scrypt):
 * on a shared two-core machine 50 of them take minutes, past the client's default 60 s.
 */
const SLOW = { timeout: 300_000 };

describe('replicas of wallet serve --http sharing a PostgreSQL store', { skip: bin ? false : 'no PostgreSQL' }, () => {
  let pg: PgCluster;
  let node: AnvilNode;
  let source: string;
  let env: Record<string, string>;

  before(async () => {
    [pg, node] = await Promise.all([startPostgres(bin ?? ''), startAnvil({ chainId: 31337 })]);
    source = await anvilKeystoreHome();
    env = {
      WALLET_STATE_URL: pg.url,
      PGPASSWORD: pg.password,
      WALLET_EVM_LOCAL_URL: node.url,
      MCP_API_KEY: REPLICA_TOKEN,
    };
  });
  after(async () => {
    await node?.stop();
    pg?.remove();
    if (source) rmSync(source, { recursive: true, force: true });
  });

  it('migrates once, and again changes nothing; a password in the URL is refused', async () => {
    const first = await wallet(['state', 'migrate', '--json'], { env });
    assert.equal(first.code, 0, first.stderr);
    const store = `127.0.0.1:${pg.port}/wallet`;
    assert.deepEqual(JSON.parse(first.stdout), { store, from: 0, to: SCHEMA_VERSION });
    const again = await wallet(['state', 'migrate', '--json'], { env });
    assert.equal(again.code, 0, again.stderr);
    assert.deepEqual(JSON.parse(again.stdout), { store, from: SCHEMA_VERSION, to: SCHEMA_VERSION });
    const status = await wallet(['state', 'status', '--json'], { env });
    assert.equal(status.code, 0, status.stderr);
    assert.equal((JSON.parse(status.stdout) as { schema_version: number }).schema_version, SCHEMA_VERSION);
    const withPassword = await wallet(['state', 'status'], {
      env: { ...env, WALLET_STATE_URL: pg.url.replace('wallet@', `wallet:${pg.password}@`) },
    });
    assert.equal(withPassword.code, 2, withPassword.stderr);
    assert.match(withPassword.stderr, /holds a password/);
    assert.ok(!withPassword.stderr.includes(pg.password), 'the password was echoed');
    // The audit table is append-only, even for its owner.
    pg.sql(`INSERT INTO wallet_audit (line) VALUES ('{"tool":"test","outcome":"ok"}')`);
    assert.throws(() => pg.sql('DELETE FROM wallet_audit'), /append-only/);
    assert.throws(() => pg.sql("UPDATE wallet_audit SET line = '{}'"), /append-only/);
  });

  it("docs/REPLICAS.md's least-privilege role runs every statement a replica runs, and cannot rewrite the audit", () => {
    const doc = readFileSync(join(ROOT, 'docs', 'REPLICAS.md'), 'utf8');
    const grants = /```sql\n([\s\S]*?)```/.exec(doc)?.[1];
    assert.ok(grants, 'no sql block in docs/REPLICAS.md');
    const app = { user: 'wallet_app', password: 'app-password-for-the-test' };
    pg.sql(grants.replace("PASSWORD '…'", `PASSWORD '${app.password}'`));
    for (const statement of [
      "INSERT INTO wallet_ledgers (name, chain) VALUES ('evm-chain-1', 'evm') ON CONFLICT DO NOTHING",
      "BEGIN; SELECT name FROM wallet_ledgers WHERE name = 'evm-chain-1' FOR UPDATE; COMMIT",
      "INSERT INTO wallet_ledger_entries (ledger, key, txid, amount, at_ms, by_whom) VALUES ('evm-chain-1', 'k', NULL, 5, 1, 'agent')",
      "INSERT INTO wallet_ledger_entries (ledger, key, txid, amount, at_ms, by_whom) VALUES ('evm-chain-1', 'k', NULL, 5, 2, 'agent') ON CONFLICT (ledger, key) DO UPDATE SET txid = excluded.txid, amount = excluded.amount, at_ms = excluded.at_ms, by_whom = excluded.by_whom",
      "DELETE FROM wallet_ledger_entries WHERE ledger = 'evm-chain-1' AND key = 'k'",
      `INSERT INTO wallet_audit (line) VALUES ('{"tool":"test","outcome":"ok"}')`,
      "INSERT INTO wallet_evm_nonces (chain_id, address, nonce) VALUES (1, 'a', 0) ON CONFLICT (chain_id, address, nonce) DO UPDATE SET reserved_at = now(), broadcast_at = NULL",
      "UPDATE wallet_evm_nonces SET broadcast_at = now() WHERE chain_id = 1 AND address = 'a' AND nonce = 0",
      'DELETE FROM wallet_evm_nonces WHERE chain_id = 1',
      `INSERT INTO wallet_evm_sent (chain_id, hash, from_address, record) VALUES (1, 'h', 'a', '{}') ON CONFLICT (chain_id, hash) DO NOTHING`,
      'SELECT record FROM wallet_evm_sent WHERE chain_id = 1 ORDER BY id DESC LIMIT 1000',
      "INSERT INTO wallet_evm_nonces (chain_id, address, nonce, spend_key) VALUES (1, 'a', 1, 'k') ON CONFLICT (chain_id, address, nonce) DO UPDATE SET reserved_at = now(), broadcast_at = NULL, spend_key = excluded.spend_key, hash = NULL",
      "UPDATE wallet_evm_nonces SET broadcast_at = now(), hash = 'h' WHERE chain_id = 1 AND address = 'a' AND nonce = 1 AND spend_key IS NOT DISTINCT FROM 'k'",
      'DELETE FROM wallet_evm_nonces n USING wallet_evm_sent s WHERE n.chain_id = 1 AND s.chain_id = n.chain_id AND s.hash = n.hash',
      "DELETE FROM wallet_evm_nonces WHERE chain_id = 1 AND address = 'a' AND broadcast_at IS NULL RETURNING spend_key",
      "DELETE FROM wallet_ledger_entries WHERE key = ANY('{k}')",
      "DELETE FROM wallet_coin_reservations WHERE network = 'regtest' AND outpoint = ANY('{o:0}') AND expires_at <= now()",
      "INSERT INTO wallet_coin_reservations (network, outpoint, reservation, expires_at) SELECT 'regtest', outpoint, 'r', now() FROM unnest('{o:0}'::text[]) AS outpoint ON CONFLICT DO NOTHING RETURNING outpoint",
      "UPDATE wallet_coin_reservations SET txid = 't', expires_at = now() WHERE reservation = 'r'",
      "SELECT outpoint FROM wallet_coin_reservations WHERE network = 'regtest' AND expires_at > now()",
      "DELETE FROM wallet_coin_reservations WHERE reservation = 'r'",
      "INSERT INTO wallet_policies (key, policy) VALUES ('test', '{}') ON CONFLICT DO NOTHING",
      'SELECT key, policy FROM wallet_policies ORDER BY key',
      'SELECT max(version) FROM wallet_schema',
      "SELECT pg_advisory_lock(1, hashtext('x'))",
      "SELECT pg_advisory_unlock(1, hashtext('x'))",
      // The keystore (import, create, index reservations) and the passkeys.
      `BEGIN; SELECT pg_advisory_xact_lock(1);
       INSERT INTO wallet_keystore_wallets (id, network, alias, record) VALUES ('00000000', 'regtest', 'grant-test', '{}');
       SELECT id, network, record FROM wallet_keystore_wallets WHERE id = '00000000' FOR UPDATE;
       UPDATE wallet_keystore_wallets SET record = '{}', updated_at = now() WHERE id = '00000000';
       DELETE FROM wallet_keystore_wallets WHERE id = '00000000'; COMMIT`,
      `INSERT INTO wallet_keystore_keys (address, alias, record) VALUES ('0x00', NULL, '{}') ON CONFLICT (address) DO NOTHING;
       UPDATE wallet_keystore_keys SET record = '{}' WHERE address = '0x00'; DELETE FROM wallet_keystore_keys WHERE address = '0x00'`,
      `INSERT INTO wallet_passkeys (id, name, record) VALUES ('p', 'grant-test', '{}')
       ON CONFLICT (id) DO UPDATE SET name = excluded.name, record = excluded.record;
       SELECT EXISTS (SELECT 1 FROM wallet_passkeys); DELETE FROM wallet_passkeys WHERE id = 'p'`,
      // The approvals and the tasks (src/domain/state/pg/approvals.ts, tasks.ts).
      `BEGIN; SELECT pg_advisory_xact_lock(2); SELECT id, record FROM wallet_approvals;
       INSERT INTO wallet_approvals (id, digest, status, expires_at, record) VALUES ('ap-x', 'd', 'pending', now(), '{}')
       ON CONFLICT (id) DO UPDATE SET status = excluded.status, expires_at = excluded.expires_at, record = excluded.record;
       DELETE FROM wallet_approvals WHERE id = ANY('{ap-x}'); COMMIT`,
      `INSERT INTO wallet_approval_tasks (id, session, approval, state, updated_at, record, replica, lease_until)
       VALUES ('tk-x', 's', 'ap-x', 'working', now(), '{}', 'rp-x', now())
       ON CONFLICT (id) DO UPDATE SET state = excluded.state, updated_at = excluded.updated_at, record = excluded.record,
         replica = excluded.replica, lease_until = excluded.lease_until;
       UPDATE wallet_approval_tasks SET lease_until = clock_timestamp() WHERE replica = 'rp-x' AND id = ANY('{tk-x}');
       UPDATE wallet_approval_tasks SET result = '{}' WHERE id = 'tk-x';
       SELECT id, record, replica, result FROM wallet_approval_tasks;
       UPDATE wallet_approval_tasks SET sealed_call = '\\x00' WHERE id = 'tk-x' AND state = 'working' RETURNING id;
       SELECT sealed_call, record->>'digest' AS digest FROM wallet_approval_tasks WHERE id = 'tk-x';
       UPDATE wallet_approval_tasks SET sealed_call = NULL WHERE sealed_call IS NOT NULL AND state <> 'working';
       DELETE FROM wallet_approval_tasks WHERE id = ANY('{tk-x}')`,
      // The salt the tasks' sealed calls are keyed with (made once).
      `INSERT INTO wallet_task_call_salts (name, salt) VALUES ('grant-test', decode(repeat('cd', 32), 'hex'))
         ON CONFLICT (name) DO NOTHING;
       SELECT salt FROM wallet_task_call_salts WHERE name = 'grant-test'`,
      'CREATE TEMP TABLE wallet_import_audit (n integer, line jsonb)',
      // The elicitation key (made once) and the questions answered yes (spent once, pruned).
      `WITH made AS (INSERT INTO wallet_elicitation_keys (name, key) VALUES ('grant-test', decode(repeat('ab', 32), 'hex'))
         ON CONFLICT (name) DO NOTHING RETURNING key)
       SELECT key FROM made UNION ALL SELECT key FROM wallet_elicitation_keys WHERE name = 'grant-test'`,
      `WITH pruned AS (DELETE FROM wallet_elicitation_spent WHERE expires_at < now()),
       spent AS (INSERT INTO wallet_elicitation_spent (id, expires_at) VALUES ('q', now() + make_interval(secs => 660))
         ON CONFLICT (id) DO NOTHING RETURNING id)
       SELECT count(*)::int AS n FROM spent`,
      "SELECT 1 FROM wallet_elicitation_spent WHERE id = 'q' AND expires_at >= now()",
      'SELECT DISTINCT chain_id::text AS chain_id FROM wallet_evm_nonces WHERE broadcast_at IS NOT NULL',
    ]) {
      pg.sql(statement, app);
    }
    for (const statement of [
      'DELETE FROM wallet_audit',
      "UPDATE wallet_audit SET line = '{}'",
      'TRUNCATE wallet_audit',
    ]) {
      assert.throws(() => pg.sql(statement, app), /permission denied/, statement);
    }
    pg.sql(
      "DELETE FROM wallet_policies WHERE key = 'test'; DELETE FROM wallet_ledgers WHERE name = 'evm-chain-1'; DELETE FROM wallet_elicitation_keys WHERE name = 'grant-test'; DELETE FROM wallet_task_call_salts WHERE name = 'grant-test'; DELETE FROM wallet_elicitation_spent",
    );
  });

  it(`${REPLICAS} replicas, 40 racing agent payments: exactly ${K} sent, within the cap, each mined once`, async () => {
    const home = tempHome();
    cpSync(source, home, { recursive: true });
    writeLocalPolicy(home, {
      autonomous: { max_per_tx_wei: (11n * MILLI).toString(), max_per_24h_wei: CAP.toString() },
    });
    const replicas = new Replicas(env, home);
    try {
      await replicas.start(REPLICAS);
      const results = await Promise.all(
        Array.from({ length: 40 }, (_, i) =>
          replicas.clients[i % REPLICAS]?.callTool(
            {
              name: 'evm_funds_send',
              arguments: {
                address: REPLICA_ACCOUNTS[Math.floor(i / REPLICAS) % REPLICA_ACCOUNTS.length],
                to: RECIPIENT,
                value_wei: PAYMENT.toString(),
                network: 'local',
              },
            },
            SLOW,
          ),
        ),
      );
      const sent = results.filter((result) => result && !result.isError);
      const refused = results.filter((result) => result && errorCodeOf(result) === 'APPROVAL_REQUIRED');
      assert.equal(
        sent.length,
        K,
        JSON.stringify(results.filter((r) => r?.isError && errorCodeOf(r) !== 'APPROVAL_REQUIRED')),
      );
      assert.equal(refused.length, 40 - K);
      const rows = pg
        .sql("SELECT count(*) || ' ' || sum(amount) FROM wallet_ledger_entries WHERE ledger = 'evm-chain-31337'")
        .trim()
        .split(' ');
      assert.equal(Number(rows[0]), K);
      assert.ok(BigInt(rows[1] ?? '0') <= CAP, `the ledger counts ${rows[1]} wei, above the cap ${CAP}`);
      const hashes = sent.map((result) => (result?.structuredContent as { hash: string }).hash);
      assert.equal(new Set(hashes).size, K);
      const nonces = new Set<string>();
      for (const hash of hashes) {
        const receipt = await node.mined<{ status: string }>(hash);
        assert.equal(receipt.status, '0x1', `${hash} was not mined`);
        const tx = await node.rpc<{ from: string; nonce: string; value: string }>('eth_getTransactionByHash', [hash]);
        assert.equal(BigInt(tx.value), PAYMENT);
        const used = `${tx.from.toLowerCase()}:${BigInt(tx.nonce)}`;
        assert.ok(!nonces.has(used), `nonce ${used} used twice`);
        nonces.add(used);
      }
      // What was paid on the chain: K payments, no more.
      const audited = Number(pg.sql("SELECT count(*) FROM wallet_audit WHERE line->>'outcome' = 'sent'").trim());
      assert.equal(audited, K);
    } finally {
      await replicas.stop();
      rmSync(home, { recursive: true, force: true });
    }
  });

  it('replicas with empty data directories hand out Dash addresses from one index, never twice', async () => {
    const home = tempHome();
    cpSync(source, home, { recursive: true });
    // The policy the store recorded for the race above: a replica with another would not start.
    writeLocalPolicy(home, {
      autonomous: { max_per_tx_wei: (11n * MILLI).toString(), max_per_24h_wei: CAP.toString() },
    });
    const replicas = new Replicas(env, home);
    try {
      await replicas.start(2);
      const results = await Promise.all(
        Array.from({ length: 20 }, (_, i) =>
          replicas.clients[i % 2]?.callTool({ name: 'core_address_create', arguments: { wallet_id: 'w' } }),
        ),
      );
      const made = results.map((result) => {
        assert.equal(result?.isError, undefined, JSON.stringify(result?.content));
        return result?.structuredContent as { index: number; address: string };
      });
      const indexes = made.map((each) => each.index).sort((a, b) => a - b);
      const first = indexes[0] ?? 0;
      assert.deepEqual(
        indexes,
        Array.from({ length: 20 }, (_, i) => first + i),
      );
      assert.equal(new Set(made.map((each) => each.address)).size, 20);
    } finally {
      await replicas.stop();
      rmSync(home, { recursive: true, force: true });
    }
  });

  it('a replica whose policy differs from the recorded one refuses to start, naming the key', async () => {
    const home = tempHome();
    cpSync(source, home, { recursive: true });
    writeLocalPolicy(home, {
      autonomous: { max_per_tx_wei: (11n * MILLI).toString(), max_per_24h_wei: (CAP * 10n).toString() },
    });
    try {
      await assert.rejects(
        startHttpServe(['--passphrase-file', passphraseFileIn(home, REPLICA_PASSPHRASE)], { home, env }),
        /evm\.networks\.local\.policy\.autonomous\.max_per_24h_wei/,
      );
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  });

  it('50 payments of one account spread over 4 replicas: 50 mined, nonces contiguous', async () => {
    // A store of its own (another database), whose recorded policy gives the agent room for 50.
    pg.sql('CREATE DATABASE nonces');
    const nonceEnv = { ...env, WALLET_STATE_URL: pg.url.replace(/\/wallet$/, '/nonces') };
    assert.equal((await wallet(['state', 'migrate'], { env: nonceEnv })).code, 0);
    const home = tempHome();
    cpSync(source, home, { recursive: true });
    writeLocalPolicy(home, {
      autonomous: { max_per_tx_wei: MILLI.toString(), max_per_24h_wei: (100n * MILLI).toString() },
    });
    const replicas = new Replicas(nonceEnv, home);
    const payer = '0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC'; // p2: anvil's third account
    try {
      const start = Number(BigInt(await node.rpc<string>('eth_getTransactionCount', [payer, 'pending'])));
      await replicas.start(REPLICAS);
      const results = await Promise.all(
        Array.from({ length: 50 }, (_, i) =>
          replicas.clients[i % REPLICAS]?.callTool(
            {
              name: 'evm_funds_send',
              arguments: { address: 'p2', to: RECIPIENT, value_wei: '1000', network: 'local' },
            },
            SLOW,
          ),
        ),
      );
      const failed = results.filter((result) => !result || result.isError);
      assert.equal(failed.length, 0, JSON.stringify(failed.slice(0, 2)));
      const nonces: number[] = [];
      for (const result of results) {
        const hash = (result?.structuredContent as { hash: string }).hash;
        const receipt = await node.mined<{ status: string }>(hash);
        assert.equal(receipt.status, '0x1', `${hash} was not mined`);
        const tx = await node.rpc<{ nonce: string }>('eth_getTransactionByHash', [hash]);
        nonces.push(Number(BigInt(tx.nonce)));
      }
      assert.deepEqual(
        nonces.sort((a, b) => a - b),
        Array.from({ length: 50 }, (_, i) => start + i),
      );

      // The store goes down: BUSY (exit 5), nothing signed; it comes back: the same replicas pay again.
      pg.stop();
      const pay = () =>
        replicas.clients[0]?.callTool({
          name: 'evm_funds_send',
          arguments: { address: 'p2', to: RECIPIENT, value_wei: '1000', network: 'local' },
        });
      const down = await pay();
      assert.equal(down && errorCodeOf(down), 'BUSY', JSON.stringify(down?.content));
      const cli = await wallet(['state', 'status'], { env: nonceEnv });
      assert.equal(cli.code, 5, cli.stderr);
      assert.match(cli.stderr, /cannot be reached/);
      const afterDown = Number(BigInt(await node.rpc<string>('eth_getTransactionCount', [payer, 'pending'])));
      assert.equal(afterDown, start + 50, 'something was sent while the store was down');
      pg.start();
      const up = await pay();
      assert.equal(up?.isError, undefined, JSON.stringify(up?.content));
      assert.equal((up?.structuredContent as { sent: boolean }).sent, true);
    } finally {
      await replicas.stop();
      rmSync(home, { recursive: true, force: true });
    }
  });
});
