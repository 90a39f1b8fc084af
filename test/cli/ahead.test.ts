/**
 * The spawn `bin/wallet.js` makes before it loads the CLI (dist/ahead.cjs, src/startup/ahead.ts): for a
 * tool call of a stdio server spoken to before, the server is spawned first and the CLI adopts
 * that process (`startServerAhead`), resolving the same server with the same code; any other
 * command line spawns nothing there, and a process the CLI does not adopt is ended.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { cpSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { spawnAhead } from '../../src/startup/ahead.js';
import { startServerAhead, type SpawnedAhead } from '../../src/cli/connection.js';
import { GLOBAL_FLAGS, parseFlags, readGlobals } from '../../src/cli/global-flags.js';
import { runCli } from '../../src/cli/main.js';
import { resolveTarget } from '../../src/cli/target.js';
import { ToolListCache } from '../../src/cli/tool-cache.js';
import { lineRelay } from '../../src/mcp/stdio-child.js';
import { fakeIo, tempHome, wallet } from '../helpers/io.js';
import { FIXTURE_SERVER, ROOT, WALLET_BIN } from '../helpers/paths.js';

const fixture = `"${process.execPath}" "${FIXTURE_SERVER}"`;

/** Ends a spawned process and waits until it is gone. */
async function ended(spawned: SpawnedAhead | undefined): Promise<void> {
  const child = spawned?.process.child;
  if (!child || spawned.process.closed()) return;
  const closed = new Promise((resolve) => child.once('close', resolve));
  spawned.process.stop();
  await closed;
}

/** A data directory whose cache remembers the fixture server (its era), as after a first contact. */
async function homeThatKnowsFixture(): Promise<string> {
  const home = tempHome();
  const first = await wallet(['--server', fixture, 'tools'], { home });
  assert.equal(first.code, 0, first.stderr);
  return home;
}

/** The `start <pid>` events the fixture logged. */
const starts = (log: string): string[] =>
  readFileSync(log, 'utf8')
    .split('\n')
    .filter((line) => line.startsWith('start '))
    .map((line) => line.split(' ')[2] ?? '');

