/**
 * The design card's examples as written (issue 18): a tool that takes wallet_id works without
 * it when the keystore holds one wallet for the network, or when config.json names a
 * default_wallet; with several and no default it exits 2, naming them.
 */
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { cliHarness, type CliHarness } from '../helpers/cli-harness.js';

const ABANDON = 'abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about';
const ZOO = 'zoo zoo zoo zoo zoo zoo zoo zoo zoo zoo zoo wrong';

describe('wallet_id may be omitted when one wallet is meant', () => {
  let cli: CliHarness;
  const importWallet = async (alias: string, network: string, mnemonic: string): Promise<void> => {
    const imported = await cli.run(
      ['core-wallet-import', '--alias', alias, '--network', network, '--mnemonic-stdin', '--no-discover'],
      { stdin: mnemonic },
    );
    assert.equal(imported.code, 0, imported.stderr);
  };
  const config = (json: unknown): void => writeFileSync(join(cli.home, 'config.json'), JSON.stringify(json));

  before(() => {
    cli = cliHarness({}, []);
  });
  after(() => cli.remove());

  it('no wallet: INVALID_PARAM, exit 2, saying how to make one', async () => {
    const { code, stdout, stderr } = await cli.run(['core-address-create', '--network', 'testnet']);
    assert.equal(code, 2);
    assert.equal(stdout, '');
    assert.match(stderr, /error: INVALID_PARAM: wallet_id is needed: there is no wallet on testnet\./);
  });

  it('one wallet on the network: core-address-create --network testnet uses it', async () => {
    await importWallet('main', 'testnet', ABANDON);
    await importWallet('cold', 'mainnet', ZOO);
    const created = await cli.json<{ wallet_id: string; address: string }>([
      'core-address-create',
      '--network',
      'testnet',
    ]);
    assert.match(created.address, /^y/);
    const listed = await cli.json<{ wallets: { wallet_id: string; alias: string }[] }>(['core-wallets-list']);
    assert.equal(created.wallet_id, listed.wallets.find((wallet) => wallet.alias === 'main')?.wallet_id);
  });

  it('several and no default: exit 2 naming them; without a network, every wallet counts', async () => {
    const stderr = await cli.expectError(['core-addresses-list'], 'INVALID_PARAM', 2);
    assert.match(stderr, /there are 2 wallets in the keystore \((cold, main|main, cold)\)/);
    assert.match(stderr, /hint: Pass wallet_id, or name one as default_wallet in config\.json\./);
  });

  it('a configured default_wallet decides, and is checked against the network', async () => {
    config({ default_wallet: 'cold' });
    const listed = await cli.json<{ wallet_id: string }>(['core-addresses-list']);
    const wallets = await cli.json<{ wallets: { wallet_id: string; alias: string }[] }>(['core-wallets-list']);
    assert.equal(listed.wallet_id, wallets.wallets.find((wallet) => wallet.alias === 'cold')?.wallet_id);
    // One testnet wallet still wins over the default for a testnet call.
    await cli.json(['core-address-create', '--network', 'testnet']);
    config({ default_wallet: 'cold', core: { default_network: 'testnet' } });
    await importWallet('spare', 'testnet', ZOO);
    await cli.expectError(['core-address-create', '--network', 'testnet'], 'NETWORK_MISMATCH', 1);
  });

  it('the config loader refuses a default_wallet that is not a name', async () => {
    config({ default_wallet: '' });
    const stderr = await cli.expectError(['network-info'], 'INVALID_PARAM', 2);
    assert.match(stderr, /default_wallet/);
  });
});
