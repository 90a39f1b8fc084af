// DIP-13 identity authentication keys from a wallet's seed, checked two ways: the paths against
// the examples of the DIP-13 text itself (dashpay/dips, dip-0013.md: "the first identity would be
// m/9'/5'/5'/0'/0'/0'/0' … its second key m/9'/5'/5'/0'/0'/0'/1' … the second identity
// m/9'/5'/5'/0'/0'/1'/0'"), and the keys against the Dash Platform SDK's own derivation
// (`wallet.deriveKeyFromSeedWithPath` of @dashevo/evo-sdk, Rust's key-wallet compiled to wasm), an
// implementation independent of @scure/bip32, over several mnemonics, passphrases, networks and
// indexes. The public-key hash is checked through the P2PKH address the SDK derives from it.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { encodeAddress } from '../../src/domain/dash/address.js';
import { identityAuthenticationKeys, identityAuthenticationPath } from '../../src/domain/platform/identity-keys.js';
import { masterKey } from '../../src/domain/wallet/seed.js';
import { platformSdkProblem } from '../helpers/platform-dapi.js';

const sdkProblem = await platformSdkProblem();

describe('DIP-13 identity authentication key paths', () => {
  it("are DIP-13's own examples", () => {
    assert.equal(identityAuthenticationPath('mainnet', { identityIndex: 0, keyIndex: 0 }), "m/9'/5'/5'/0'/0'/0'/0'");
    assert.equal(identityAuthenticationPath('mainnet', { identityIndex: 0, keyIndex: 1 }), "m/9'/5'/5'/0'/0'/0'/1'");
    assert.equal(identityAuthenticationPath('mainnet', { identityIndex: 1, keyIndex: 0 }), "m/9'/5'/5'/0'/0'/1'/0'");
    assert.equal(identityAuthenticationPath('mainnet', { identityIndex: 1, keyIndex: 1 }), "m/9'/5'/5'/0'/0'/1'/1'");
  });

  it('use coin type 1 on the test networks (DIP-9, SLIP-44)', () => {
    for (const network of ['testnet', 'regtest'] as const) {
      assert.equal(identityAuthenticationPath(network, { identityIndex: 2, keyIndex: 3 }), "m/9'/1'/5'/0'/0'/2'/3'");
    }
  });

  it('refuse an index that is no 31-bit integer', () => {
    for (const bad of [-1, 1.5, 2 ** 31]) {
      assert.throws(() => identityAuthenticationPath('mainnet', { identityIndex: bad, keyIndex: 0 }), RangeError);
    }
  });
});

/** BIP39's own test mnemonics (trezor/python-mnemonic vectors.json) and one with a passphrase. */
const SEEDS = [
  {
    mnemonic: 'abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about',
    passphrase: '',
  },
  { mnemonic: 'legal winner thank year wave sausage worth useful legal winner thank yellow', passphrase: 'TREZOR' },
  {
    mnemonic: 'zoo zoo zoo zoo zoo zoo zoo zoo zoo zoo zoo zoo zoo zoo zoo zoo zoo zoo zoo zoo zoo zoo zoo vote',
    passphrase: 'a 25th word',
  },
];

describe("DIP-13 keys agree with the Platform SDK's derivation", { skip: sdkProblem ?? false }, () => {
  it('for every seed, network, identity and key index tried', async () => {
    const { wallet: sdkWallet } = await import('@dashevo/evo-sdk');
    const positions = [0, 1, 2].flatMap((identityIndex) => [0, 1].map((keyIndex) => ({ identityIndex, keyIndex })));
    let compared = 0;
    for (const seed of SEEDS) {
      for (const network of ['mainnet', 'testnet'] as const) {
        const master = await masterKey(seed.mnemonic, seed.passphrase, network);
        const keys = identityAuthenticationKeys(master, network, positions);
        master.wipePrivateData();
        for (const key of keys) {
          const oracle = await sdkWallet.deriveKeyFromSeedWithPath({
            mnemonic: seed.mnemonic,
            ...(seed.passphrase === '' ? {} : { passphrase: seed.passphrase }),
            path: key.path,
            network,
          });
          assert.equal(oracle.path, key.path);
          assert.equal(Buffer.from(key.publicKey).toString('hex'), oracle.publicKey, key.path);
          assert.equal(encodeAddress(key.publicKeyHash, 'p2pkh', network), oracle.address, key.path);
          compared += 1;
        }
      }
    }
    assert.equal(compared, SEEDS.length * 2 * positions.length);
  });

  it('leave no private key in what they return', async () => {
    const master = await masterKey(SEEDS[0]?.mnemonic ?? '', '', 'testnet');
    const [key] = identityAuthenticationKeys(master, 'testnet', [{ identityIndex: 0, keyIndex: 0 }]);
    assert.deepEqual(Object.keys(key ?? {}).sort(), [
      'identityIndex',
      'keyIndex',
      'path',
      'publicKey',
      'publicKeyHash',
    ]);
    assert.equal(key?.publicKey.length, 33);
    assert.equal(key?.publicKeyHash.length, 20);
  });
});
