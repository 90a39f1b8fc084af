import { createECDH, createHmac } from 'node:crypto';
import { HDKey } from '@scure/bip32';
import { secp256k1 } from '../secp256k1.js';
import { WalletError } from '../errors.js';

const { Point } = secp256k1;
const ORDER = Point.Fn.ORDER;
const FIRST_HARDENED = 0x80000000;

/**
 * BIP32's public child derivation (CKDpub): what `HDKey.deriveChild(index)` does for a key
 * without its private half, with I_L·G multiplied by OpenSSL (node:crypto) instead of noble.
 * noble builds a table of multiples of G before its first multiplication, ~10 ms of a CLI call
 * that hands out one address (docs/PERFORMANCE.md); OpenSSL needs none. Only public data goes in
 * (the xpub's key and chain code). Like @scure/bip32, an I_L ≥ n or a child at infinity moves on
 * to the next index, as BIP32 says.
 *
 * @example
 * publicChild(HDKey.fromExtendedKey(xpub), 0).publicKey // the same bytes as .deriveChild(0).publicKey
 */
export function publicChild(parent: HDKey, index: number): HDKey {
  const { publicKey, chainCode } = parent;
  if (!publicKey || !chainCode) throw new WalletError('INTERNAL', 'Derivation from an incomplete HD key.');
  if (!Number.isSafeInteger(index) || index < 0 || index >= FIRST_HARDENED) {
    throw new WalletError('INTERNAL', `A public key has no child ${index}: hardened or out of range.`);
  }
  const data = new Uint8Array(37);
  data.set(publicKey);
  new DataView(data.buffer).setUint32(33, index);
  const digest = createHmac('sha512', chainCode).update(data).digest();
  const tweakBytes = digest.subarray(0, 32);
  const tweak = BigInt(`0x${tweakBytes.toString('hex')}`);
  if (tweak >= ORDER) return publicChild(parent, index + 1);
  let child = Point.fromBytes(publicKey);
  if (tweak !== 0n) {
    const multiplier = createECDH('secp256k1');
    multiplier.setPrivateKey(tweakBytes);
    child = child.add(Point.fromBytes(multiplier.getPublicKey()));
  }
  if (child.equals(Point.ZERO)) return publicChild(parent, index + 1);
  return new HDKey({
    versions: parent.versions,
    chainCode: Uint8Array.from(digest.subarray(32)),
    depth: parent.depth + 1,
    parentFingerprint: parent.fingerprint,
    index,
    publicKey: child.toBytes(true),
  });
}
