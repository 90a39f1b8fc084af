// Replicas of `wallet serve --http` on one anvil: calls per second and p50/p99 latency of an
// agent's autonomous payment (evm_funds_send) and of a balance read (evm_balance_get), with the
// files backend (each replica its own data directory) and with a PostgreSQL state store, 1 and 4
// replicas; then the race of docs/REPLICAS.md (40 payments under an autonomous cap with room for
// exactly K): the overspend, what was sent above the cap (aim: 0). Calls go round-robin over the
// replicas, all at once (payments of one account take turns: 4 accounts are used).
//
// Uses the tests' helpers for PostgreSQL, anvil and the replicas: build them too.
//
//   npm run build && npm run build:test && node bench/replicas.mjs [--payments 24] [--reads 200] [--json]
import { performance } from 'node:perf_hooks';
import { fail, startBench } from './lib/common.mjs';
import { fixed, machine, machineLines, table } from './lib/report.mjs';

const options = await startBench(
  {
    payments: { type: 'integer', default: 24, env: 'BENCH_PAYMENTS', help: 'payments per configuration' },
    reads: { type: 'integer', default: 200, env: 'BENCH_READS', help: 'balance reads per configuration' },
  },
  'Usage: node bench/replicas.mjs [options]\n\nPayments and reads over 1 and 4 replicas, files against PostgreSQL.',
);
const helpers = async (name) => {
  try {
    return await import(`../build/test/helpers/${name}.js`);
  } catch {
    return fail(`build/test/helpers/${name}.js is missing: run \`npm run build:test\` first.`);
  }
};
const { findPostgres, startPostgres } = await helpers('postgres');
const { startAnvil } = await helpers('anvil');
const { tempHome } = await helpers('io');
const { anvilKeystoreHome, errorCodeOf, REPLICA_ACCOUNTS, REPLICA_TOKEN, Replicas, writeReplicaConfig } =
  await helpers('replicas');
const { cpSync, rmSync } = await import('node:fs');

const bin = findPostgres();
if (!bin) fail('PostgreSQL (initdb, pg_ctl) is not installed: apt-get install -y postgresql.');

const RECIPIENT = '0x9965507D1a55bcC2695C58ba16FB37d819B0A4dc';
const MILLI = 10n ** 15n;
const PAYMENT = 10n * MILLI;
const RACE = 40;
const K = 7;
const RACE_CAP = BigInt(K) * PAYMENT + 5n * MILLI;

/** p50 and p99 by nearest rank, in ms. */
function percentiles(samples) {
  const sorted = [...samples].sort((a, b) => a - b);
  const at = (q) => sorted[Math.max(0, Math.ceil(q * sorted.length) - 1)] ?? NaN;
  return { p50: at(0.5), p99: at(0.99) };
}

