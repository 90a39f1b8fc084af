/**
 * The evm_* tools through the CLI and its in-process MCP server, without a node: secrets come
 * only from stdin, owner-only files or a prompt; bad input is a clear error with its code and
 * exit status, never echoes a secret or a credential, and changes nothing on disk.
 */
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { ethers } from 'ethers';
import { cliHarness, type CliHarness, type RunOptions } from '../helpers/cli-harness.js';
import { passphraseFileIn } from '../helpers/io.js';

const ABANDON = 'abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about';
/** The published first Ethereum account of ABANDON. */
const ABANDON_ETH = '0x9858EfFD232B4033E47d90003D41EC34EcaEda94';

describe('evm_* tools through the CLI', () => {
  let home: string;
  // No node listens here; its password must never be shown.
  const env = { WALLET_EVM_LOCAL_URL: 'http://rpcuser:s3cretpw@127.0.0.1:9/' };
  let cli: CliHarness;
  const run: CliHarness['run'] = (argv, options) => cli.run(argv, options);
  const json = <T>(argv: string[], options?: RunOptions): Promise<T> => cli.json<T>(argv, options);
  const keystoreSnapshot = (): string => cli.keystoreSnapshot();
  const expectError: CliHarness['expectError'] = (argv, code, exit, options) =>
    cli.expectError(argv, code, exit, options);

  before(async () => {
    cli = cliHarness(env, ['s3cretpw']);
    home = cli.home;
    await json(['core-wallet-import', '--alias', 'main', '--network', 'mainnet', '--mnemonic-stdin', '--no-discover'], {
      stdin: ABANDON,
    });
    const account = await json<{ address: string }>(['evm-account-create', '--wallet-id', 'main', '--alias', 'spend']);
    assert.equal(account.address, ABANDON_ETH);
  });
  after(() => cli.remove());

  it('refuses a private key inline, without echoing it', async () => {
    const key = ethers.Wallet.createRandom().privateKey;
    const before = keystoreSnapshot();
    const result = await run(['evm-account-import', '--private-key', key]);
    assert.equal(result.code, 2);
    assert.ok(!result.stderr.includes(key.slice(2)), result.stderr);
    assert.match(result.stderr, /--private-key-stdin|--private-key-file/);
    assert.equal(keystoreSnapshot(), before);
  });

  it('imports a key from stdin and a keystore v3 from owner-only files, and exports them', async () => {
    const raw = ethers.Wallet.createRandom();
    const fromStdin = await json<{ address: string; source: string }>(
      ['evm-account-import', '--private-key-stdin', '--alias', 'hot'],
      { stdin: `${raw.privateKey}\n` },
    );
    assert.deepEqual([fromStdin.address, fromStdin.source], [raw.address, 'imported']);

    const other = ethers.Wallet.createRandom();
    const keystoreFile = join(home, 'UTC--other.json');
    writeFileSync(
      keystoreFile,
      await ethers.encryptKeystoreJson({ address: other.address, privateKey: other.privateKey }, 'geth password', {
        scrypt: { N: 1024 },
      }),
      { mode: 0o600 },
    );
    const passwordFile = passphraseFileIn(home, 'geth password', 'geth-pw');
    const fromFile = await json<{ address: string }>([
      'evm-account-import',
      '--keystore-json-file',
      keystoreFile,
      '--keystore-password-file',
      passwordFile,
    ]);
    assert.equal(fromFile.address, other.address);

    const exported = await json<{ private_key: string }>([
      'evm-account-export',
      '--address',
      'hot',
      '--key-format',
      'private_key',
    ]);
    assert.equal(exported.private_key, raw.privateKey);
    const v3 = await json<{ keystore_json: string }>(['evm-account-export', '--address', other.address.toLowerCase()]);
    // No keystore_password: sealed with the keystore passphrase.
    assert.equal((await ethers.Wallet.fromEncryptedJson(v3.keystore_json, 'right passphrase')).address, other.address);
  });

  it('lists derived and imported accounts', async () => {
    const listed = await json<{ accounts: { address: string; source: string; alias: string | null }[] }>([
      'evm-accounts-list',
    ]);
    assert.equal(listed.accounts[0]?.address, ABANDON_ETH);
    assert.deepEqual(
      listed.accounts.map((account) => account.source),
      ['derived', 'imported', 'imported'],
    );
  });

  it('signs EIP-712 typed data given as a JSON flag, offline, and ethers verifies it', async () => {
    const domain = { name: 'Permit', version: '1', chainId: 31337, verifyingContract: ABANDON_ETH };
    const types = {
      Permit: [
        { name: 'owner', type: 'address' },
        { name: 'value', type: 'uint256' },
      ],
    };
    const message = { owner: ABANDON_ETH, value: '1000' };
    const signed = await json<{ signature: string }>([
      'evm-typed-data-sign',
      '--address',
      'spend',
      '--network',
      'local',
      '--typed-data',
      JSON.stringify({ domain, types, primaryType: 'Permit', message }),
    ]);
    assert.equal(ethers.verifyTypedData(domain, types, message, signed.signature), ABANDON_ETH);
  });

  it('a signature that does not verify exits 1 (declared check), the result printed unchanged', async () => {
    const { signature } = await json<{ signature: string }>([
      'evm-message-sign',
      '--address',
      'spend',
      '--message',
      'hi',
    ]);
    const verify = (message: string) =>
      run(['evm-message-verify', '--address', ABANDON_ETH, '--message', message, '--signature', signature, '--json'], {
        passphrase: 'none',
      });
    const good = await verify('hi');
    assert.equal(good.code, 0, good.stderr);
    assert.deepEqual(JSON.parse(good.stdout), { valid: true });
    const other = await verify('bye');
    assert.equal(other.code, 1, other.stderr);
    assert.deepEqual(JSON.parse(other.stdout), { valid: false });
    assert.equal(other.stderr, '');
  });

  it('refuses a fee above the cap (0.01 ether by default) before signing', async () => {
    const expensive = ethers.Transaction.from({
      type: 2,
      chainId: 31337,
      nonce: 0,
      to: ABANDON_ETH,
      value: 1n,
      gasLimit: 21000n,
      maxFeePerGas: 10n ** 15n,
      maxPriorityFeePerGas: 10n ** 15n,
    }).unsignedSerialized;
    const argv = ['evm-tx-sign', '--address', 'spend', '--unsigned-tx', expensive, '--network', 'local'];
    await expectError(argv, 'POLICY_VIOLATION', 1);
    const signed = await json<{ max_fee_wei: string }>([...argv, '--max-fee-wei', '21000000000000000000']);
    assert.equal(signed.max_fee_wei, '21000000000000000000');
    // The same cap typed in coins: converted exactly, so 21 ether passes and a wei less does not.
    const typed = await json<{ max_fee_wei: string }>([...argv, '--max-fee-wei', '21ether']);
    assert.equal(typed.max_fee_wei, '21000000000000000000');
    await expectError([...argv, '--max-fee-wei', '20.999999999999999999ether'], 'POLICY_VIOLATION', 1);
    await expectError([...argv, '--max-fee-wei', '20999999999gwei'], 'POLICY_VIOLATION', 1);
    const tooFine = await run([...argv, '--max-fee-wei', '0.0000000000000000001ether']);
    assert.equal(tooFine.code, 2);
    assert.match(tooFine.stderr, /--max-fee-wei '0\.0000000000000000001ether' is finer than one wei/);
  });

  it('never echoes a key pasted where an account name belongs', async () => {
    const key = ethers.Wallet.createRandom().privateKey;
    const tooLong = await expectError(['evm-message-sign', '--address', key, '--message', 'hi'], 'INVALID_PARAM', 2);
    assert.ok(!tooLong.includes(key.slice(10, 40)), tooLong);
    const unknown = await expectError(
      ['evm-message-sign', '--address', key.slice(2), '--message', 'hi'],
      'WALLET_NOT_FOUND',
      1,
    );
    assert.ok(!unknown.includes(key.slice(10, 40)), unknown);
    const stderr = await expectError(['core-balances-get', '--wallet-id', key.slice(2, 50)], 'WALLET_NOT_FOUND', 1);
    assert.ok(!stderr.includes(key.slice(10, 40)), stderr);
  });

  it('wrong passphrase: WALLET_LOCKED, exit 1', async () => {
    await expectError(['evm-message-sign', '--address', 'spend', '--message', 'hi'], 'WALLET_LOCKED', 1, {
      passphrase: 'wrong',
    });
  });

  it('a taken alias, an unknown account, a bad address or checksum: exit 2 or 1, nothing written', async () => {
    await expectError(['evm-account-create', '--wallet-id', 'main', '--alias', 'spend'], 'INVALID_PARAM', 2);
    await expectError(['evm-message-sign', '--address', 'nobody', '--message', 'hi'], 'WALLET_NOT_FOUND', 1);
    await expectError(['evm-balance-get', '--address', '0x12', '--network', 'local'], 'INVALID_PARAM', 2);
    await expectError(
      [
        'evm-message-verify',
        '--address',
        ABANDON_ETH.replace('E', 'e'),
        '--message',
        'm',
        '--signature',
        `0x${'1'.repeat(130)}`,
      ],
      'INVALID_PARAM',
      2,
    );
    await expectError(
      ['evm-message-verify', '--address', ABANDON_ETH, '--message', 'm', '--signature', '0xzz'],
      'INVALID_PARAM',
      2,
    );
  });

  it('spending needs --network; values are whole wei; unknown networks are named', async () => {
    const missing = await run(['evm-funds-send', '--address', 'spend', '--to', ABANDON_ETH, '--value-wei', '1']);
    assert.equal(missing.code, 2);
    assert.match(missing.stderr, /Missing required flag: --network/);
    await expectError(
      ['evm-funds-send', '--address', 'spend', '--to', ABANDON_ETH, '--value-wei', '0.5', '--network', 'local'],
      'INVALID_PARAM',
      2,
    );
    await expectError(
      ['evm-funds-send', '--address', 'spend', '--to', ABANDON_ETH, '--value-wei', '1', '--network', 'nosuch'],
      'INVALID_PARAM',
      2,
    );
  });

  it('signing offline refuses a transaction of another chain and a malformed one', async () => {
    const forMainnet = ethers.Transaction.from({
      type: 2,
      chainId: 1,
      nonce: 0,
      to: ABANDON_ETH,
      value: 1n,
      gasLimit: 21000n,
      maxFeePerGas: 1n,
      maxPriorityFeePerGas: 1n,
    }).unsignedSerialized;
    await expectError(
      ['evm-tx-sign', '--address', 'spend', '--unsigned-tx', forMainnet, '--network', 'local'],
      'NETWORK_MISMATCH',
      1,
    );
    await expectError(
      ['evm-tx-sign', '--address', 'spend', '--unsigned-tx', '0x02ff', '--network', 'local'],
      'INVALID_PARAM',
      2,
    );
    const signed = await json<{ signed_tx: string; hash: string }>([
      'evm-tx-sign',
      '--address',
      'spend',
      '--unsigned-tx',
      forMainnet,
      '--network',
      'mainnet',
    ]);
    assert.equal(ethers.Transaction.from(signed.signed_tx).from, ABANDON_ETH);
    assert.equal(ethers.Transaction.from(signed.signed_tx).hash, signed.hash);
  });

  it('a node that is down: BACKEND_UNAVAILABLE, exit 1, credentials masked', async () => {
    const stderr = await expectError(
      ['evm-balance-get', '--address', ABANDON_ETH, '--network', 'local'],
      'BACKEND_UNAVAILABLE',
      1,
    );
    assert.match(stderr, /127\.0\.0\.1:9/);
  });
});
