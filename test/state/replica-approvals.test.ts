/**
 * Approvals across replicas of `wallet serve --http` sharing one PostgreSQL state store
 * (docs/REPLICAS.md), against a real PostgreSQL cluster and a real anvil: a call that waits for the
 * owner on one replica is approved at a terminal of another machine (`wallet approvals approve`,
 * the state URL set), repeated on another replica, and runs there, once, even when the agent
 * repeats it on two replicas at the same time. A task-augmented call (the MCP tasks extension)
 * made on one replica, approved, runs on the replica that holds its arguments, and another
 * replica answers its status and result from the store; a task whose replica stopped is failed by
 * another once its lease lapses.
 */
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { readToolErrorMeta } from '../../src/shared/protocol-meta.js';
import { startAnvil, type AnvilNode } from '../helpers/anvil.js';
import { startHttpServe } from '../helpers/http-serve.js';
import { wallet } from '../helpers/io.js';
import { findPostgres, startPostgres, type PgCluster } from '../helpers/postgres.js';
import {
  anvilKeystoreHome,
  errorCodeOf,
  REPLICA_TOKEN,
  replicasOnStore,
  type Replicas,
  writeReplicaConfig,
  type CallResult,
} from '../helpers/replicas.js';
import { withTasks } from '@modelcontextprotocol/ext-tasks/client';
import { approvalIn, HttpPort, taskOf, transactionsFrom } from '../helpers/tasks-requester.js';

const bin = findPostgres();
if (!bin) {
  console.error(
    '\n!!! SKIPPING the replica approval tests against PostgreSQL: initdb and pg_ctl are not installed.\n!!! .ci/run installs them (apt-get install -y postgresql); install it to run these tests.\n',
  );
}

/** anvil's first account: p0 of the keystore. */
const PAYER = '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266';
/** anvil's sixth account: no payer here. */
const RECIPIENT = '0x9965507D1a55bcC2695C58ba16FB37d819B0A4dc';
const SLOW = { timeout: 300_000 };

const approvalIdOf = (result: CallResult | undefined): string => {
  assert.equal(errorCodeOf(result), 'APPROVAL_REQUIRED', JSON.stringify(result?._meta));
  const id = readToolErrorMeta(result?._meta)?.details?.['approval_id'];
  assert.ok(typeof id === 'string' && /^ap-[a-z2-7]{10}$/.test(id), `no approval id in ${JSON.stringify(result)}`);
  return id;
};

