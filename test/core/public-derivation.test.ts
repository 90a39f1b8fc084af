import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { createBase58check } from '@scure/base';
import { HDKey } from '@scure/bip32';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { publicChild, readExtendedPublicKey, SECP256K1 } from '../../src/domain/dash/public-derivation.js';
import { AccountWatcher } from '../../src/domain/dash/watcher.js';
import { WalletError } from '../../src/domain/errors.js';
import { evmAddressAt, evmAddressOfPrivateKey, evmChainXpub } from '../../src/domain/evm/hd.js';
import { passphraseFileIn, tempHome, wallet } from '../helpers/io.js';

/** Deterministic seeds: SHA-256 of a counter (no per-run randomness). */
const seed = (n: number): Uint8Array => createHash('sha256').update(`public-derivation ${n}`).digest();
const XPUB = 0x0488b21e;
const XPRV = 0x0488ade4;
const TPUB = 0x043587cf;
const base58check = createBase58check(sha256);

/**
 * BIP32's published test vectors 1 and 2: each step a public derivation from the parent's xpub,
 * the child's xpub as the BIP gives it.
 */
const BIP32_PUBLIC_STEPS = [
  {
    parent:
      'xpub68Gmy5EdvgibQVfPdqkBBCHxA5htiqg55crXYuXoQRKfDBFA1WEjWgP6LHhwBZeNK1VTsfTFUHCdrfp1bgwQ9xv5ski8PX9rL2dZXvgGDnw',
    index: 1,
    child:
      'xpub6ASuArnXKPbfEwhqN6e3mwBcDTgzisQN1wXN9BJcM47sSikHjJf3UFHKkNAWbWMiGj7Wf5uMash7SyYq527Hqck2AxYysAA7xmALppuCkwQ',
  },
  {
    parent:
      'xpub6D4BDPcP2GT577Vvch3R8wDkScZWzQzMMUm3PWbmWvVJrZwQY4VUNgqFJPMM3No2dFDFGTsxxpG5uJh7n7epu4trkrX7x7DogT5Uv6fcLW5',
    index: 2,
    child:
      'xpub6FHa3pjLCk84BayeJxFW2SP4XRrFd1JYnxeLeU8EqN3vDfZmbqBqaGJAyiLjTAwm6ZLRQUMv1ZACTj37sR62cfN7fe5JnJ7dh8zL4fiyLHV',
  },
  {
    parent:
      'xpub6FHa3pjLCk84BayeJxFW2SP4XRrFd1JYnxeLeU8EqN3vDfZmbqBqaGJAyiLjTAwm6ZLRQUMv1ZACTj37sR62cfN7fe5JnJ7dh8zL4fiyLHV',
    index: 1_000_000_000,
    child:
      'xpub6H1LXWLaKsWFhvm6RVpEL9P4KfRZSW7abD2ttkWP3SSQvnyA8FSVqNTEcYFgJS2UaFcxupHiYkro49S8yGasTvXEYBVPamhGW6cFJodrTHy',
  },
  {
    parent:
      'xpub661MyMwAqRbcFW31YEwpkMuc5THy2PSt5bDMsktWQcFF8syAmRUapSCGu8ED9W6oDMSgv6Zz8idoc4a6mr8BDzTJY47LJhkJ8UB7WEGuduB',
    index: 0,
    child:
      'xpub69H7F5d8KSRgmmdJg2KhpAK8SR3DjMwAdkxj3ZuxV27CprR9LgpeyGmXUbC6wb7ERfvrnKZjXoUmmDznezpbZb7ap6r1D3tgFxHmwMkQTPH',
  },
  {
    parent:
      'xpub6ASAVgeehLbnwdqV6UKMHVzgqAG8Gr6riv3Fxxpj8ksbH9ebxaEyBLZ85ySDhKiLDBrQSARLq1uNRts8RuJiHjaDMBU4Zn9h8LZNnBC5y4a',
    index: 1,
    child:
      'xpub6DF8uhdarytz3FWdA8TvFSvvAh8dP3283MY7p2V4SeE2wyWmG5mg5EwVvmdMVCQcoNJxGoWaU9DCWh89LojfZ537wTfunKau47EL2dhHKon',
  },
];

/** An extended key's 78 bytes with some of them replaced, encoded again. */
function edited(xpub: string, edit: (bytes: Uint8Array) => void): string {
  const bytes = base58check.decode(xpub);
  edit(bytes);
  return base58check.encode(bytes);
}

