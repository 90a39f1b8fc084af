/**
 * Issue 19: costs that stay flat as wallets grow. What a call reads, derives and asks the node
 * must not grow with the addresses issued, the wallets held or the coins held; and what is
 * cached must be checked before it is signed for.
 */
import assert from 'node:assert/strict';
import { existsSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import type * as Fs from 'node:fs';
import { createRequire, syncBuiltinESMExports } from 'node:module';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { issuedAddresses } from '../../src/domain/dash/addresses.js';
import { AccountWatcher } from '../../src/domain/dash/watcher.js';
import { withAddressKey } from '../../src/domain/dash/keys.js';
import { signMessage, verifyMessage } from '../../src/domain/dash/message.js';
import { sendFunds } from '../../src/domain/dash/pay.js';
import { createTransaction } from '../../src/domain/dash/plan.js';
import { importWallet } from '../../src/domain/wallet/wallets.js';
import { WalletError } from '../../src/domain/errors.js';
import type { WalletEntry } from '../../src/domain/keystore/wallet-record.js';
import { WalletServices } from '../../src/domain/services.js';
import { startDashBackends, type DashBackends } from '../fixtures/dash-backends.js';
import { tempHome } from '../helpers/io.js';

const require = createRequire(import.meta.url);
const fs = require('node:fs') as typeof Fs;

const ABANDON = 'abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about';
const PASSPHRASE = 'flat costs passphrase';
/** A testnet address of another seed (BIP44 m/44'/1'/0'/0/0 of "legal winner …"). */
const STRANGER_MNEMONIC = 'legal winner thank year wave sausage worth useful legal winner thank yellow';

/**
 * Counts the files read under `dir` while `task` runs (the wallet reads its own files
 * synchronously: opened read-only without following a link, src/shared/private-files.ts).
 */
async function filesReadDuring<T>(dir: string, task: () => Promise<T>): Promise<{ value: T; reads: number }> {
  const original = fs.openSync;
  let reads = 0;
  fs.openSync = ((path: Parameters<typeof original>[0], flags?: Parameters<typeof original>[1], ...rest: unknown[]) => {
    const readOnly =
      flags === undefined ||
      flags === 'r' ||
      (typeof flags === 'number' && (flags & (fs.constants.O_WRONLY | fs.constants.O_RDWR)) === 0);
    if (typeof path === 'string' && path.startsWith(dir) && readOnly) reads++;
    return (original as (...args: unknown[]) => number)(path, flags, ...rest);
  }) as typeof original;
  syncBuiltinESMExports();
  try {
    return { value: await task(), reads };
  } finally {
    fs.openSync = original;
    syncBuiltinESMExports();
  }
}

describe('flat costs (issue 19)', () => {
  let home: string;
  let services: WalletServices;
  let entry: WalletEntry;

  before(async () => {
    home = tempHome();
    services = new WalletServices({ dataDir: home, passphrase: PASSPHRASE, env: {} });
    entry = await importWallet(services, {
      alias: 'main',
      network: 'testnet',
      mnemonic: ABANDON,
      mnemonicPassphrase: '',
    });
  });
  after(() => rmSync(home, { recursive: true, force: true }));

  it('resolves a wallet by alias or fingerprint from its own file, not every wallet file', async () => {
    const file = join(services.keystore.dir, `${entry.id}-testnet.json`);
    const stored = JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
    // 199 more wallet files (public data only: resolving never unlocks).
    for (let n = 1; n < 200; n++) {
      const id = n.toString(16).padStart(8, '0');
      writeFileSync(
        join(services.keystore.dir, `${id}-testnet.json`),
        JSON.stringify({ ...stored, id, alias: `w${n}` }),
        {
          mode: 0o600,
        },
      );
    }
    const fresh = new WalletServices({ dataDir: home, passphrase: PASSPHRASE, env: {} });
    const byFingerprint = await filesReadDuring(fresh.keystore.dir, () => fresh.keystore.resolve(entry.id));
    assert.equal(byFingerprint.value.alias, 'main');
    assert.ok(byFingerprint.reads <= 3, `a fingerprint read ${byFingerprint.reads} files`);
    await fresh.keystore.resolve('w150');
    const byAlias = await filesReadDuring(fresh.keystore.dir, () => fresh.keystore.resolve('w150'));
    assert.equal(byAlias.value.alias, 'w150');
    assert.equal(byAlias.reads, 1, 'an alias seen before reads its own file only');
    for (let n = 1; n < 200; n++) {
      rmSync(join(services.keystore.dir, `${n.toString(16).padStart(8, '0')}-testnet.json`));
    }
    await assert.rejects(fresh.keystore.resolve('w150'), (error: unknown) => {
      return error instanceof WalletError && error.code === 'WALLET_NOT_FOUND';
    });
  });

  it('derives each issued address once: a cache (0600) names its xpub and holds what the xpub derives', async () => {
    entry = await services.keystore.advance(entry, { receive: 30, change: 5 });
    const derived = await filesReadDuring(home, () => issuedAddresses(services, entry));
    const watcher = new AccountWatcher(entry.account.xpub, 'testnet');
    assert.deepEqual(
      derived.value.map((row) => row.address),
      [
        ...Array.from({ length: 30 }, (_, index) => watcher.address('receive', index)),
        ...Array.from({ length: 5 }, (_, index) => watcher.address('change', index)),
      ],
    );
    const cache = join(home, 'cache', 'addresses', `${entry.id}-testnet.json`);
    assert.equal(statSync(cache).mode & 0o777, 0o600);
    const stored = JSON.parse(readFileSync(cache, 'utf8')) as { xpub: string; receive: string[] };
    assert.equal(stored.xpub, entry.account.xpub);
    assert.equal(stored.receive.length, 30);
    // A new process (new services) reads the file instead of deriving again.
    const fresh = new WalletServices({ dataDir: home, passphrase: PASSPHRASE, env: {} });
    assert.deepEqual(await issuedAddresses(fresh, entry), derived.value);
  });

  it('refuses to sign for an address an altered cache slipped in, and drops the cache', async () => {
    const cache = join(home, 'cache', 'addresses', `${entry.id}-testnet.json`);
    const stranger = await importWallet(new WalletServices({ dataDir: tempHome(), passphrase: PASSPHRASE, env: {} }), {
      alias: 'other',
      network: 'testnet',
      mnemonic: STRANGER_MNEMONIC,
      mnemonicPassphrase: '',
    });
    const foreign = new AccountWatcher(stranger.account.xpub, 'testnet').address('receive', 0);
    const stored = JSON.parse(readFileSync(cache, 'utf8')) as { receive: string[] };
    stored.receive[3] = foreign;
    writeFileSync(cache, JSON.stringify(stored));
    const fresh = new WalletServices({ dataDir: home, passphrase: PASSPHRASE, env: {} });
    await assert.rejects(
      withAddressKey(fresh, entry, foreign, (key) => signMessage('pay me', key)),
      (error: unknown) => error instanceof WalletError && /address cache/.test(error.message),
    );
    assert.ok(!existsSync(cache), 'the altered cache is gone');
    const own = new AccountWatcher(entry.account.xpub, 'testnet').address('receive', 3);
    const signature = await withAddressKey(fresh, entry, own, (key) => signMessage('pay me', key));
    assert.ok(verifyMessage('pay me', own, signature));
  });

  it('refuses a wallet file whose next index is absurd, at once and with a clear error', async () => {
    const dir = tempHome();
    try {
      const other = new WalletServices({ dataDir: dir, passphrase: PASSPHRASE, env: {} });
      const damaged = await importWallet(other, {
        alias: 'damaged',
        network: 'testnet',
        mnemonic: ABANDON,
        mnemonicPassphrase: '',
      });
      const file = join(other.keystore.dir, `${damaged.id}-testnet.json`);
      const stored = JSON.parse(readFileSync(file, 'utf8')) as { account: Record<string, unknown> };
      stored.account['next_receive'] = 2 ** 31;
      writeFileSync(file, JSON.stringify(stored));
      const started = performance.now();
      await assert.rejects(
        other.keystore.resolve(damaged.id),
        (error: unknown) => error instanceof WalletError && /next_receive above 100000/.test(error.message),
      );
      assert.ok(performance.now() - started < 5_000);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('core_tx_create asks the node about the coins it chooses, not every coin held (issue 19)', () => {
  let backends: DashBackends;
  let home: string;

  before(async () => {
    backends = await startDashBackends({ chain: 'test', addressIndex: 'disabled' });
    home = tempHome();
  });
  after(async () => {
    await backends.close();
    rmSync(home, { recursive: true, force: true });
  });

  it('checks (gettxout) only the inputs chosen, and sets aside one the mempool already spends', async () => {
    const services = new WalletServices({
      dataDir: home,
      passphrase: PASSPHRASE,
      env: { WALLET_CORE_TESTNET_URL: backends.rpcUrl },
    });
    let entry = await importWallet(services, {
      alias: 'coins',
      network: 'testnet',
      mnemonic: ABANDON,
      mnemonicPassphrase: '',
    });
    entry = await services.keystore.advance(entry, { receive: 300, change: 0 });
    const rows = await issuedAddresses(services, entry);
    const { hex } = await import('@scure/base');
    const { addressScript, decodeAddress } = await import('../../src/domain/dash/address.js');
    const scriptOf = (address: string) => {
      const decoded = decodeAddress(address);
      assert.ok(decoded);
      return addressScript(decoded);
    };
    for (const [index, row] of rows.entries())
      backends.chain.fund(row.address, scriptOf(row.address), 100_000n + BigInt(index));
    const biggest = rows[rows.length - 1];
    assert.ok(biggest);
    const payee = rows[0]?.address ?? '';
    const requestsBefore = backends.chain.requests.length;
    const created = await createTransaction(services, {
      walletId: 'coins',
      network: 'testnet',
      payments: [{ address: payee, amount: 50_000n }],
    });
    const gettxout = backends.chain.requests.slice(requestsBefore).filter((request) => request.method === 'gettxout');
    assert.equal(created.inputs.length, 1);
    assert.equal(gettxout.length, created.inputs.length, 'one gettxout per input chosen, not per coin held');
    assert.equal(hex.encode(created.inputs[0]?.script ?? new Uint8Array()), hex.encode(scriptOf(biggest.address)));

    // Spend the biggest coin: scantxoutset still lists it (it sees blocks only), gettxout does not.
    const sent = await sendFunds(services, {
      walletId: 'coins',
      network: 'testnet',
      payments: [{ address: payee, amount: 50_000n }],
      dryRun: false,
      authority: 'terminal',
    });
    assert.equal(sent.inputs[0]?.address, biggest.address);
    const secondBefore = backends.chain.requests.length;
    const again = await createTransaction(services, {
      walletId: 'coins',
      network: 'testnet',
      payments: [{ address: payee, amount: 50_000n }],
    });
    const checks = backends.chain.requests.slice(secondBefore).filter((request) => request.method === 'gettxout');
    assert.equal(again.inputs.length, 1);
    assert.equal(again.inputs[0]?.address, rows[rows.length - 2]?.address, 'the next biggest coin');
    assert.equal(checks.length, 2, 'the spent coin, then the one chosen instead');
  });
});
