/**
 * Kept-alive servers (issue 39): a saved server marked keep_alive is called through the daemon
 * (src/cli/daemon/), which the first call starts and which keeps the server running. Everything
 * here spawns the real `bin/wallet.js` (the thin client runs before the CLI's bundle) against real
 * servers: the fixture server, `wallet serve` itself and server-everything. Another user's access
 * to the socket cannot be tried as one user; the modes it rests on (0600 socket in a 0700 folder)
 * are checked instead.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import {
  chmodSync,
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { createConnection, createServer } from 'node:net';
import { basename, dirname, join } from 'node:path';
import { describe, it } from 'node:test';
import { setTimeout as delay } from 'node:timers/promises';
import { startBearerProxy, startEverythingHttp } from '../helpers/everything-http.js';
import { CompletionValues } from '../../src/cli/daemon/completion-values.js';
import { loadServers, rememberServers } from '../../src/cli/servers/config.js';
import { tempHome } from '../helpers/io.js';
import {
  cleanUp,
  daemonIs,
  homeWithFixture,
  keepAlive,
  starts,
  status,
  wallet,
  walletAsync,
  type Run,
} from '../helpers/daemon.js';
import { EVERYTHING_SERVER, ROOT, WALLET_BIN } from '../helpers/paths.js';

/**
 * The wallet as a package installs it (bin/, package.json and the bundles of dist/ with their
 * records), copied to a folder of its own: a test may rebuild it "in place" without touching the
 * repository's. Without the code caches: V8 checks a cache against its source's length only.
 */
function installedCopy(): { bin: string; dist: string; remove: () => void } {
  const folder = mkdtempSync(join(tmpdir(), 'wallet-install-'));
  cpSync(join(ROOT, 'bin'), join(folder, 'bin'), { recursive: true });
  cpSync(join(ROOT, 'package.json'), join(folder, 'package.json'));
  mkdirSync(join(folder, 'dist'));
  for (const file of readdirSync(join(ROOT, 'dist'))) {
    if (/\.(cjs|json)$/.test(file)) cpSync(join(ROOT, 'dist', file), join(folder, 'dist', file));
  }
  return {
    bin: join(folder, 'bin', 'wallet.js'),
    dist: join(folder, 'dist'),
    remove: () => rmSync(folder, { recursive: true, force: true }),
  };
}

/**
 * util-linux's `script`, which runs a command on a pseudo-terminal (as test/e2e/binary.test.ts
 * uses it): the questions' test skips, saying why, where it is missing or gives no terminal.
 */
const SCRIPT = ['/usr/bin/script', '/bin/script'].find((path) => existsSync(path));
const NO_TERMINAL = ((): string | false => {
  if (!SCRIPT) return 'script (util-linux) is not installed here: no pseudo-terminal to run on';
  const probe = spawnSync(SCRIPT, ['-qec', 'test -t 0 && test -t 2', '/dev/null'], {
    env: { ...process.env, SHELL: '/bin/sh' },
    encoding: 'utf8',
    timeout: 10_000,
  });
  return probe.status === 0 ? false : `${SCRIPT} -qec gave no terminal here (exit ${String(probe.status)})`;
})();
if (NO_TERMINAL) process.stderr.write(`SKIPPED: a kept-alive server's questions on a terminal: ${NO_TERMINAL}\n`);

/**
 * `wallet <args>` on a terminal (a pseudo-terminal made by `script`, whose stdin is `typed`):
 * what the terminal showed (stdout and stderr together, the typed lines echoed), and the exit code.
 */
