/**
 * One keystore passphrase (issue 22): a wallet or key added to a keystore is sealed with the
 * passphrase its files already open with, and core_wallet_passphrase_change re-encrypts them
 * all, all or nothing, even when a crash cuts it short.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { cliHarness, type CliHarness } from '../../helpers/cli-harness.js';
import { passphraseFileIn } from '../../helpers/io.js';
import { ROOT, WALLET_BIN } from '../../helpers/paths.js';

const ABANDON = 'abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about';
const KEY = '0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d';
const KEY_ADDRESS = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8';

describe('one keystore passphrase', () => {
  let cli: CliHarness;
  let newFile: string;
  before(() => {
    cli = cliHarness({}, ['right passphrase', 'next passphrase']);
    newFile = passphraseFileIn(cli.home, 'next passphrase', 'next');
  });
  after(() => cli.remove());

  it('creates the first wallet with any passphrase, and refuses a second with another', async () => {
    const first = await cli.run(['core-wallet-create', '--alias', 'main', '--network', 'testnet']);
    assert.equal(first.code, 0, first.stderr);
    const stderr = await cli.expectError(
      ['core-wallet-create', '--alias', 't2', '--network', 'testnet'],
      'WALLET_LOCKED',
      1,
      { passphrase: 'wrong' },
    );
    assert.match(stderr, /not the keystore passphrase: the keystore has one passphrase/);
    await cli.expectError(
      ['core-wallet-import', '--alias', 'old', '--network', 'mainnet', '--mnemonic-stdin', '--no-discover'],
      'WALLET_LOCKED',
      1,
      { passphrase: 'wrong', stdin: ABANDON },
    );
    await cli.expectError(['evm-account-import', '--private-key-stdin'], 'WALLET_LOCKED', 1, {
      passphrase: 'wrong',
      stdin: KEY,
    });
    const second = await cli.run(['core-wallet-create', '--alias', 't2', '--network', 'testnet']);
    assert.equal(second.code, 0, second.stderr);
    const key = await cli.run(['evm-account-import', '--private-key-stdin'], { stdin: KEY });
    assert.equal(key.code, 0, key.stderr);
  });

  it('a failure midway changes nothing: the old passphrase still opens every file', async () => {
    const before = cli.keystoreSnapshot();
    // A folder where the second file's new version would be staged: writing it fails.
    const names = readdirSync(join(cli.home, 'keystore'))
      .filter((name) => name.endsWith('.json'))
      .sort();
    const blocker = join(cli.home, 'keystore', `.${names[1] ?? ''}.passphrase-change`);
    mkdirSync(blocker);
    const failed = await cli.run(['core-wallet-passphrase-change', '--new-passphrase-file', newFile]);
    assert.notEqual(failed.code, 0);
    assert.equal(cli.keystoreSnapshot(), before, 'every file as it was');
    assert.deepEqual(
      readdirSync(join(cli.home, 'keystore')).filter((name) => name.includes('passphrase-change')),
      [],
      'nothing staged is left',
    );
    for (const id of ['main', 't2']) {
      const exported = await cli.run(['core-wallet-export', '--wallet-id', id]);
      assert.equal(exported.code, 0, exported.stderr);
    }
  });

  it('re-encrypts every wallet and key under the new passphrase', async () => {
    const changed = await cli.json<{ wallets: string[]; imported_keys: number }>([
      'core-wallet-passphrase-change',
      '--new-passphrase-file',
      newFile,
    ]);
    assert.deepEqual(changed, { wallets: ['main', 't2'], imported_keys: 1 });
    await cli.expectError(['core-wallet-export', '--wallet-id', 'main'], 'WALLET_LOCKED', 1);
    for (const id of ['main', 't2']) {
      const result = await cli.run(['core-wallet-export', '--wallet-id', id, '--passphrase-file', newFile], {
        passphrase: 'none',
      });
      assert.equal(result.code, 0, result.stderr);
    }
  });

  it('refuses a new passphrase shorter than 8 characters, changing nothing', async () => {
    const short = passphraseFileIn(cli.home, 'short', 'short');
    const before = cli.keystoreSnapshot();
    const result = await cli.run(
      ['core-wallet-passphrase-change', '--new-passphrase-file', short, '--passphrase-file', newFile],
      { passphrase: 'none' },
    );
    assert.equal(result.code, 2, result.stderr);
    assert.match(result.stderr, /at least 8 characters/);
    assert.equal(cli.keystoreSnapshot(), before);
  });
});

describe('a passphrase change cut short by a crash', () => {
  let cli: CliHarness;
  before(() => {
    cli = cliHarness({}, ['right passphrase', 'next passphrase']);
  });
  after(() => cli.remove());

  it('between two renames: the next command finishes it, and the new passphrase opens every file', async () => {
    for (const alias of ['main', 't2']) {
      const created = await cli.run(['core-wallet-create', '--alias', alias, '--network', 'testnet']);
      assert.equal(created.code, 0, created.stderr);
    }
    const key = await cli.run(['evm-account-import', '--private-key-stdin'], { stdin: KEY });
    assert.equal(key.code, 0, key.stderr);
    const newFile = passphraseFileIn(cli.home, 'next passphrase', 'next');
    const keystore = join(cli.home, 'keystore');
    const files = () => readdirSync(keystore).filter((name) => name.endsWith('.json'));
    const before = new Map(files().map((name) => [name, readFileSync(join(keystore, name), 'utf8')]));

    // Killed at its second rename: the first file is under the new passphrase, the others not yet.
    const killed = spawnSync(
      process.execPath,
      [
        '--require',
        join(ROOT, 'test', 'fixtures', 'faults', 'kill-at-rename.cjs'),
        WALLET_BIN,
        'core-wallet-passphrase-change',
        '--new-passphrase-file',
        newFile,
        '--passphrase-file',
        join(cli.home, 'pw'),
        '--yes',
      ],
      { env: { ...process.env, WALLET_HOME: cli.home, KILL_AT_RENAME: '2' }, encoding: 'utf8' },
    );
    assert.equal(killed.signal, 'SIGKILL', killed.stderr);
    const changed = files().filter((name) => readFileSync(join(keystore, name), 'utf8') !== before.get(name));
    assert.equal(changed.length, 1, 'one file was renamed before the crash');
    assert.ok(
      readdirSync(keystore).some((name) => name.endsWith('.passphrase-change')),
      'the rest staged',
    );

    // Any command finishes the change; then the new passphrase opens every wallet and the key.
    for (const id of ['main', 't2']) {
      const exported = await cli.run(['core-wallet-export', '--wallet-id', id, '--passphrase-file', newFile], {
        passphrase: 'none',
      });
      assert.equal(exported.code, 0, exported.stderr);
    }
    const signed = await cli.run(
      ['evm-message-sign', '--address', KEY_ADDRESS, '--message', 'hi', '--passphrase-file', newFile],
      { passphrase: 'none' },
    );
    assert.equal(signed.code, 0, signed.stderr);
    assert.ok(
      files().every((name) => readFileSync(join(keystore, name), 'utf8') !== before.get(name)),
      'every file re-encrypted',
    );
    assert.deepEqual(
      readdirSync(keystore).filter((name) => name.includes('passphrase-change')),
      [],
      'nothing staged and no record left',
    );
    await cli.expectError(['core-wallet-export', '--wallet-id', 'main'], 'WALLET_LOCKED', 1);
  });
});
