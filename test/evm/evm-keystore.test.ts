/**
 * EVM accounts in the keystore: derived ones recorded beside the wallet's seed, imported keys in
 * their own sealed files. Cross-checked with ethers; concurrent writers never repeat an index.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { promisify } from 'node:util';
import { ethers } from 'ethers';
import { importWallet } from '../../src/domain/wallet/wallets.js';
import { WalletError } from '../../src/domain/errors.js';
import {
  createAccount,
  exportAccount,
  importAccount,
  listAccounts,
  resolveAccount,
} from '../../src/domain/evm/accounts.js';
import { LOCK_FILE_NAME } from '../../src/domain/keystore/lock.js';
import { WalletServices } from '../../src/domain/services.js';
import { tempHome } from '../helpers/io.js';
import { ROOT } from '../helpers/paths.js';

const run = promisify(execFile);
const WORKER = join(ROOT, 'build', 'test', 'fixtures', 'reserve-worker.js');
const PASSPHRASE = 'evm keystore passphrase';
const MNEMONIC = 'abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about';

const isCode = (code: string) => (error: unknown) => error instanceof WalletError && error.code === code;
const oracle = (index: number, passphrase = '') =>
  ethers.HDNodeWallet.fromPhrase(MNEMONIC, passphrase, `m/44'/60'/0'/0/${index}`);

describe('EVM accounts in the keystore', () => {
  let home: string;
  let services: WalletServices;

  before(async () => {
    home = tempHome();
    services = new WalletServices({ dataDir: home, passphrase: PASSPHRASE, env: {} });
    await importWallet(services, { alias: 'main', network: 'mainnet', mnemonic: MNEMONIC, mnemonicPassphrase: '' });
    await importWallet(services, {
      alias: 'salted',
      network: 'testnet',
      mnemonic: MNEMONIC,
      mnemonicPassphrase: 'TREZOR',
    });
  });
  after(() => rmSync(home, { recursive: true, force: true }));

  it("derives m/44'/60'/0'/0/i as ethers does, for any Dash network and BIP39 passphrase", async () => {
    const first = await createAccount(services, { walletId: 'main', alias: 'spend' });
    assert.equal(first.address, oracle(0).address);
    // The published address of "abandon … about" at m/44'/60'/0'/0/0.
    assert.equal(first.address, '0x9858EfFD232B4033E47d90003D41EC34EcaEda94');
    const salted = await createAccount(services, { walletId: 'salted', alias: null });
    assert.equal(salted.address, oracle(0, 'TREZOR').address);
  });

  it('later accounts need no passphrase: they come from the stored EVM xpub', async () => {
    const locked = new WalletServices({ dataDir: home, env: {} });
    const second = await createAccount(locked, { walletId: 'main', alias: null });
    assert.equal(second.index, 1);
    assert.equal(second.address, oracle(1).address);
    await assert.rejects(
      exportAccount(locked, { ref: second.address, format: 'private_key', keystorePassword: undefined }),
      isCode('WALLET_LOCKED'),
    );
  });

  it('refuses a taken alias and an address the keystore already has', async () => {
    await assert.rejects(createAccount(services, { walletId: 'main', alias: 'spend' }), isCode('INVALID_PARAM'));
    await assert.rejects(
      importAccount(services, {
        privateKey: oracle(0).privateKey,
        keystoreJson: undefined,
        keystorePassword: undefined,
        alias: null,
      }),
      (error: unknown) =>
        error instanceof WalletError &&
        error.code === 'INVALID_PARAM' &&
        /account 0 of wallet 'main'/.test(error.message),
    );
  });

  it('seals an imported key in its own owner-only file, bound to its address', async () => {
    const key = ethers.Wallet.createRandom();
    const account = await importAccount(services, {
      privateKey: key.privateKey,
      keystoreJson: undefined,
      keystorePassword: undefined,
      alias: 'cold',
    });
    assert.equal(account.address, key.address);
    const file = join(services.keystore.dir, `evm-${key.address.slice(2).toLowerCase()}.json`);
    assert.equal(statSync(file).mode & 0o777, 0o600);
    const text = readFileSync(file, 'utf8');
    assert.ok(!text.includes(key.privateKey.slice(2)), 'the key is stored in clear');
    const exported = await exportAccount(services, { ref: 'cold', format: 'private_key', keystorePassword: undefined });
    assert.equal(exported.privateKey, key.privateKey);

    // The sealed key moved to another address's file no longer opens.
    const other = ethers.Wallet.createRandom();
    const moved = { ...JSON.parse(text), address: other.address, alias: 'moved' };
    writeFileSync(
      join(services.keystore.dir, `evm-${other.address.slice(2).toLowerCase()}.json`),
      JSON.stringify(moved),
      { mode: 0o600 },
    );
    await assert.rejects(
      exportAccount(services, { ref: 'moved', format: 'private_key', keystorePassword: undefined }),
      isCode('WALLET_LOCKED'),
    );
  });

  it('refuses malformed keys without echoing them', async () => {
    for (const privateKey of ['0x1234', `0x${'00'.repeat(32)}`, `0x${'ff'.repeat(32)}`, 'zz'.repeat(32)]) {
      await assert.rejects(
        importAccount(services, { privateKey, keystoreJson: undefined, keystorePassword: undefined, alias: null }),
        (error: unknown) =>
          error instanceof WalletError && error.code === 'INVALID_PARAM' && !error.message.includes(privateKey),
      );
    }
    await assert.rejects(
      importAccount(services, { privateKey: undefined, keystoreJson: '{not json', keystorePassword: 'x', alias: null }),
      isCode('INVALID_PARAM'),
    );
    await assert.rejects(
      importAccount(services, {
        privateKey: undefined,
        keystoreJson: undefined,
        keystorePassword: undefined,
        alias: null,
      }),
      isCode('INVALID_PARAM'),
    );
  });

  it('resolves accounts by address in any case or by alias; unknown ones are WALLET_NOT_FOUND', async () => {
    assert.equal((await resolveAccount(services, oracle(0).address.toLowerCase())).alias, 'spend');
    assert.equal((await resolveAccount(services, 'spend')).address, oracle(0).address);
    await assert.rejects(resolveAccount(services, 'nobody'), isCode('WALLET_NOT_FOUND'));
    await assert.rejects(resolveAccount(services, ethers.Wallet.createRandom().address), isCode('WALLET_NOT_FOUND'));
  });

  it('detects a tampered account address at signing time', async () => {
    const [walletFile] = readdirSync(services.keystore.dir).filter((name) => name.endsWith('-mainnet.json'));
    assert.ok(walletFile);
    const path = join(services.keystore.dir, walletFile);
    const original = readFileSync(path, 'utf8');
    const entry = JSON.parse(original);
    entry.evm.accounts[1].address = ethers.Wallet.createRandom().address;
    writeFileSync(path, JSON.stringify(entry), { mode: 0o600 });
    try {
      await assert.rejects(
        exportAccount(services, {
          ref: entry.evm.accounts[1].address,
          format: 'private_key',
          keystorePassword: undefined,
        }),
        isCode('KEYSTORE_DAMAGED'),
      );
    } finally {
      writeFileSync(path, original, { mode: 0o600 });
    }
  });

  it('skips an index whose address the keystore already has: the same seed on another Dash network', async () => {
    const again = await importWallet(services, {
      alias: 'again',
      network: 'regtest',
      mnemonic: MNEMONIC,
      mnemonicPassphrase: '',
    });
    const account = await createAccount(services, { walletId: again.alias, alias: null });
    // Indexes 0 and 1 are wallet 'main''s already.
    assert.equal(account.index, 2);
    assert.equal(account.address, oracle(2).address);
    const next = await createAccount(services, { walletId: 'main', alias: null });
    assert.equal(next.index, 3);
    assert.equal(next.address, oracle(3).address);
  });

  it('4 processes adding 10 accounts each get 40 distinct indexes, none lost', async () => {
    const workers = await Promise.all(
      Array.from({ length: 4 }, () => run(process.execPath, [WORKER, home, 'main', '10', 'evm'])),
    );
    const indexes = workers.flatMap((worker) => JSON.parse(worker.stdout) as number[]);
    assert.equal(new Set(indexes).size, 40);
    const { accounts } = await listAccounts(services, 'main');
    // 0, 1 and 3 from the tests above (2 went to wallet 'again'), then 40 more.
    assert.deepEqual(
      accounts.map((account) => account.index),
      [0, 1, ...Array.from({ length: 41 }, (_, i) => i + 3)],
    );
    for (const account of accounts.slice(-3)) assert.equal(account.address, oracle(account.index ?? -1).address);
    assert.deepEqual(
      readdirSync(services.keystore.dir).filter((name) => name.endsWith('.tmp') || name === LOCK_FILE_NAME),
      [],
    );
  });
});
