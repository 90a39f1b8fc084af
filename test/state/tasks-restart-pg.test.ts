/**
 * MCP tasks that survive a replica's stop with a PostgreSQL state store: a waiting call is sealed
 * in its task's row (AES-256-GCM under a key derived from the keystore passphrase and the store's
 * salt), never in clear; a replica killed (SIGKILL) while its task waits leaves the call to the
 * replica started again, which runs it once on the owner's yes. A replica
 * with no passphrase seals nothing: its calls stay in its memory, as before.
 */
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { withTasks } from '@modelcontextprotocol/ext-tasks/client';
import { startAnvil, type AnvilNode } from '../helpers/anvil.js';
import { startHttpServe } from '../helpers/http-serve.js';
import { wallet } from '../helpers/io.js';
import { findPostgres, startPostgres, type PgCluster } from '../helpers/postgres.js';
import {
  anvilKeystoreHome,
  replicasOnStore,
  REPLICA_TOKEN,
  type Replicas,
  writeReplicaConfig,
} from '../helpers/replicas.js';
import { approvalIn, HttpPort, taskOf, transactionsFrom } from '../helpers/tasks-requester.js';

const bin = findPostgres();
if (!bin) {
  console.error(
    '\n!!! SKIPPING the tasks-restart tests against PostgreSQL: initdb and pg_ctl are not installed.\n!!! .ci/run installs them (apt-get install -y postgresql); install it to run these tests.\n',
  );
}

/** anvil's first account: p0 of the keystore. */
const PAYER = '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266';
/** anvil's seventh account: no payer here. */
const RECIPIENT = '0x976EA74026E726554dB657fA54763abd0C3a0aa9';
const SLOW = { timeout: 300_000 };

describe(
  'MCP tasks survive a replica killed, sealed in the state store',
  { skip: bin ? false : 'no PostgreSQL' },
  () => {
    let pg: PgCluster;
    let node: AnvilNode;
    let source: string;
    let env: Record<string, string>;
    let replicas: Replicas;
    let owner: string;

    const pay = (value: string) => ({ address: 'p0', to: RECIPIENT, value_wei: value, network: 'local' });
    /**
     * Every task row as text, all columns, what anyone who can read the store sees: the sealed call
     * also as its bytes' text (printable bytes as they are), where a call in clear would show.
     */
    const dump = () => pg.sql("SELECT *, encode(sealed_call, 'escape') AS sealed_text FROM wallet_approval_tasks");
    const sealed = (taskId: string) =>
      pg.sql(`SELECT sealed_call IS NOT NULL FROM wallet_approval_tasks WHERE id = '${taskId}'`).trim();

    before(async () => {
      [pg, node] = await Promise.all([startPostgres(bin ?? ''), startAnvil({ chainId: 31337 })]);
      source = await anvilKeystoreHome();
      // No autonomy: every payment of an agent waits for the owner.
      writeReplicaConfig(source, {
        evm: { networks: { local: { policy: { autonomous: { max_per_tx_wei: '1', max_per_24h_wei: '1' } } } } },
      });
      replicas = await replicasOnStore(pg, node.url, source);
      env = replicas.env;
      await replicas.start(0);
      owner = replicas.newHome();
    });
    after(async () => {
      await replicas?.stop();
      await node?.stop();
      pg?.remove();
      if (source) rmSync(source, { recursive: true, force: true });
    });

    it("killed while its task waits: started again, the owner's yes runs the call once", SLOW, async () => {
      const home = replicas.newHome();
      const first = await replicas.serve(home);
      const onFirst = withTasks(HttpPort.over(first, REPLICA_TOKEN));
      const before = await transactionsFrom(node, PAYER);
      const value = '7000007';
      const taskId = taskOf(await onFirst.callTool('evm_funds_send', pay(value)));
      const id = approvalIn((await onFirst.task(taskId).snapshot()).statusMessage);
      // The store holds the call sealed: neither the recipient nor the amount in clear.
      assert.equal(sealed(taskId), 't', 'the waiting call is sealed in its row');
      assert.doesNotMatch(dump(), new RegExp(`${RECIPIENT.slice(2)}|${value}|value_wei`, 'i'));
      first.child.kill('SIGKILL');
      await first.stop();
      const approved = await wallet(['approvals', 'approve', id], { home: owner, env, tty: true, stdin: 'y\n' });
      assert.equal(approved.code, 0, approved.stderr);
      const again = await replicas.serve(home);
      const onAgain = withTasks(HttpPort.over(again, REPLICA_TOKEN));
      try {
        // The replica started again opens the sealed call and runs it: the approval is taken once,
        // under the tasks' lock, whichever replica polls.
        let view = await onAgain.task(taskId).snapshot();
        const started = Date.now();
        while (view.status === 'working' && Date.now() - started < 90_000) {
          await new Promise((resolve) => setTimeout(resolve, 1_000));
          view = await onAgain.task(taskId).snapshot();
        }
        assert.equal(view.status, 'completed', JSON.stringify(view));
        assert.equal(await transactionsFrom(node, PAYER), before + 1n, 'exactly one transaction');
        assert.equal(sealed(taskId), 'f', 'the call left the store with its run');
        assert.equal((await onAgain.task(taskId).snapshot()).status, 'completed');
        assert.equal(await transactionsFrom(node, PAYER), before + 1n);
      } finally {
        await again.stop();
      }
    });

    it('a replica without the keystore passphrase seals nothing: the call stays in its memory', SLOW, async () => {
      const home = replicas.newHome();
      const locked = await startHttpServe([], { home, env });
      const onLocked = withTasks(HttpPort.over(locked, REPLICA_TOKEN));
      try {
        const taskId = taskOf(await onLocked.callTool('evm_funds_send', pay('8000008')));
        assert.equal((await onLocked.task(taskId).snapshot()).status, 'working');
        assert.equal(sealed(taskId), 'f');
        await onLocked.task(taskId).cancel();
      } finally {
        await locked.stop();
      }
    });
  },
);
