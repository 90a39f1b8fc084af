/**
 * The approval tasks file (src/domain/policy/tasks.ts) on its own: a task is its session's (found,
 * advanced and deduplicated only there), the file is the owner's (0600) and never holds a call's
 * arguments (those wait in an owner-only file beside it, only while their task waits), a session's
 * open tasks are bounded, and a full file makes room from ended tasks, never from open ones, so
 * churn cannot fill it.
 */
import assert from 'node:assert/strict';
import { existsSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { after, describe, it } from 'node:test';
import { WalletError } from '../../src/domain/errors.js';
import { TaskStore } from '../../src/domain/policy/tasks.js';
import { tempHome } from '../helpers/io.js';

const session = (letter: string) => letter.repeat(64);
/** `n` in the ids' base32 letters, `width` of them. */
const base32 = (n: number, width: number) =>
  [...n.toString(32).padStart(width, '0')]
    .map((digit) => 'abcdefghijklmnopqrstuvwxyz234567'[parseInt(digit, 32)])
    .join('');
const approval = (n: number) => `ap-${base32(n, 10)}`;

describe('the approval tasks file', () => {
  const homes: string[] = [];
  const store = () => {
    const home = tempHome();
    homes.push(home);
    return new TaskStore(home);
  };
  after(() => homes.forEach((home) => rmSync(home, { recursive: true, force: true })));
  const fields = (who: string, n: number) => ({
    session: session(who),
    approval: approval(n),
    digest: `digest-of-call-${n}`.padEnd(43, 'x'),
    tool: 'evm_funds_send',
    message: 'waiting',
    pid: process.pid,
  });

  it('is bound to its session: deduplicated, found and changed only there; 0600; no arguments', async () => {
    const tasks = store();
    const mine = await tasks.create(fields('a', 1));
    assert.equal((await tasks.create(fields('a', 1))).id, mine.id, 'the same session asking again: the same task');
    const theirs = await tasks.create(fields('b', 1));
    assert.notEqual(theirs.id, mine.id, "another session is never handed this one's task");
    assert.equal(await tasks.get(mine.id, session('b')), undefined);
    assert.equal(await tasks.advance(mine.id, session('b'), () => Promise.resolve({ state: 'cancelled' })), undefined);
    assert.equal((await tasks.get(mine.id, session('a')))?.state, 'working');
    assert.equal(statSync(tasks.path).mode & 0o777, 0o600);
    assert.doesNotMatch(readFileSync(tasks.path, 'utf8'), /arguments|result/);
  });

  it("bounds a session's open tasks; another session still gets one", async () => {
    const tasks = store();
    for (let n = 0; n < 50; n++) await tasks.create(fields('a', n));
    await assert.rejects(
      () => tasks.create(fields('a', 50)),
      (error: unknown) =>
        error instanceof WalletError &&
        error.code === 'POLICY_VIOLATION' &&
        /50 approval tasks open/.test(error.message),
    );
    assert.equal((await tasks.create(fields('b', 50))).state, 'working');
  });

  it('a full file makes room from ended tasks, oldest first, never from open ones', async () => {
    const tasks = store();
    const time = (n: number) => new Date(Date.now() - (1000 - n) * 1000).toISOString();
    // 499 ended tasks of many sessions and one open one: the file is full.
    const kept = Array.from({ length: 500 }, (_, n) => ({
      id: `tk-${base32(n, 26)}`,
      ...fields(String.fromCharCode(97 + (n % 6)), n),
      state: n === 0 ? 'working' : 'completed',
      created: time(n),
      updated: time(n),
    }));
    writeFileSync(tasks.path, JSON.stringify({ format: 'wallet-approval-tasks', version: 2, tasks: kept }), {
      mode: 0o600,
    });
    const fresh = await tasks.create(fields('f', 600));
    const ids = (JSON.parse(readFileSync(tasks.path, 'utf8')) as { tasks: { id: string }[] }).tasks.map(
      (task) => task.id,
    );
    assert.equal(ids.length, 500);
    assert.ok(ids.includes(fresh.id));
    assert.ok(ids.includes(kept[0]?.id ?? ''), 'the open task (the oldest) is kept');
    assert.ok(!ids.includes(kept[1]?.id ?? ''), 'the oldest ended task made room');
  });

  it('a version 1 file (with arguments) is read as no tasks and replaced at the next change', async () => {
    const tasks = store();
    writeFileSync(
      tasks.path,
      JSON.stringify({ format: 'wallet-approval-tasks', version: 1, tasks: [{ arguments: { secret_url: 'x' } }] }),
      { mode: 0o600 },
    );
    await tasks.create(fields('a', 1));
    const text = readFileSync(tasks.path, 'utf8');
    assert.doesNotMatch(text, /secret_url/);
    assert.match(text, /"version": 2/);
  });

  it('keeps a waiting call owner-only beside the file, only while it waits; a result while its task is kept', async () => {
    const tasks = store();
    const callsPath = join(dirname(tasks.path), 'approval-task-calls.json');
    const call = { tool: 'evm_funds_send', arguments: { to: '0xrecipient', value_wei: '5' } };
    const task = await tasks.create(fields('a', 1));
    assert.equal(await tasks.keepCall(task.id, call), true);
    assert.equal(statSync(callsPath).mode & 0o777, 0o600);
    assert.deepEqual(await tasks.call(task.id), call);
    assert.doesNotMatch(readFileSync(tasks.path, 'utf8'), /0xrecipient|value_wei/, 'never in the tasks file');
    // Its run starts: the call leaves the disk (the file, then empty, with it).
    await tasks.advance(task.id, session('a'), () => Promise.resolve({ state: 'running' }));
    assert.equal(await tasks.call(task.id), undefined);
    assert.equal(existsSync(callsPath), false);
    await tasks.keepResult(task.id, { sent: true, hash: '0x01' });
    await tasks.advance(task.id, session('a'), () => Promise.resolve({ state: 'completed' }));
    assert.deepEqual(await tasks.result(task.id), { sent: true, hash: '0x01' });
    assert.equal(await tasks.keepCall(task.id, call), false, "an ended task's call is never kept");
    // Failed or cancelled: its call goes at once.
    for (const state of ['failed', 'cancelled'] as const) {
      const other = await tasks.create(fields('a', state === 'failed' ? 2 : 3));
      assert.equal(await tasks.keepCall(other.id, call), true);
      await tasks.advance(other.id, session('a'), () => Promise.resolve({ state }));
      assert.equal(await tasks.call(other.id), undefined);
    }
    assert.doesNotMatch(readFileSync(callsPath, 'utf8'), /0xrecipient|value_wei/);
    assert.match(readFileSync(callsPath, 'utf8'), /0x01/, 'the result stays while its task is kept');
  });

  it('a damaged calls file fails a change before its step runs: nothing taken, nothing written', async () => {
    const tasks = store();
    const callsPath = join(dirname(tasks.path), 'approval-task-calls.json');
    const task = await tasks.create(fields('a', 1));
    const before = readFileSync(tasks.path, 'utf8');
    writeFileSync(callsPath, '{"format": "wallet-approval-task-calls", "version": 1, "calls": {', { mode: 0o600 });
    // The step is where a poll takes the task's approval: it must not run when the change cannot be written whole.
    let stepped = false;
    await assert.rejects(
      () =>
        tasks.advance(task.id, session('a'), () => {
          stepped = true;
          return Promise.resolve({ state: 'running' });
        }),
      (error: unknown) =>
        error instanceof WalletError &&
        error.code === 'POLICY_VIOLATION' &&
        /approval-task-calls\.json/.test(error.message),
    );
    assert.equal(stepped, false, 'no approval is taken for a change that fails');
    assert.equal(readFileSync(tasks.path, 'utf8'), before, 'the task is left as it was');
    assert.equal((await tasks.get(task.id, session('a')))?.state, 'working');
  });

  it('drops a waiting call once no approval can run it any more (30 minutes)', async () => {
    const tasks = store();
    const callsPath = join(dirname(tasks.path), 'approval-task-calls.json');
    const old = new Date(Date.now() - 31 * 60_000).toISOString();
    const stale = { id: `tk-${base32(1, 26)}`, ...fields('a', 1), state: 'working', created: old, updated: old };
    writeFileSync(tasks.path, JSON.stringify({ format: 'wallet-approval-tasks', version: 2, tasks: [stale] }), {
      mode: 0o600,
    });
    const call = { tool: 'evm_funds_send', arguments: { to: '0xstale' } };
    writeFileSync(
      callsPath,
      JSON.stringify({ format: 'wallet-approval-task-calls', version: 1, calls: { [stale.id]: call }, results: {} }),
      { mode: 0o600 },
    );
    assert.deepEqual(await tasks.call(stale.id), call);
    // Any change of the tasks prunes it.
    const fresh = await tasks.create(fields('a', 2));
    assert.equal(await tasks.call(stale.id), undefined);
    assert.equal(await tasks.keepCall(fresh.id, { tool: 'evm_funds_send', arguments: {} }), true);
    assert.doesNotMatch(readFileSync(callsPath, 'utf8'), /0xstale/);
  });
});
