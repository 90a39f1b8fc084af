import assert from 'node:assert/strict';
import { execFile, spawnSync } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { promisify } from 'node:util';
import { createWallet, unlockMaster } from '../../src/domain/wallet/wallets.js';
import { WalletError } from '../../src/domain/errors.js';
import { LOCK_FILE_NAME, withLock } from '../../src/domain/keystore/lock.js';
import { WalletServices } from '../../src/domain/services.js';
import { tempHome } from '../helpers/io.js';
import { ROOT } from '../helpers/paths.js';

const run = promisify(execFile);
const PASSPHRASE = 'correct horse battery';
const WORKER = join(ROOT, 'build', 'test', 'fixtures', 'reserve-worker.js');

const isCode = (code: string) => (error: unknown) => error instanceof WalletError && error.code === code;

describe('keystore', () => {
  let home: string;
  let services: WalletServices;
  let file: string;

  before(async () => {
    home = tempHome();
    services = new WalletServices({ dataDir: home, passphrase: PASSPHRASE, env: {} });
    const entry = await createWallet(services, { alias: 'main', network: 'testnet', words: 12 });
    file = join(services.keystore.dir, `${entry.id}-testnet.json`);
  });
  after(() => rmSync(home, { recursive: true, force: true }));

  it('stores an owner-only file in an owner-only folder, the mnemonic encrypted', () => {
    assert.equal(statSync(services.keystore.dir).mode & 0o777, 0o700);
    assert.equal(statSync(file).mode & 0o777, 0o600);
    const stored = JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown> & {
      crypto: Record<string, unknown>;
    };
    assert.equal(stored['format'], 'wallet-keystore');
    assert.equal(stored['version'], 1);
    assert.deepEqual(
      { ...(stored.crypto['kdfparams'] as object), salt: 'x' },
      { n: 131072, r: 8, p: 1, dklen: 32, salt: 'x' },
    );
    assert.equal(stored.crypto['cipher'], 'aes-256-gcm');
    assert.doesNotMatch(readFileSync(file, 'utf8'), /\b(abandon|about|zoo)\b/);
  });

  it('unlocks with the passphrase and refuses a wrong one without changing anything', async () => {
    const entry = await services.keystore.resolve('main');
    const master = await unlockMaster(services, entry);
    assert.equal(master.fingerprint.toString(16).padStart(8, '0'), entry.id);
    const before = readFileSync(file, 'utf8');
    const wrong = new WalletServices({ dataDir: home, passphrase: 'not the passphrase', env: {} });
    await assert.rejects(() => unlockMaster(wrong, entry), isCode('WALLET_LOCKED'));
    assert.equal(readFileSync(file, 'utf8'), before);
  });

  it('detects tampering with the ciphertext, the KDF parameters or the stored xpub', async () => {
    const original = readFileSync(file, 'utf8');
    const tamper = async (
      change: (stored: { crypto: { ciphertext: string; kdfparams: { n: number } }; account: { xpub: string } }) => void,
      code: string,
    ) => {
      const stored = JSON.parse(original);
      change(stored);
      writeFileSync(file, JSON.stringify(stored));
      try {
        const entry = await services.keystore.resolve('main');
        await assert.rejects(() => unlockMaster(services, entry), isCode(code));
      } finally {
        writeFileSync(file, original);
      }
    };
    await tamper((s) => {
      const bytes = Buffer.from(s.crypto.ciphertext, 'base64');
      bytes[0] = (bytes[0] ?? 0) ^ 1;
      s.crypto.ciphertext = bytes.toString('base64');
    }, 'WALLET_LOCKED');
    await tamper((s) => (s.crypto.kdfparams.n = 2 ** 18), 'WALLET_LOCKED');
    await tamper((s) => (s.crypto.kdfparams.n = 2 ** 10), 'KEYSTORE_DAMAGED');
    // The refusal names the file.
    const weak = JSON.parse(original) as { crypto: { kdfparams: { n: number } } };
    weak.crypto.kdfparams.n = 2 ** 10;
    writeFileSync(file, JSON.stringify(weak));
    try {
      const entry = await services.keystore.resolve('main');
      await assert.rejects(
        () => unlockMaster(services, entry),
        (error: unknown) =>
          isCode('KEYSTORE_DAMAGED')(error) &&
          (error as Error).message ===
            `The keystore file ${file}: its sealed secret asks for KDF parameters this wallet does not accept: it was altered or written by another program.`,
      );
    } finally {
      writeFileSync(file, original);
    }
    const other = await createWallet(new WalletServices({ dataDir: tempHome(), passphrase: PASSPHRASE, env: {} }), {
      alias: 'x',
      network: 'testnet',
      words: 12,
    });
    await tamper((s) => (s.account.xpub = other.account.xpub), 'WALLET_LOCKED');
  });

  it('lists a damaged file as unreadable instead of failing', async () => {
    const damaged = join(services.keystore.dir, 'deadbeef-testnet.json');
    writeFileSync(damaged, '{"format":"wallet-keystore","version":99}', { mode: 0o600 });
    try {
      const listing = await services.keystore.list();
      assert.deepEqual(listing.unreadable, [damaged]);
      assert.deepEqual(
        listing.entries.map((e) => e.alias),
        ['main'],
      );
    } finally {
      rmSync(damaged);
    }
  });

  it('refuses a taken alias, the same seed twice, and an unknown wallet (listing the known ones)', async () => {
    await assert.rejects(
      () => createWallet(services, { alias: 'main', network: 'testnet', words: 12 }),
      /alias 'main' is taken/,
    );
    await assert.rejects(
      () => services.keystore.resolve('nope'),
      (error: unknown) =>
        isCode('WALLET_NOT_FOUND')(error) && /Known wallets: main/.test((error as WalletError).hint ?? ''),
    );
    await assert.rejects(
      () => createWallet(services, { alias: 'deadbeef', network: 'testnet', words: 12 }),
      /fingerprint/,
    );
  });

  it('never repeats or loses an address index with four processes writing at once', async () => {
    const workers = await Promise.all(
      Array.from({ length: 4 }, () => run(process.execPath, [WORKER, home, 'main', '15'])),
    );
    const indexes = workers.flatMap((worker) => JSON.parse(worker.stdout) as number[]);
    assert.equal(indexes.length, 60);
    assert.equal(new Set(indexes).size, 60, 'no index handed out twice');
    const entry = await services.keystore.resolve('main');
    assert.equal(entry.account.next_receive, 60, 'none lost');
    assert.deepEqual(
      [...indexes].sort((a, b) => a - b),
      Array.from({ length: 60 }, (_, i) => i),
    );
    assert.deepEqual(
      readdirSync(services.keystore.dir).filter((name) => name.includes('.tmp') || name.startsWith(LOCK_FILE_NAME)),
      [],
      'no temp or lock files left',
    );
  });

  it('takes over a lock left by a process that died', async () => {
    const dead = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))']).stdout.toString();
    writeFileSync(join(services.keystore.dir, LOCK_FILE_NAME), `${dead}\n${hostname()}\nstale\n`);
    const entry = await services.keystore.resolve('main');
    const { first } = await services.keystore.reserve(entry, 'receive');
    assert.equal(first, entry.account.next_receive);
    assert.deepEqual(
      readdirSync(services.keystore.dir).filter((name) => name.startsWith(LOCK_FILE_NAME)),
      [],
    );
  });

  it('a lock a live process holds past the timeout is BUSY (retry), not INTERNAL', async () => {
    const dir = join(home, 'busy');
    mkdirSync(dir, { mode: 0o700 });
    await withLock(dir, async () => {
      // Held by this very process, alive: the second taker waits out its timeout.
      await assert.rejects(
        withLock(dir, () => Promise.resolve(), { timeoutMs: 50 }),
        (error: unknown) =>
          isCode('BUSY')(error) &&
          error instanceof WalletError &&
          /stayed taken .* by process \d+/.test(error.message) &&
          /Another wallet process is writing/.test(error.hint ?? ''),
      );
    });
  });

  it('a wallet file whose network or fingerprint was edited is KEYSTORE_DAMAGED when asked for', async () => {
    const original = readFileSync(file, 'utf8');
    const entry = JSON.parse(original);
    for (const change of [{ network: 'mainnet' }, { network: 'regtest' }, { id: 'deadbeef' }]) {
      writeFileSync(file, JSON.stringify({ ...entry, ...change }));
      try {
        assert.deepEqual((await services.keystore.list()).unreadable, [file]);
        await assert.rejects(services.keystore.resolve('main'), isCode('KEYSTORE_DAMAGED'));
        await assert.rejects(services.keystore.resolve('nobody'), isCode('WALLET_NOT_FOUND'));
      } finally {
        writeFileSync(file, original);
      }
    }
  });
});
