/**
 * `wallet serve` stopping while a task's approved run is under way (src/mcp/tasks.ts,
 * finishTaskRuns): a one-shot client polls once, the poll starts the run and answers `working`
 * after its 20 s, and the client stops serve (end of stdin over stdio, SIGTERM over HTTP); serve
 * waits for the run, which completes: one transaction, the task `completed`, read by a new serve.
 * The CLI's own one-shot `tasks get` lets it finish too. A second SIGTERM cuts the run at once and
 * says so. anvil stands behind a proxy that holds each
 * `eth_sendRawTransaction` 22 s, so a run outlasts the poll's wait.
 */
import assert from 'node:assert/strict';
import { readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { JsonValue } from '@modelcontextprotocol/ext-tasks/core';
import { ERROR_META_KEY, type ToolErrorMeta } from '../../src/shared/protocol-meta.js';
import { startAnvil, type AnvilNode } from '../helpers/anvil.js';
import { passphraseFileIn, tempHome, wallet } from '../helpers/io.js';
import { importAnvilAccount } from '../helpers/mcp.js';
import { WALLET_BIN } from '../helpers/paths.js';
import {
  approvalIn,
  requester,
  type StdioPort,
  taskOf,
  transactionsFrom,
  type Transport,
} from '../helpers/tasks-requester.js';

const PASSPHRASE = 'tasks stop passphrase';
const RECIPIENT = '0x90F79bf6EB2c4f870365E785982E1f101E93b906';
const PAYER = '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266';
const MILLI = 10n ** 15n;
/** How long the proxy holds a broadcast: past the 20 s a poll waits for the run it starts. */
const BROADCAST_DELAY_MS = 22_000;

/** `wallet approvals approve <id>` in the in-process CLI on a fake terminal answering y. */
async function approve(home: string, id: string): Promise<void> {
  const answered = await wallet(['approvals', 'approve', id], { home, tty: true, stdin: 'y\n' });
  assert.equal(answered.code, 0, `${answered.stdout}\n${answered.stderr}`);
}

/** Resolves once `check` holds (polled every 100 ms), or fails after `ms`. */
async function until(check: () => boolean, what: string, ms = 30_000): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) assert.fail(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

describe('serve stopping finishes the task runs it started', () => {
  let node: AnvilNode;
  let home: string;
  let proxy: Server;
  let slow: AnvilNode;
  const held = new Set<NodeJS.Timeout>();

  before(async () => {
    node = await startAnvil({ chainId: 31337 });
    home = tempHome();
    await importAnvilAccount(home, PASSPHRASE, { walletAlias: 'w', accountAlias: 'payer' });
    proxy = createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        const body = Buffer.concat(chunks);
        const forward = (): void => {
          fetch(node.url, { method: 'POST', headers: { 'content-type': 'application/json' }, body })
            .then(async (answer) => {
              response.writeHead(answer.status, { 'content-type': 'application/json' });
              response.end(await answer.text());
            })
            .catch(() => response.destroy());
        };
        if (!body.toString().includes('eth_sendRawTransaction')) return forward();
        const timer = setTimeout(() => {
          held.delete(timer);
          forward();
        }, BROADCAST_DELAY_MS);
        held.add(timer);
      });
    });
    await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
    slow = { ...node, url: `http://127.0.0.1:${(proxy.address() as AddressInfo).port}` } as AnvilNode;
  });
  after(async () => {
    for (const timer of held) clearTimeout(timer);
    proxy.closeAllConnections();
    proxy.close();
    await node.stop();
    rmSync(home, { recursive: true, force: true });
  });

  /** The task's state in the tasks file (`running` while a run is under way, or left cut). */
  const stateOf = (taskId: string): string | undefined => {
    const file = JSON.parse(readFileSync(join(home, 'approval-tasks.json'), 'utf8')) as {
      tasks: { id: string; state: string }[];
    };
    return file.tasks.find((task) => task.id === taskId)?.state;
  };

  const pay = (value: bigint): Record<string, JsonValue> => ({
    address: 'payer',
    to: RECIPIENT,
    value_wei: value.toString(),
    network: 'local',
  });

  for (const transport of ['stdio', 'http'] as const satisfies readonly Transport[]) {
    it(
      `${transport}: polled once ("working"), then stopped: the run completes, once, and a new serve reads it`,
      { timeout: 120_000 },
      async () => {
        const passphraseFile = passphraseFileIn(home, PASSPHRASE, `${transport}-pw`);
        const first = await requester(transport, { home, node: slow, passphraseFile });
        const before = await transactionsFrom(node, PAYER);
        const execution = await first.session.callTool(
          'evm_funds_send',
          pay((transport === 'stdio' ? 5n : 6n) * MILLI),
        );
        const taskId = taskOf(execution);
        await approve(home, approvalIn((await first.session.task(taskId).snapshot()).statusMessage));
        // The one poll: it takes the approval, starts the run and answers after its 20 s wait.
        const polled = await first.session.task(taskId).snapshot();
        assert.equal(polled.status, 'working', JSON.stringify(polled));
        assert.equal(await transactionsFrom(node, PAYER), before, 'the broadcast is still held');
        // The client leaves (the session is not closed: that would cancel): stdin ends, or SIGTERM.
        const stopping = Date.now();
        await first.port.close();
        const waited = Date.now() - stopping;
        // The run ended and was recorded before serve exited (cut, it would be left `running`).
        assert.equal(stateOf(taskId), 'completed');
        assert.equal(await transactionsFrom(node, PAYER), before + 1n, 'exactly one transaction');
        assert.ok(waited > 500, `serve stayed for the run (${waited} ms)`);
        assert.match(
          first.port.stderr(),
          /waiting for 1 task run\(s\) under way to finish \(evm_funds_send; at most 300 s\)/,
        );
        assert.doesNotMatch(first.port.stderr(), /run\(s\) cut/);
        // Another serve answers the task with the run's result, and sends nothing again.
        const second = await requester(transport, { home, node: slow, passphraseFile });
        try {
          const raw = await second.port.dispatch({ method: 'tasks/get', params: { taskId } });
          const task = (
            raw as unknown as {
              result: { status: string; result?: { isError?: boolean; structuredContent?: Record<string, unknown> } };
            }
          ).result;
          assert.equal(task.status, 'completed', JSON.stringify(raw));
          assert.equal(task.result?.isError, undefined, JSON.stringify(raw));
          assert.equal(task.result?.structuredContent?.['sent'], true, JSON.stringify(raw));
          assert.equal(await transactionsFrom(node, PAYER), before + 1n);
        } finally {
          await second.port.close();
        }
      },
    );
  }

  it(
    '`wallet --server "wallet serve" tasks get` answered "working": the CLI lets serve finish the run',
    { timeout: 120_000 },
    async () => {
      const passphraseFile = passphraseFileIn(home, PASSPHRASE, 'cli-pw');
      const first = await requester('stdio', { home, node: slow, passphraseFile });
      const before = await transactionsFrom(node, PAYER);
      const taskId = taskOf(await first.session.callTool('evm_funds_send', pay(8n * MILLI)));
      const id = approvalIn((await first.session.task(taskId).snapshot()).statusMessage);
      await first.port.close();
      await approve(home, id);
      // One poll from the CLI, which starts `wallet serve` for it and stops it once answered
      // (no --debug: the server's own stderr is not shown, the CLI's word on its wait is).
      const got = await wallet(
        [
          '--server',
          `"${process.execPath}" "${WALLET_BIN}" serve --passphrase-file ${passphraseFile}`,
          '--env',
          `WALLET_HOME=${home}`,
          '--env',
          `WALLET_EVM_LOCAL_URL=${slow.url}`,
          'tasks',
          'get',
          taskId,
          '--json',
        ],
        { home },
      );
      assert.equal(got.code, 0, got.stderr);
      assert.equal((JSON.parse(got.stdout) as { status: string }).status, 'working', got.stdout);
      // The CLI returned once serve had exited: the run had ended, recorded, never cut.
      assert.equal(stateOf(taskId), 'completed', got.stderr);
      // It printed its answer, then waited for serve: it said so, rather than hang without a word.
      assert.match(got.stderr, /waiting up to 330 s for the server \(pid \d+\) to finish a task it said is working/);
      assert.doesNotMatch(got.stderr, /run\(s\) cut/);
      assert.equal(await transactionsFrom(node, PAYER), before + 1n, 'exactly one transaction');
    },
  );

  it(
    'a session polls a running task, then another that failed: its close still lets serve finish the run',
    { timeout: 120_000 },
    async () => {
      // The daemon's kept session (src/cli/daemon/pool.ts) is polled by many runs: the last poll
      // being of another task that ended must not make close() cut the one still running.
      const passphraseFile = passphraseFileIn(home, PASSPHRASE, 'two-pw');
      const first = await requester('stdio', { home, node: slow, passphraseFile });
      const before = await transactionsFrom(node, PAYER);
      const running = taskOf(await first.session.callTool('evm_funds_send', pay(10n * MILLI)));
      const denied = taskOf(await first.session.callTool('evm_funds_send', pay(11n * MILLI)));
      const yes = approvalIn((await first.session.task(running).snapshot()).statusMessage);
      const no = approvalIn((await first.session.task(denied).snapshot()).statusMessage);
      await first.port.close();
      await approve(home, yes);
      const refused = await wallet(['approvals', 'deny', no], { home });
      assert.equal(refused.code, 0, refused.stderr);
      const { openStdioSession } = await import('../../src/mcp/client.js');
      const session = await openStdioSession({
        command: process.execPath,
        args: [WALLET_BIN, 'serve', '--passphrase-file', passphraseFile],
        env: { WALLET_HOME: home, WALLET_EVM_LOCAL_URL: slow.url },
        stderr: 'capture',
      });
      assert.equal((await session.getTask(running)).status, 'working');
      assert.equal((await session.getTask(denied)).status, 'failed');
      await session.close();
      assert.equal(stateOf(running), 'completed', 'the run was let finish, not cut');
      assert.equal(await transactionsFrom(node, PAYER), before + 1n, 'exactly one transaction');
    },
  );

  it(
    "Ctrl-C's SIGINT to the process group, then the CLI's SIGTERM: one stop, the run completes",
    { timeout: 120_000 },
    async () => {
      const passphraseFile = passphraseFileIn(home, PASSPHRASE, 'ctrl-c-pw');
      const first = await requester('stdio', { home, node: slow, passphraseFile });
      const port = first.port as StdioPort;
      const before = await transactionsFrom(node, PAYER);
      const taskId = taskOf(await first.session.callTool('evm_funds_send', pay(9n * MILLI)));
      await approve(home, approvalIn((await first.session.task(taskId).snapshot()).statusMessage));
      void port.dispatch({ method: 'tasks/get', params: { taskId } });
      await until(() => stateOf(taskId) === 'running', 'the run to start');
      // Ctrl-C on the terminal reaches the CLI and the serve it spawned (same process group); the
      // CLI, its poll having said `working`, then sends its one SIGTERM (client.ts, exitPatiently).
      port.signal('SIGINT');
      await until(() => /waiting for 1 task run\(s\)/.test(port.stderr()), 'the waiting line');
      port.signal('SIGTERM');
      assert.equal(await port.exited(), 0, port.stderr());
      assert.doesNotMatch(port.stderr(), /run\(s\) cut/);
      assert.equal(stateOf(taskId), 'completed');
      assert.equal(await transactionsFrom(node, PAYER), before + 1n, 'exactly one transaction');
    },
  );

  it(
    'a second SIGTERM cuts the run at once and says so; a new serve fails the task as interrupted',
    { timeout: 120_000 },
    async () => {
      const passphraseFile = passphraseFileIn(home, PASSPHRASE, 'cut-pw');
      const first = await requester('stdio', { home, node: slow, passphraseFile });
      const port = first.port as StdioPort;
      const execution = await first.session.callTool('evm_funds_send', pay(7n * MILLI));
      const taskId = taskOf(execution);
      await approve(home, approvalIn((await first.session.task(taskId).snapshot()).statusMessage));
      // The poll starts the run (left unanswered: serve dies before its 20 s).
      void port.dispatch({ method: 'tasks/get', params: { taskId } });
      await until(() => stateOf(taskId) === 'running', 'the run to start');
      port.signal('SIGTERM');
      // SIGTERM gives the poll in flight 5 s, then waits for the run, saying so.
      await until(() => /waiting for 1 task run\(s\)/.test(port.stderr()), 'the waiting line');
      const cutAt = Date.now();
      port.signal('SIGTERM');
      assert.equal(await port.exited(), 130);
      assert.ok(Date.now() - cutAt < 5_000, 'the second SIGTERM stops it at once');
      assert.match(port.stderr(), /stopped at once by a second SIGTERM: 1 task run\(s\) cut/);
      // The run was cut mid-broadcast: a new serve fails its task as interrupted, never runs it again.
      const second = await requester('stdio', { home, node: slow, passphraseFile });
      try {
        const raw = await second.port.dispatch({ method: 'tasks/get', params: { taskId } });
        const task = (raw as unknown as { result: { status: string; error?: { data: Record<string, ToolErrorMeta> } } })
          .result;
        assert.equal(task.status, 'failed', JSON.stringify(raw));
        assert.equal(task.error?.data[ERROR_META_KEY]?.code, 'INTERNAL');
        assert.match(task.error?.data[ERROR_META_KEY]?.message ?? '', /interrupted/);
      } finally {
        await second.port.close();
      }
    },
  );
});
