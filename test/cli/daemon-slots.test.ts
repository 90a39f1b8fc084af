/**
 * The daemon's slots (src/cli/daemon/slots.ts): named pipes through which the thin client makes a
 * warm call without Node's `net`. Real processes: `bin/wallet.js`, the daemon it starts and the
 * fixture server; the socket is taken away where a test must show that the slot, not the socket,
 * carried the call.
 */
import assert from 'node:assert/strict';
import {
  closeSync,
  constants,
  existsSync,
  mkdirSync,
  openSync,
  readdirSync,
  readSync,
  renameSync,
  rmSync,
  statSync,
  symlinkSync,
  writeSync,
} from 'node:fs';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { setTimeout as delay } from 'node:timers/promises';
import { tempHome } from '../helpers/io.js';
import { WALLET_BIN } from '../helpers/paths.js';
import { Slots, type SlotCall } from '../../src/cli/daemon/slots.js';
import { cleanUp, daemonIs, homeWithFixture, keepAlive, status, wallet, walletAsync } from '../helpers/daemon.js';

const slotsOf = (home: string): string[] => {
  try {
    return readdirSync(join(home, 'daemon', 'slots'));
  } catch {
    return [];
  }
};

/** Waits until the daemon has `count` slots ready (it makes them a moment after it starts or after calls). */
async function slotsReady(home: string, count: number): Promise<string[]> {
  for (const deadline = Date.now() + 10_000; Date.now() < deadline; await delay(50)) {
    const ready = slotsOf(home);
    if (ready.length >= count) return ready;
  }
  throw new Error(`fewer than ${count} slots ready: ${JSON.stringify(slotsOf(home))}`);
}

/** The arguments the fixture's `shapes-echo` received, from its `--json` output. */
function received(stdout: string): { id?: string; tags?: string[] } {
  return (JSON.parse(stdout) as { received: { id?: string; tags?: string[] } }).received;
}

/** Removes the daemon's socket (only a slot can then reach it); its pid, to end it. */
function withoutSocket(home: string): number {
  const pid = status(home).pid;
  assert.ok(pid !== undefined, 'the daemon runs');
  rmSync(join(home, 'daemon', 'daemon.sock'));
  return pid;
}

/** A kept-alive fixture with its daemon running and slots ready. */
async function warmFixture(): Promise<{ home: string; events: string }> {
  const fixture = homeWithFixture();
  keepAlive(fixture.home, 'fx');
  assert.equal(wallet(fixture.home, ['--server', 'fx', 'shapes-echo', '--id', '1']).code, 0);
  await daemonIs(fixture.home, true);
  await slotsReady(fixture.home, 1);
  return fixture;
}