describe('readExtendedPublicKey', () => {
  it("reads the key and chain code HDKey reads, on either network's version bytes", () => {
    for (let n = 0; n < 20; n++) {
      const versions = n % 2 === 0 ? undefined : { public: TPUB, private: 0x04358394 };
      const account = HDKey.fromMasterSeed(seed(n), versions).derive(`m/44'/${n % 2 === 0 ? 5 : 1}'/0'`);
      const theirs = HDKey.fromExtendedKey(account.publicExtendedKey, versions);
      const ours = readExtendedPublicKey(account.publicExtendedKey, versions?.public ?? XPUB);
      assert.deepEqual(ours.publicKey, theirs.publicKey);
      assert.deepEqual(ours.chainCode, theirs.chainCode);
      assert.equal(ours.depth, theirs.depth);
    }
  });

  it('refuses what HDKey refuses, and an extended private key', () => {
    const master = HDKey.fromMasterSeed(seed(1));
    const xpub = master.derive("m/44'/5'/0'").publicExtendedKey;
    assert.throws(() => readExtendedPublicKey(xpub, TPUB), /not an extended public key of this network/);
    assert.throws(() => readExtendedPublicKey(master.privateExtendedKey, XPUB), /not an extended public key/);
    assert.throws(() => readExtendedPublicKey(master.privateExtendedKey, XPRV), /./);
    const lastCharacter = xpub.endsWith('a') ? 'b' : 'a';
    assert.throws(() => readExtendedPublicKey(`${xpub.slice(0, -1)}${lastCharacter}`, XPUB), /checksum/i);
    const short = base58check.encode(base58check.decode(xpub).subarray(0, 77));
    assert.throws(() => readExtendedPublicKey(short, XPUB), /78 bytes, not 77/);
    const depthZeroWithIndex = edited(xpub, (bytes) => {
      bytes[4] = 0;
    });
    assert.throws(() => readExtendedPublicKey(depthZeroWithIndex, XPUB), /depth 0/);
    // x = 5 is on no point of secp256k1 (5³ + 7 = 132 has no square root mod p).
    const offCurve = edited(xpub, (bytes) => {
      bytes.fill(0, 45);
      bytes[45] = 2;
      bytes[77] = 5;
    });
    assert.throws(() => HDKey.fromExtendedKey(offCurve), 'HDKey refuses it too');
    assert.throws(() => readExtendedPublicKey(offCurve, XPUB));
    const uncompressedPrefix = edited(xpub, (bytes) => {
      bytes[45] = 4;
    });
    assert.throws(() => readExtendedPublicKey(uncompressedPrefix, XPUB));
  });
});

describe('publicChild (BIP32 CKDpub with OpenSSL multiplying)', () => {
  it("spells out noble's secp256k1 parameters", () => {
    assert.deepEqual(SECP256K1, secp256k1.Point.CURVE());
  });

  it("derives BIP32's published public steps (test vectors 1 and 2)", () => {
    for (const { parent, index, child } of BIP32_PUBLIC_STEPS) {
      const expected = readExtendedPublicKey(child, XPUB);
      const ours = publicChild(readExtendedPublicKey(parent, XPUB), index);
      assert.deepEqual(ours.publicKey, expected.publicKey, `${parent.slice(0, 16)}…/${index}`);
      assert.deepEqual(ours.chainCode, expected.chainCode, `${parent.slice(0, 16)}…/${index}`);
    }
  });

  it('derives exactly what @scure/bip32 derives, key for key, two levels down (300 cases)', () => {
    for (let n = 0; n < 100; n++) {
      const account = HDKey.fromMasterSeed(seed(n)).derive(`m/44'/${n % 2 === 0 ? 5 : 1}'/0'`);
      const watchOnly = readExtendedPublicKey(account.publicExtendedKey, XPUB);
      const chain = n % 2;
      const theirChain = account.deriveChild(chain);
      const ourChain = publicChild(watchOnly, chain);
      assert.deepEqual(ourChain.publicKey, theirChain.publicKey);
      assert.deepEqual(ourChain.chainCode, theirChain.chainCode);
      for (const index of [0, 1 + (n % 7), 2 ** 31 - 1 - n]) {
        const ours = publicChild(ourChain, index);
        const theirs = theirChain.deriveChild(index);
        assert.deepEqual(ours.publicKey, theirs.publicKey, `seed ${n}, ${chain}/${index}`);
        assert.deepEqual(ours.chainCode, theirs.chainCode, `seed ${n}, ${chain}/${index}`);
        assert.deepEqual(ours.point.toBytes(true), ours.publicKey, 'the point is the key');
      }
    }
  });

  it('refuses to derive below depth 255, as HDKey does (the depth is written in one byte)', () => {
    const account = HDKey.fromMasterSeed(seed(2)).derive("m/44'/5'/0'");
    const deepest = edited(account.publicExtendedKey, (bytes) => {
      bytes[4] = 255;
    });
    assert.throws(() => HDKey.fromExtendedKey(deepest).deriveChild(0), 'HDKey refuses it too');
    const node = readExtendedPublicKey(deepest, XPUB);
    assert.equal(node.depth, 255);
    assert.throws(() => publicChild(node, 0), /depth 255 has no child/);
    assert.equal(publicChild(readExtendedPublicKey(account.publicExtendedKey, XPUB), 0).depth, 4);
  });

  it('refuses a hardened index (a public key has no hardened children)', () => {
    const watchOnly = readExtendedPublicKey(HDKey.fromMasterSeed(seed(0)).publicExtendedKey, XPUB);
    assert.throws(() => publicChild(watchOnly, 0x80000000), /hardened/);
    assert.throws(() => publicChild(watchOnly, -1), /hardened or out of range/);
  });
});

