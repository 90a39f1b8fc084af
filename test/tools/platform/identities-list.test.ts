/**
 * platform_identities_list through the CLI in-process, against a fake DAPI (test/helpers/platform-cli.ts):
 * the request it makes for a wallet's keys, as the SDK derives them, and its refusal of a wallet
 * of another network.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { hash160 } from '../../../src/domain/dash/address.js';
import { passphraseFileIn, wallet } from '../../helpers/io.js';
import { cli, IDENTITY_SESSION, onFakePlatform } from '../../helpers/platform-cli.js';
import { platformSdkProblem } from '../../helpers/platform-dapi.js';

const sdkProblem = await platformSdkProblem();
const MNEMONIC = 'legal winner thank year wave sausage worth useful legal winner thank yellow';

describe('platform_identities_list', { skip: sdkProblem ?? false }, () => {
  it("asks for exactly the wallet's DIP-13 key hash, as the SDK derives it", () =>
    // No recorded identity belongs to a known seed (the vectors' identities have keys from a seeded
    // RNG), so no lookup of a wallet's key can be answered: the fake DAPI lists the request it
    // got, which must carry the HASH160 of m/9'/1'/5'/0'/0'/0'/0' as the SDK's own derivation
    // gives it; and the tool must fail with a code, showing nothing.
    onFakePlatform(IDENTITY_SESSION, async (dapi, home) => {
      const pass = ['--passphrase-file', passphraseFileIn(home, 'right passphrase')];
      const imported = await wallet(
        ['core-wallet-import', '--alias', 'main', '--network', 'testnet', '--mnemonic-stdin', '--no-discover', ...pass],
        { home, stdin: MNEMONIC },
      );
      assert.equal(imported.code, 0, imported.stderr);
      const listed = await cli(dapi, home, ['platform-identities-list', '--gap-limit', '1', ...pass]);
      assert.notEqual(listed.code, 0);
      assert.equal(listed.stdout, '');
      assert.match(listed.stderr, /error: BACKEND_UNAVAILABLE: /);
      assert.ok(!listed.stderr.includes('legal winner'));
      const { wallet: sdkWallet } = await import('@dashevo/evo-sdk');
      const oracle = await sdkWallet.deriveKeyFromSeedWithPath({
        mnemonic: MNEMONIC,
        path: "m/9'/1'/5'/0'/0'/0'/0'",
        network: 'testnet',
      });
      const hash = Buffer.from(hash160(Buffer.from(oracle.publicKey, 'hex'))).toString('hex');
      // GetIdentityByPublicKeyHashRequest { v0: { public_key_hash, prove: true } } on the wire.
      assert.deepEqual(dapi.unmatched, [`getIdentityByPublicKeyHash 0a180a14${hash}1001`]);
    }));

  it("refuses a mainnet wallet's keys on another Platform network, asking nothing", () =>
    onFakePlatform(IDENTITY_SESSION, async (dapi, home) => {
      const pass = ['--passphrase-file', passphraseFileIn(home, 'right passphrase')];
      const imported = await wallet(
        ['core-wallet-import', '--alias', 'main', '--network', 'mainnet', '--mnemonic-stdin', '--no-discover', ...pass],
        { home, stdin: MNEMONIC },
      );
      assert.equal(imported.code, 0, imported.stderr);
      const listed = await cli(dapi, home, ['platform-identities-list', ...pass]);
      assert.notEqual(listed.code, 0);
      assert.match(
        listed.stderr,
        /error: NETWORK_MISMATCH: Wallet 'main' is a mainnet wallet; Platform local is not mainnet/,
      );
      assert.deepEqual([dapi.answered, dapi.unmatched], [[], []]);
    }));
});
