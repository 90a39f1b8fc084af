/**
 * Keystore v3 (Web3 Secret Storage) in and out: the published test vectors, ethers as an
 * independent implementation in both directions, and the files the wallet must refuse.
 */
import assert from 'node:assert/strict';
import { createCipheriv, pbkdf2Sync } from 'node:crypto';
import { describe, it } from 'node:test';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { keccak_256 } from '@noble/hashes/sha3.js';
import { decryptKeystoreJson, encryptKeystoreJson, Wallet } from 'ethers';
import { WalletError, type ErrorCode } from '../../src/domain/errors.js';
import { decryptKeystoreV3, encryptKeystoreV3, type KeystoreV3 } from '../../src/domain/evm/keystore-v3.js';

const hex = (bytes: Uint8Array) => Buffer.from(bytes).toString('hex');
const clone = <T>(value: T): T => structuredClone(value);

async function rejectsWith(promise: Promise<unknown>, code: ErrorCode, message?: RegExp): Promise<WalletError> {
  let caught: unknown;
  await assert.rejects(promise, (error) => {
    caught = error;
    return true;
  });
  assert.ok(caught instanceof WalletError, `expected a WalletError, got ${String(caught)}`);
  assert.equal(caught.code, code, caught.message);
  if (message) assert.match(caught.message, message);
  return caught;
}

/**
 * The test vectors of the Web3 Secret Storage Definition: password "testpassword", the same key in
 * every file. PBKDF2 copied from
 * https://ethereum.org/developers/docs/data-structures-and-encoding/web3-secret-storage/#test-vectors
 * (ethereum/ethereum-org-website, public/content/developers/docs/data-structures-and-encoding/
 * web3-secret-storage/index.md). The scrypt vector with r = 1, p = 8 is the one the old Ethereum
 * wiki page published, as geth keeps it in accounts/keystore/testdata/v3_test_vector.json
 * (`wikipage_test_vector_scrypt`); ethereum.org has since replaced it with an r = 8 one, below.
 */
const VECTOR_PASSWORD = 'testpassword';
const VECTOR_KEY = '7a28b5ba57c53603b0b07b56bba752f7784bf506fa95edc395f5cf6c7514fe9d';
const VECTOR_ADDRESS = '0x008aeeda4d805471df9b2a5b0f38a0c3bcba786b';
const VECTORS = {
  'PBKDF2-SHA-256, c = 262144 (ethereum.org)': {
    crypto: {
      cipher: 'aes-128-ctr',
      cipherparams: { iv: '6087dab2f9fdbbfaddc31a909735c1e6' },
      ciphertext: '5318b4d5bcd28de64ee5559e671353e16f075ecae9f99c7a79a38af5f869aa46',
      kdf: 'pbkdf2',
      kdfparams: {
        c: 262144,
        dklen: 32,
        prf: 'hmac-sha256',
        salt: 'ae3cd4e7013836a3df6bd7241b12db061dbe2c6785853cce422d148a624ce0bd',
      },
      mac: '517ead924a9d0dc3124507e3393d175ce3ff7c1e96529c6c555ce9e51205e9b2',
    },
    id: '3198bc9c-6672-5ab3-d995-4942343ae5b6',
    version: 3,
  },
  'scrypt, n = 262144, r = 1, p = 8 (the wiki, via geth)': {
    crypto: {
      cipher: 'aes-128-ctr',
      cipherparams: { iv: '83dbcc02d8ccb40e466191a123791e0e' },
      ciphertext: 'd172bf743a674da9cdad04534d56926ef8358534d458fffccd4e6ad2fbde479c',
      kdf: 'scrypt',
      kdfparams: {
        dklen: 32,
        n: 262144,
        r: 1,
        p: 8,
        salt: 'ab0c7876052600dd703518d6fc3fe8984592145b591fc8fb5c6d43190334ba19',
      },
      mac: '2103ac29920d71da29f15d75b4a16dbe95cfd7ff8faea1056c33131d846e3097',
    },
    id: '3198bc9c-6672-5ab3-d995-4942343ae5b6',
    version: 3,
  },
};

/**
 * The scrypt vector (n = 262144, r = 8, p = 1) now on ethereum.org, same source. It does not
 * verify: scrypt over its salt and parameters gives b4130dc8…, not the 7446f59e… the page lists
 * as the derived key (Node's OpenSSL, noble and ethers agree), so its MAC fails everywhere.
 */