describe('approvals shared by replicas through a PostgreSQL store', { skip: bin ? false : 'no PostgreSQL' }, () => {
  let pg: PgCluster;
  let node: AnvilNode;
  let source: string;
  let env: Record<string, string>;
  let replicas: Replicas;
  /** The owner's terminal: a data directory of its own (config.json only), the same store. */
  let owner: string;

  const pay = (replica: number, value: string): Promise<CallResult | undefined> =>
    replicas.clients[replica]?.callTool(
      { name: 'evm_funds_send', arguments: { address: 'p0', to: RECIPIENT, value_wei: value, network: 'local' } },
      SLOW,
    ) ?? Promise.resolve(undefined);
  const approve = async (id: string): Promise<void> => {
    const approved = await wallet(['approvals', 'approve', id], { home: owner, env, tty: true, stdin: 'y\n' });
    assert.equal(approved.code, 0, approved.stderr);
  };

  before(async () => {
    [pg, node] = await Promise.all([startPostgres(bin ?? ''), startAnvil({ chainId: 31337 })]);
    source = await anvilKeystoreHome();
    // No autonomy to speak of: every payment of an agent waits for the owner. The owner's 24-hour
    // cap (1 ether) counts each payment in the store's ledger.
    const policy = {
      max_per_24h_wei: (10n ** 18n).toString(),
      autonomous: { max_per_tx_wei: '1', max_per_24h_wei: '1' },
    };
    writeReplicaConfig(source, { evm: { networks: { local: { policy } } } });
    replicas = await replicasOnStore(pg, node.url, source);
    env = replicas.env;
    await replicas.start(2);
    owner = replicas.newHome();
  });
  after(async () => {
    await replicas?.stop();
    await node?.stop();
    pg?.remove();
    if (source) rmSync(source, { recursive: true, force: true });
  });

  it('asked on replica A, approved at a terminal with the state URL, run by replica B, once', SLOW, async () => {
    const id = approvalIdOf(await pay(0, '1000001'));
    // The owner's terminal, another data directory, lists it from the store.
    const listed = await wallet(['approvals', 'list', '--json'], { home: owner, env });
    assert.equal(listed.code, 0, listed.stderr);
    const pending = (JSON.parse(listed.stdout) as { approvals: { id: string; status: string }[] }).approvals;
    assert.deepEqual(
      pending.map((each) => [each.id, each.status]),
      [[id, 'pending']],
    );
    const status = await wallet(['state', 'status', '--json'], { home: owner, env });
    assert.equal((JSON.parse(status.stdout) as { approvals_pending: number }).approvals_pending, 1);
    // Repeated on A before the owner's answer: the same request, not a second one.
    assert.equal(approvalIdOf(await pay(0, '1000001')), id);
    await approve(id);
    const before = await transactionsFrom(node, PAYER);
    const ran = await pay(1, '1000001');
    assert.ok(ran && !ran.isError, JSON.stringify(ran));
    const { hash } = ran?.structuredContent as { hash: string };
    assert.equal((await node.mined<{ status: string }>(hash)).status, '0x1');
    assert.equal(await transactionsFrom(node, PAYER), before + 1n);
    // The yes was used: A, asked the same again, asks the owner anew.
    assert.notEqual(approvalIdOf(await pay(0, '1000001')), id);
    assert.equal(pg.sql(`SELECT status FROM wallet_approvals WHERE id = '${id}'`).trim(), 'used');
  });

  it('a yes repeated on A and B at the same time runs once: one transaction, one ledger row', SLOW, async () => {
    const id = approvalIdOf(await pay(1, '2000002'));
    await approve(id);
    const sentBefore = await transactionsFrom(node, PAYER);
    const rowsBefore = Number(pg.sql('SELECT count(*) FROM wallet_ledger_entries').trim());
    const results = await Promise.all([pay(0, '2000002'), pay(1, '2000002'), pay(0, '2000002'), pay(1, '2000002')]);
    const ran = results.filter((result) => result && !result.isError);
    assert.equal(ran.length, 1, JSON.stringify(results));
    for (const other of results.filter((result) => !result || result.isError)) {
      assert.notEqual(approvalIdOf(other), id, 'another call was let through on the used yes');
    }
    const { hash } = ran[0]?.structuredContent as { hash: string };
    await node.mined(hash);
    assert.equal(await transactionsFrom(node, PAYER), sentBefore + 1n);
    assert.equal(Number(pg.sql('SELECT count(*) FROM wallet_ledger_entries').trim()), rowsBefore + 1);
    assert.equal(pg.sql(`SELECT status FROM wallet_approvals WHERE id = '${id}'`).trim(), 'used');
  });

  it('a denial given on one machine refuses the call on every replica', SLOW, async () => {
    const id = approvalIdOf(await pay(0, '3000003'));
    const denied = await wallet(['approvals', 'deny', id], { home: owner, env });
    assert.equal(denied.code, 0, denied.stderr);
    for (const replica of [1, 0]) {
      const refused = await pay(replica, '3000003');
      assert.equal(errorCodeOf(refused), 'POLICY_VIOLATION', JSON.stringify(refused));
      assert.match(readToolErrorMeta(refused?._meta)?.message ?? '', new RegExp(`denied approval ${id}`));
    }
  });

  it(
    'a task made on replica A, approved, completes; replica B answers its status and result from the store',
    SLOW,
    async () => {
      const [a, b] = replicas.served;
      assert.ok(a && b);
      // Ports on the running replicas: closing them would stop the replicas, so they are left open.
      const onA = withTasks(HttpPort.over(a, REPLICA_TOKEN));
      const onB = withTasks(HttpPort.over(b, REPLICA_TOKEN));
      const sent = await transactionsFrom(node, PAYER);
      const execution = await onA.callTool('evm_funds_send', {
        address: 'p0',
        to: RECIPIENT,
        value_wei: '4000004',
        network: 'local',
      });
      const taskId = taskOf(execution);
      const waiting = await onB.task(taskId).snapshot();
      assert.equal(waiting.status, 'working', 'B sees the task A made');
      const status = await wallet(['state', 'status', '--json'], { home: owner, env });
      assert.equal((JSON.parse(status.stdout) as { tasks_open: number }).tasks_open, 1);
      await approve(approvalIn(waiting.statusMessage));
      // Polled on B only: A, holding the call's arguments, runs it by itself.
      const outcome = await onB.task(taskId).result();
      assert.equal(outcome.status, 'completed', JSON.stringify(outcome));
      const result = (outcome as { result: { structuredContent?: { sent?: boolean; hash?: string } } }).result;
      assert.equal(result.structuredContent?.sent, true, JSON.stringify(result));
      await node.mined(String(result.structuredContent?.hash));
      assert.equal(await transactionsFrom(node, PAYER), sent + 1n, 'exactly one transaction');
      // A answers the same, from its memory; nothing runs twice.
      const onAgain = await onA.task(taskId).result();
      assert.equal(
        (onAgain as { result: { structuredContent?: { hash?: string } } }).result.structuredContent?.hash,
        result.structuredContent?.hash,
      );
      assert.equal(await transactionsFrom(node, PAYER), sent + 1n);
      // The store kept the task and its result, never the call's arguments.
      const row = pg.sql(`SELECT state || ' ' || record::text FROM wallet_approval_tasks WHERE id = '${taskId}'`);
      assert.match(row, /^completed /);
      assert.doesNotMatch(
        row,
        /4000004|0x9965507D1a55bcC2695C58ba16FB37d819B0A4dc/i,
        "the call's arguments are in the store",
      );
    },
  );

  it("a task whose replica stopped is failed by another once its lease lapses: 'call again'", SLOW, async () => {
    // A replica of its own, stopped once it holds a call; without the keystore passphrase it seals
    // no call into the store (test/state/tasks-restart-pg.test.ts): the call is in its memory only.
    const home = replicas.newHome();
    const doomed = await startHttpServe([], { home, env });
    const [b] = replicas.served.slice(1);
    assert.ok(b);
    const onDoomed = withTasks(HttpPort.over(doomed, REPLICA_TOKEN));
    const onB = withTasks(HttpPort.over(b, REPLICA_TOKEN));
    const execution = await onDoomed.callTool('evm_funds_send', {
      address: 'p0',
      to: RECIPIENT,
      value_wei: '5000005',
      network: 'local',
    });
    const taskId = taskOf(execution);
    await doomed.stop();
    assert.equal((await onB.task(taskId).snapshot()).status, 'working', 'its lease still runs');
    const started = Date.now();
    let view = await onB.task(taskId).snapshot();
    while (view.status === 'working' && Date.now() - started < 60_000) {
      await new Promise((resolve) => setTimeout(resolve, 1_000));
      view = await onB.task(taskId).snapshot();
    }
    assert.equal(view.status, 'failed', JSON.stringify(view));
    assert.match(view.statusMessage ?? '', /stopped before the owner's answer/);
  });
});