/** Runs `count` calls at once, round-robin over the clients: calls per second and latencies. */
async function burst(clients, count, call) {
  const latencies = [];
  const started = performance.now();
  const results = await Promise.all(
    Array.from({ length: count }, async (_, i) => {
      const t0 = performance.now();
      const result = await clients[i % clients.length].callTool(call(i), { timeout: 600_000 });
      latencies.push(performance.now() - t0);
      return result;
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  return { perSecond: count / seconds, ...percentiles(latencies), failed: results.filter((r) => r.isError).length };
}

const [pg, node] = await Promise.all([startPostgres(bin), startAnvil({ chainId: 31337 })]);
const source = await anvilKeystoreHome();
let databases = 0;
const cleanup = () => {
  pg.remove();
  rmSync(source, { recursive: true, force: true });
};

/** The environment of one configuration: a fresh migrated database for PostgreSQL. */
async function envOf(backend) {
  const env = { PGPASSWORD: pg.password, WALLET_EVM_LOCAL_URL: node.url, MCP_API_KEY: REPLICA_TOKEN };
  if (backend === 'files') return env;
  const name = `bench${++databases}`;
  pg.sql(`CREATE DATABASE ${name}`);
  const scoped = { ...env, WALLET_STATE_URL: pg.url.replace(/\/wallet$/, `/${name}`) };
  const { wallet } = await helpers('io');
  const migrated = await wallet(['state', 'migrate'], { env: scoped });
  if (migrated.code !== 0) fail(`wallet state migrate failed: ${migrated.stderr}`);
  return scoped;
}

/** Starts `count` replicas with the autonomous policy `cap` (wei a day), runs `task`, stops them. */
async function withReplicas(backend, count, cap, task) {
  const home = tempHome();
  cpSync(source, home, { recursive: true });
  writeReplicaConfig(home, {
    evm: {
      networks: {
        local: {
          policy: { autonomous: { max_per_tx_wei: (11n * MILLI).toString(), max_per_24h_wei: cap.toString() } },
        },
      },
    },
  });
  const replicas = new Replicas(await envOf(backend), home);
  try {
    await replicas.start(count);
    return await task(replicas.clients);
  } finally {
    await replicas.stop();
    rmSync(home, { recursive: true, force: true });
  }
}

const payment = (i) => ({
  name: 'evm_funds_send',
  arguments: {
    address: REPLICA_ACCOUNTS[i % REPLICA_ACCOUNTS.length],
    to: RECIPIENT,
    value_wei: PAYMENT.toString(),
    network: 'local',
  },
});
const read = (i) => ({
  name: 'evm_balance_get',
  arguments: { address: REPLICA_ACCOUNTS[i % REPLICA_ACCOUNTS.length], network: 'local' },
});

const rows = [];
try {
  for (const backend of ['files', 'postgres']) {
    for (const count of [1, 4]) {
      const figures = await withReplicas(backend, count, 10n ** 21n, async (clients) => ({
        pay: await burst(clients, options.payments, payment),
        read: await burst(clients, options.reads, read),
      }));
      // The race: 40 payments of 10 milli-ether under a cap with room for exactly K.
      const race = await withReplicas(backend, count, RACE_CAP, async (clients) => {
        const results = await Promise.all(
          Array.from({ length: RACE }, (_, i) =>
            clients[i % clients.length].callTool(payment(i), { timeout: 600_000 }),
          ),
        );
        const sent = results.filter((result) => !result.isError).length;
        const refused = results.filter((result) => errorCodeOf(result) === 'APPROVAL_REQUIRED').length;
        const overspend = BigInt(sent) * PAYMENT - RACE_CAP;
        return { sent, refused, overspendWei: overspend > 0n ? overspend : 0n };
      });
      rows.push({ backend, replicas: count, ...figures, race });
    }
  }
} finally {
  await node.stop();
  cleanup();
}

const info = await machine();
if (options.json) {
  process.stdout.write(
    `${JSON.stringify({ machine: info, options, rows }, (_, value) => (typeof value === 'bigint' ? value.toString() : value), 1)}\n`,
  );
} else {
  process.stdout.write(`${machineLines(info).join('\n')}\n\n`);
  process.stdout.write(
    `${table(
      [
        'backend',
        'replicas',
        'pay/s',
        'pay p50 ms',
        'pay p99 ms',
        'pay failed',
        'read/s',
        'read p50 ms',
        'read p99 ms',
        'race sent',
        'overspend',
      ],
      rows.map((row) => [
        row.backend,
        String(row.replicas),
        fixed(row.pay.perSecond, 1),
        fixed(row.pay.p50, 0),
        fixed(row.pay.p99, 0),
        `${row.pay.failed} of ${options.payments}`,
        fixed(row.read.perSecond, 0),
        fixed(row.read.p50, 1),
        fixed(row.read.p99, 1),
        `${row.race.sent} of ${RACE} (cap: ${K})`,
        `${row.race.overspendWei / MILLI} milli-ether`,
      ]),
    )}\n`,
  );
  const unread = rows.filter((row) => row.read.failed > 0).map((row) => `${row.backend} × ${row.replicas}`);
  if (unread.length > 0) process.stdout.write(`balance reads failed in: ${unread.join(', ')}\n`);
}