const ETHEREUM_ORG_SCRYPT = {
  crypto: {
    cipher: 'aes-128-ctr',
    cipherparams: { iv: '740770fce12ce862af21264dab25f1da' },
    ciphertext: 'dd8a1132cf57db67c038c6763afe2cbe6ea1949a86abc5843f8ca656ebbb1ea2',
    kdf: 'scrypt',
    kdfparams: {
      dklen: 32,
      n: 262144,
      p: 1,
      r: 8,
      salt: '25710c2ccd7c610b24d068af83b959b7a0e5f40641f0c82daeb1345766191034',
    },
    mac: '337aeb86505d2d0bb620effe57f18381377d67d76dac1090626aa5cd20886a7c',
  },
  id: '3198bc9c-6672-5ab3-d995-4942343ae5b6',
  version: 3,
};

/** geth's `31_byte_key` vector (v3_test_vector.json): older geth wrote keys without leading zeros. */
const GETH_31_BYTE_KEY = {
  crypto: {
    cipher: 'aes-128-ctr',
    cipherparams: { iv: 'e0c41130a323adc1446fc82f724bca2f' },
    ciphertext: '9517cd5bdbe69076f9bf5057248c6c050141e970efa36ce53692d5d59a3984',
    kdf: 'scrypt',
    kdfparams: {
      dklen: 32,
      n: 2,
      r: 8,
      p: 1,
      salt: '711f816911c92d649fb4c84b047915679933555030b3552c1212609b38208c63',
    },
    mac: 'd5e116151c6aa71470e67a7d42c9620c75c4d23229847dcc127794f0732b0db5',
  },
  id: 'fecfc4ce-e956-48fd-953b-30f8b52ed66c',
  version: 3,
};

/** Small enough to keep the tests fast; the format is the same at any cost. */
const FAST = { scryptN: 2 ** 10 };
const PASSWORD = 'correct horse battery staple';

describe('keystore v3: the published test vectors', () => {
  for (const [name, vector] of Object.entries(VECTORS)) {
    it(`decrypts ${name}`, async () => {
      const { privateKey, address } = await decryptKeystoreV3(vector, VECTOR_PASSWORD);
      assert.equal(hex(privateKey), VECTOR_KEY);
      assert.equal(address.toLowerCase(), VECTOR_ADDRESS);
    });
  }
});

describe('keystore v3: the published scrypt vector that does not verify', () => {
  it('fails its MAC here, as in ethers: the vector, not the reader, is wrong', async () => {
    await rejectsWith(decryptKeystoreV3(ETHEREUM_ORG_SCRYPT, VECTOR_PASSWORD), 'WALLET_LOCKED');
    await assert.rejects(
      decryptKeystoreJson(JSON.stringify(ETHEREUM_ORG_SCRYPT), VECTOR_PASSWORD),
      /incorrect password/,
    );
  });
});

