import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { tempHome, wallet } from '../helpers/io.js';
import { TASK_SERVER, WALLET_BIN } from '../helpers/paths.js';

// A server that answers a tool call with a task (the 2026-07-28 tasks extension) when the client
// declares the extension: test/fixtures/task-server.ts, built with the MCP SDK. Its tasks are kept
// in a file, so `wallet tasks …` (a new server process each time) sees the ones made before.
const server = `"${process.execPath}" "${TASK_SERVER}"`;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

let dir: string;
let log: string;
/** `--server` with the server's store and log (a server gets only the environment it is given). */
let at: string[];

before(() => {
  dir = mkdtempSync(join(tmpdir(), 'wallet-tasks-'));
  log = join(dir, 'requests.log');
  at = ['--server', server, '--env', `TASK_SERVER_STORE=${join(dir, 'tasks.json')}`, '--env', `TASK_SERVER_LOG=${log}`];
});
after(() => rmSync(dir, { recursive: true, force: true }));

/** The tasks/* requests the server saw, as `<method> <taskId>` lines. */
const seen = (): string[] => {
  try {
    return readFileSync(log, 'utf8').split('\n').filter(Boolean);
  } catch {
    return [];
  }
};

describe('a tool call answered with a task', () => {
  it('is awaited: status on stderr, the result on stdout when it completes', async () => {
    const { code, stdout, stderr } = await wallet([...at, 'slow-sum', '--a', '2', '--b', '3', '--ms', '400', '--json']);
    assert.equal(code, 0, stderr);
    assert.deepEqual(JSON.parse(stdout), { sum: 5 });
    const id = /^task (\S+): working — Started\.$/m.exec(stderr)?.[1] ?? '';
    assert.match(id, UUID, stderr);
    assert.match(stderr, new RegExp(`^task ${id}: completed$`, 'm'));
    assert.ok(seen().includes(`tasks/get ${id}`), 'the client polled tasks/get');
  });

  it("fails as the task did: the task's JSON-RPC error, exit 1", async () => {
    const { code, stdout, stderr } = await wallet([...at, 'bad-job', '--ms', '100']);
    assert.equal(code, 1);
    assert.equal(stdout, '');
    assert.match(stderr, /task \S+ failed: the job broke on purpose/);
  });

  it('--detach prints the task id and exits; wallet tasks get|result resume it', async () => {
    const detached = await wallet([...at, 'slow-sum', '--a', '4', '--b', '3', '--ms', '8000', '--detach']);
    assert.equal(detached.code, 0, detached.stderr);
    const id = detached.stdout.trim();
    assert.match(id, UUID);
    assert.match(detached.stderr, /'wallet tasks result /);
    // Over stdio the server is the CLI's child: said, as the task survives only a durable server.
    assert.match(detached.stderr, /warning: over stdio the server is this command's child and exits with it/);
    const got = await wallet([...at, 'tasks', 'get', id, '--json']);
    assert.equal(got.code, 0, got.stderr);
    assert.equal((JSON.parse(got.stdout) as { status: string }).status, 'working');
    const result = await wallet([...at, 'tasks', 'result', id, '--json']);
    assert.equal(result.code, 0, result.stderr);
    assert.deepEqual(JSON.parse(result.stdout), { sum: 7 });
    assert.match(result.stderr, new RegExp(`^task ${id}: working`, 'm'));
  });

  it('wallet tasks cancel ends a detached task', async () => {
    const detached = await wallet([...at, 'slow-sum', '--a', '1', '--b', '1', '--ms', '60000', '--detach']);
    const id = detached.stdout.trim();
    const cancelled = await wallet([...at, 'tasks', 'cancel', id, '--json']);
    assert.equal(cancelled.code, 0, cancelled.stderr);
    assert.equal((JSON.parse(cancelled.stdout) as { status: string }).status, 'cancelled');
    assert.ok(seen().includes(`tasks/cancel ${id}`));
    const result = await wallet([...at, 'tasks', 'result', id]);
    assert.equal(result.code, 1);
    assert.match(result.stderr, /was cancelled/);
  });

  it('Ctrl-C cancels the task (tasks/cancel) before exiting 130', async () => {
    const home = tempHome();
    try {
      const child = spawn(process.execPath, [WALLET_BIN, ...at, 'slow-sum', '--a', '1', '--b', '2', '--ms', '60000'], {
        env: { ...process.env, WALLET_HOME: home },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let stderr = '';
      let stdout = '';
      child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
      const started = new Promise<string>((resolve) => {
        child.stderr.on('data', (chunk: Buffer) => {
          stderr += chunk.toString();
          const id = /^task (\S+): working/m.exec(stderr)?.[1];
          if (id) resolve(id);
        });
      });
      const id = await started;
      child.kill('SIGINT');
      const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
      assert.equal(code, 130, stderr);
      assert.equal(stdout, '');
      assert.match(stderr, new RegExp(`interrupted; task ${id} was cancelled`));
      assert.ok(seen().includes(`tasks/cancel ${id}`), seen().join('\n'));
      const got = await wallet([...at, 'tasks', 'get', id, '--json']);
      assert.equal((JSON.parse(got.stdout) as { status: string }).status, 'cancelled');
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  });

  /** Runs a call that becomes a long task, interrupts it with SIGINT once it works; its exit and stderr. */
  async function interrupted(
    extra: string[],
  ): Promise<{ id: string; code: number | null; stdout: string; stderr: string }> {
    const home = tempHome();
    try {
      const child = spawn(
        process.execPath,
        [WALLET_BIN, ...at, ...extra, 'slow-sum', '--a', '1', '--b', '2', '--ms', '60000'],
        { env: { ...process.env, WALLET_HOME: home }, stdio: ['ignore', 'pipe', 'pipe'] },
      );
      let stderr = '';
      let stdout = '';
      child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
      const id = await new Promise<string>((resolve) => {
        child.stderr.on('data', (chunk: Buffer) => {
          stderr += chunk.toString();
          const found = /^task (\S+): working/m.exec(stderr)?.[1];
          if (found) resolve(found);
        });
      });
      child.kill('SIGINT');
      const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
      return { id, code, stdout, stderr };
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  }

  it('Ctrl-C says so when tasks/cancel fails, never that the task was cancelled', async () => {
    const { id, code, stdout, stderr } = await interrupted(['--env', 'TASK_SERVER_CANCEL_FAILS=1']);
    assert.equal(code, 130, stderr);
    assert.equal(stdout, '');
    assert.ok(seen().includes(`tasks/cancel ${id}`), seen().join('\n'));
    assert.match(stderr, new RegExp(`interrupted; cancelling task ${id} failed \\(.*\\): it may still run`));
    assert.doesNotMatch(stderr, /was cancelled/);
  });

  it('cancels the task (tasks/cancel) when the call as a whole times out', async () => {
    // --timeout 2000 (time to start the server on a busy machine): polls keep the call alive, up
    // to 10 times that in all (20 s).
    const started = Date.now();
    const { code, stdout, stderr } = await wallet([
      ...at,
      '--timeout',
      '2000',
      'slow-sum',
      '--a',
      '1',
      '--b',
      '1',
      '--ms',
      '60000',
    ]);
    assert.notEqual(code, 0);
    assert.equal(stdout, '');
    assert.ok(Date.now() - started < 60_000);
    const id = /^task (\S+): working/m.exec(stderr)?.[1] ?? '';
    assert.match(id, UUID, stderr);
    assert.ok(seen().includes(`tasks/cancel ${id}`), seen().join('\n'));
    assert.match(stderr, new RegExp(`task ${id} was cancelled`));
    const got = await wallet([...at, 'tasks', 'get', id, '--json']);
    assert.equal((JSON.parse(got.stdout) as { status: string }).status, 'cancelled');
  });

  it('--detach refuses to print a task id holding control characters', async () => {
    const hostile = 'job\u001b]0;owned\u0007\u001b[2J';
    const { code, stdout, stderr } = await wallet([
      ...at,
      '--env',
      `TASK_SERVER_ID=${hostile}`,
      'slow-sum',
      '--a',
      '1',
      '--b',
      '1',
      '--ms',
      '60000',
      '--detach',
    ]);
    assert.equal(code, 1, stderr);
    assert.equal(stdout, '');
    assert.ok(!stderr.includes('\u001b') && !stderr.includes('\u0007'), 'no raw escape on stderr');
    assert.match(stderr, /task id holds control characters \(job\\x1b\]0;owned\\x07\\x1b\[2J\)/);
  });

  it("tasks get of another server's long task still working: the CLI does not wait out its exit", async () => {
    const detached = await wallet([...at, 'slow-sum', '--a', '1', '--b', '1', '--ms', '600000', '--detach']);
    assert.equal(detached.code, 0, detached.stderr);
    const id = detached.stdout.trim();
    // A server that ignores SIGTERM (a container's PID 1) and exits when its stdin ends: the 5½
    // minutes `wallet serve` may take to finish a payment's run are not waited for here.
    const started = Date.now();
    const got = await wallet([...at, '--env', 'TASK_SERVER_IGNORE_TERM=1', 'tasks', 'get', id, '--json']);
    const took = Date.now() - started;
    assert.equal(got.code, 0, got.stderr);
    assert.equal((JSON.parse(got.stdout) as { status: string }).status, 'working');
    assert.ok(took < 15_000, `the CLI returned in ${took} ms`);
    assert.doesNotMatch(got.stderr, /waiting up to/);
  });

  it('wallet tasks is refused for the built-in server and without a subcommand', async () => {
    const builtIn = await wallet(['tasks', 'get', 'x']);
    assert.equal(builtIn.code, 2);
    assert.match(builtIn.stderr, /tasks are another server's/);
    const unknown = await wallet([...at, 'tasks', 'list']);
    assert.equal(unknown.code, 2);
    assert.match(unknown.stderr, /Unknown tasks subcommand 'list'/);
  });
});

describe('a task over Streamable HTTP (the same fixture, served over HTTP)', () => {
  let child: ReturnType<typeof spawn>;
  let url: string;
  before(async () => {
    child = spawn(process.execPath, [TASK_SERVER, 'http'], {
      env: { ...process.env, TASK_SERVER_STORE: join(dir, 'http-tasks.json'), TASK_SERVER_LOG: log },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    url = await new Promise<string>((resolve, reject) => {
      let out = '';
      child.stdout?.on('data', (chunk: Buffer) => {
        out += chunk.toString();
        const match = /^listening (\S+)$/m.exec(out);
        if (match?.[1]) resolve(match[1]);
      });
      child.once('exit', (code) => reject(new Error(`the task server exited (${String(code)})`)));
    });
  });
  after(() => {
    child.kill('SIGKILL');
  });

  it('is awaited, and --detach / tasks result resume it', async () => {
    const awaited = await wallet(['--url', url, 'slow-sum', '--a', '1', '--b', '9', '--ms', '300', '--json']);
    assert.equal(awaited.code, 0, awaited.stderr);
    assert.deepEqual(JSON.parse(awaited.stdout), { sum: 10 });
    assert.match(awaited.stderr, /^task \S+: completed$/m);
    const detached = await wallet(['--url', url, 'slow-sum', '--a', '5', '--b', '5', '--ms', '1500', '--detach']);
    const id = detached.stdout.trim();
    assert.match(id, UUID, detached.stderr);
    const result = await wallet(['--url', url, 'tasks', 'result', id, '--json']);
    assert.equal(result.code, 0, result.stderr);
    assert.deepEqual(JSON.parse(result.stdout), { sum: 10 });
  });
});
