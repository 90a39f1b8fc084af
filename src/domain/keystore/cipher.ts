import { nodeCrypto } from '../../shared/node-crypto.js';
import { WalletError } from '../errors.js';
import { RESTORE } from './keystore-format.js';

/** scrypt cost: N = 2^17, r = 8, p = 1 (128 MiB, a fraction of a second), the floor files must meet. */
const SCRYPT_PARAMS = { n: 2 ** 17, r: 8, p: 1, dklen: 32 } as const;
const MIN_LOG_N = 17;
/** Refuse absurd costs a tampered file could ask for (memory exhaustion). */
const MAX_LOG_N = 20;

export type KdfParams = { n: number; r: number; p: number; dklen: number; salt: string };

/** The encrypted part of a keystore entry; every field is public, the plaintext is not. */
export type SealedSecret = {
  kdf: 'scrypt';
  kdfparams: KdfParams;
  cipher: 'aes-256-gcm';
  iv: string;
  ciphertext: string;
  tag: string;
};

function deriveKey(passphrase: string, params: KdfParams): Promise<Buffer> {
  const logN = Math.log2(params.n);
  if (
    !Number.isInteger(logN) ||
    logN < MIN_LOG_N ||
    logN > MAX_LOG_N ||
    params.r !== 8 ||
    params.p < 1 ||
    params.p > 4 ||
    params.dklen !== 32
  ) {
    throw new WalletError(
      'KEYSTORE_DAMAGED',
      'its sealed secret asks for KDF parameters this wallet does not accept: it was altered or written by another program.',
      RESTORE,
    );
  }
  return new Promise((resolve, reject) => {
    nodeCrypto().scrypt(
      passphrase.normalize('NFKC'),
      Buffer.from(params.salt, 'base64'),
      params.dklen,
      { N: params.n, r: params.r, p: params.p, maxmem: 256 * params.n * params.r + 16 * 1024 * 1024 },
      (error, key) => (error ? reject(error) : resolve(key)),
    );
  });
}

/**
 * The key scrypt derives from `passphrase` and `salt` at the keystore's cost, for a caller that
 * seals many secrets under one key (derived once, not once per secret as {@link seal} does).
 */
export function passphraseKey(passphrase: string, salt: Buffer): Promise<Buffer> {
  return deriveKey(passphrase, { ...SCRYPT_PARAMS, salt: salt.toString('base64') });
}

/** The three parts of an AES-256-GCM sealing: a 12-byte IV, the ciphertext, a 16-byte tag. */
export type SealedParts = { iv: Buffer; ciphertext: Buffer; tag: Buffer };

/** Encrypts `plaintext` under `key` (AES-256-GCM, a fresh IV), `associated` authenticated with it. */
export function sealWithKey(key: Buffer, plaintext: string, associated: string): SealedParts {
  const { createCipheriv, randomBytes } = nodeCrypto();
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  cipher.setAAD(Buffer.from(associated, 'utf8'));
  const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
  return { iv, ciphertext, tag: cipher.getAuthTag() };
}

/** Decrypts `parts`, or `undefined` when the key is wrong or anything authenticated was changed. */
export function openWithKey(key: Buffer, parts: SealedParts, associated: string): string | undefined {
  try {
    const decipher = nodeCrypto().createDecipheriv('aes-256-gcm', key, parts.iv, { authTagLength: 16 });
    decipher.setAAD(Buffer.from(associated, 'utf8'));
    decipher.setAuthTag(parts.tag);
    return Buffer.concat([decipher.update(parts.ciphertext), decipher.final()]).toString('utf8');
  } catch {
    return undefined;
  }
}

/**
 * Encrypts `plaintext` under `passphrase` with scrypt + AES-256-GCM. `associated` (the format
 * version, identity and KDF parameters, see the keystore) is authenticated, not encrypted: a
 * change to any of it fails decryption as surely as a wrong passphrase.
 */
export async function seal(
  plaintext: string,
  passphrase: string,
  associated: (kdf: KdfParams) => string,
): Promise<SealedSecret> {
  const kdfparams: KdfParams = { ...SCRYPT_PARAMS, salt: nodeCrypto().randomBytes(32).toString('base64') };
  const key = await deriveKey(passphrase, kdfparams);
  try {
    const { iv, ciphertext, tag } = sealWithKey(key, plaintext, associated(kdfparams));
    return {
      kdf: 'scrypt',
      kdfparams,
      cipher: 'aes-256-gcm',
      iv: iv.toString('base64'),
      ciphertext: ciphertext.toString('base64'),
      tag: tag.toString('base64'),
    };
  } finally {
    // Wiped whether or not the encryption succeeded (`associated` may throw, for one).
    key.fill(0);
  }
}

/** Decrypts, or `undefined` when the passphrase is wrong or anything authenticated was changed. */
export async function open(sealed: SealedSecret, passphrase: string, associated: string): Promise<string | undefined> {
  const key = await deriveKey(passphrase, sealed.kdfparams);
  try {
    const parts = {
      iv: Buffer.from(sealed.iv, 'base64'),
      ciphertext: Buffer.from(sealed.ciphertext, 'base64'),
      tag: Buffer.from(sealed.tag, 'base64'),
    };
    return openWithKey(key, parts, associated);
  } finally {
    key.fill(0);
  }
}