describe('keystore v3: writing', () => {
  it('writes geth’s shape with the default cost, n = 131072, and reads it back', async () => {
    const key = secp256k1.utils.randomSecretKey();
    const keystore = await encryptKeystoreV3(key, PASSWORD);
    assert.equal(keystore.version, 3);
    assert.match(keystore.id, /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    assert.equal(keystore.address, new Wallet(`0x${hex(key)}`).address.slice(2).toLowerCase());
    assert.deepEqual(
      {
        ...keystore.crypto,
        cipherparams: {},
        ciphertext: '',
        mac: '',
        kdfparams: { ...keystore.crypto.kdfparams, salt: '' },
      },
      {
        cipher: 'aes-128-ctr',
        cipherparams: {},
        ciphertext: '',
        kdf: 'scrypt',
        kdfparams: { dklen: 32, n: 131072, r: 8, p: 1, salt: '' },
        mac: '',
      },
    );
    assert.match(keystore.crypto.cipherparams.iv, /^[0-9a-f]{32}$/);
    assert.match(keystore.crypto.kdfparams.salt, /^[0-9a-f]{64}$/);
    assert.match(keystore.crypto.ciphertext, /^[0-9a-f]{64}$/);
    assert.match(keystore.crypto.mac, /^[0-9a-f]{64}$/);
    assert.ok(!JSON.stringify(keystore).includes(hex(key)));

    const opened = await decryptKeystoreV3(JSON.parse(JSON.stringify(keystore)), PASSWORD);
    assert.equal(hex(opened.privateKey), hex(key));
    assert.equal(opened.address.slice(2).toLowerCase(), keystore.address);
  });

  it('is reproducible given the salt, iv and uuid, and random without them', async () => {
    const key = secp256k1.utils.randomSecretKey();
    const fixed = {
      ...FAST,
      uuid: '6a2b0c4e-8f1d-4e3a-9b5c-7d6e5f4a3b2c',
      salt: new Uint8Array(32).fill(7),
      iv: new Uint8Array(16).fill(9),
    };
    assert.deepEqual(await encryptKeystoreV3(key, PASSWORD, fixed), await encryptKeystoreV3(key, PASSWORD, fixed));
    const [a, b] = await Promise.all([encryptKeystoreV3(key, PASSWORD, FAST), encryptKeystoreV3(key, PASSWORD, FAST)]);
    assert.notEqual(a.id, b.id);
    assert.notEqual(a.crypto.kdfparams.salt, b.crypto.kdfparams.salt);
    assert.notEqual(a.crypto.cipherparams.iv, b.crypto.cipherparams.iv);
  });

  it('refuses to encrypt what is not a private key, or at a cost it would not read', async () => {
    const order = secp256k1.Point.Fn.ORDER.toString(16).padStart(64, '0');
    for (const bad of [new Uint8Array(32), Buffer.from(order, 'hex'), new Uint8Array(31).fill(1)]) {
      await rejectsWith(encryptKeystoreV3(bad, PASSWORD, FAST), 'INVALID_PARAM', /private key/);
    }
    const key = secp256k1.utils.randomSecretKey();
    for (const scryptN of [1000, 2 ** 19, 1]) {
      await rejectsWith(encryptKeystoreV3(key, PASSWORD, { scryptN }), 'INVALID_PARAM', /scryptN/);
    }
    await rejectsWith(encryptKeystoreV3(key, PASSWORD, { ...FAST, iv: new Uint8Array(8) }), 'INVALID_PARAM', /iv/);
    await rejectsWith(encryptKeystoreV3(key, PASSWORD, { ...FAST, uuid: 'nope' }), 'INVALID_PARAM', /uuid/);
  });
});

describe('keystore v3: ethers as an independent implementation', () => {
  const keys = Array.from({ length: 3 }, () => secp256k1.utils.randomSecretKey());

  it('ethers opens what encryptKeystoreV3 writes', async () => {
    for (const key of keys) {
      const keystore = await encryptKeystoreV3(key, PASSWORD, FAST);
      const account = await decryptKeystoreJson(JSON.stringify(keystore), PASSWORD);
      assert.equal(account.privateKey, `0x${hex(key)}`);
      assert.equal(account.address.slice(2).toLowerCase(), keystore.address);
    }
  });

  it('decryptKeystoreV3 opens what ethers writes (with its capitalized Crypto key)', async () => {
    for (const key of keys) {
      const wallet = new Wallet(`0x${hex(key)}`);
      const json = await encryptKeystoreJson({ address: wallet.address, privateKey: wallet.privateKey }, PASSWORD, {
        scrypt: { N: 2 ** 12 },
      });
      const parsed = JSON.parse(json) as Record<string, unknown>;
      assert.ok('Crypto' in parsed && !('crypto' in parsed));
      const opened = await decryptKeystoreV3(parsed, PASSWORD);
      assert.equal(hex(opened.privateKey), hex(key));
      assert.equal(opened.address, wallet.address);
    }
  });
});

describe('keystore v3: refusals', () => {
  const key = secp256k1.utils.randomSecretKey();
  let written: KeystoreV3 | undefined;
  const keystore = async (): Promise<KeystoreV3> => clone((written ??= await encryptKeystoreV3(key, PASSWORD, FAST)));

  it('refuses a wrong password without repeating the password or the key', async () => {
    const wrong = 'Tr0ub4dor&3-not-it';
    const error = await rejectsWith(decryptKeystoreV3(await keystore(), wrong), 'WALLET_LOCKED');
    assert.equal(error.message, 'keystore_password does not open this keystore JSON.');
    for (const text of [error.message, error.hint ?? '']) {
      assert.ok(!text.includes(wrong) && !text.includes(PASSWORD) && !text.includes(hex(key)));
    }
  });

  it('refuses a file whose ciphertext was altered, as a wrong password', async () => {
    const altered = await keystore();
    const bytes = Buffer.from(altered.crypto.ciphertext, 'hex');
    bytes[5] = (bytes[5] ?? 0) ^ 0x01;
    altered.crypto.ciphertext = bytes.toString('hex');
    await rejectsWith(decryptKeystoreV3(altered, PASSWORD), 'WALLET_LOCKED');
  });

  it('refuses a hostile KDF cost before doing any of the work', async () => {
    const file = await keystore();
    const costly = async (crypto: Record<string, unknown>, field: RegExp) => {
      const started = performance.now();
      await rejectsWith(
        decryptKeystoreV3({ ...file, crypto: { ...file.crypto, ...crypto } }, PASSWORD),
        'INVALID_PARAM',
        field,
      );
      assert.ok(performance.now() - started < 200, 'refused without running the KDF');
    };
    const salt = 'ab'.repeat(32);
    const scrypt = (kdfparams: Record<string, number>) => ({
      kdfparams: { n: 2 ** 10, r: 8, p: 1, dklen: 32, salt, ...kdfparams },
    });
    await costly(scrypt({ n: 2 ** 20 }), /crypto\.kdfparams\.n is too large/);
    await costly(scrypt({ r: 32 }), /crypto\.kdfparams\.r is too large/);
    await costly(scrypt({ p: 64 }), /crypto\.kdfparams\.p is too large/);
    await costly(scrypt({ n: 2 ** 18, r: 16 }), /128·n·r·p is too large/);
    await costly(scrypt({ dklen: 1_000_000 }), /crypto\.kdfparams\.dklen is too large/);
    await costly(scrypt({ n: 1000 }), /power of two/);
    await costly(scrypt({ dklen: 16 }), /dklen must be at least 32/);
    await costly(
      { kdf: 'pbkdf2', kdfparams: { c: 2 ** 30, dklen: 32, prf: 'hmac-sha256', salt } },
      /crypto\.kdfparams\.c is too large/,
    );
  });

  it('refuses ciphers, KDFs and PRFs outside the format', async () => {
    const file = await keystore();
    await rejectsWith(
      decryptKeystoreV3({ ...file, crypto: { ...file.crypto, cipher: 'aes-128-cbc' } }, PASSWORD),
      'INVALID_PARAM',
      /crypto\.cipher is not supported/,
    );
    await rejectsWith(
      decryptKeystoreV3({ ...file, crypto: { ...file.crypto, kdf: 'argon2id' } }, PASSWORD),
      'INVALID_PARAM',
      /crypto\.kdf/,
    );
    const pbkdf2 = clone(VECTORS['PBKDF2-SHA-256, c = 262144 (ethereum.org)']);
    pbkdf2.crypto.kdfparams.prf = 'hmac-sha512';
    await rejectsWith(decryptKeystoreV3(pbkdf2, VECTOR_PASSWORD), 'INVALID_PARAM', /crypto\.kdfparams\.prf/);
  });

  it('refuses a file whose address is not the key’s', async () => {
    const file = await keystore();
    file.address = 'ab'.repeat(20);
    await rejectsWith(decryptKeystoreV3(file, PASSWORD), 'INVALID_PARAM', /address does not match/);
  });

  it('refuses what is not a keystore v3 object', async () => {
    for (const value of [null, undefined, 'keystore', 42, []]) {
      await rejectsWith(decryptKeystoreV3(value, PASSWORD), 'INVALID_PARAM', /must be an object/);
    }
    await rejectsWith(decryptKeystoreV3({ version: 3 }, PASSWORD), 'INVALID_PARAM', /crypto/);
    await rejectsWith(decryptKeystoreV3({ ...(await keystore()), version: 1 }, PASSWORD), 'INVALID_PARAM', /version/);
    const file = await keystore();
    file.crypto.kdfparams.salt = 'not hex';
    await rejectsWith(decryptKeystoreV3(file, PASSWORD), 'INVALID_PARAM', /crypto\.kdfparams\.salt/);
  });

  it('refuses a key shorter than 32 bytes (geth’s 31_byte_key vector), naming the field', async () => {
    await rejectsWith(decryptKeystoreV3(GETH_31_BYTE_KEY, 'foo'), 'INVALID_PARAM', /crypto\.ciphertext/);
  });

  it('refuses a file that opens to a value that is not a private key', async () => {
    // Built by hand (PBKDF2, c = 1) so that the MAC is right around an all-zero "key".
    const salt = Buffer.alloc(32, 1);
    const iv = Buffer.alloc(16, 2);
    const derived = pbkdf2Sync(PASSWORD, salt, 1, 32, 'sha256');
    const cipher = createCipheriv('aes-128-ctr', derived.subarray(0, 16), iv);
    const ciphertext = Buffer.concat([cipher.update(Buffer.alloc(32)), cipher.final()]);
    const file = {
      version: 3,
      crypto: {
        cipher: 'aes-128-ctr',
        cipherparams: { iv: iv.toString('hex') },
        ciphertext: ciphertext.toString('hex'),
        kdf: 'pbkdf2',
        kdfparams: { c: 1, dklen: 32, prf: 'hmac-sha256', salt: salt.toString('hex') },
        mac: hex(keccak_256(Buffer.concat([derived.subarray(16, 32), ciphertext]))),
      },
    };
    await rejectsWith(decryptKeystoreV3(file, PASSWORD), 'INVALID_PARAM', /not a secp256k1 private key/);
  });
});
