/**
 * core_wallet_create, through a real SDK client on the wallet's own server (in memory): a new
 * wallet of 12 or 24 words, its file owner-only with no mnemonic in clear, whose export derives
 * (with dashcore-lib, independently) the addresses the wallet hands out; an alias is taken once.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { testnetAddressAt } from '../../helpers/dashcore-oracle.js';
import { tempHome } from '../../helpers/io.js';
import { failureCode, localServer, type ToolCaller } from '../../helpers/mcp.js';

describe('core_wallet_create', () => {
  const home = tempHome();
  let server: ToolCaller;
  before(async () => {
    server = await localServer({ env: { WALLET_HOME: home }, passphrase: 'create test passphrase' });
  });
  after(() => server.close());

  it('creates a wallet whose mnemonic derives the addresses it hands out; its file is owner-only', async () => {
    const created = await server.call<{ wallet_id: string; alias: string; network: string; backup: string }>(
      'core_wallet_create',
      { alias: 'main', network: 'testnet' },
    );
    assert.match(created.wallet_id, /^[0-9a-f]{8}$/);
    assert.match(created.backup, /core-wallet-export/);
    const { mnemonic } = await server.call<{ mnemonic: string }>('core_wallet_export', { wallet_id: 'main' });
    assert.equal(mnemonic.split(' ').length, 12);
    const { address } = await server.call<{ address: string }>('core_address_create', { wallet_id: 'main' });
    assert.equal(address, testnetAddressAt(mnemonic, 0, 0));
    const file = join(home, 'keystore', `${created.wallet_id}-testnet.json`);
    assert.equal(statSync(file).mode & 0o777, 0o600);
    assert.ok(!readFileSync(file, 'utf8').includes(mnemonic.split(' ').slice(0, 3).join(' ')));
  });

  it('makes 24 words when asked', async () => {
    await server.call('core_wallet_create', { alias: 'long', network: 'testnet', words: 24 });
    const { mnemonic } = await server.call<{ mnemonic: string }>('core_wallet_export', { wallet_id: 'long' });
    assert.equal(mnemonic.split(' ').length, 24);
  });

  it('refuses an alias already taken, writing no file', async () => {
    const before = readdirSync(join(home, 'keystore')).length;
    assert.equal(
      await failureCode(server.call('core_wallet_create', { alias: 'main', network: 'testnet' })),
      'INVALID_PARAM',
    );
    assert.equal(readdirSync(join(home, 'keystore')).length, before);
  });
});