describe("kept-alive servers: the daemon's slots", () => {
  it('carries a warm call without the socket: one slot a call, owner-only, made again after', async () => {
    const { home } = await warmFixture();
    try {
      const daemonFolder = join(home, 'daemon');
      const ready = await slotsReady(home, 4);
      for (const name of ready) {
        for (const pipe of ['in', 'out']) {
          const info = statSync(join(daemonFolder, 'slots', name, pipe));
          assert.ok(info.isFIFO(), `${name}/${pipe} is a named pipe`);
          assert.equal(info.mode & 0o777, 0o600, `${name}/${pipe} is the owner's only`);
        }
        assert.equal(statSync(join(daemonFolder, 'slots', name)).mode & 0o777, 0o700);
      }
      // Without the socket, only a slot can carry the call to the daemon.
      const pid = withoutSocket(home);
      const run = wallet(home, ['--server', 'fx', 'shapes-echo', '--id', '5', '--json', '--debug']);
      assert.equal(run.code, 0, run.stderr);
      assert.equal(received(run.stdout).id, '5');
      assert.ok(run.stderr.includes('answered by the daemon'), run.stderr);
      // One slot went; none is left taken; the daemon counted the call.
      const left = slotsOf(home);
      assert.equal(left.length, ready.length - 1, `one slot used: ${JSON.stringify(left)}`);
      assert.deepEqual(readdirSync(join(daemonFolder, 'slots-taken')), []);
      // The used slots are replaced a moment after the calls (still without the socket).
      for (let index = 0; index < 4; index++) {
        assert.equal(wallet(home, ['--server', 'fx', 'shapes-echo', '--id', String(index)]).code, 0);
      }
      await slotsReady(home, 4);
      process.kill(pid, 'SIGTERM');
    } finally {
      await cleanUp(home);
    }
  });

  it('gives each of several calls at once its own answer', async () => {
    const { home } = await warmFixture();
    try {
      await slotsReady(home, 8);
      // Without the socket: each call went through a slot of its own.
      const pid = withoutSocket(home);
      const ids = Array.from({ length: 8 }, (_, index) => 100 + index);
      const runs = await Promise.all(
        ids.map((id) => walletAsync(home, ['--server', 'fx', 'shapes-echo', '--id', String(id), '--json', '--debug'])),
      );
      runs.forEach((run, index) => {
        assert.equal(run.code, 0, run.stderr);
        assert.ok(run.stderr.includes('answered by the daemon'), run.stderr);
        assert.equal(received(run.stdout).id, String(ids[index]));
      });
      assert.deepEqual(readdirSync(join(home, 'daemon', 'slots-taken')), []);
      process.kill(pid, 'SIGTERM');
    } finally {
      await cleanUp(home);
    }
  });

  it('carries a request and an answer larger than a pipe holds', async () => {
    const { home } = await warmFixture();
    try {
      // 8,000 tags: a request of ~90 KB (one argument stays under Linux's 128 KiB) and a larger answer.
      const tags = Array.from({ length: 8_000 }, (_, index) => `tag-${String(index).padStart(5, '0')}`);
      const pid = withoutSocket(home);
      const run = wallet(home, [
        '--server',
        'fx',
        'shapes-echo',
        '--args-json',
        JSON.stringify({ id: 9, tags }),
        '--json',
        '--debug',
      ]);
      assert.equal(run.code, 0, run.stderr);
      // Answered through the slot: a call made directly (the slot failing) would pass the rest too.
      assert.ok(run.stderr.includes('answered by the daemon'), run.stderr);
      assert.ok(run.stdout.length > 65_536, `an answer past a pipe's 64 KiB: ${run.stdout.length} bytes`);
      assert.deepEqual(received(run.stdout).tags, tags);
      process.kill(pid, 'SIGTERM');
    } finally {
      await cleanUp(home);
    }
  });

  it('leaves dead slots to the next call after kill -9: made directly, a new daemon started', async () => {
    const { home } = await warmFixture();
    try {
      const pid = status(home).pid;
      assert.ok(pid !== undefined);
      await slotsReady(home, 1);
      process.kill(pid, 'SIGKILL');
      await delay(100);
      assert.ok(slotsOf(home).length > 0, 'the killed daemon left its slots');
      const run = wallet(home, ['--server', 'fx', 'shapes-echo', '--id', '3', '--json']);
      assert.equal(run.code, 0, run.stderr);
      assert.equal(received(run.stdout).id, '3');
      const restarted = await daemonIs(home, true);
      assert.notEqual(restarted.pid, pid);
    } finally {
      await cleanUp(home);
    }
  });

  it('makes no slot where mkfifo cannot be found, and calls go through the socket', async () => {
    const fixture = homeWithFixture();
    const { home } = fixture;
    // A PATH with Node only: the daemon the first call starts inherits it.
    const bin = join(home, 'node-only');
    mkdirSync(bin);
    symlinkSync(process.execPath, join(bin, 'node'));
    try {
      keepAlive(home, 'fx');
      const first = await walletAsync(home, ['--server', 'fx', 'shapes-echo', '--id', '1'], { PATH: bin });
      assert.equal(first.code, 0, first.stderr);
      await daemonIs(home, true);
      await delay(500);
      assert.deepEqual(slotsOf(home), []);
      const warm = wallet(home, ['--server', 'fx', 'shapes-echo', '--id', '2', '--json', '--debug']);
      assert.equal(warm.code, 0, warm.stderr);
      assert.ok(warm.stderr.includes('answered by the daemon'), warm.stderr);
      assert.ok(existsSync(join(home, 'daemon', 'daemon.sock')));
    } finally {
      await cleanUp(home);
    }
  });

  it('uses no slot for a call that cannot be sent (its directory deleted): made directly', async () => {
    const { home } = await warmFixture();
    try {
      const before = await slotsReady(home, 4);
      const gone = join(home, 'gone');
      mkdirSync(gone);
      // The client's working directory removed under it: process.cwd() fails.
      const run = spawnSync(
        'sh',
        [
          '-c',
          'cd "$1" && rmdir "$1" && exec "$2" "$3" --server fx shapes-echo --id 6 --json',
          'sh',
          gone,
          process.execPath,
          WALLET_BIN,
        ],
        { env: { ...process.env, WALLET_HOME: home, NO_COLOR: '1' }, encoding: 'utf8', timeout: 60_000 },
      );
      assert.equal(run.status, 0, run.stderr);
      assert.equal(received(run.stdout).id, '6');
      // No slot was taken and thrown away for it.
      assert.deepEqual(slotsOf(home).sort(), [...before].sort());
    } finally {
      await cleanUp(home);
    }
  });

  it('never blocks opening a slot whose daemon died between the opens of its two pipes', () => {
    const { home } = homeWithFixture();
    keepAlive(home, 'fx');
    // The state a kill -9 leaves when it comes between a client's opens: `in` still had its
    // reader (held here), `out` has no writer left, and no one will ever open it to write.
    const slot = join(home, 'daemon', 'slots', 'dead-1');
    mkdirSync(slot, { recursive: true, mode: 0o700 });
    mkdirSync(join(home, 'daemon', 'slots-taken'), { mode: 0o700 });
    const made = spawnSync('mkfifo', ['-m', '600', join(slot, 'in'), join(slot, 'out')]);
    assert.equal(made.status, 0, String(made.stderr));
    const reader = openSync(join(slot, 'in'), constants.O_RDONLY | constants.O_NONBLOCK);
    try {
      const run = spawnSync(process.execPath, [WALLET_BIN, '--server', 'fx', 'shapes-echo', '--id', '7'], {
        env: { ...process.env, WALLET_HOME: home, NO_COLOR: '1' },
        encoding: 'utf8',
        timeout: 20_000,
      });
      // Its request went into the slot: told it may have been made, not left waiting forever.
      assert.equal(run.status, 3, `ended (signal ${String(run.signal)}): ${run.stderr}`);
      assert.match(run.stderr, /CONNECTION_FAILED: the kept-alive servers' daemon ended during the call/);
    } finally {
      closeSync(reader);
      rmSync(home, { recursive: true, force: true });
    }
  });

  it('removes its slots when it stops', async () => {
    const { home } = await warmFixture();
    try {
      assert.equal(wallet(home, ['daemon', 'stop']).code, 0);
      await daemonIs(home, false);
      for (const folder of ['slots', 'slots-new', 'slots-taken']) {
        assert.equal(existsSync(join(home, 'daemon', folder)), false, `${folder} removed`);
      }
      // The next call finds no daemon: made directly, as before.
      const run = wallet(home, ['--server', 'fx', 'shapes-echo', '--id', '4', '--json']);
      assert.equal(run.code, 0, run.stderr);
    } finally {
      await cleanUp(home);
    }
  });
});

/** Slots of a `Slots` made in this process (a daemon's folder of a temporary home): what it was called with. */
async function slotsHere(takenLimitMs: number): Promise<{ folder: string; slots: Slots; calls: SlotCall[] }> {
  const folder = join(tempHome(), 'daemon');
  mkdirSync(folder, { mode: 0o700 });
  const calls: SlotCall[] = [];
  const slots = new Slots(
    folder,
    (call) => {
      calls.push(call);
      call.output.end('{"kind":"done","exitCode":0}\n');
      call.input.destroy();
    },
    { takenLimitMs },
  );
  slots.start();
  await slotsReady(join(folder, '..'), 12);
  return { folder, slots, calls };
}

/** Takes a slot as a client does (renamed, `in` opened to write, `out` to read); nothing written yet. */
function take(folder: string, name: string): { taken: string; inFd: number; outFd: number } {
  const taken = join(folder, 'slots-taken', name);
  renameSync(join(folder, 'slots', name), taken);
  const inFd = openSync(join(taken, 'in'), constants.O_WRONLY | constants.O_NONBLOCK);
  const outFd = openSync(join(taken, 'out'), constants.O_RDONLY | constants.O_NONBLOCK);
  return { taken, inFd, outFd };
}

describe("kept-alive servers: the slots' sweep", () => {
  it("a daemon ending after another took its place leaves the other's slots", async () => {
    const first = await slotsHere(60_000);
    const home = join(first.folder, '..');
    // Another daemon on the same folder (the first one did not answer in time): it clears the
    // first one's slots and makes its own.
    const second = new Slots(first.folder, (call) => {
      call.output.end('{"kind":"done","exitCode":0}\n');
      call.input.destroy();
    });
    try {
      second.start();
      const theirs = await slotsReady(home, 12);
      first.slots.close();
      assert.deepEqual(slotsOf(home).sort(), theirs.sort(), "the second daemon's slots are all still there");
      second.close();
      for (const folder of ['slots', 'slots-new', 'slots-taken']) {
        assert.equal(existsSync(join(first.folder, folder)), false, `${folder} removed by the last daemon`);
      }
    } finally {
      first.slots.close();
      second.close();
      rmSync(home, { recursive: true, force: true });
    }
  });

  it('replaces slots taken and never written, so calls keep their slots', async () => {
    const { folder, slots } = await slotsHere(1_000);
    try {
      // Clients that took every slot and died (or failed) before writing: the daemon's ends stay.
      for (const name of slotsOf(join(folder, '..')))
        renameSync(join(folder, 'slots', name), join(folder, 'slots-taken', name));
      assert.deepEqual(slotsOf(join(folder, '..')), []);
      // Dropped after the limit, and new ones made: without this, no call ever came through a slot again.
      await slotsReady(join(folder, '..'), 4);
      assert.deepEqual(readdirSync(join(folder, 'slots-taken')), [], 'the dead ones removed');
    } finally {
      slots.close();
      rmSync(join(folder, '..'), { recursive: true, force: true });
    }
  });

  it('on a stop, tells a client whose request it had not read to make the call itself, and runs nothing', async () => {
    const { folder, slots, calls } = await slotsHere(60_000);
    const [name] = slotsOf(join(folder, '..'));
    assert.ok(name !== undefined);
    const { inFd, outFd } = take(folder, name);
    // Written, and the daemon stops before it reads it (the same turn of its loop).
    writeSync(inFd, '{"v":1,"kind":"status"}\n');
    slots.close();
    try {
      const buffer = Buffer.alloc(1024);
      let answer = '';
      for (const deadline = Date.now() + 5_000; !answer.endsWith('\n') && Date.now() < deadline; await delay(20)) {
        try {
          answer += buffer.subarray(0, readSync(outFd, buffer)).toString('utf8');
        } catch (error) {
          if ((error as NodeJS.ErrnoException).code !== 'EAGAIN') throw error;
        }
      }
      assert.equal((JSON.parse(answer) as { kind: string }).kind, 'fallback');
      await delay(200);
      assert.equal(calls.length, 0, 'the request was not run as well');
      assert.equal(existsSync(join(folder, 'slots')), false);
    } finally {
      closeSync(inFd);
      closeSync(outFd);
      rmSync(join(folder, '..'), { recursive: true, force: true });
    }
  });

  it('serves a slot that waited long to be taken and was written just after a sweep', async () => {
    // A limit of 3 s: the request below comes 0.6 s after the take, far inside it on a busy machine.
    const { folder, slots, calls } = await slotsHere(3_000);
    const [name] = slotsOf(join(folder, '..'));
    assert.ok(name !== undefined);
    try {
      // Older than the limit by the time it is taken; a sweep runs (every 1.5 s) while it is taken.
      await delay(3_500);
      const { inFd, outFd } = take(folder, name);
      await delay(600);
      writeSync(inFd, '{"v":1,"kind":"status"}\n');
      for (const deadline = Date.now() + 5_000; calls.length === 0 && Date.now() < deadline;) await delay(20);
      assert.equal(calls.length, 1, 'the request reached the daemon');
      assert.equal(calls[0]?.request, '{"v":1,"kind":"status"}');
      // And its answer reached the client.
      const buffer = Buffer.alloc(1024);
      let answer = '';
      for (const deadline = Date.now() + 5_000; !answer.endsWith('\n') && Date.now() < deadline; await delay(20)) {
        try {
          answer += buffer.subarray(0, readSync(outFd, buffer)).toString('utf8');
        } catch (error) {
          if ((error as NodeJS.ErrnoException).code !== 'EAGAIN') throw error;
        }
      }
      assert.equal(answer, '{"kind":"done","exitCode":0}\n');
      closeSync(inFd);
      closeSync(outFd);
    } finally {
      slots.close();
      rmSync(join(folder, '..'), { recursive: true, force: true });
    }
  });
});