describe('a stored xpub that is not the right key: KEYSTORE_DAMAGED', () => {
  const isDamaged = (error: unknown): boolean => error instanceof WalletError && error.code === 'KEYSTORE_DAMAGED';
  const master = HDKey.fromMasterSeed(seed(3), { public: TPUB, private: 0x04358394 });

  it("an account watcher takes an account's tpub (depth 3) and nothing else", () => {
    const account = master.derive("m/44'/1'/0'").publicExtendedKey;
    assert.match(new AccountWatcher(account, 'testnet').address('receive', 0), /^y/);
    for (const xpub of [
      master.publicExtendedKey,
      master.derive("m/44'/1'/0'/0").publicExtendedKey,
      master.derive("m/44'/1'/0'").privateExtendedKey,
      'not an xpub',
    ]) {
      assert.throws(() => new AccountWatcher(xpub, 'testnet'), isDamaged, xpub.slice(0, 12));
    }
    assert.throws(() => new AccountWatcher(account, 'mainnet'), isDamaged, 'a testnet key on mainnet');
  });

  it("an EVM chain's address takes the chain's xpub (depth 4) and nothing else", () => {
    const evmMaster = HDKey.fromMasterSeed(seed(4));
    const chain = evmChainXpub(evmMaster);
    const privateKey = evmMaster.derive("m/44'/60'/0'/0/7").privateKey;
    assert.ok(privateKey);
    assert.equal(evmAddressAt(chain, 7), evmAddressOfPrivateKey(privateKey));
    for (const xpub of [evmMaster.publicExtendedKey, evmMaster.derive("m/44'/60'/0'").publicExtendedKey, 'garbage']) {
      assert.throws(() => evmAddressAt(xpub, 0), isDamaged, xpub.slice(0, 12));
    }
  });

  it('a call on a wallet whose file holds such an xpub names the file (exit 6)', async () => {
    const home = tempHome();
    try {
      const passphraseFile = passphraseFileIn(home, 'damaged xpub passphrase');
      const unlock = ['--passphrase-file', passphraseFile];
      const created = await wallet(
        ['core-wallet-create', '--alias', 'main', '--network', 'testnet', ...unlock, '--json'],
        { home },
      );
      assert.equal(created.code, 0, created.stderr);
      assert.equal((await wallet(['evm-account-create', '--wallet-id', 'main', ...unlock], { home })).code, 0);
      const { wallet_id: id } = JSON.parse(created.stdout) as { wallet_id: string };
      const file = join(home, 'keystore', `${id}-testnet.json`);
      const stored = JSON.parse(readFileSync(file, 'utf8')) as { account: { xpub: string }; evm: { xpub: string } };
      // A key of the wrong level, each edited in: the account's and the EVM chain's.
      const edited = (change: (json: typeof stored) => void): void => {
        const json = structuredClone(stored);
        change(json);
        writeFileSync(file, JSON.stringify(json), { mode: 0o600 });
      };
      edited((json) => (json.account.xpub = master.publicExtendedKey));
      const address = await wallet(['core-address-create', '--wallet-id', 'main', '--network', 'testnet'], { home });
      assert.equal(address.code, 6, address.stderr);
      assert.ok(
        address.stderr.includes(`KEYSTORE_DAMAGED: The keystore file ${file} holds an account xpub`),
        address.stderr,
      );
      assert.match(address.stderr, /hint: Restore the file from a backup/);
      edited((json) => (json.evm.xpub = master.derive("m/44'/1'/0'").publicExtendedKey));
      const account = await wallet(['evm-account-create', '--wallet-id', 'main'], { home });
      assert.equal(account.code, 6, account.stderr);
      assert.ok(
        account.stderr.includes(`KEYSTORE_DAMAGED: The keystore file ${file} holds an EVM chain xpub`),
        account.stderr,
      );
      // An account index edited past the most a wallet issues: refused on reading, naming the file,
      // not derived (an index of 2^31 or more has no public child).
      edited((json) => ((json.evm as unknown as { accounts: [{ index: number }] }).accounts[0].index = 2 ** 31));
      const past = await wallet(['evm-account-create', '--wallet-id', 'main'], { home });
      assert.equal(past.code, 6, past.stderr);
      assert.ok(past.stderr.includes(`KEYSTORE_DAMAGED: The keystore file ${file}`), past.stderr);
      // At the last index a wallet issues, the next account is refused with what to do instead.
      edited((json) => ((json.evm as unknown as { accounts: [{ index: number }] }).accounts[0].index = 99_999));
      const full = await wallet(['evm-account-create', '--wallet-id', 'main'], { home });
      assert.equal(full.code, 2, full.stderr);
      assert.match(full.stderr, /has reached EVM account 100000, the most one wallet issues/);
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  });
});
