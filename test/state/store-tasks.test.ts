/**
 * MCP tasks and approvals in a real PostgreSQL state store, in one process (src/mcp/tasks.ts with
 * the store's records): what a task does when the store fails while its approved call runs, and
 * what a failed read of the passkeys does to an owner's yes.
 */
import assert from 'node:assert/strict';
import nodePostgres from 'pg';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { ApprovalStore } from '../../src/domain/policy/approvals.js';
import { WalletServices } from '../../src/domain/services.js';
import { APPROVALS_LOCK } from '../../src/domain/state/pg/approvals.js';
import { closePools, openPools } from '../../src/domain/state/pg/client.js';
import { migrate } from '../../src/domain/state/pg/migrate.js';
import { TASKS_LOCK } from '../../src/domain/state/pg/tasks.js';
import { resolveStateLocation } from '../../src/domain/state/state-url.js';
import { callDigest } from '../../src/mcp/confirmation.js';
import { ApprovalTasks } from '../../src/mcp/tasks.js';
import { evmFundsSend } from '../../src/tools/evm/funds-send.js';
import { validateInput } from '../../src/tools/invoke.js';
import { tempHome } from '../helpers/io.js';
import { findPostgres, startPostgres, type PgCluster } from '../helpers/postgres.js';

const bin = findPostgres();
if (!bin) {
  console.error(
    '\n!!! SKIPPING the task-store tests against PostgreSQL: initdb and pg_ctl are not installed.\n!!! .ci/run installs them (apt-get install -y postgresql); install it to run these tests.\n',
  );
}

const SESSION = 'a'.repeat(64);
const SUMMARY = { tool: 'evm_funds_send', text: 'Send 1 wei', reason: 'test' };

