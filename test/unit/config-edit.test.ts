import assert from 'node:assert/strict';
import { readFileSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { getConfigValue, listConfig, setConfigValue, unsetConfigValue } from '../../src/domain/config/config-edit.js';
import { readConfigFile } from '../../src/domain/config/config-file.js';
import { WalletError } from '../../src/domain/errors.js';
import { tempHome } from '../helpers/io.js';

describe('config edits', () => {
  const home = tempHome();
  after(() => rmSync(home, { recursive: true, force: true }));

  it('loses no change when many are made at once (one lock, re-read each time)', async () => {
    const keys = ['mainnet', 'testnet', 'regtest'].flatMap((network) => [
      [`core.networks.${network}.url`, `http://127.0.0.1:1${network.length}/`],
      [`core.networks.${network}.backend`, 'core-rpc'],
    ]);
    await Promise.all(keys.map(([key, value]) => setConfigValue(home, key ?? '', value ?? '')));
    const listed = await listConfig(home);
    assert.deepEqual(listed.map((entry) => entry.key).sort(), keys.map(([key]) => key).sort());
    assert.equal(statSync(join(home, 'config.json')).mode & 0o777, 0o600);
    assert.ok(await readConfigFile(home), 'the loader reads what was written');
  });

  it('stores chain_id as a number and unset drops emptied sections', async () => {
    await setConfigValue(home, 'evm.networks.base.chain_id', '8453');
    await setConfigValue(home, 'evm.networks.base.url', 'https://base.example/rpc');
    assert.equal((await readConfigFile(home)).evm?.networks?.['base']?.chain_id, 8453);
    await assert.rejects(
      setConfigValue(home, 'evm.networks.base.chain_id', '0x10'),
      /evm\.networks\.base\.chain_id takes a positive whole number/,
    );
    await assert.rejects(unsetConfigValue(home, 'evm.networks.base.chain_id'), /'base' has no chain_id/);
    assert.equal(await unsetConfigValue(home, 'evm.networks.base.url'), true);
    assert.equal(await unsetConfigValue(home, 'evm.networks.base.chain_id'), true);
    assert.equal(JSON.parse(readFileSync(join(home, 'config.json'), 'utf8')).evm, undefined);
    assert.equal(await unsetConfigValue(home, 'evm.default_network'), false);
  });

  it('names sections and unknown keys instead of guessing', async () => {
    await assert.rejects(getConfigValue(home, 'core.networks'), (error: unknown) => {
      assert.ok(error instanceof WalletError);
      assert.match(error.message, /config key core\.networks is a section/);
      return true;
    });
    assert.equal(await getConfigValue(home, 'default_wallet'), undefined);
    await assert.rejects(setConfigValue(home, 'core.networks.devnet.url', 'http://x.example'), /Unknown config key/);
  });
});
