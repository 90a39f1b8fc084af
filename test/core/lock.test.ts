/**
 * The writer lock's takeover of a lock left behind: by a process that died, or on Linux by any
 * process before the machine last started, whose pid another process may have by now.
 */
import assert from 'node:assert/strict';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { WalletError } from '../../src/domain/errors.js';
import { LOCK_FILE_NAME, withLock } from '../../src/domain/keystore/lock.js';
import { tempHome } from '../helpers/io.js';

const BOOT_ID_FILE = '/proc/sys/kernel/random/boot_id';
const NO_BOOT_ID = existsSync(BOOT_ID_FILE) ? false : `${BOOT_ID_FILE} is not here (not Linux): no boot to tell apart`;

describe('the writer lock and a lock left behind', () => {
  const dir = tempHome();
  const lock = join(dir, LOCK_FILE_NAME);
  after(() => rmSync(dir, { recursive: true, force: true }));
  /** A lock held, as its file says, by this very process (alive), written during `boot`. */
  const leftBy = (boot: string): void =>
    writeFileSync(lock, `${process.pid}\n${hostname()}\n0123456789abcdef\n${boot}\n`, { mode: 0o600 });

  it('writes its holder, host and boot, and removes the lock after the task', { skip: NO_BOOT_ID }, async () => {
    const boot = readFileSync(BOOT_ID_FILE, 'utf8').trim();
    const seen = await withLock(dir, async () => readFileSync(lock, 'utf8'));
    const [pid, host, random, written] = seen.split('\n');
    assert.deepEqual([pid, host, written], [String(process.pid), hostname(), boot]);
    assert.match(random ?? '', /^[0-9a-f]{16}$/);
    assert.equal(existsSync(lock), false);
  });

  it(
    "takes over at once a lock of an earlier boot, though its pid is a live process's now",
    { skip: NO_BOOT_ID },
    async () => {
      leftBy('00000000-0000-4000-8000-000000000000');
      const started = Date.now();
      assert.equal(await withLock(dir, async () => 'ran', { timeoutMs: 5_000 }), 'ran');
      assert.ok(Date.now() - started < 2_000, `took ${Date.now() - started} ms`);
      assert.equal(existsSync(lock), false);
    },
  );

  it('waits for a live holder of this boot, and says BUSY when it stays', { skip: NO_BOOT_ID }, async () => {
    leftBy(readFileSync(BOOT_ID_FILE, 'utf8').trim());
    try {
      await assert.rejects(
        withLock(dir, async () => 'ran', { timeoutMs: 300 }),
        (error: unknown) => error instanceof WalletError && error.code === 'BUSY',
      );
      assert.ok(existsSync(lock), 'the holder keeps its lock');
    } finally {
      rmSync(lock, { force: true });
    }
  });

  it('waits for a live holder of a lock without a boot (an older version wrote it)', async () => {
    writeFileSync(lock, `${process.pid}\n${hostname()}\n0123456789abcdef\n`, { mode: 0o600 });
    try {
      await assert.rejects(
        withLock(dir, async () => 'ran', { timeoutMs: 300 }),
        (error: unknown) => error instanceof WalletError && error.code === 'BUSY',
      );
    } finally {
      rmSync(lock, { force: true });
    }
  });
});