describe('MCP tasks in a PostgreSQL state store', { skip: bin ? false : 'no PostgreSQL' }, () => {
  let pg: PgCluster;
  let services: WalletServices;
  let approvals: ApprovalStore;

  /** Another session holding the approvals' lock (a slow change, a stalled connection), until it ends or unlocks. */
  const holdApprovalsLock = async (): Promise<nodePostgres.Client> => {
    const holder = new nodePostgres.Client({
      host: '127.0.0.1',
      port: pg.port,
      user: 'wallet',
      database: 'wallet',
      password: pg.password,
    });
    await holder.connect();
    await holder.query('SELECT pg_advisory_lock($1)', [APPROVALS_LOCK]);
    return holder;
  };
  before(async () => {
    pg = await startPostgres(bin ?? '');
    const env = { WALLET_STATE_URL: pg.url, PGPASSWORD: pg.password };
    const location = resolveStateLocation(env, undefined);
    assert.ok(location);
    const pools = await openPools(location);
    await migrate(pools);
    await closePools(pools);
    services = new WalletServices({ dataDir: tempHome(), env });
    approvals = new ApprovalStore(services.dataDir, { state: () => services.stateStore() });
  });
  after(async () => {
    await (await services?.stateStore().catch(() => undefined))?.close();
    pg?.remove();
  });

  /** The one tool these tasks serve. */
  const served = (name: string) => (name === evmFundsSend.name ? evmFundsSend : undefined);

  /** A call of evm_funds_send waiting as a task on a pending approval; its digest is the approval's. */
  const waitingTask = async (tasks: ApprovalTasks, value: string): Promise<{ taskId: string; approval: string }> => {
    const validation = validateInput(evmFundsSend, {
      address: 'p0',
      to: '0x9965507D1a55bcC2695C58ba16FB37d819B0A4dc',
      value_wei: value,
      network: 'local',
    });
    assert.ok(validation.ok);
    const input = validation.input;
    const approval = await approvals.request(callDigest(input.tool.name, input.data), SUMMARY);
    const started = await tasks.start({ input, approval, message: 'waiting', session: SESSION });
    return { taskId: String(started['taskId']), approval: approval.id };
  };

  it('a run whose result could not be written while the store was down completes once it is back', async () => {
    let runs = 0;
    const tasks = new ApprovalTasks(
      services,
      approvals,
      async () => {
        runs += 1;
        // The call ran (a payment was sent); the store goes down before its result is written.
        await sleep(50);
        pg.stop();
        return { sent: true, hash: '0x01' };
      },
      served,
    );
    const { taskId, approval } = await waitingTask(tasks, '11');
    await approvals.decide(approval, 'approved', 'terminal');
    // This poll takes the approval and starts the run.
    assert.equal((await tasks.get(taskId, SESSION))['status'], 'working');
    await sleep(1_000);
    pg.start();
    let view: Record<string, unknown> = {};
    const started = Date.now();
    while (Date.now() - started < 15_000) {
      try {
        view = await tasks.get(taskId, SESSION);
        if (view['status'] !== 'working') break;
      } catch {
        // The first query after the restart may find a dead connection: BUSY.
      }
      await sleep(500);
    }
    assert.equal(view['status'], 'completed', JSON.stringify(view));
    const result = view['result'] as { structuredContent?: { hash?: string } } | undefined;
    assert.equal(result?.structuredContent?.hash, '0x01', JSON.stringify(view));
    assert.equal(runs, 1);
    assert.equal(pg.sql(`SELECT state FROM wallet_approval_tasks WHERE id = '${taskId}'`).trim(), 'completed');
  });

  it(
    "a replica's lease on the calls it holds is renewed while a round of its driver waits",
    { timeout: 90_000 },
    async () => {
      const tasks = new ApprovalTasks(
        services,
        approvals,
        () => Promise.reject(new Error('not approved: never run')),
        served,
      );
      const { taskId } = await waitingTask(tasks, '14');
      // Another session holds the approvals' lock (a slow change, a stalled connection): the
      // driver's move of this task waits for it, inside its round.
      const holder = await holdApprovalsLock();
      try {
        // Past the 30-second lease: the replica is alive and still holds the call's arguments.
        await sleep(34_000);
        const held = pg.sql(`SELECT lease_until > clock_timestamp() FROM wallet_approval_tasks WHERE id = '${taskId}'`);
        assert.equal(held.trim(), 't', 'the lease of a live replica lapsed: another would fail its task');
      } finally {
        await holder.end();
      }
      await tasks.cancel(taskId, SESSION);
    },
  );

  it('an approval taken by a task whose own change then failed runs that task, once', { timeout: 60_000 }, async () => {
    let runs = 0;
    const tasks = new ApprovalTasks(
      services,
      approvals,
      () => {
        runs += 1;
        return Promise.resolve({ sent: true, hash: '0x02' });
      },
      served,
    );
    const { taskId, approval } = await waitingTask(tasks, '15');
    await approvals.decide(approval, 'approved', 'terminal');
    // The approvals' lock held elsewhere: the next move takes the tasks' lock, then waits for it.
    const holder = await holdApprovalsLock();
    try {
      const moved = tasks.get(taskId, SESSION).catch((error: unknown) => error);
      const tasksLock = async (): Promise<string> => {
        for (let tries = 0; tries < 100; tries++) {
          const pid = pg.sql(
            `SELECT pid FROM pg_locks WHERE locktype = 'advisory' AND objid = ${TASKS_LOCK} AND granted`,
          );
          if (pid.trim() !== '') return pid.trim();
          await sleep(100);
        }
        throw new Error('no move took the tasks lock');
      };
      const pid = await tasksLock();
      await sleep(300);
      // The move's connection dies (a restart, a failover) while its take waits: the take, on
      // another connection, then spends the approval; the task's change is lost.
      pg.sql(`SELECT pg_terminate_backend(${pid})`);
      await holder.query('SELECT pg_advisory_unlock($1)', [APPROVALS_LOCK]);
      const error = await moved;
      assert.equal((error as { code?: string }).code, 'BUSY', String(error));
    } finally {
      await holder.end();
    }
    assert.equal(pg.sql(`SELECT status FROM wallet_approvals WHERE id = '${approval}'`).trim(), 'used');
    let view: Record<string, unknown> = {};
    const started = Date.now();
    while (Date.now() - started < 15_000) {
      view = await tasks.get(taskId, SESSION);
      if (view['status'] !== 'working') break;
      await sleep(300);
    }
    assert.equal(view['status'], 'completed', JSON.stringify(view));
    assert.equal(runs, 1);
  });

  it("an owner's yes is kept, not dropped as a passkey's missing, while the passkeys cannot be read", async () => {
    const digest = callDigest('evm_funds_send', { value_wei: '12' });
    const approval = await approvals.request(digest, SUMMARY);
    await approvals.decide(approval.id, 'approved', 'terminal');
    // The passkeys' table is out of reach for a moment (as a failed read is): whether one is
    // enrolled is unknown, and that is no reason to throw the owner's yes away.
    pg.sql('ALTER TABLE wallet_passkeys RENAME TO wallet_passkeys_away');
    try {
      // The call fails (nothing runs on an unknown), the yes stays for its retry.
      await assert.rejects(approvals.take(digest), { code: 'BACKEND_INVALID' });
    } finally {
      pg.sql('ALTER TABLE wallet_passkeys_away RENAME TO wallet_passkeys');
    }
    assert.equal(pg.sql(`SELECT status FROM wallet_approvals WHERE id = '${approval.id}'`).trim(), 'approved');
    const taken = await approvals.take(digest);
    assert.equal(taken.kind, 'approved', JSON.stringify(taken));
  });

  it('a yes without a passkey is refused, and kept, while the passkeys cannot be read', async () => {
    const approval = await approvals.request(callDigest('evm_funds_send', { value_wei: '13' }), SUMMARY);
    pg.sql('ALTER TABLE wallet_passkeys RENAME TO wallet_passkeys_away');
    try {
      // The store failed (a missing table is BACKEND_INVALID): not "a passkey is enrolled".
      await assert.rejects(approvals.decide(approval.id, 'approved', 'terminal'), { code: 'BACKEND_INVALID' });
    } finally {
      pg.sql('ALTER TABLE wallet_passkeys_away RENAME TO wallet_passkeys');
    }
    assert.equal(pg.sql(`SELECT status FROM wallet_approvals WHERE id = '${approval.id}'`).trim(), 'pending');
  });
});