function walletOnTerminal(home: string, args: string[], typed: string): { code: number | null; shown: string } {
  const command = [process.execPath, WALLET_BIN, ...args].map((word) => `'${word.replace(/'/g, `'\\''`)}'`).join(' ');
  const env: NodeJS.ProcessEnv = {
    ...Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith('WALLET_'))),
    SHELL: '/bin/sh',
    WALLET_HOME: home,
    NO_COLOR: '1',
  };
  const run = spawnSync(SCRIPT ?? 'script', ['-qec', command, '/dev/null'], {
    env,
    input: typed,
    encoding: 'utf8',
    timeout: 60_000,
  });
  return { code: run.status, shown: run.stdout.replace(/\r\n/g, '\n') };
}

/** Command lines whose output and exit code must not depend on the path the call takes. */
const LINES: Record<string, string[]> = {
  'a call, --json': ['shapes-echo', '--id', '7', '--json'],
  'a call, rendered': ['shapes-echo', '--id', '8', '--tags', 'a', '--tags', 'b'],
  'a tool error (exit 1)': ['always-fails-now'],
  'an unknown command (exit 2)': ['no-such-command'],
  'a bad flag (exit 2)': ['shapes-echo', '--id', 'not-a-number'],
  'a destructive call without a terminal or --yes (exit 2)': ['funds-burn-now', '--amount', '5'],
  'a destructive call with --yes': ['funds-burn-now', '--amount', '5', '--yes', '--json'],
  'the tool list': ['tools'],
  'a command help': ['shapes-echo', '--help'],
};

describe('kept-alive servers: the daemon', () => {
  it('answers warm calls with the bytes and exit codes of direct calls, on one server process', async () => {
    const { home, events } = homeWithFixture();
    try {
      const cold = Object.fromEntries(
        Object.entries(LINES).map(([name, args]) => [name, wallet(home, ['--server', 'fx', ...args])]),
      );
      keepAlive(home, 'fx');
      // The first call finds no daemon: it starts one for the next calls and is made directly.
      assert.deepEqual(wallet(home, ['--server', 'fx', ...(LINES['a call, --json'] ?? [])]), cold['a call, --json']);
      await daemonIs(home, true);
      const before = starts(events).length;
      for (const [name, args] of Object.entries(LINES)) {
        assert.deepEqual(wallet(home, ['--server', 'fx', ...args]), cold[name], name);
      }
      const after = status(home);
      assert.equal(after.servers?.[0]?.name, 'fx');
      assert.ok((after.servers?.[0]?.calls ?? 0) >= 5, `calls went through the daemon: ${JSON.stringify(after)}`);
      assert.equal(starts(events).length, before + 1, 'every warm call spoke to one server process');
    } finally {
      await cleanUp(home);
    }
  });

  it('says under --debug that the daemon answered, and where the server writes its stderr', async () => {
    const { home } = homeWithFixture();
    try {
      keepAlive(home, 'fx');
      wallet(home, ['--server', 'fx', 'shapes-echo', '--id', '1']);
      await daemonIs(home, true);
      const run = wallet(home, ['--server', 'fx', 'shapes-echo', '--id', '1', '--debug']);
      assert.equal(run.code, 0, run.stderr);
      const log = join(home, 'daemon', 'fx.log');
      assert.ok(run.stderr.includes(`answered by the daemon`), run.stderr);
      assert.ok(run.stderr.includes(log), run.stderr);
      assert.ok(existsSync(log));
    } finally {
      await cleanUp(home);
    }
  });

  it('lists its servers, keeps its socket owner-only, and ends with them on stop', async () => {
    const { home, events } = homeWithFixture();
    try {
      assert.equal(status(home).running, false);
      keepAlive(home, 'fx');
      wallet(home, ['--server', 'fx', 'shapes-echo', '--id', '1']);
      await daemonIs(home, true);
      assert.equal(wallet(home, ['--server', 'fx', 'shapes-echo', '--id', '2']).code, 0);
      const running = status(home);
      assert.deepEqual(
        running.servers?.map((server) => server.name),
        ['fx'],
      );
      assert.equal(statSync(join(home, 'daemon')).mode & 0o777, 0o700);
      assert.equal(statSync(join(home, 'daemon', 'daemon.sock')).mode & 0o777, 0o600);
      assert.equal(statSync(join(home, 'daemon', 'fx.log')).mode & 0o777, 0o600);
      const text = wallet(home, ['daemon', 'status']);
      assert.match(text.stdout, new RegExp(`Daemon ${running.pid} .*running since`));
      assert.match(text.stdout, /fx \(stdio\): \d+ calls?/);
      const stopped = wallet(home, ['daemon', 'stop']);
      assert.equal(stopped.stdout, 'Stopped the daemon and the servers it kept.\n');
      // Said once it has ended: its process is gone, its socket removed, nothing left to wait for.
      assert.throws(() => process.kill(running.pid ?? 0, 0), { code: 'ESRCH' });
      assert.equal(existsSync(join(home, 'daemon', 'daemon.sock')), false);
      await daemonIs(home, false);
      // The server it kept got its stdin closed.
      const deadline = Date.now() + 10_000;
      while (!readFileSync(events, 'utf8').includes('stdin-end') && Date.now() < deadline) await delay(50);
      assert.match(readFileSync(events, 'utf8'), /stdin-end/);
      assert.equal(wallet(home, ['daemon', 'stop']).stdout, 'No daemon was running.\n');
    } finally {
      await cleanUp(home);
    }
  });

  it('ends after daemon.idle_minutes without a call', async () => {
    const { home } = homeWithFixture();
    try {
      writeFileSync(join(home, 'config.json'), JSON.stringify({ daemon: { idle_minutes: 0.02 } }), { mode: 0o600 });
      keepAlive(home, 'fx');
      wallet(home, ['--server', 'fx', 'shapes-echo', '--id', '1']);
      // Its own log says when it started and why it stopped: 1.2 s is too short to be sure a
      // status poll (a process of its own, slow on a loaded machine) sees it running between.
      const log = join(home, 'daemon', 'daemon.log');
      const deadline = Date.now() + 30_000;
      const stopped = /stopping: no call for 0\.02 minutes/;
      while (!(existsSync(log) && stopped.test(readFileSync(log, 'utf8')))) {
        if (Date.now() > deadline)
          assert.fail(
            `the daemon did not stop for idleness: ${existsSync(log) ? readFileSync(log, 'utf8') : 'no log'}`,
          );
        await delay(100);
      }
      assert.match(readFileSync(log, 'utf8'), /listening on .* \(ends after 0\.02 idle minutes\)/);
      await daemonIs(home, false);
    } finally {
      await cleanUp(home);
    }
  });

  it('survives kill -9: the next call is made directly and starts a new daemon', async () => {
    const { home } = homeWithFixture();
    try {
      keepAlive(home, 'fx');
      const expected = wallet(home, ['--server', 'fx', 'shapes-echo', '--id', '3', '--json']);
      assert.equal(expected.code, 0, expected.stderr);
      const first = await daemonIs(home, true);
      process.kill(first.pid ?? 0, 'SIGKILL');
      // Its socket is left behind, with nobody listening.
      assert.deepEqual(wallet(home, ['--server', 'fx', 'shapes-echo', '--id', '3', '--json']), expected);
      const second = await daemonIs(home, true);
      assert.notEqual(second.pid, first.pid);
      assert.deepEqual(wallet(home, ['--server', 'fx', 'shapes-echo', '--id', '3', '--json']), expected);
      assert.equal(status(home).servers?.[0]?.calls, 1);
    } finally {
      await cleanUp(home);
    }
  });

  it('hands a call that reads stdin back to the client, which makes it', async () => {
    const { home } = homeWithFixture();
    try {
      keepAlive(home, 'fx');
      wallet(home, ['--server', 'fx', 'shapes-echo', '--id', '1']);
      await daemonIs(home, true);
      const run = wallet(home, ['--server', 'fx', 'shapes-echo', '--args-json', '-', '--json'], '{"id": 41}');
      assert.equal(run.code, 0, run.stderr);
      assert.equal((JSON.parse(run.stdout) as { received: { id: number } }).received.id, 41);
      // Made directly: the daemon's session was not used for it.
      assert.equal(status(home).servers?.[0]?.calls ?? 0, 0);
    } finally {
      await cleanUp(home);
    }
  });

  it('opens a new session after its server died, and follows a tool list the server changed', async () => {
    const { home, events } = homeWithFixture();
    try {
      keepAlive(home, 'fx');
      wallet(home, ['--server', 'fx', 'shapes-echo', '--id', '1']);
      await daemonIs(home, true);
      assert.equal(wallet(home, ['--server', 'fx', 'shapes-echo', '--id', '1']).code, 0);
      const died = wallet(home, ['--server', 'fx', 'process-die-now']);
      assert.equal(died.code, 3, died.stderr);
      const before = starts(events).length;
      assert.equal(wallet(home, ['--server', 'fx', 'shapes-echo', '--id', '2']).code, 0);
      assert.equal(starts(events).length, before + 1, 'a new server process');
      assert.equal(wallet(home, ['--server', 'fx', 'tools-grow-now']).code, 0);
      const grown = wallet(home, ['--server', 'fx', 'grown-tool-now']);
      assert.equal(grown.code, 0, grown.stderr);
    } finally {
      await cleanUp(home);
    }
  });

  it("keeps an HTTP session, its header read from each call's environment", async () => {
    const everything = await startEverythingHttp();
    const proxy = await startBearerProxy(everything.url, 'right-token');
    const home = tempHome();
    try {
      const added = wallet(home, [
        'servers',
        'add',
        'web',
        '--url',
        proxy.url,
        '--header',
        'Authorization: Bearer ${TOKEN}',
        '--keep-alive',
      ]);
      assert.equal(added.code, 0, added.stderr);
      const call = ['--server', 'web', 'echo', '--message', 'over http'];
      const first = await walletAsync(home, call, { TOKEN: 'right-token' });
      assert.deepEqual(first, { code: 0, stdout: 'Echo: over http\n', stderr: '' });
      await daemonIs(home, true);
      assert.deepEqual(await walletAsync(home, call, { TOKEN: 'right-token' }), first);
      assert.deepEqual(await walletAsync(home, call, { TOKEN: 'right-token' }), first);
      assert.equal(status(home).servers?.[0]?.calls, 2);
      // Another token in the caller's environment is another session, which the server refuses.
      const wrong = await walletAsync(home, call, { TOKEN: 'wrong-token' });
      assert.equal(wrong.code, 3, wrong.stderr);
      assert.ok(proxy.seen.includes('Bearer wrong-token'));
      assert.deepEqual(await walletAsync(home, call, { TOKEN: 'right-token' }), first);
    } finally {
      await cleanUp(home);
      await proxy.stop();
      await everything.stop();
    }
  });

  it("gives a server its caller's environment, and keeps no caller's environment for the next", async () => {
    const { home } = homeWithFixture();
    const read = async (env: Record<string, string>): Promise<string> => {
      const run = await walletAsync(home, ['--server', 'fx', 'env-get-now', '--name', 'CALLER_SECRET', '--json'], env);
      assert.equal(run.code, 0, run.stderr);
      return run.stdout;
    };
    try {
      const cold = { unset: await read({}), one: await read({ CALLER_SECRET: 'one' }) };
      assert.notEqual(cold.unset, cold.one);
      keepAlive(home, 'fx');
      // The first caller starts the daemon, with a secret in its environment.
      assert.equal(
        await read({ CALLER_SECRET: 'first-callers-secret' }),
        cold.unset.replace('(unset)', 'first-callers-secret'),
      );
      const daemon = await daemonIs(home, true);
      assert.equal(await read({}), cold.unset, "a caller without it does not get the first caller's");
      assert.equal(await read({ CALLER_SECRET: 'one' }), cold.one);
      assert.equal(await read({}), cold.unset);
      assert.ok((status(home).servers?.reduce((sum, server) => sum + server.calls, 0) ?? 0) >= 3, 'warm calls');
      const environ = `/proc/${daemon.pid}/environ`;
      if (existsSync(environ)) {
        assert.ok(
          !readFileSync(environ, 'latin1').includes('first-callers-secret'),
          'the daemon keeps no caller secret',
        );
      }
    } finally {
      await cleanUp(home);
    }
  });

  it('lets a running call finish when a client of another version ends it', async () => {
    const { home } = homeWithFixture();
    try {
      const hang = ['--server', 'fx', 'call-hang-now', '--timeout', '4000'];
      const cold = await walletAsync(home, hang);
      assert.notEqual(cold.code, 0);
      keepAlive(home, 'fx');
      wallet(home, ['--server', 'fx', 'shapes-echo', '--id', '1']);
      await daemonIs(home, true);
      const running = walletAsync(home, hang);
      await delay(1500);
      // An upgraded wallet's first call: the daemon ends, for one of the new version to start.
      const upgraded = await new Promise<string>((resolve, reject) => {
        const socket = createConnection(join(home, 'daemon', 'daemon.sock'));
        let answer = '';
        socket.setEncoding('utf8');
        socket.on('connect', () => {
          const request = {
            ...{ v: 1, kind: 'run', version: '0.0.0-another', argv: ['--server', 'fx', 'tools'] },
            ...{ env: {}, cwd: home, tty: { stdin: false, stdout: false, stderr: false } },
          };
          socket.write(`${JSON.stringify(request)}\n`);
        });
        socket.on('data', (chunk: string) => {
          answer += chunk;
          if (answer.includes('\n')) {
            socket.destroy();
            resolve(answer);
          }
        });
        socket.on('error', reject);
      });
      assert.match(upgraded, /"kind":"fallback"/);
      assert.deepEqual(await running, cold, 'the call in flight ends as it would have');
      await daemonIs(home, false);
    } finally {
      await cleanUp(home);
    }
  });

  it('ends a daemon of another build of the same version: the call starts one of the new build', async () => {
    const { home, events } = homeWithFixture();
    const install = installedCopy();
    try {
      keepAlive(home, 'fx');
      const call = ['--server', 'fx', 'shapes-echo', '--id', '4', '--json'];
      const expected = wallet(home, call, undefined, install.bin);
      assert.equal(expected.code, 0, expected.stderr);
      const old = await daemonIs(home, true);
      assert.match(old.build ?? '', /^[0-9a-f]{24}$/, 'the build baked into the bundles');
      assert.deepEqual(wallet(home, call, undefined, install.bin), expected);
      assert.equal(status(home).servers?.[0]?.calls, 1);
      // Rebuilt in place, its version unchanged: the bundles carry another build.
      const rebuilt = old.build === 'f'.repeat(24) ? 'e'.repeat(24) : 'f'.repeat(24);
      for (const file of ['daemon-client.cjs', 'wallet.cjs']) {
        const path = join(install.dist, file);
        const text = readFileSync(path, 'latin1');
        assert.ok(text.includes(`"${old.build}"`), `${file} holds its build`);
        writeFileSync(path, text.replaceAll(`"${old.build}"`, `"${rebuilt}"`), 'latin1');
      }
      const before = starts(events).length;
      // The first call of the new build: made directly (its own server), the old daemon ends.
      assert.deepEqual(wallet(home, call, undefined, install.bin), expected);
      assert.equal(starts(events).length, before + 1, 'made directly, on a server of its own');
      const deadline = Date.now() + 20_000;
      let now = status(home);
      while (!(now.running && now.pid !== old.pid)) {
        if (Date.now() > deadline) throw new Error(`no daemon of the new build: ${JSON.stringify(now)}`);
        await delay(100);
        now = status(home);
      }
      assert.equal(now.build, rebuilt);
      const gone = (): boolean => {
        try {
          process.kill(old.pid ?? 0, 0);
          return false;
        } catch {
          return true;
        }
      };
      while (!gone()) {
        if (Date.now() > deadline) throw new Error('the daemon of the old build is still running');
        await delay(100);
      }
      // The next calls are warm again, on the new daemon.
      assert.deepEqual(wallet(home, call, undefined, install.bin), expected);
      assert.deepEqual(wallet(home, call, undefined, install.bin), expected);
      assert.equal(status(home).servers?.[0]?.calls, 2);
    } finally {
      await cleanUp(home);
      install.remove();
    }
  });

  it('takes a relative WALLET_HOME as its starter meant it, wherever its callers are', async () => {
    const { home } = homeWithFixture();
    try {
      keepAlive(home, 'fx');
      const call = ['--server', 'fx', 'shapes-echo', '--id', '6', '--json'];
      const expected = wallet(home, call);
      assert.equal(expected.code, 0, expected.stderr);
      wallet(home, ['daemon', 'stop']);
      await daemonIs(home, false);
      // Started by a caller in the data folder's parent, with WALLET_HOME relative to it.
      const started = spawnSync(process.execPath, [WALLET_BIN, ...call], {
        cwd: dirname(home),
        env: { ...process.env, WALLET_HOME: basename(home), NO_COLOR: '1' },
        encoding: 'utf8',
      });
      assert.equal(started.stdout, expected.stdout, started.stderr);
      await daemonIs(home, true);
      // Its callers are elsewhere (this test's folder), with the folder by its absolute path.
      assert.deepEqual(wallet(home, call), expected);
      assert.deepEqual(wallet(home, call), expected);
      assert.equal(status(home).servers?.[0]?.calls, 2);
    } finally {
      await cleanUp(home);
    }
  });

  it("does not end a session under other callers' calls when one caller's call fails", async () => {
    const { home } = homeWithFixture();
    try {
      const long = ['--server', 'fx', 'call-hang-now', '--timeout', '5000'];
      const cold = await walletAsync(home, long);
      assert.notEqual(cold.code, 0);
      keepAlive(home, 'fx');
      wallet(home, ['--server', 'fx', 'shapes-echo', '--id', '1']);
      await daemonIs(home, true);
      assert.equal(wallet(home, ['--server', 'fx', 'shapes-echo', '--id', '1']).code, 0);
      // Two callers on the one session: the first gives up sooner (exit 3, the server is slow).
      const other = walletAsync(home, long);
      await delay(300);
      const impatient = await walletAsync(home, ['--server', 'fx', 'call-hang-now', '--timeout', '1000']);
      assert.equal(impatient.code, 3, impatient.stderr);
      assert.deepEqual(await other, cold, "the other caller's call ends as it would have");
    } finally {
      await cleanUp(home);
    }
  });

  it('sends nothing to a socket in a folder others could write: the call is made directly', async () => {
    const { home } = homeWithFixture();
    // Whoever listens on the socket gets the caller's whole environment and prints what it likes:
    // in a folder others can write, anyone could have put it there (another user's "daemon").
    const heard: string[] = [];
    const impostor = createServer((socket) => {
      socket.setEncoding('utf8');
      socket.on('data', (chunk: string) => {
        heard.push(chunk);
        socket.end(`${JSON.stringify({ kind: 'done', stdout: 'IMPOSTOR\n', stderr: '', exitCode: 0 })}\n`);
      });
    });
    try {
      keepAlive(home, 'fx');
      const expected = wallet(home, ['--server', 'fx', 'shapes-echo', '--id', '5', '--json']);
      assert.equal(expected.code, 0, expected.stderr);
      wallet(home, ['daemon', 'stop']);
      await daemonIs(home, false);
      const daemon = join(home, 'daemon');
      mkdirSync(daemon, { recursive: true });
      await new Promise<void>((resolve) => impostor.listen(join(daemon, 'daemon.sock'), resolve));
      for (const [folder, mode] of [
        [daemon, 0o777],
        [home, 0o777],
      ] as const) {
        chmodSync(folder, mode);
        const run = await walletAsync(home, ['--server', 'fx', 'shapes-echo', '--id', '5', '--json'], {
          CALLER_SECRET: 'not-for-others',
        });
        assert.equal(run.stdout, expected.stdout, `${folder} at ${mode.toString(8)}: ${run.stderr}`);
        assert.equal(run.code, 0);
        assert.deepEqual(heard, [], `${folder} at ${mode.toString(8)}`);
        chmodSync(daemon, 0o700);
        chmodSync(home, 0o700);
      }
    } finally {
      impostor.close();
      await cleanUp(home);
    }
  });

  it("asks a server's questions on the caller's terminal, and refuses them without one as a direct call does", async (t) => {
    const home = tempHome();
    try {
      const server = `"${process.execPath}" "${EVERYTHING_SERVER}" stdio`;
      // The same server twice: `direct` called directly, `kept` through the daemon.
      for (const name of ['direct', 'kept'])
        assert.equal(wallet(home, ['servers', 'add', name, '--server', server]).code, 0);
      keepAlive(home, 'kept');
      assert.equal(wallet(home, ['--server', 'kept', 'echo', '--message', 'hi']).code, 0);
      await daemonIs(home, true);
      const calls = (): number =>
        (status(home).servers ?? []).filter((row) => row.name === 'kept').reduce((sum, row) => sum + row.calls, 0);

      // No terminal: no elicitation declared (the server offers no such tool), or with
      // --accept-defaults a required field without a default declined, saying why: as directly.
      const listing = ['tools', '--refresh', '--json'];
      const listed = wallet(home, ['--server', 'kept', ...listing]);
      assert.equal(listed.stdout, wallet(home, ['--server', 'direct', ...listing]).stdout);
      assert.doesNotMatch(listed.stdout, /trigger-elicitation-request/);
      const defaults = ['trigger-elicitation-request', '--accept-defaults', '--json'];
      const before = calls();
      const declined = wallet(home, ['--server', 'kept', ...defaults]);
      assert.deepEqual(declined, wallet(home, ['--server', 'direct', ...defaults]));
      assert.match(declined.stderr, /Declined: 'name' has no default, and there is no terminal to ask on\./);
      assert.match(declined.stdout, /User declined/);
      assert.equal(calls(), before + 1, 'the daemon answered it');

      if (NO_TERMINAL) return t.skip(NO_TERMINAL);
      // On a terminal: each field asked there, the typed answers and the defaults sent.
      const typed = ['y', 'Ada', 'y', '', '', '', '', '7', '', '', 'Piano, Drums', '', '', '', ''].join('\n') + '\n';
      const question = ['trigger-elicitation-request', '--json'];
      const direct = walletOnTerminal(home, ['--server', 'direct', ...question], typed);
      assert.equal(direct.code, 0, direct.shown);
      const beforeAsked = calls();
      const asked = walletOnTerminal(home, ['--server', 'kept', ...question], typed);
      assert.equal(asked.code, 0, asked.shown);
      assert.equal(calls(), beforeAsked + 1, 'the daemon answered it');
      assert.match(asked.shown, /The server asks: /);
      assert.match(asked.shown, /\(integer\), optional \[42\]: /);
      const result = (shown: string): string => shown.slice(shown.indexOf('{\n  "content"'));
      assert.match(result(asked.shown), /Ada/);
      assert.match(result(asked.shown), /\\"integer\\": ?7/);
      assert.match(result(asked.shown), /Piano/);
      assert.match(result(asked.shown), /It was a dark and stormy night/, 'a default taken with Enter is sent');
      assert.equal(result(asked.shown), result(direct.shown), 'the same answer as a direct call');
      assert.equal(
        asked.shown.slice(asked.shown.indexOf('The server asks')),
        direct.shown.slice(direct.shown.indexOf('The server asks')),
        'the same questions, in the same order',
      );
      // n declines: the server hears a decline.
      const no = walletOnTerminal(home, ['--server', 'kept', ...question], 'n\n');
      assert.equal(no.code, 0, no.shown);
      assert.match(no.shown, /Declined: you said no\./);
      assert.match(no.shown, /User declined/);
    } finally {
      await cleanUp(home);
    }
  });

  it("two callers on terminals at once: each is asked its own call's question", async () => {
    const home = tempHome();
    try {
      const server = `"${process.execPath}" "${EVERYTHING_SERVER}" stdio`;
      assert.equal(wallet(home, ['servers', 'add', 'kept', '--server', server, '--keep-alive']).code, 0);
      wallet(home, ['--server', 'kept', 'echo', '--message', 'hi']);
      const { build } = await daemonIs(home, true);
      const version = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string }).version;
      // Each caller as the thin client speaks (src/cli/daemon/client.ts), on a terminal: what
      // the daemon relays to it, and what it types when asked (`read`).
      const caller = (typed: string): Promise<{ shown: string; stdout: string; exitCode: number }> =>
        new Promise((resolve, reject) => {
          const socket = createConnection(join(home, 'daemon', 'daemon.sock'));
          let received = '';
          let shown = '';
          socket.setEncoding('utf8');
          socket.on('error', reject);
          socket.on('connect', () =>
            socket.write(
              `${JSON.stringify({
                v: 1,
                kind: 'run',
                version,
                build,
                argv: ['--server', 'kept', 'trigger-elicitation-request', '--json'],
                env: { PATH: process.env['PATH'] ?? '', WALLET_HOME: home, NO_COLOR: '1' },
                cwd: home,
                tty: { stdin: true, stdout: false, stderr: true },
              })}\n`,
            ),
          );
          socket.on('data', (chunk: string) => {
            received += chunk;
            let end: number;
            while ((end = received.indexOf('\n')) !== -1) {
              const message = JSON.parse(received.slice(0, end)) as Record<string, unknown>;
              received = received.slice(end + 1);
              if (message['kind'] === 'write') shown += String(message['text']);
              else if (message['kind'] === 'read')
                socket.write(`${JSON.stringify({ v: 1, kind: 'input', text: typed })}\n`);
              else {
                socket.destroy();
                if (message['kind'] !== 'done') return reject(new Error(JSON.stringify(message)));
                resolve({ shown, stdout: String(message['stdout']), exitCode: Number(message['exitCode']) });
              }
            }
          });
        });
      const [first, second] = await Promise.all([caller('n\n'), caller('n\n')]);
      for (const answer of [first, second]) {
        assert.equal(answer.exitCode, 0, answer.shown);
        assert.match(answer.shown, /The server asks: /);
        assert.match(answer.shown, /Declined: you said no\./, 'its own caller answered it');
        assert.match(answer.stdout, /User declined/);
        assert.doesNotMatch(answer.stdout, /cancelled/);
      }
    } finally {
      await cleanUp(home);
    }
  });

  it('keeps `wallet serve` and server-everything alive as it keeps the fixture', async () => {
    const home = tempHome();
    try {
      const servers: Record<string, { server: string; args: string[] }> = {
        own: {
          server: `"${process.execPath}" "${WALLET_BIN}" serve`,
          args: ['core-address-validate', '--address', 'yRd4FhXfVGHXpsuZXPNkMrfD9GVj46pnjt', '--json'],
        },
        everything: { server: `"${process.execPath}" "${EVERYTHING_SERVER}" stdio`, args: ['echo', '--message', 'hi'] },
      };
      for (const [name, { server }] of Object.entries(servers)) {
        assert.equal(wallet(home, ['servers', 'add', name, '--server', server]).code, 0);
      }
      const cold = Object.fromEntries(
        Object.entries(servers).map(([name, { args }]) => [name, wallet(home, ['--server', name, ...args])]),
      );
      for (const name of Object.keys(servers)) keepAlive(home, name);
      wallet(home, ['--server', 'own', ...(servers['own']?.args ?? [])]);
      await daemonIs(home, true);
      for (const [name, { args }] of Object.entries(servers)) {
        assert.equal(cold[name]?.code, 0, cold[name]?.stderr);
        assert.deepEqual(wallet(home, ['--server', name, ...args]), cold[name], name);
      }
      assert.deepEqual(
        status(home)
          .servers?.map((server) => server.name)
          .sort(),
        ['everything', 'own'],
      );
      // No longer kept alive: the call is made directly.
      keepAlive(home, 'everything', false);
      assert.deepEqual(
        wallet(home, ['--server', 'everything', ...(servers['everything']?.args ?? [])]),
        cold['everything'],
      );
      assert.equal(status(home).servers?.find((server) => server.name === 'everything')?.calls, 1);
    } finally {
      await cleanUp(home);
    }
  });

  it('sees servers.json edited between warm calls, in place and at the same size, and refuses it once others can write it', async () => {
    const { home } = homeWithFixture();
    const path = join(home, 'servers.json');
    /** servers.json rewritten in place (the same file, as an editor may), fx's FX_MARK set to `mark`. */
    const mark = (value: string): void => {
      const json = JSON.parse(readFileSync(path, 'utf8')) as { mcpServers: Record<string, { env?: object }> };
      const fx = json.mcpServers['fx'];
      assert.ok(fx);
      fx.env = { ...fx.env, FX_MARK: value };
      writeFileSync(path, JSON.stringify(json, null, 2));
    };
    const read = (): Run => wallet(home, ['--server', 'fx', 'env-get-now', '--name', 'FX_MARK', '--json', '--debug']);
    const calls = (): number => status(home).servers?.reduce((sum, server) => sum + server.calls, 0) ?? 0;
    try {
      keepAlive(home, 'fx');
      mark('aaaa');
      read();
      await daemonIs(home, true);
      for (const value of ['aaaa', 'bbbb', 'cccc']) {
        if (value !== 'aaaa') mark(value);
        const before = calls();
        const run = read();
        assert.equal(run.code, 0, run.stderr);
        assert.ok(run.stderr.includes('answered by the daemon'), run.stderr);
        assert.ok(run.stdout.includes(value), `${value}: ${run.stdout}`);
        assert.equal(calls(), before + 1);
      }
      // Another user could have written what the daemon parsed before: refused as a direct call refuses it.
      chmodSync(path, 0o620);
      const refused = read();
      chmodSync(path, 0o600);
      assert.equal(refused.code, 6, refused.stderr);
      assert.match(refused.stderr, /servers\.json is writable by others/);
      assert.ok(!refused.stderr.includes('answered by the daemon'), refused.stderr);
      // A server removed is gone for the next call: `fx` is then a command line, which fails to start.
      assert.equal(wallet(home, ['servers', 'remove', 'fx']).code, 0);
      const gone = read();
      assert.equal(gone.code, 3, gone.stderr);
      assert.ok(!gone.stderr.includes('answered by the daemon'), gone.stderr);
    } finally {
      await cleanUp(home);
    }
  });

  it('brings the completion values up to date after a warm call, once it has answered', async () => {
    const { home } = homeWithFixture();
    const values = join(home, 'cache', 'completion-values.tsv');
    try {
      keepAlive(home, 'fx');
      wallet(home, ['--server', 'fx', 'shapes-echo', '--id', '1']);
      await daemonIs(home, true);
      // A server added by hand: no command of the CLI's own runs after it, only the warm call.
      const json = JSON.parse(readFileSync(join(home, 'servers.json'), 'utf8')) as {
        mcpServers: Record<string, unknown>;
      };
      json.mcpServers['zz-added'] = { command: 'true', args: [] };
      writeFileSync(join(home, 'servers.json'), JSON.stringify(json));
      const run = wallet(home, ['--server', 'fx', 'shapes-echo', '--id', '1', '--debug']);
      assert.equal(run.code, 0, run.stderr);
      assert.ok(run.stderr.includes('answered by the daemon'), run.stderr);
      const deadline = Date.now() + 10_000;
      while (!(existsSync(values) && readFileSync(values, 'utf8').includes('server\tzz-added\n'))) {
        assert.ok(
          Date.now() < deadline,
          `the completion values: ${existsSync(values) ? readFileSync(values, 'utf8') : '(none)'}`,
        );
        await delay(100);
      }
      assert.ok(readFileSync(values, 'utf8').includes('server\tfx\n'));
      assert.equal(statSync(values).mode & 0o777, 0o600);
    } finally {
      await cleanUp(home);
    }
  });
});

describe('kept-alive servers: the completion values the daemon brings up to date', () => {
  it('arms no refresh once the daemon is stopping: a call it cut short ends after its stop', async () => {
    const home = tempHome();
    const values = join(home, 'cache', 'completion-values.tsv');
    try {
      writeFileSync(join(home, 'servers.json'), JSON.stringify({ mcpServers: { fx: { command: 'true' } } }), {
        mode: 0o600,
      });
      const stopped = new CompletionValues();
      stopped.cancel();
      // What runCli asks at the end of a warm call (src/cli/main.ts), here after the daemon's stop.
      stopped.want(home);
      await delay(1000);
      assert.equal(existsSync(values), false, 'a refresh ran after the stop');
      // The same request of a daemon that is not stopping is met, within the same wait.
      const running = new CompletionValues();
      running.want(home);
      await delay(1000);
      assert.equal(readFileSync(values, 'utf8'), 'server\tfx\n');
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  });
});

describe('kept-alive servers: servers.json as the daemon keeps it parsed', () => {
  it('is parsed again while it changed too lately for its times to tell its next change apart', async () => {
    const home = tempHome();
    const path = join(home, 'servers.json');
    try {
      writeFileSync(path, JSON.stringify({ mcpServers: { fx: { command: 'true' } } }), { mode: 0o600 });
      // As the daemon does (src/cli/daemon/server.ts); this test process spawns every other one.
      rememberServers();
      // Just written: a next write in the same tick of a coarse clock (or second of a coarse
      // filesystem), at the same size, could leave size, times and inode as they are. Not kept.
      const first = await loadServers(home);
      assert.notEqual(await loadServers(home), first, 'kept what a change may not show in');
      // Once its times are behind the clock by more than its granularity, it is kept.
      await delay(3500);
      const settled = await loadServers(home);
      assert.equal(await loadServers(home), settled);
      assert.deepEqual(settled, first);
      assert.ok(Object.isFrozen(settled) && Object.isFrozen(settled['fx']));
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  });
});
