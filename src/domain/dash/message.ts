import { secp256k1 } from '../secp256k1.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { base64 } from '@scure/base';
import { WalletError } from '../errors.js';
import { decodeAddress, hash160 } from './address.js';
import { MESSAGE_MAGIC } from './params.js';

const encoder = new TextEncoder();

/** Bitcoin's CompactSize prefix. */
function varint(n: number): Uint8Array {
  if (n < 0xfd) return Uint8Array.of(n);
  if (n <= 0xffff) return Uint8Array.of(0xfd, n & 0xff, n >>> 8);
  return Uint8Array.of(0xfe, n & 0xff, (n >>> 8) & 0xff, (n >>> 16) & 0xff, n >>> 24);
}

/** The double SHA-256 a Dash signed message commits to: magic and message, each length-prefixed. */
function messageHash(message: string): Uint8Array {
  const magic = encoder.encode(MESSAGE_MAGIC);
  const body = encoder.encode(message);
  const parts = [varint(magic.length), magic, varint(body.length), body];
  const total = new Uint8Array(parts.reduce((sum, part) => sum + part.length, 0));
  let offset = 0;
  for (const part of parts) {
    total.set(part, offset);
    offset += part.length;
  }
  return sha256(sha256(total));
}

/**
 * Signs in the format of Dash Core's `signmessage`: a 65-byte compact recoverable signature,
 * header 31 + recovery id (compressed key), in Base64.
 */
export function signMessage(message: string, privateKey: Uint8Array): string {
  const recovered = secp256k1.sign(messageHash(message), privateKey, { prehash: false, format: 'recovered' });
  // noble's 'recovered' layout is [recovery, r, s]; the signed-message layout is [header, r, s].
  const out = new Uint8Array(65);
  out[0] = 27 + 4 + (recovered[0] ?? 0);
  out.set(recovered.subarray(1), 1);
  return base64.encode(out);
}

/**
 * Whether `signature` is `address`'s signature of `message` (Dash Core's `verifymessage`).
 * Returns false for a well-formed signature by another key; throws `INVALID_PARAM` for input
 * that is not a signature or not a P2PKH address at all.
 */
export function verifyMessage(message: string, address: string, signature: string): boolean {
  const decoded = decodeAddress(address);
  if (!decoded || decoded.type !== 'p2pkh') {
    throw new WalletError('INVALID_PARAM', 'address must be a P2PKH Dash address (signed messages need one key).');
  }
  let bytes: Uint8Array;
  try {
    bytes = base64.decode(signature.trim());
  } catch {
    throw new WalletError('INVALID_PARAM', 'signature is not Base64.');
  }
  if (bytes.length !== 65) throw new WalletError('INVALID_PARAM', `signature is ${bytes.length} bytes; expected 65.`);
  const header = bytes[0] ?? 0;
  if (header < 27 || header > 34) throw new WalletError('INVALID_PARAM', 'signature has an invalid header byte.');
  const compressed = header >= 31;
  const recovery = (header - 27) & 3;
  const recoverable = new Uint8Array(65);
  recoverable[0] = recovery;
  recoverable.set(bytes.subarray(1), 1);
  let publicKey: Uint8Array;
  try {
    const point = secp256k1.Point.fromBytes(
      secp256k1.recoverPublicKey(recoverable, messageHash(message), { prehash: false }),
    );
    publicKey = point.toBytes(compressed);
  } catch {
    return false;
  }
  const hash = hash160(publicKey);
  return hash.length === decoded.hash.length && hash.every((byte, i) => byte === decoded.hash[i]);
}
