import { createECDH, createHmac, randomBytes } from 'node:crypto';
import { weierstrass } from '@noble/curves/abstract/weierstrass.js';
import { createBase58check } from '@scure/base';
import { sha256 } from '@noble/hashes/sha2.js';
import { WalletError } from '../errors.js';
import { RESTORE } from '../keystore/keystore-format.js';

/**
 * A BIP32 public node: what deriving its public children needs, and its depth (0 for a master
 * key). Its key comes as both the compressed bytes and the point, so that a child's derivation
 * does not decompress it again.
 */
export type PublicNode = {
  readonly publicKey: Uint8Array;
  readonly chainCode: Uint8Array;
  readonly point: CurvePoint;
  readonly depth: number;
};

/**
 * secp256k1's domain parameters (SEC 2, §2.4.1), as noble's `secp256k1.Point.CURVE()` gives them
 * (test/core/public-derivation.test.ts compares the two).
 */
export const SECP256K1 = {
  p: 0xfffffffffffffffffffffffffffffffffffffffffffffffffffffffefffffc2fn,
  n: 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n,
  h: 1n,
  a: 0n,
  b: 7n,
  Gx: 0x79be667ef9dcbbac55a06295ce870b07029bfcdb2dce28d959f2815b16f81798n,
  Gy: 0x483ada7726a3c4655da4fbfc0e1108a8fd17b448a68554199c47d08ffb10d4b8n,
};

/**
 * noble's secp256k1 points, made here for public keys only. Loading noble's own `secp256k1`
 * module (which `@scure/bip32` imports) probes Web Crypto's RNG for its blinded multiplications,
 * which loads Node's Web Crypto on top of `node:crypto`: with bip32 itself, ~1.3 ms of a CLI call
 * that hands out one address (docs/PERFORMANCE.md). These points take their randomness from
 * `node:crypto`, which the call loads anyway, and multiply nothing: OpenSSL multiplies I_L·G
 * below. No secret goes through them.
 */
const Point = weierstrass(SECP256K1, { randomBytes: (length = 32) => randomBytes(length) });
type CurvePoint = InstanceType<typeof Point>;
const ORDER = SECP256K1.n;
const FIRST_HARDENED = 0x80000000;
const EXTENDED_KEY_LENGTH = 78;
/** An extended key writes its depth in one byte: no child below this one can be written. */
const MAX_DEPTH = 255;

/**
 * An extended public key (xpub, tpub…) of the given version bytes, checked as `@scure/bip32`'s
 * `HDKey.fromExtendedKey` checks it: Base58Check, 78 bytes, the public version (an extended
 * private key is refused), no index or parent at depth 0, and a key on the curve. Throws an
 * `Error` saying what is wrong; the caller says what the key was.
 *
 * @example
 * readExtendedPublicKey('tpubDC…', 0x043587cf).chainCode.length // 32
 */
export function readExtendedPublicKey(xpub: string, version: number): PublicNode {
  // version(4) || depth(1) || parent fingerprint(4) || index(4) || chain code(32) || key(33)
  const bytes = createBase58check(sha256).decode(xpub);
  if (bytes.length !== EXTENDED_KEY_LENGTH) {
    throw new Error(`an extended key has ${EXTENDED_KEY_LENGTH} bytes, not ${bytes.length}`);
  }
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (view.getUint32(0) !== version) throw new Error('not an extended public key of this network');
  if (bytes[4] === 0 && (view.getUint32(5) !== 0 || view.getUint32(9) !== 0)) {
    throw new Error('an extended key of depth 0 with a parent or an index');
  }
  const key = bytes.slice(45);
  // A compressed point (02/03 and x): fromBytes checks it is on the curve.
  return { publicKey: key, chainCode: bytes.slice(13, 45), point: Point.fromBytes(key), depth: bytes[4] ?? 0 };
}

/**
 * An xpub the keystore stores in clear beside what it is for (an account's, an EVM chain's), read
 * as the node of that `depth`: anything else (a key of another network or level, a broken one)
 * was edited in, and is `KEYSTORE_DAMAGED` with `message` and the restore hint.
 */
export function readStoredXpub(xpub: string, version: number, depth: number, message: string): PublicNode {
  try {
    const node = readExtendedPublicKey(xpub, version);
    if (node.depth !== depth) throw new Error(`an extended key of depth ${node.depth}, not ${depth}`);
    return node;
  } catch (error) {
    throw new WalletError('KEYSTORE_DAMAGED', message, { ...RESTORE, cause: error });
  }
}

/**
 * BIP32's public child derivation (CKDpub): what `HDKey.deriveChild(index)` does for a key
 * without its private half, with I_L·G multiplied by OpenSSL (node:crypto) instead of noble.
 * noble builds a table of multiples of G before its first multiplication, ~10 ms of a CLI call
 * that hands out one address (docs/PERFORMANCE.md); OpenSSL needs none. Only public data goes in
 * (the xpub's key and chain code). Like @scure/bip32, an I_L ≥ n or a child at infinity moves on
 * to the next index, as BIP32 says, and a node of depth 255 has no child (its depth could not be
 * written).
 *
 * @example
 * publicChild(readExtendedPublicKey(xpub, version), 0).publicKey // HDKey's .deriveChild(0).publicKey
 */
export function publicChild(parent: PublicNode, index: number): PublicNode {
  const { publicKey, chainCode, point, depth } = parent;
  if (!Number.isSafeInteger(index) || index < 0 || index >= FIRST_HARDENED) {
    throw new WalletError('INTERNAL', `A public key has no child ${index}: hardened or out of range.`);
  }
  if (depth >= MAX_DEPTH) throw new WalletError('INTERNAL', `A public key of depth ${depth} has no child.`);
  const data = new Uint8Array(37);
  data.set(publicKey);
  new DataView(data.buffer).setUint32(33, index);
  const digest = createHmac('sha512', chainCode).update(data).digest();
  const tweakBytes = digest.subarray(0, 32);
  const tweak = BigInt(`0x${tweakBytes.toString('hex')}`);
  if (tweak >= ORDER) return publicChild(parent, index + 1);
  let child = point;
  if (tweak !== 0n) {
    const multiplier = createECDH('secp256k1');
    multiplier.setPrivateKey(tweakBytes);
    child = child.add(Point.fromBytes(multiplier.getPublicKey()));
  }
  if (child.equals(Point.ZERO)) return publicChild(parent, index + 1);
  return {
    publicKey: child.toBytes(true),
    chainCode: Uint8Array.from(digest.subarray(32)),
    point: child,
    depth: depth + 1,
  };
}
