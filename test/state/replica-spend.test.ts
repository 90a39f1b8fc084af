/**
 * What replicas of `wallet serve --http` spend through one PostgreSQL state store
 * (docs/REPLICAS.md), against a real PostgreSQL cluster and a real anvil: a token's autonomous cap
 * holds exactly across replicas, as the ether cap does (test/state/replicas.test.ts); every
 * replica lists what every replica sent.
 */
import assert from 'node:assert/strict';
import { cpSync, rmSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import nodePostgres from 'pg';
import { startAnvil, type AnvilNode } from '../helpers/anvil.js';
import { deployToken, transferToken } from '../helpers/erc20.js';
import { tempHome, wallet } from '../helpers/io.js';
import { findPostgres, startPostgres, type PgCluster } from '../helpers/postgres.js';
import {
  anvilKeystoreHome,
  errorCodeOf,
  REPLICA_ACCOUNTS,
  REPLICA_TOKEN,
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
/** anvil's first four accounts: p0…p3 of the keystore. */
const ANVIL_ADDRESSES = [
  '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266',
  '0x70997970C51812dc3A010C7d01b50e0d17dc79C8',
  '0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC',
  '0x90F79bf6EB2c4f870365E785982E1f101E93b906',
] as const;
const MILLI = 10n ** 15n;
const REPLICAS = 4;
const UNIT = 10n ** 6n;
/** Token payments of 3 units racing under an autonomous token cap with room for exactly K. */
const K = 5;
const PAYMENT = 3n * UNIT;
const TOKEN_CAP = BigInt(K) * PAYMENT + UNIT;
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
    for (const to of ANVIL_ADDRESSES.slice(1)) await transferToken(node, token, to, 100n * UNIT);
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
        const receipt = await node.rpc<{ status: string } | null>('eth_getTransactionReceipt', [hash]);
        assert.equal(receipt?.status, '0x1', `${hash} was not mined`);
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
});
