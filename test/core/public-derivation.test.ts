import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { describe, it } from 'node:test';
import { HDKey } from '@scure/bip32';
import { publicChild } from '../../src/domain/dash/public-derivation.js';

/** Deterministic seeds: SHA-256 of a counter (no per-run randomness). */
const seed = (n: number): Uint8Array => createHash('sha256').update(`public-derivation ${n}`).digest();

describe('publicChild (BIP32 CKDpub with OpenSSL multiplying)', () => {
  it('derives exactly what @scure/bip32 derives, key for key (300 cases)', () => {
    for (let n = 0; n < 100; n++) {
      const account = HDKey.fromMasterSeed(seed(n)).derive(`m/44'/${n % 2 === 0 ? 5 : 1}'/0'`);
      const watchOnly = HDKey.fromExtendedKey(account.publicExtendedKey);
      for (const index of [0, 1 + (n % 7), 2 ** 31 - 1 - n]) {
        const ours = publicChild(watchOnly, index);
        const theirs = watchOnly.deriveChild(index);
        assert.equal(ours.publicExtendedKey, theirs.publicExtendedKey, `seed ${n}, index ${index}`);
        assert.deepEqual(ours.publicKey, account.deriveChild(index).publicKey);
        assert.equal(ours.index, theirs.index);
      }
    }
  });

  it('refuses a hardened index (a public key has no hardened children)', () => {
    const watchOnly = HDKey.fromExtendedKey(HDKey.fromMasterSeed(seed(0)).publicExtendedKey);
    assert.throws(() => publicChild(watchOnly, 0x80000000), /hardened/);
    assert.throws(() => publicChild(watchOnly, -1), /hardened or out of range/);
  });
});
