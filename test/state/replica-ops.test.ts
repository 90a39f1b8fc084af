/**
 * What replicas of `wallet serve` share beyond payments (docs/REPLICAS.md), against a real
 * PostgreSQL cluster and a real anvil: a form-elicitation question asked by one replica is
 * answered at another, once (the state sealed with the store's key, the yes spent in the store);
 * a passkey enrolled in the store ends every yes without one at once, on every replica; the CLI
 * and `wallet serve` over stdio reconcile what a stopped replica left; `wallet state status`
 * counts the sent log, the coin holds and the open nonce reservations.
 */
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { createServer, request as httpRequest, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { spawnSync } from 'node:child_process';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { ApprovalStore } from '../../src/domain/policy/approvals.js';
import { WalletServices } from '../../src/domain/services.js';
import { CONFIRM_KEY } from '../../src/mcp/confirmation.js';
import { serveApprovalPage } from '../../src/mcp/page/serve.js';
import { startAnvil, type AnvilNode } from '../helpers/anvil.js';
import { wallet } from '../helpers/io.js';
import { csrfOf, pageRequest, sessionCookie } from '../helpers/page-http.js';
import { WALLET_BIN } from '../helpers/paths.js';
import { findPostgres, startPostgres, type PgCluster } from '../helpers/postgres.js';
import {
  anvilKeystoreHome,
  errorCodeOf,
  REPLICA_ADDRESSES,
  REPLICA_TOKEN,
  replicasOnStore,
  type Replicas,
  writeReplicaConfig,
} from '../helpers/replicas.js';
import { startRpcProxy } from '../helpers/rpc-proxy.js';
import { SpawnedWallet } from '../helpers/spawned.js';

const bin = findPostgres();
if (!bin) {
  console.error(
    '\n!!! SKIPPING the replica operation tests against PostgreSQL: initdb and pg_ctl are not installed.\n!!! .ci/run installs them (apt-get install -y postgresql); install it to run these tests.\n',
  );
}

/** anvil's sixth account: no payer here. */
const RECIPIENT = '0x9965507D1a55bcC2695C58ba16FB37d819B0A4dc';
const PAYMENT = (10n ** 15n).toString();
const SLOW = { timeout: 300_000 };
/** A passkey's public record (no secret in it): what `wallet approvals passkey add` stores. */
const PASSKEY = {
  id: 'cGFzc2tleS1jcmVkZW50aWFsLWlk',
  name: 'enrolled-meanwhile',
  public_key: 'cHVibGljLWtleS1ieXRlcy1vZi1hLXBhc3NrZXk',
  counter: 0,
  created: '2026-11-27T00:00:00.000Z',
};

type Recorded = { target: string; headers: IncomingHttpHeaders; body: string };

/**
 * A load balancer in front of the replicas: every request goes to `target` (changed by the test
 * between two requests), and each is recorded with where it went.
 */
async function startBalancer(first: string): Promise<{
  url: string;
  target: string;
  requests: Recorded[];
  close(): Promise<void>;
}> {
  const state = { target: first, requests: [] as Recorded[] };
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const body = Buffer.concat(chunks);
      const target = new URL(state.target);
      state.requests.push({ target: state.target, headers: request.headers, body: body.toString() });
      const upstream = httpRequest(
        {
          host: target.hostname,
          port: target.port,
          path: request.url,
          method: request.method,
          headers: { ...request.headers, host: target.host },
        },
        (answer) => {
          response.writeHead(answer.statusCode ?? 502, answer.headers);
          answer.pipe(response);
        },
      );
      upstream.on('error', () => response.destroy());
      upstream.end(body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}${new URL(first).pathname}`,
    get target() {
      return state.target;
    },
    set target(url: string) {
      state.target = url;
    },
    requests: state.requests,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Sends a recorded request again, as is, to `url`; the JSON-RPC messages of its answer (JSON or SSE). */
async function replay(url: string, recorded: Recorded): Promise<string> {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(recorded.headers)) {
    if (['host', 'content-length', 'connection'].includes(name) || value === undefined) continue;
    headers[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  const response = await fetch(url, { method: 'POST', headers, body: recorded.body });
  return response.text();
}

describe('replicas sharing questions, passkeys and reconciliation', { skip: bin ? false : 'no PostgreSQL' }, () => {
  let pg: PgCluster;
  let node: AnvilNode;
  let source: string;
  let env: Record<string, string>;
  let replicas: Replicas;
  const count = (text: string): number => Number(pg.sql(text).trim());
  const pendingNonce = async (address: string): Promise<number> =>
    Number(BigInt(await node.rpc<string>('eth_getTransactionCount', [address, 'pending'])));

  before(async () => {
    [pg, node] = await Promise.all([startPostgres(bin ?? ''), startAnvil({ chainId: 31337 })]);
    source = await anvilKeystoreHome();
    // No policy: every payment of an agent needs a human yes; a client's form yes is trusted over HTTP.
    writeReplicaConfig(source, { approvals: { trust_elicitation: 'always' } });
    // node-postgres of this process (the approvals test) reads the password from the environment.
    process.env['PGPASSWORD'] = pg.password;
    replicas = await replicasOnStore(pg, node.url, source);
    env = replicas.env;
    await replicas.start(2);
  });
  after(async () => {
    await replicas?.stop();
    await node?.stop();
    pg?.remove();
    if (source) rmSync(source, { recursive: true, force: true });
  });

  /** A client behind `balancer` that declares form elicitation and answers with `answer`. */
  async function balancedClient(url: string, answer: () => Promise<void>): Promise<Client> {
    const client = new Client(
      { name: 'balanced-client', version: '1' },
      { capabilities: { elicitation: { form: {} } }, versionNegotiation: { mode: 'auto' } },
    );
    client.setRequestHandler('elicitation/create', async () => {
      await answer();
      return { action: 'accept', content: { confirm: true } };
    });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(url), {
        requestInit: { headers: { authorization: `Bearer ${REPLICA_TOKEN}` } },
      }),
    );
    return client;
  }

  it('a question asked by replica A is answered at replica B, once; the yes replayed at A or B is refused', async () => {
    const [a, b] = [replicas.served[0]?.url ?? '', replicas.served[1]?.url ?? ''];
    const balancer = await startBalancer(a);
    let asked = 0;
    // The user answers; the retry carrying the answer reaches the other replica.
    const client = await balancedClient(balancer.url, () => {
      asked += 1;
      balancer.target = b;
      return Promise.resolve();
    });
    try {
      const nonce = await pendingNonce(REPLICA_ADDRESSES[0]);
      const result = await client.callTool(
        { name: 'evm_funds_send', arguments: { address: 'p0', to: RECIPIENT, value_wei: PAYMENT, network: 'local' } },
        SLOW,
      );
      assert.equal(result.isError, undefined, JSON.stringify(result.content));
      assert.equal(asked, 1);
      const hash = (result.structuredContent as { hash: string }).hash;
      assert.equal((await node.mined<{ status: string }>(hash)).status, '0x1');
      const calls = balancer.requests.filter((each) => each.body.includes('"tools/call"'));
      assert.equal(calls[0]?.target, a, 'the question was not asked by replica A');
      const retry = calls.find((each) => each.body.includes(CONFIRM_KEY));
      assert.ok(retry, 'no retry carried the answer');
      assert.equal(retry.target, b, 'the answer did not reach replica B');
      assert.equal(count('SELECT count(*) FROM wallet_elicitation_keys'), 1);
      assert.equal(count('SELECT count(*) FROM wallet_elicitation_spent'), 1);

      // The same answer sent again, to either replica: verified (the state is good for 10 minutes)
      // but spent, so it is no yes: the question is asked again, and nothing is paid.
      for (const url of [a, b]) {
        const again = await replay(url, retry);
        assert.ok(!again.includes('"hash"'), `a replayed yes paid at ${url}: ${again}`);
        assert.ok(again.includes(CONFIRM_KEY), `a replayed yes was not asked again at ${url}: ${again}`);
      }
      assert.equal(await pendingNonce(REPLICA_ADDRESSES[0]), nonce + 1, 'a replayed yes was paid');
      assert.equal(count('SELECT count(*) FROM wallet_elicitation_spent'), 1);
      // The key is not in the audit log.
      const key = pg.sql("SELECT encode(key, 'hex') FROM wallet_elicitation_keys").trim();
      assert.match(key, /^[0-9a-f]{64}$/);
      assert.equal(count(`SELECT count(*) FROM wallet_audit WHERE line::text LIKE '%${key}%'`), 0);
    } finally {
      await client.close();
      await balancer.close();
    }
  });

  it('an expired spent question is pruned as the next yes is spent', async () => {
    pg.sql(
      "INSERT INTO wallet_elicitation_spent (id, expires_at) VALUES ('expired-question', now() - interval '1 second')",
    );
    const balancer = await startBalancer(replicas.served[1]?.url ?? '');
    const client = await balancedClient(balancer.url, () => Promise.resolve());
    try {
      const result = await client.callTool(
        { name: 'evm_funds_send', arguments: { address: 'p0', to: RECIPIENT, value_wei: PAYMENT, network: 'local' } },
        SLOW,
      );
      assert.equal(result.isError, undefined, JSON.stringify(result.content));
      assert.equal(count("SELECT count(*) FROM wallet_elicitation_spent WHERE id = 'expired-question'"), 0);
      assert.equal(count('SELECT count(*) FROM wallet_elicitation_spent'), 2);
    } finally {
      await client.close();
      await balancer.close();
    }
  });

  it('a passkey enrolled in the store while replicas run refuses the next yes without one, at once', async () => {
    const home = replicas.homes[0] ?? '';
    const services = new WalletServices({ dataDir: home, env: { ...env, WALLET_HOME: home } });
    await services.openSharedState();
    const approvals = new ApprovalStore(home);
    const summary = { tool: 'evm_funds_send', text: 'Send', reason: 'no policy' };
    const early = await approvals.request('digest-approved-before-the-passkey-0', summary);
    const late = await approvals.request('digest-answered-after-the-passkey-00', summary);
    const byButton = await approvals.request('digest-approved-with-the-button-000', summary);
    await approvals.decide(early.id, 'approved', 'terminal');
    // The owner's page, its session and the form of the approval open before the passkey is enrolled.
    const page = await serveApprovalPage({ dataDir: home, listen: { host: '127.0.0.1', port: 0 }, background: true });
    const cookie = sessionCookie(await pageRequest(page.link(byButton.id)));
    const csrf = csrfOf(await pageRequest(`${page.origin}/approvals/${byButton.id}`, { headers: { Cookie: cookie } }));
    const balancer = await startBalancer(replicas.served[0]?.url ?? '');
    // The user reads the question; meanwhile the owner enrolls a passkey (through the store, as
    // another replica or `wallet approvals passkey add` would): this replica's cached read is stale.
    const client = await balancedClient(balancer.url, () => {
      pg.sql(
        `INSERT INTO wallet_passkeys (id, name, record) VALUES ('${PASSKEY.id}', '${PASSKEY.name}', '${JSON.stringify(PASSKEY)}')`,
      );
      return Promise.resolve();
    });
    try {
      const nonce = await pendingNonce(REPLICA_ADDRESSES[1]);
      const result = await client.callTool(
        { name: 'evm_funds_send', arguments: { address: 'p1', to: RECIPIENT, value_wei: PAYMENT, network: 'local' } },
        SLOW,
      );
      assert.equal(errorCodeOf(result), 'APPROVAL_REQUIRED', JSON.stringify(result.content));
      assert.equal(
        await pendingNonce(REPLICA_ADDRESSES[1]),
        nonce,
        "a client's yes was paid after a passkey was enrolled",
      );
      // A button's or a terminal's yes (what the page and `wallet approvals approve` record), and
      // one given before the enrolment and used after it: refused, read from the store at once.
      const button = await pageRequest(`${page.origin}/approvals/${byButton.id}/approve`, {
        method: 'POST',
        headers: { Cookie: cookie, Origin: page.origin },
        body: `csrf=${encodeURIComponent(csrf)}`,
      });
      assert.equal(button.status, 403, button.body);
      assert.match(button.body, /passkey/i, 'the button was refused for another reason');
      assert.equal((await approvals.list()).find((each) => each.id === byButton.id)?.status, 'pending');
      await assert.rejects(approvals.decide(late.id, 'approved', 'page'), /passkey/);
      const taken = await approvals.take(early.digest);
      assert.equal(taken.kind, 'refused');
    } finally {
      pg.sql(`DELETE FROM wallet_passkeys WHERE id = '${PASSKEY.id}'`);
      await client.close();
      await balancer.close();
      await page.close();
      await services.closeState();
    }
  });

  it('a CLI call and wallet serve over stdio reconcile what a stopped replica left; none asks a node for nothing', async () => {
    const [p2, p3] = [REPLICA_ADDRESSES[2], REPLICA_ADDRESSES[3]];
    const home = replicas.newHome();
    // A payment of p2 mined, whose replica died before recording it; one of p3 the node never saw,
    // its deadline past. Both counted in the ledger.
    const hash = await node.rpc<string>('eth_sendTransaction', [{ from: p2, to: RECIPIENT, value: '0x1' }]);
    await node.mined(hash);
    const minedNonce = (await pendingNonce(p2)) - 1;
    const lost = `0x${'ab'.repeat(32)}`;
    const leave = (address: string, nonce: number, txid: string, key: string, ago: string): string =>
      pg.sql(
        `INSERT INTO wallet_ledgers (name, chain) VALUES ('evm-chain-31337', 'evm') ON CONFLICT DO NOTHING;
         INSERT INTO wallet_ledger_entries (ledger, key, txid, amount, at_ms, by_whom)
           VALUES ('evm-chain-31337', '${key}', '${txid}', 1, (extract(epoch FROM now()) * 1000)::bigint, 'agent');
         INSERT INTO wallet_evm_nonces (chain_id, address, nonce, broadcast_at, spend_key, hash)
           VALUES (31337, '${address.toLowerCase()}', ${nonce}, now() - interval '${ago}', '${key}', '${txid}')`,
      );
    leave(p2, minedNonce, hash, 'left-mined', '1 second');
    leave(p3, await pendingNonce(p3), lost, 'left-lost', '1 hour');
    const cli = (args: string[], nodeUrl = node.url) =>
      spawnSync(process.execPath, [WALLET_BIN, ...args], {
        encoding: 'utf8',
        env: { ...process.env, ...env, WALLET_HOME: home, WALLET_EVM_LOCAL_URL: nodeUrl },
        timeout: 60_000,
      });
    const listed = cli(['core-wallets-list', '--json']);
    assert.equal(listed.status, 0, listed.stderr);
    assert.match(
      listed.stderr,
      /on local, 1 payment\(s\) a stopped replica left were found mined \(recorded\), 1 never sent \(released\)/,
    );
    assert.ok(JSON.parse(listed.stdout), 'stdout is not the result alone');
    const leftBy = (address: string) =>
      count(`SELECT count(*) FROM wallet_evm_nonces WHERE address = '${address.toLowerCase()}'`);
    assert.equal(leftBy(p2) + leftBy(p3), 0);
    assert.equal(count("SELECT count(*) FROM wallet_ledger_entries WHERE key = 'left-mined'"), 1);
    assert.equal(count("SELECT count(*) FROM wallet_ledger_entries WHERE key = 'left-lost'"), 0);
    assert.equal(count(`SELECT count(*) FROM wallet_evm_sent WHERE hash = '${hash}'`), 1);
    assert.equal(count("SELECT count(*) FROM wallet_audit WHERE line->>'tool' = 'state_reconcile'"), 2);

    // Nothing left: the next call asks the store once, and no node at all.
    const proxy = await startRpcProxy(node.url);
    try {
      const quiet = cli(['core-wallets-list', '--json'], proxy.url);
      assert.equal(quiet.status, 0, quiet.stderr);
      assert.doesNotMatch(quiet.stderr, /state store/);
      assert.deepEqual(proxy.calls, [], 'the node was asked with nothing to reconcile');
    } finally {
      await proxy.close();
    }

    // wallet serve over stdio, at its start, says what it did on stderr.
    leave(p3, await pendingNonce(p3), `0x${'cd'.repeat(32)}`, 'left-by-stdio', '1 hour');
    const served = new SpawnedWallet(['serve'], { ...env, WALLET_HOME: home });
    try {
      for (let i = 0; i < 300 && !/never sent/.test(served.stderr); i++) await sleep(100);
      assert.match(
        served.stderr,
        /on local, 0 payment\(s\) a stopped replica left were found mined \(recorded\), 1 never sent/,
      );
      assert.equal(count("SELECT count(*) FROM wallet_ledger_entries WHERE key = 'left-by-stdio'"), 0);
      assert.equal(leftBy(p3), 0);
    } finally {
      served.child.kill();
      await served.exited;
    }
  });

  it('wallet state status counts the sent log, the coin holds and the open nonce reservations', async () => {
    const sent = count('SELECT count(*) FROM wallet_evm_sent');
    assert.ok(sent >= 1);
    // The reservations of the payments above (recorded in the sent log), and two more.
    const reservations = count('SELECT count(*) FROM wallet_evm_nonces');
    assert.equal(count('SELECT count(*) FROM wallet_evm_nonces WHERE broadcast_at IS NULL'), 0);
    pg.sql(
      `INSERT INTO wallet_coin_reservations (network, outpoint, reservation, expires_at)
         VALUES ('regtest', 'held:0', 'r1', now() + interval '10 minutes'), ('regtest', 'freed:0', 'r2', now() - interval '1 second');
       INSERT INTO wallet_evm_nonces (chain_id, address, nonce, spend_key) VALUES (31337, '0xopen', 7, 'k');
       INSERT INTO wallet_evm_nonces (chain_id, address, nonce, broadcast_at, hash) VALUES (31337, '0xmarked', 3, now(), '0xnotsent')`,
    );
    try {
      const status = await wallet(['state', 'status', '--json'], { env });
      assert.equal(status.code, 0, status.stderr);
      const shown = JSON.parse(status.stdout) as Record<string, unknown>;
      assert.equal(shown['evm_sent'], sent);
      assert.equal(shown['coin_holds'], 1);
      assert.equal(shown['nonce_reservations'], reservations + 2);
      assert.equal(shown['nonce_reservations_open'], 1);
      assert.equal(shown['nonce_reservations_unrecorded'], 1);
      const text = await wallet(['state', 'status'], { env });
      assert.match(
        text.stdout,
        new RegExp(
          `nonce reservations: ${reservations + 2} \\(1 not broadcast yet, 1 broadcast and not in the sent log\\)`,
        ),
      );
      assert.match(text.stdout, new RegExp(`EVM sent log: ${sent} transactions`));
      assert.match(text.stdout, /Dash coins held: 1/);
    } finally {
      pg.sql(
        "DELETE FROM wallet_coin_reservations; DELETE FROM wallet_evm_nonces WHERE address IN ('0xopen', '0xmarked')",
      );
    }
  });
});