describe('the server spawned before the CLI loads (bin/wallet.js, ahead.ts)', () => {
  it('spawns a remembered stdio server for a tool call, resolved exactly as the CLI resolves it', async () => {
    const home = await homeThatKnowsFixture();
    try {
      const argv = ['--server', fixture, '--env', 'FIXTURE_LINGER=0', 'shapes-echo', '--id', '2'];
      const spawned = spawnAhead(argv, { WALLET_HOME: home });
      try {
        assert.ok(spawned?.process.child?.pid, 'spawned');
        const target = await resolveTarget(readGlobals(parseFlags(argv, GLOBAL_FLAGS)), home, fakeIo({ env: {} }));
        assert.deepEqual({ kind: 'stdio', spec: spawned.spec, command: spawned.command }, target);
      } finally {
        await ended(spawned);
      }
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  });

  it('spawns nothing for help, the CLI verbs, other targets, bad flags, a server never met or maybe named', async () => {
    const home = await homeThatKnowsFixture();
    try {
      const passphrase = join(home, 'pw');
      writeFileSync(passphrase, 'not a secret of this test\n', { mode: 0o600 });
      const cases: Record<string, string[]> = {
        'root help': ['--server', fixture, '--help'],
        'a command help': ['--server', fixture, 'shapes-echo', '--help'],
        '-h': ['--server', fixture, 'shapes-echo', '-h'],
        tools: ['--server', fixture, 'tools'],
        completion: ['--server', fixture, 'completion', 'bash'],
        '--get-tool-definition': ['--server', fixture, '--get-tool-definition'],
        'no verb': ['--server', fixture],
        'the built-in server': ['network-info'],
        '--url': ['--url', 'http://127.0.0.1:9/mcp', 'echo'],
        'an unknown global flag': ['--server', fixture, '--no-such-flag', 'shapes-echo'],
        '--server twice': ['--server', fixture, '--server', fixture, 'shapes-echo'],
        'a flag of the built-in server': ['--server', fixture, '--passphrase-file', passphrase, 'shapes-echo'],
        'a header': ['--server', fixture, '--header', 'X-A: b', 'shapes-echo'],
        'a server never met': ['--server', `${fixture} --other`, 'shapes-echo'],
      };
      for (const [label, argv] of Object.entries(cases)) {
        const spawned = spawnAhead(argv, { WALLET_HOME: home });
        await ended(spawned);
        assert.equal(spawned, undefined, label);
      }
      // A word servers.json may name is left to the CLI, which reads that file with its schema.
      const cache = new ToolListCache(home);
      await cache.write({ kind: 'server', value: 'fixture' }, { name: 'f', version: '1' }, [], { kind: 'legacy' });
      assert.ok(await cache.readEra({ kind: 'server', value: 'fixture' }));
      writeFileSync(join(home, 'servers.json'), JSON.stringify({ mcpServers: {} }));
      assert.equal(spawnAhead(['--server', 'fixture', 'shapes-echo'], { WALLET_HOME: home }), undefined, 'a name');
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  });

  it('the CLI adopts a process spawned for its server, and ends one that is not, or whose cache it refuses', async () => {
    const home = await homeThatKnowsFixture();
    try {
      const argv = ['--server', fixture, 'shapes-echo'];
      const target = await resolveTarget(readGlobals(parseFlags(argv, GLOBAL_FLAGS)), home, fakeIo({ env: {} }));
      const notes: string[] = [];
      const adopted = spawnAhead(argv, { WALLET_HOME: home });
      const taken = await startServerAhead(target, home, (note) => notes.push(note), adopted);
      try {
        assert.equal(taken?.process, adopted?.process, 'the same process');
        assert.deepEqual(taken?.era, { kind: 'legacy' });
        assert.match(notes.join('\n'), /speaking to the server spawned before the CLI loaded \(pid \d+\)/);
      } finally {
        await ended(adopted);
      }

      // Spawned for another command (here: another --env) than the one the CLI resolved: ended,
      // and the CLI spawns its own.
      const other = spawnAhead([...argv.slice(0, 2), '--env', 'A=1', ...argv.slice(2)], { WALLET_HOME: home });
      assert.ok(other?.process.child);
      const otherClosed = new Promise((resolve) => other.process.child?.once('close', resolve));
      const own = await startServerAhead(target, home, undefined, other);
      try {
        await otherClosed;
        assert.ok(own && own.process !== other.process, 'a process of its own');
      } finally {
        own?.process.stop();
      }

      // The cache's head looks right without its schema (what ahead.ts reads) but its schema
      // refuses it (a 2026 verdict without its discover result): ended, nothing spawned.
      const cacheDir = join(home, 'cache', 'tools');
      const [file] = readdirSync(cacheDir).filter((name) => name.endsWith('.json'));
      assert.ok(file);
      const json = JSON.parse(readFileSync(join(cacheDir, file), 'utf8')) as Record<string, unknown>;
      writeFileSync(
        join(cacheDir, file),
        JSON.stringify({ ...json, era: { verdict: { kind: 'modern' }, seen_at: new Date().toISOString() } }),
      );
      const refused = spawnAhead(argv, { WALLET_HOME: home });
      assert.ok(refused?.process.child, 'the glance without the schema spawns');
      const refusedClosed = new Promise((resolve) => refused.process.child?.once('close', resolve));
      assert.equal(await startServerAhead(target, home, undefined, refused), undefined);
      await refusedClosed;
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  });

  it('a run that calls no tool, or fails before it resolves its server, ends a server spawned for it', async () => {
    const home = tempHome();
    try {
      for (const argv of [
        ['--server', fixture, '--help'],
        ['--server', fixture, 'tools'],
        ['--server', fixture, '--no-such-flag', 'shapes-echo'],
        ['--server', fixture, '--passphrase-stdin', 'shapes-echo'],
        ['config', 'list'],
        ['--version'],
      ]) {
        let stops = 0;
        const spawnedAhead: SpawnedAhead = {
          spec: { kind: 'server', value: fixture },
          command: { command: process.execPath, args: [FIXTURE_SERVER], env: {}, stderr: 'capture' },
          relayStderr: () => undefined,
          process: {
            child: undefined,
            spawned: Promise.resolve(),
            closed: () => false,
            lastWords: () => '',
            stop: () => {
              stops += 1;
            },
          },
        };
        await runCli(argv, fakeIo({ env: { WALLET_HOME: home } }), { spawnedAhead });
        assert.ok(stops > 0, `${argv.join(' ')}: the server was left running`);
      }
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  });

  it('through the binary: a CLI that cannot start (a damaged bundle) ends the server spawned for it', async () => {
    const home = await homeThatKnowsFixture();
    const copy = tempHome();
    try {
      for (const part of ['bin', 'dist', 'package.json'])
        cpSync(join(ROOT, part), join(copy, part), { recursive: true });
      const log = join(home, 'events.log');
      // A bundle that fails as it loads, once the server has started (its start logged, or 15 s).
      writeFileSync(
        join(copy, 'dist', 'wallet.cjs'),
        [
          "const { existsSync, readFileSync } = require('node:fs');",
          `const log = ${JSON.stringify(log)};`,
          'const until = Date.now() + 15000;',
          "while (Date.now() < until && !(existsSync(log) && readFileSync(log, 'utf8').includes('start ')));",
          "throw new Error('damaged bundle');",
          '',
        ].join('\n'),
      );
      const run = spawnSync(process.execPath, [join(copy, 'bin', 'wallet.js'), '--server', fixture, 'shapes-echo'], {
        env: { ...process.env, WALLET_HOME: home, FIXTURE_EVENT_LOG: log, FIXTURE_LINGER: '1' },
        encoding: 'utf8',
        timeout: 20_000,
      });
      assert.notEqual(run.status, 0);
      assert.match(run.stderr, /damaged bundle/);
      const pids = starts(log);
      assert.equal(pids.length, 1, 'spawned before the bundle loaded');
      // Signalled (the fixture logs its SIGTERM and exits), not left running once stdin ended. Its
      // parent is gone by then: whether it is reaped is up to the system's init, not to this test.
      const signalled = (): (string | undefined)[] =>
        readFileSync(log, 'utf8')
          .split('\n')
          .filter((line) => line.startsWith('sigterm '))
          .map((line) => line.split(' ')[2]);
      for (let waited = 0; signalled().length === 0 && waited < 5_000; waited += 50) {
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      assert.deepEqual(signalled(), pids, 'the server was left running');
    } finally {
      rmSync(home, { recursive: true, force: true });
      rmSync(copy, { recursive: true, force: true });
    }
  });

  it('holds the stderr lines of a server until the run says where they go', () => {
    const relay = lineRelay();
    relay.push('one');
    relay.push('two');
    const shown: string[] = [];
    relay.to((line) => shown.push(line));
    relay.push('three');
    assert.deepEqual(shown, ['one', 'two', 'three']);
    const dropped = lineRelay();
    for (let index = 0; index < 150; index++) dropped.push(`line ${index}`);
    const last: string[] = [];
    dropped.to((line) => last.push(line));
    assert.equal(last.length, 100, 'the last 100 held');
    assert.equal(last[0], 'line 50');
    const nowhere = lineRelay();
    nowhere.push('held');
    nowhere.to(undefined);
    nowhere.push('after');
  });

  it('through the binary: one server process, the one spawned before the CLI loaded, its stderr under --debug', async () => {
    const home = await homeThatKnowsFixture();
    try {
      const log = join(home, 'events.log');
      const run = spawnSync(
        process.execPath,
        [WALLET_BIN, '--debug', '--server', fixture, 'shapes-echo', '--id', '3', '--json'],
        {
          env: { ...process.env, WALLET_HOME: home, FIXTURE_EVENT_LOG: log, FIXTURE_STDERR: 'fixture banner' },
          encoding: 'utf8',
          timeout: 20_000,
        },
      );
      assert.equal(run.status, 0, run.stderr);
      assert.deepEqual(JSON.parse(run.stdout), { received: { id: '3' } });
      const [pid, ...more] = starts(log);
      assert.deepEqual(more, [], 'one server process');
      assert.match(
        run.stderr,
        new RegExp(`debug: speaking to the server spawned before the CLI loaded \\(pid ${pid}\\)`),
      );
      assert.match(run.stderr, /debug: server: fixture banner/);
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  });

  it('through the binary: a run that fails after that spawn ends the server (exit 2, no process left)', async () => {
    const home = await homeThatKnowsFixture();
    try {
      const log = join(home, 'events.log');
      const run = spawnSync(process.execPath, [WALLET_BIN, '--server', fixture, 'no-such-tool'], {
        env: { ...process.env, WALLET_HOME: home, FIXTURE_EVENT_LOG: log, FIXTURE_LINGER: '1' },
        encoding: 'utf8',
        timeout: 20_000,
      });
      assert.equal(run.status, 2, run.stderr);
      const pids = starts(log);
      assert.equal(pids.length, 1, 'spawned before the CLI knew the tool');
      for (const pid of pids) assert.throws(() => process.kill(Number(pid), 0), /ESRCH/, `server ${pid} still runs`);
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  });
});
