/**
 * Bad input for every core_* tool, through the CLI and its in-process MCP server: each is a clear
 * error with a stable code and exit status, names the problem without echoing secrets, and
 * changes nothing on disk.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { cliHarness, type CliHarness } from '../helpers/cli-harness.js';
import { fundsSendArgs, txCreateArgs } from '../helpers/core-argv.js';

const ABANDON = 'abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about';
const MAINNET_ADDRESS = 'XoJA8qE3N2Y3jMLEtZ3vcN42qseZ8LvFf5';
const TESTNET_ADDRESS = 'yRd4FhXfVGHXpsuZXPNkMrfD9GVj46pnjt';

describe('core_* tools refuse bad input clearly and change nothing', () => {
  let home: string;
  // No node listens here: tools must fail on input before they would need one.
  const env = { WALLET_CORE_TESTNET_URL: 'http://rpcuser:s3cretpw@127.0.0.1:9/' };
  let cli: CliHarness;
  const run: CliHarness['run'] = (argv, options) => cli.run(argv, options);
  const keystoreSnapshot = (): string => cli.keystoreSnapshot();
  const expectError: CliHarness['expectError'] = (argv, code, exit, options) =>
    cli.expectError(argv, code, exit, options);

  /** The CLI checks required flags before calling (MCP callers get NETWORK_REQUIRED: test/mcp). */
  const expectMissingNetwork = async (argv: string[]) => {
    const before = keystoreSnapshot();
    const result = await run(argv);
    assert.equal(result.code, 2);
    assert.match(result.stderr, /Missing required flag: --network/);
    assert.equal(keystoreSnapshot(), before);
  };

  before(async () => {
    cli = cliHarness(env, ['s3cretpw']);
    home = cli.home;
    const imported = await run(
      ['core-wallet-import', '--alias', 'main', '--network', 'testnet', '--mnemonic-stdin', '--no-discover', '--json'],
      { stdin: ABANDON },
    );
    assert.equal(imported.code, 0, imported.stderr);
    assert.equal((await run(['core-address-create', '--wallet-id', 'main'])).code, 0);
  });
  after(() => cli.remove());

  it('wallet create and import: bad alias, taken alias, bad mnemonics, secrets never in argv', async () => {
    await expectError(['core-wallet-create', '--alias', 'Main!'], 'INVALID_PARAM', 2);
    await expectError(['core-wallet-create', '--alias', 'main', '--network', 'testnet'], 'INVALID_PARAM', 2);
    await expectError(['core-wallet-create', '--alias', 'fresh'], 'WALLET_LOCKED', 1, { passphrase: 'none' });
    const badChecksum = ABANDON.replace(/about$/, 'abandon');
    const stderr = await expectError(
      ['core-wallet-import', '--alias', 'x', '--mnemonic-stdin', '--no-discover'],
      'INVALID_PARAM',
      2,
      { stdin: badChecksum },
    );
    assert.doesNotMatch(stderr, /abandon/, 'the mnemonic is not echoed');
    await expectError(['core-wallet-import', '--alias', 'x', '--mnemonic-stdin', '--no-discover'], 'INVALID_PARAM', 2, {
      stdin: `${ABANDON} zoo`,
    });
    await expectError(['core-wallet-import', '--alias', 'x', '--mnemonic-stdin', '--no-discover'], 'INVALID_PARAM', 2, {
      stdin: ABANDON,
    });
    const inline = await run(['core-wallet-import', '--alias', 'x', '--mnemonic', ABANDON]);
    assert.equal(inline.code, 2);
    assert.doesNotMatch(inline.stderr, /abandon|about/);
  });

  it('export needs the right passphrase and returns the imported mnemonic', async () => {
    await expectError(['core-wallet-export', '--wallet-id', 'main'], 'WALLET_LOCKED', 1, { passphrase: 'wrong' });
    await expectError(['core-wallet-export', '--wallet-id', 'nobody'], 'WALLET_NOT_FOUND', 1);
    const exported = await run(['core-wallet-export', '--wallet-id', 'main', '--json']);
    assert.equal(exported.code, 0);
    assert.equal((JSON.parse(exported.stdout) as { mnemonic: string }).mnemonic, ABANDON);
  });

  it('delete: network required and matching, fingerprint confirmed, passphrase right', async () => {
    await expectMissingNetwork(['core-wallet-delete', '--wallet-id', 'main', '--confirm-fingerprint', '73c5da0a']);
    await expectError(
      ['core-wallet-delete', '--wallet-id', 'main', '--network', 'mainnet', '--confirm-fingerprint', '73c5da0a'],
      'NETWORK_MISMATCH',
      1,
    );
    await expectError(
      ['core-wallet-delete', '--wallet-id', 'main', '--network', 'testnet', '--confirm-fingerprint', '00000000'],
      'INVALID_PARAM',
      2,
    );
    await expectError(
      ['core-wallet-delete', '--wallet-id', 'main', '--network', 'testnet', '--confirm-fingerprint', '73c5da0a'],
      'WALLET_LOCKED',
      1,
      { passphrase: 'wrong' },
    );
  });

  it('addresses: unknown wallet lists the known ones; wrong network refused', async () => {
    const stderr = await expectError(['core-address-create', '--wallet-id', 'nobody'], 'WALLET_NOT_FOUND', 1);
    assert.match(stderr, /Known wallets: main/);
    const mismatch = await expectError(
      ['core-address-create', '--wallet-id', 'main', '--network', 'mainnet'],
      'NETWORK_MISMATCH',
      1,
    );
    // The domain says "pass `network: testnet`"; the CLI prints it as the flag.
    assert.match(mismatch, /^hint: Pass --network testnet, or use a mainnet wallet\.$/m);
    const sideways = await run(['core-addresses-list', '--wallet-id', 'main', '--chain', 'sideways']);
    assert.equal(sideways.code, 2);
    assert.match(sideways.stderr, /--chain must be one of receive, change/);
  });

  it('address validation reports malformed, bad-checksum and wrong-network addresses', async () => {
    const check = async (address: string, network?: string) => {
      const result = await run(
        ['core-address-validate', '--address', address, ...(network ? ['--network', network] : []), '--json'],
        { passphrase: 'none' },
      );
      const parsed = JSON.parse(result.stdout) as {
        valid: boolean;
        network: string | null;
        problem: string | null;
        type: string | null;
      };
      // A failed check exits 1 (declared checkField), with the --json result printed all the same.
      assert.equal(result.code, parsed.valid ? 0 : 1, result.stderr);
      return parsed;
    };
    assert.deepEqual(await check(MAINNET_ADDRESS), {
      valid: true,
      network: 'mainnet',
      networks: ['mainnet'],
      type: 'p2pkh',
      problem: null,
    });
    assert.equal((await check(TESTNET_ADDRESS)).network, 'testnet');
    assert.equal((await check(MAINNET_ADDRESS, 'testnet')).valid, false);
    assert.match((await check(`${TESTNET_ADDRESS.slice(0, -1)}u`)).problem ?? '', /checksum/);
    assert.match((await check('0OIl-not-base58')).problem ?? '', /Base58/);
    assert.match(
      (await check('1BvBMSEYstWetqTFn5Au4m4GFg7xJaNVN2')).problem ?? '',
      /version byte/,
      'a Bitcoin address is not Dash',
    );
  });

  it('transactions: bad amounts, bad and wrong-network addresses, dust, bad PSBT and hex', async () => {
    const create = txCreateArgs;
    for (const amount of ['-5', '1.5', '1e5', 'abc', '', '007'])
      await expectError(create(TESTNET_ADDRESS, amount), 'INVALID_PARAM', 2);
    await expectError(create(TESTNET_ADDRESS, '545'), 'INVALID_PARAM', 2);
    await expectError(create('yNotAnAddress', '100000'), 'INVALID_PARAM', 2);
    await expectError(create(MAINNET_ADDRESS, '100000'), 'NETWORK_MISMATCH', 1);
    await expectMissingNetwork([
      'core-tx-create',
      '--wallet-id',
      'main',
      '--outputs',
      JSON.stringify({ address: TESTNET_ADDRESS, amount_duffs: '1000' }),
    ]);
    await expectError([...create(TESTNET_ADDRESS, '100000'), '--fee-rate-duffs-per-kb', '999'], 'INVALID_PARAM', 2);
    await expectError(
      ['core-tx-sign', '--wallet-id', 'main', '--network', 'testnet', '--psbt', 'not base64!'],
      'INVALID_PARAM',
      2,
    );
    await expectError(
      ['core-tx-sign', '--wallet-id', 'main', '--network', 'testnet', '--psbt', 'aGVsbG8='],
      'INVALID_PARAM',
      2,
    );
    await expectError(['core-tx-send', '--network', 'testnet', '--hex', 'zz'.repeat(20)], 'INVALID_PARAM', 2);
    await expectError(['core-tx-send', '--network', 'testnet', '--hex', '00'.repeat(20)], 'INVALID_PARAM', 2);
    await expectError(fundsSendArgs(TESTNET_ADDRESS, '-1'), 'INVALID_PARAM', 2);
    await expectMissingNetwork([
      'core-funds-send',
      '--wallet-id',
      'main',
      '--address',
      TESTNET_ADDRESS,
      '--amount-duffs',
      '1000',
    ]);
  });

  it('an unreachable backend is BACKEND_UNAVAILABLE naming the endpoint without its password', async () => {
    const stderr = await expectError(['core-balances-get', '--wallet-id', 'main'], 'BACKEND_UNAVAILABLE', 1, {
      passphrase: 'none',
    });
    assert.match(stderr, /127\.0\.0\.1:9/);
    assert.doesNotMatch(stderr, /s3cretpw|rpcuser/);
  });

  it('messages: sign with an issued address only; malformed and forged signatures', async () => {
    await expectError(
      ['core-message-sign', '--wallet-id', 'main', '--address', MAINNET_ADDRESS, '--message', 'hi'],
      'INVALID_PARAM',
      2,
    );
    await expectError(
      ['core-message-sign', '--wallet-id', 'main', '--address', TESTNET_ADDRESS, '--message', 'hi'],
      'WALLET_LOCKED',
      1,
      { passphrase: 'wrong' },
    );
    const signed = await run([
      'core-message-sign',
      '--wallet-id',
      'main',
      '--address',
      TESTNET_ADDRESS,
      '--message',
      'hi',
      '--json',
    ]);
    assert.equal(signed.code, 0, signed.stderr);
    const { signature } = JSON.parse(signed.stdout) as { signature: string };
    const verify = async (message: string, sig: string) =>
      run(['core-message-verify', '--address', TESTNET_ADDRESS, '--message', message, '--signature', sig, '--json'], {
        passphrase: 'none',
      });
    const good = await verify('hi', signature);
    assert.equal(good.code, 0, good.stderr);
    assert.deepEqual(JSON.parse(good.stdout), { valid: true });
    const forged = await verify('hi!', signature);
    assert.equal(forged.code, 1, 'a signature that does not verify exits 1, like cast wallet verify');
    assert.deepEqual(JSON.parse(forged.stdout), { valid: false });
    const human = await run(
      ['core-message-verify', '--address', TESTNET_ADDRESS, '--message', 'hi!', '--signature', signature],
      {
        passphrase: 'none',
      },
    );
    assert.equal(human.code, 1);
    assert.equal(human.stdout, 'valid  false\n');
    await expectError(
      ['core-message-verify', '--address', TESTNET_ADDRESS, '--message', 'hi', '--signature', 'not*base64'],
      'INVALID_PARAM',
      2,
      { passphrase: 'none' },
    );
    await expectError(
      ['core-message-verify', '--address', TESTNET_ADDRESS, '--message', 'hi', '--signature', 'aGVsbG8='],
      'INVALID_PARAM',
      2,
      { passphrase: 'none' },
    );
  });

  it('a wallet file whose network was edited is KEYSTORE_DAMAGED (exit 6) naming the file, never INTERNAL', async () => {
    const name = readdirSync(join(home, 'keystore')).find((file) => file.endsWith('-testnet.json'));
    assert.ok(name);
    const path = join(home, 'keystore', name);
    const original = readFileSync(path, 'utf8');
    writeFileSync(path, original.replace('"network": "testnet"', '"network": "mainnet"'), { mode: 0o600 });
    try {
      for (const argv of [
        ['core-addresses-list', '--wallet-id', 'main'],
        ['core-address-create', '--wallet-id', 'main'],
        ['core-addresses-list', '--wallet-id', '73c5da0a'],
      ]) {
        const stderr = await expectError(argv, 'KEYSTORE_DAMAGED', 6);
        assert.match(stderr, new RegExp(`The keystore file .*${name} says wallet 73c5da0a on mainnet`));
        assert.match(
          stderr,
          /^hint: Restore the file from a backup, or import the secret again \(core-wallet-import, /m,
        );
      }
      const listed = await cli.json<{ wallets: unknown[]; unreadable_files: string[] }>(['core-wallets-list'], {
        passphrase: 'none',
      });
      assert.deepEqual(listed.unreadable_files, [path]);
    } finally {
      writeFileSync(path, original, { mode: 0o600 });
    }
  });

  it('finally deletes the wallet when every check passes', async () => {
    const deleted = await run([
      'core-wallet-delete',
      '--wallet-id',
      'main',
      '--network',
      'testnet',
      '--confirm-fingerprint',
      '73C5DA0A',
      '--json',
    ]);
    assert.equal(deleted.code, 0, deleted.stderr);
    assert.deepEqual(
      readdirSync(join(home, 'keystore')).filter((name) => name.endsWith('.json')),
      [],
    );
  });
});
