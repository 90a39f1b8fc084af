/**
 * MCP tasks (the 2026-07-28 `io.modelcontextprotocol/tasks` extension) for calls that wait for the
 * owner: the official requester (`@modelcontextprotocol/ext-tasks`) against `wallet serve` over
 * stdio, next to a legacy client, against a real anvil. A task waits `working` with the approval's
 * command in its status; the owner approves at a real terminal and the call runs once; denied →
 * failed with POLICY_VIOLATION; the client's cancel withdraws the approval; serve killed (SIGKILL)
 * before or after the owner's yes and started again runs the task once (its call kept in an
 * owner-only file while it waits), and a cancel or a no after the restart ends it with nothing
 * sent. A task is its principal's. What was sent is read off the node.
 */
import assert from 'node:assert/strict';
import { existsSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import type { JsonValue } from '@modelcontextprotocol/ext-tasks/core';
import { ERROR_META_KEY, type ToolErrorMeta } from '../../src/shared/protocol-meta.js';
import { startAnvil, type AnvilNode } from '../helpers/anvil.js';
import { passphraseFileIn, tempHome, wallet } from '../helpers/io.js';
import { importAnvilAccount } from '../helpers/mcp.js';
import { auditLines } from '../helpers/policy.js';
import { WALLET_BIN } from '../helpers/paths.js';
import {
  approvalIn,
  requester as tasksRequester,
  taskOf,
  transactionsFrom,
  type Transport,
} from '../helpers/tasks-requester.js';

const PASSPHRASE = 'tasks passphrase';
const RECIPIENT = '0x90F79bf6EB2c4f870365E785982E1f101E93b906';
const MILLI = 10n ** 15n;

/** `wallet approvals approve|deny <id>` in the in-process CLI on a fake terminal answering y. */
async function decide(home: string, verb: 'approve' | 'deny', id: string): Promise<void> {
  const answered = await wallet(['approvals', verb, id], { home, tty: true, stdin: 'y\n' });
  assert.equal(answered.code, 0, `${answered.stdout}\n${answered.stderr}`);
}

/** A requester on its own `wallet serve` of `home`, unlocked with the test's passphrase. */
const requester = (home: string, node: AnvilNode, transport: Transport) =>
  tasksRequester(transport, { home, node, passphraseFile: passphraseFileIn(home, PASSPHRASE, `${transport}-pw`) });

const PAYER = '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266';

/** A client without the tasks extension (the SDK's), on its own `wallet serve` over stdio. */
async function legacyClient(home: string, node: AnvilNode): Promise<Client> {
  const client = new Client({ name: 'legacy', version: '1' });
  await client.connect(
    new StdioClientTransport({
      command: process.execPath,
      args: [WALLET_BIN, 'serve', '--passphrase-file', passphraseFileIn(home, PASSPHRASE, 'legacy-pw')],
      env: { ...(process.env as Record<string, string>), WALLET_HOME: home, WALLET_EVM_LOCAL_URL: node.url },
      stderr: 'ignore',
    }),
  );
  return client;
}

for (const transport of ['stdio', 'http'] as const) {
  describe(`MCP tasks over ${transport}: a call that waits for the owner, as a task`, () => {
    let node: AnvilNode;
    let home: string;

    before(async () => {
      node = await startAnvil({ chainId: 31337 });
      home = tempHome();
      await importAnvilAccount(home, PASSPHRASE, { walletAlias: 'w', accountAlias: 'payer' });
    });
    after(async () => {
      await node.stop();
      rmSync(home, { recursive: true, force: true });
    });

    const pay = (value: bigint): Record<string, JsonValue> => ({
      address: 'payer',
      to: RECIPIENT,
      value_wei: value.toString(),
      network: 'local',
    });

    /** The calls kept beside the tasks file (owner-only), by task id, with the results; none when it is gone. */
    const keptCalls = (): { calls: Record<string, unknown>; results: Record<string, unknown> } => {
      const path = join(home, 'approval-task-calls.json');
      if (!existsSync(path)) return { calls: {}, results: {} };
      assert.equal(statSync(path).mode & 0o777, 0o600, "the calls file is the owner's alone");
      return JSON.parse(readFileSync(path, 'utf8')) as {
        calls: Record<string, unknown>;
        results: Record<string, unknown>;
      };
    };

    it('approved by the owner: the task completes with the result, one transaction on the node', async () => {
      const { session, port } = await requester(home, node, transport);
      try {
        const before = await transactionsFrom(node, PAYER);
        const execution = await session.callTool('evm_funds_send', pay(3n * MILLI));
        assert.equal(execution.kind, 'task');
        const task = session.task(taskOf(execution));
        const waiting = await task.snapshot();
        assert.equal(waiting.status, 'working');
        assert.match(waiting.statusMessage ?? '', /wallet approvals approve ap-[a-z2-7]{10}/);
        assert.equal(await transactionsFrom(node, PAYER), before, 'nothing sent while it waits');
        // The tasks file is the owner's alone; so is the call kept beside it while it waits.
        assert.equal(statSync(join(home, 'approval-tasks.json')).mode & 0o777, 0o600);
        assert.ok(keptCalls().calls[task.taskId], 'the waiting call is kept for a restart');
        await decide(home, 'approve', approvalIn(waiting.statusMessage));
        const { outcome } = await execution.settle();
        assert.equal(outcome.status, 'completed', JSON.stringify(outcome));
        const result = (outcome as { result: { structuredContent?: Record<string, unknown> } }).result;
        assert.equal(result.structuredContent?.['sent'], true);
        assert.equal(await transactionsFrom(node, PAYER), before + 1n, 'exactly one transaction');
        // Polled again: the same result, nothing sent twice.
        assert.equal((await task.snapshot()).status, 'completed');
        assert.equal(await transactionsFrom(node, PAYER), before + 1n);
        // The tasks file has how it ended, not what it returned; the owner's calls file has the
        // result, and no longer the call.
        const kept = readFileSync(join(home, 'approval-tasks.json'), 'utf8');
        assert.match(kept, /"state": "completed"/);
        assert.doesNotMatch(kept, new RegExp(`structuredContent|${String(result.structuredContent?.['hash'])}`));
        assert.equal(keptCalls().calls[task.taskId], undefined);
        assert.match(
          JSON.stringify(keptCalls().results[task.taskId]),
          new RegExp(String(result.structuredContent?.['hash'])),
        );
      } finally {
        await session.close();
        await port.close();
      }
    });

    it('denied: the task fails with POLICY_VIOLATION and nothing is sent', async () => {
      const { session, port } = await requester(home, node, transport);
      try {
        const before = await transactionsFrom(node, PAYER);
        const execution = await session.callTool('evm_funds_send', pay(4n * MILLI));
        const task = session.task(taskOf(execution));
        await decide(home, 'deny', approvalIn((await task.snapshot()).statusMessage));
        const { outcome } = await execution.settle();
        assert.equal(outcome.status, 'failed');
        const raw = await port.dispatch({ method: 'tasks/get', params: { taskId: task.taskId } });
        const failed = (raw as unknown as { result: { error: { data: Record<string, ToolErrorMeta> } } }).result;
        assert.equal(failed.error.data[ERROR_META_KEY]?.code, 'POLICY_VIOLATION');
        assert.equal(await transactionsFrom(node, PAYER), before);
      } finally {
        await session.close();
        await port.close();
      }
    });

    it('cancelled by the client: the approval request is withdrawn, nothing is sent', async () => {
      const { session, port } = await requester(home, node, transport);
      try {
        const before = await transactionsFrom(node, PAYER);
        const execution = await session.callTool('evm_funds_send', pay(5n * MILLI));
        const task = session.task(taskOf(execution));
        const id = approvalIn((await task.snapshot()).statusMessage);
        await task.cancel();
        assert.equal((await task.snapshot()).status, 'cancelled');
        const listed = await wallet(['approvals', '--json'], { home });
        assert.doesNotMatch(listed.stdout, new RegExp(id), "the approval is gone from the owner's list");
        const late = await wallet(['approvals', 'approve', id], { home, tty: true, stdin: 'y\n' });
        assert.notEqual(late.code, 0, 'nothing left to approve');
        // The audit log says the call was withdrawn, with the approval it waited on.
        const withdrawn = auditLines(home).filter((line) => line['approval'] === id && line['outcome'] === 'error');
        assert.equal(withdrawn.length, 1, JSON.stringify(withdrawn));
        assert.match(String((withdrawn[0]?.['error'] as { message?: string }).message), /Cancelled by the client/);
        assert.equal(await transactionsFrom(node, PAYER), before);
      } finally {
        await session.close();
        await port.close();
      }
    });

    /**
     * An agent's payment of `wei` waiting for the owner as a task, through a new requester (`first`):
     * the payer's transactions before it, the task's id and its approval's.
     */
    const waitingTask = async (wei: bigint) => {
      const first = await requester(home, node, transport);
      const before = await transactionsFrom(node, PAYER);
      const taskId = taskOf(await first.session.callTool('evm_funds_send', pay(wei)));
      const id = approvalIn((await first.session.task(taskId).snapshot()).statusMessage);
      return { first, before, taskId, id };
    };

    it("serve killed before the owner's yes: the restarted serve runs the task once, with its result", async () => {
      const { first, before, taskId, id } = await waitingTask(6n * MILLI);
      // The tasks file names the approval, never the payment: the call waits in the owner's file beside it.
      const kept = readFileSync(join(home, 'approval-tasks.json'), 'utf8');
      assert.match(kept, new RegExp(id));
      assert.doesNotMatch(kept, new RegExp(`${6n * MILLI}|${RECIPIENT}|value_wei`, 'i'));
      assert.match(JSON.stringify(keptCalls().calls[taskId]), new RegExp(`${RECIPIENT}.*${6n * MILLI}`, 'i'));
      await first.port.kill();
      await decide(home, 'approve', id);
      const second = await requester(home, node, transport);
      try {
        assert.equal(await transactionsFrom(node, PAYER), before, 'nothing sent by the restart');
        const outcome = await second.session.task(taskId).result();
        assert.equal(outcome.status, 'completed', JSON.stringify(outcome));
        const result = (outcome as { result: { structuredContent?: Record<string, unknown> } }).result;
        assert.equal(result.structuredContent?.['sent'], true);
        assert.equal(await transactionsFrom(node, PAYER), before + 1n, 'exactly one transaction');
        // The run took the arguments off the disk; its result is kept for the task's time to live.
        assert.equal(keptCalls().calls[taskId], undefined);
        assert.ok(keptCalls().results[taskId]);
      } finally {
        await second.port.kill();
      }
      // Killed again once done: a third serve answers the task with the same result, sends nothing.
      const third = await requester(home, node, transport);
      try {
        const raw = await third.port.dispatch({ method: 'tasks/get', params: { taskId } });
        const again = (raw as unknown as { result: { status: string; result?: { structuredContent?: unknown } } })
          .result;
        assert.equal(again.status, 'completed', JSON.stringify(raw));
        assert.ok(again.result?.structuredContent, JSON.stringify(raw));
        assert.equal(await transactionsFrom(node, PAYER), before + 1n);
      } finally {
        await third.session.close();
        await third.port.close();
      }
    });

    it("serve killed after the owner's yes, before a poll: the restarted serve runs it once", async () => {
      const { first, before, taskId, id } = await waitingTask(10n * MILLI);
      await decide(home, 'approve', id);
      await first.port.kill();
      assert.equal(await transactionsFrom(node, PAYER), before, 'nothing sent without a poll');
      const second = await requester(home, node, transport);
      try {
        const outcome = await second.session.task(taskId).result();
        assert.equal(outcome.status, 'completed', JSON.stringify(outcome));
        assert.equal(await transactionsFrom(node, PAYER), before + 1n, 'exactly one transaction');
        assert.equal(keptCalls().calls[taskId], undefined);
        // Polled again: the same answer, nothing sent twice.
        assert.equal((await second.session.task(taskId).snapshot()).status, 'completed');
        assert.equal(await transactionsFrom(node, PAYER), before + 1n);
      } finally {
        await second.session.close();
        await second.port.close();
      }
    });

    it('cancelled after a restart: the approval is withdrawn, the call leaves the disk, nothing is sent', async () => {
      const { first, before, taskId, id } = await waitingTask(11n * MILLI);
      await first.port.kill();
      const second = await requester(home, node, transport);
      try {
        const cancelled = await second.port.dispatch({ method: 'tasks/cancel', params: { taskId } });
        assert.equal(cancelled.kind, 'result', JSON.stringify(cancelled));
        assert.equal((await second.session.task(taskId).snapshot()).status, 'cancelled');
        assert.equal(keptCalls().calls[taskId], undefined, 'a cancelled call is not kept');
        const late = await wallet(['approvals', 'approve', id], { home, tty: true, stdin: 'y\n' });
        assert.notEqual(late.code, 0, 'nothing left to approve');
        assert.equal(await transactionsFrom(node, PAYER), before);
      } finally {
        await second.session.close();
        await second.port.close();
      }
    });

    it('denied while serve was down: the restarted serve fails the task, the call leaves the disk', async () => {
      const { first, before, taskId, id } = await waitingTask(12n * MILLI);
      await first.port.kill();
      await decide(home, 'deny', id);
      const second = await requester(home, node, transport);
      try {
        const raw = await second.port.dispatch({ method: 'tasks/get', params: { taskId } });
        const failed = (
          raw as unknown as { result: { status: string; error: { data: Record<string, ToolErrorMeta> } } }
        ).result;
        assert.equal(failed.status, 'failed', JSON.stringify(raw));
        assert.equal(failed.error.data[ERROR_META_KEY]?.code, 'POLICY_VIOLATION');
        assert.equal(keptCalls().calls[taskId], undefined);
        assert.equal(await transactionsFrom(node, PAYER), before);
      } finally {
        await second.session.close();
        await second.port.close();
      }
    });

    it("a kept call edited while serve was down is not run: its digest is not the approval's", async () => {
      const { first, before, taskId, id } = await waitingTask(14n * MILLI);
      await first.port.kill();
      // Someone with the owner's files swaps the amount of the waiting call; the owner approves the original.
      const path = join(home, 'approval-task-calls.json');
      const text = readFileSync(path, 'utf8');
      assert.match(text, new RegExp(String(14n * MILLI)));
      writeFileSync(path, text.replace(String(14n * MILLI), String(15n * MILLI)), { mode: 0o600 });
      await decide(home, 'approve', id);
      const second = await requester(home, node, transport);
      try {
        const raw = await second.port.dispatch({ method: 'tasks/get', params: { taskId } });
        const failed = (
          raw as unknown as { result: { status: string; error: { data: Record<string, ToolErrorMeta> } } }
        ).result;
        assert.equal(failed.status, 'failed', JSON.stringify(raw));
        const error = failed.error.data[ERROR_META_KEY];
        assert.equal(error?.code, 'APPROVAL_REQUIRED');
        // It says what happened: the call was kept, but is not the one approved (not "kept only in memory").
        assert.match(error?.message ?? '', /not the one approved/);
        assert.doesNotMatch(error?.message ?? '', /only in its memory/);
        assert.equal(error?.details?.['approval_id'], id);
        assert.equal(await transactionsFrom(node, PAYER), before, 'neither the edited call nor the approved one ran');
        assert.equal(keptCalls().calls[taskId], undefined, 'the edited call left the disk');
        // The owner's yes still stands for the exact call approved: repeated, it runs once.
        const repeated = await second.session.callTool('evm_funds_send', pay(14n * MILLI));
        const { outcome } = await repeated.settle();
        assert.equal(outcome.status, 'completed', JSON.stringify(outcome));
        assert.equal(await transactionsFrom(node, PAYER), before + 1n);
      } finally {
        await second.session.close();
        await second.port.close();
      }
    });

    it('two serves of one data directory polling the approved task at once run it once', async () => {
      const first = await requester(home, node, transport);
      const second = await requester(home, node, transport);
      try {
        const before = await transactionsFrom(node, PAYER);
        const taskId = taskOf(await first.session.callTool('evm_funds_send', pay(16n * MILLI)));
        const id = approvalIn((await first.session.task(taskId).snapshot()).statusMessage);
        // The other serve (the same principal) sees the task and holds its kept call too.
        assert.equal((await second.session.task(taskId).snapshot()).status, 'working');
        await decide(home, 'approve', id);
        const poll = async (on: typeof first): Promise<string> => {
          let status = 'working';
          const started = Date.now();
          while (status === 'working' && Date.now() - started < 60_000) {
            status = (await on.session.task(taskId).snapshot()).status;
            if (status === 'working') await new Promise((resolve) => setTimeout(resolve, 20));
          }
          return status;
        };
        assert.deepEqual(await Promise.all([poll(first), poll(second), poll(first), poll(second)]), [
          'completed',
          'completed',
          'completed',
          'completed',
        ]);
        assert.equal(await transactionsFrom(node, PAYER), before + 1n, 'exactly one transaction');
        assert.equal(keptCalls().calls[taskId], undefined);
      } finally {
        for (const { session, port } of [first, second]) {
          await session.close();
          await port.close();
        }
      }
    });

    it('a task takes its own approval: a plain repeat that spent the yes leaves it "used by another call"', async () => {
      const { session, port } = await requester(home, node, transport);
      try {
        const before = await transactionsFrom(node, PAYER);
        const execution = await session.callTool('evm_funds_send', pay(8n * MILLI));
        const task = session.task(taskOf(execution));
        const id = approvalIn((await task.snapshot()).statusMessage);
        await decide(home, 'approve', id);
        // The same call from a client without tasks takes the yes first and runs.
        const legacy = await legacyClient(home, node);
        try {
          const plain = await legacy.callTool({ name: 'evm_funds_send', arguments: pay(8n * MILLI) });
          assert.notEqual(plain.isError, true, JSON.stringify(plain._meta));
        } finally {
          await legacy.close();
        }
        const { outcome } = await execution.settle();
        assert.equal(outcome.status, 'failed');
        const raw = await port.dispatch({ method: 'tasks/get', params: { taskId: task.taskId } });
        const error = (raw as unknown as { result: { error: { data: Record<string, ToolErrorMeta> } } }).result.error
          .data[ERROR_META_KEY];
        assert.equal(error?.code, 'POLICY_VIOLATION');
        assert.match(error?.message ?? '', new RegExp(`Approval ${id} was used by another call`));
        assert.equal(await transactionsFrom(node, PAYER), before + 1n, "one transaction, the plain call's");
      } finally {
        await session.close();
        await port.close();
      }
    });

    it("a task is its principal's: the other transport's client neither sees, cancels nor is handed it", async () => {
      // Over stdio the principal is the owner's agent host on this data directory; over HTTP the
      // bearer token's holder: a client of the other transport on the same data is someone else.
      const mine = await requester(home, node, transport);
      const theirs = await requester(home, node, transport === 'stdio' ? 'http' : 'stdio');
      const again = await requester(home, node, transport);
      try {
        const before = await transactionsFrom(node, PAYER);
        const taskId = taskOf(await mine.session.callTool('evm_funds_send', pay(9n * MILLI)));
        for (const method of ['tasks/get', 'tasks/cancel', 'tasks/update']) {
          const answer = await theirs.port.dispatch({ method, params: { taskId } });
          assert.equal(answer.kind, 'error', `${method} of another principal's task: ${JSON.stringify(answer)}`);
        }
        // Another connection of the same principal (a second stdio serve, another token holder) sees it.
        const seen = await again.port.dispatch({ method: 'tasks/get', params: { taskId } });
        assert.equal(seen.kind, 'result', JSON.stringify(seen));
        // The same call from the other principal waits on the same approval, as a task of its own.
        const other = taskOf(await theirs.session.callTool('evm_funds_send', pay(9n * MILLI)));
        assert.notEqual(other, taskId, "deduplication never hands over another principal's task");
        assert.equal((await mine.session.task(taskId).snapshot()).status, 'working', 'not cancelled by the other');
        const id = approvalIn((await mine.session.task(taskId).snapshot()).statusMessage);
        await decide(home, 'approve', id);
        const outcomes = [
          (await mine.session.task(taskId).result()).status,
          (await theirs.session.task(other).result()).status,
        ];
        // One yes, one run: the task that polled first ran; the other says its approval was used.
        assert.deepEqual([...outcomes].sort(), ['completed', 'failed']);
        assert.equal(await transactionsFrom(node, PAYER), before + 1n, 'exactly one transaction');
      } finally {
        for (const { session, port } of [mine, theirs, again]) {
          await session.close();
          await port.close();
        }
      }
    });

    it('a run a stopped server left is failed as interrupted, with an audit line', async () => {
      // A task as a server killed during its run leaves it: running, its process gone.
      const path = join(home, 'approval-tasks.json');
      const file = JSON.parse(readFileSync(path, 'utf8')) as { tasks: Record<string, unknown>[] };
      const time = new Date().toISOString();
      const approval = 'ap-interruptd';
      file.tasks.push({
        id: `tk-${'a'.repeat(26)}`,
        session: '0'.repeat(64),
        approval,
        digest: 'x'.repeat(43),
        tool: 'evm_funds_send',
        state: 'running',
        created: time,
        updated: time,
        pid: 2 ** 22 + 12345,
      });
      writeFileSync(path, JSON.stringify(file), { mode: 0o600 });
      const { session, port } = await requester(home, node, transport);
      try {
        // Any task request of a new server ends what a stopped one left.
        await port.dispatch({ method: 'tasks/get', params: { taskId: `tk-${'b'.repeat(26)}` } });
        const line = auditLines(home).find((each) => each['approval'] === approval);
        assert.ok(line, 'an audit line for the interrupted run');
        assert.equal((line['error'] as { code?: string }).code, 'INTERNAL');
        assert.match(String((line['error'] as { message?: string }).message), /interrupted/);
        assert.match(readFileSync(path, 'utf8'), /"state": "failed"/);
      } finally {
        await session.close();
        await port.close();
      }
    });

    it("with a passkey enrolled, the task's status says the yes is a passkey's, on the page", async () => {
      const path = join(home, 'passkeys.json');
      // A passkey as `wallet approvals passkey add` records one (its key is never used here: nothing is approved).
      const passkey = {
        id: 'A'.repeat(22),
        name: 'laptop',
        public_key: 'B'.repeat(88),
        counter: 0,
        created: new Date().toISOString(),
      };
      writeFileSync(path, JSON.stringify({ format: 'wallet-passkeys', version: 1, passkeys: [passkey] }), {
        mode: 0o600,
      });
      const { session, port } = await requester(home, node, transport);
      try {
        const task = session.task(taskOf(await session.callTool('evm_funds_send', pay(13n * MILLI))));
        const message = (await task.snapshot()).statusMessage ?? '';
        const id = approvalIn(message);
        assert.ok(
          message.includes(
            `A passkey is enrolled: the owner approves with it on the approval page ("wallet approvals approve ${id}" opens that page).`,
          ),
          message,
        );
        await task.cancel();
      } finally {
        rmSync(path, { force: true });
        await session.close();
        await port.close();
      }
    });

    it("a client without tasks keeps today's flow: APPROVAL_REQUIRED, no task", async () => {
      const client = await legacyClient(home, node);
      try {
        const result = await client.callTool({ name: 'evm_funds_send', arguments: pay(7n * MILLI) });
        assert.equal(result.isError, true);
        assert.equal((result._meta?.[ERROR_META_KEY] as ToolErrorMeta).code, 'APPROVAL_REQUIRED');
      } finally {
        await client.close();
      }
    });
  });
}

describe('MCP tasks: a poll that starts the run waits for it, so a client polling once cuts nothing', () => {
  let node: AnvilNode;
  let home: string;
  let proxy: Server;
  /** anvil behind a proxy that answers each request 1.2 s late, as a slow public endpoint does. */
  let slowUrl: string;

  before(async () => {
    node = await startAnvil({ chainId: 31337 });
    home = tempHome();
    await importAnvilAccount(home, PASSPHRASE, { walletAlias: 'w', accountAlias: 'payer' });
    proxy = createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        setTimeout(() => {
          void fetch(node.url, {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: Buffer.concat(chunks),
          }).then(async (answer) => {
            response.writeHead(answer.status, { 'content-type': 'application/json' });
            response.end(await answer.text());
          });
        }, 1_200);
      });
    });
    await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
    slowUrl = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;
  });
  after(async () => {
    proxy.close();
    await node.stop();
    rmSync(home, { recursive: true, force: true });
  });

  it(
    '`wallet --server "wallet serve" tasks get` once approved: the run completes, once',
    { timeout: 120_000 },
    async () => {
      const passphraseFile = passphraseFileIn(home, PASSPHRASE, 'oneshot-pw');
      const slow = { ...node, url: slowUrl } as AnvilNode;
      const first = await tasksRequester('stdio', { home, node: slow, passphraseFile });
      const before = await transactionsFrom(node, PAYER);
      const taskId = taskOf(
        await first.session.callTool('evm_funds_send', {
          address: 'payer',
          to: RECIPIENT,
          value_wei: String(17n * MILLI),
          network: 'local',
        }),
      );
      const id = approvalIn((await first.session.task(taskId).snapshot()).statusMessage);
      // serve stops (the session left open, as an agent that polls later leaves it: closing it would cancel).
      await first.port.close();
      await decide(home, 'approve', id);
      // One poll from the CLI, which starts `wallet serve` for it and stops it once answered (docs/CLI.md).
      const got = await wallet(
        [
          '--server',
          `"${process.execPath}" "${WALLET_BIN}" serve --passphrase-file ${passphraseFile}`,
          '--env',
          `WALLET_HOME=${home}`,
          '--env',
          `WALLET_EVM_LOCAL_URL=${slowUrl}`,
          'tasks',
          'get',
          taskId,
          '--json',
        ],
        { home },
      );
      assert.equal(got.code, 0, got.stderr);
      assert.equal((JSON.parse(got.stdout) as { status: string }).status, 'completed', got.stdout);
      const second = await tasksRequester('stdio', { home, node: slow, passphraseFile });
      try {
        assert.equal((await second.session.task(taskId).snapshot()).status, 'completed');
        assert.equal(await transactionsFrom(node, PAYER), before + 1n, 'exactly one transaction');
      } finally {
        await second.session.close();
        await second.port.close();
      }
    },
  );
});
