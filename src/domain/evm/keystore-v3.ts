/**
 * The Web3 Secret Storage Definition, version 3: the `keystore/UTC--…` JSON files geth, Clef and
 * ethers write. https://ethereum.org/developers/docs/data-structures-and-encoding/web3-secret-storage/
 */
import {
  createCipheriv,
  createDecipheriv,
  pbkdf2,
  randomBytes,
  randomUUID,
  scrypt,
  timingSafeEqual,
} from 'node:crypto';
import { secp256k1 } from '../secp256k1.js';
import { scryptAsync } from '@noble/hashes/scrypt.js';
import { keccak_256 } from '@noble/hashes/sha3.js';
import { z } from 'zod';
import { WalletError } from '../errors.js';
import { evmAddressOfPrivateKey } from './hd.js';

/** Half geth's standard `n` = 2^18, as ethers writes: 128 MiB, under a second. */
const DEFAULT_SCRYPT_N = 2 ** 17;
const SCRYPT_R = 8;
const SCRYPT_P = 1;
const DKLEN = 32;

/** Limits on what a file may ask the KDF for, so a hostile file cannot exhaust memory or CPU. */
const MAX_SCRYPT_N = 2 ** 18;
const MAX_SCRYPT_R = 16;
/** 8, not less: the Ethereum wiki's scrypt vector (still in geth's tests) uses `r` = 1, `p` = 8. */
const MAX_SCRYPT_P = 8;
/** 128·n·r·p bounds scrypt's memory (128·n·r) and work together; geth's standard n = 2^18, r = 8, p = 1 is 2^28. */
const MAX_SCRYPT_COST = 2 ** 28;
const MAX_PBKDF2_C = 10_000_000;
/** Only the first 32 bytes are used; a longer key only makes PBKDF2 repeat its work. */
const MAX_DKLEN = 64;

/** A keystore v3 file as `encryptKeystoreV3` writes it: hex without `0x`, as geth does. */
export type KeystoreV3 = {
  version: 3;
  /** A random UUID v4; says nothing about the key. */
  id: string;
  /** The account's address, lower case, without `0x`. */
  address: string;
  crypto: {
    cipher: 'aes-128-ctr';
    cipherparams: { iv: string };
    ciphertext: string;
    kdf: 'scrypt';
    kdfparams: { dklen: number; n: number; r: number; p: number; salt: string };
    mac: string;
  };
};

export type EncryptKeystoreV3Options = {
  /** scrypt cost, a power of two from 2 to 2^18; 2^17 unless given. Small values are for tests. */
  scryptN?: number;
  /** Fixed values make the output reproducible (tests); leave them out otherwise, they must be random. */
  uuid?: string;
  salt?: Uint8Array;
  iv?: Uint8Array;
};

export type DecryptedKeystoreV3 = {
  privateKey: Uint8Array;
  /** EIP-55 checksummed. */
  address: `0x${string}`;
};

const hexBytes = (length?: number) =>
  z
    .string()
    .regex(/^(0x)?([0-9a-fA-F]{2})+$/, 'must be a hex string')
    .transform((text) => Buffer.from(text.replace(/^0x/, ''), 'hex'))
    .refine((bytes) => length === undefined || bytes.length === length, `must be ${length} bytes`);

const count = z.number().int('must be an integer').positive('must be positive');

const cipherFields = {
  cipher: z.literal('aes-128-ctr'),
  cipherparams: z.object({ iv: hexBytes(16) }),
  /** Exactly a private key: aes-128-ctr adds no padding. */
  ciphertext: hexBytes(32),
  mac: hexBytes(32),
};

const CryptoSection = z.discriminatedUnion('kdf', [
  z.object({
    ...cipherFields,
    kdf: z.literal('scrypt'),
    kdfparams: z.object({ n: count, r: count, p: count, dklen: count, salt: hexBytes() }),
  }),
  z.object({
    ...cipherFields,
    kdf: z.literal('pbkdf2'),
    kdfparams: z.object({ prf: z.literal('hmac-sha256'), c: count, dklen: count, salt: hexBytes() }),
  }),
]);

const KeystoreFile = z.object({
  version: z.literal(3),
  address: z
    .string()
    .regex(/^(0x)?[0-9a-fA-F]{40}$/, 'must be 40 hex digits')
    .optional(),
  crypto: CryptoSection,
});

type KdfSection = z.infer<typeof CryptoSection>;

/**
 * Encrypts a secp256k1 private key into a keystore v3 file: scrypt, then aes-128-ctr under the
 * first half of the derived key, authenticated by keccak256(second half ++ ciphertext).
 *
 * @example
 * const keystore = await encryptKeystoreV3(privateKey, password);
 * writeFileSync(`UTC--${stamp}--${keystore.address}`, JSON.stringify(keystore), { mode: 0o600 });
 */
export async function encryptKeystoreV3(
  privateKey: Uint8Array,
  password: string,
  options: EncryptKeystoreV3Options = {},
): Promise<KeystoreV3> {
  if (privateKey.length !== 32 || !secp256k1.utils.isValidSecretKey(privateKey)) {
    throw new WalletError('INVALID_PARAM', 'The key to encrypt is not a 32-byte secp256k1 private key.');
  }
  const n = options.scryptN ?? DEFAULT_SCRYPT_N;
  if (!isPowerOfTwo(n) || n > MAX_SCRYPT_N) {
    throw new WalletError('INVALID_PARAM', `scryptN must be a power of two from 2 to ${MAX_SCRYPT_N}.`);
  }
  const iv = options.iv ?? randomBytes(16);
  if (iv.length !== 16) throw new WalletError('INVALID_PARAM', 'The iv must be 16 bytes.');
  const id = options.uuid ?? randomUUID();
  if (!/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(id)) {
    throw new WalletError('INVALID_PARAM', 'The uuid must have the form xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx.');
  }
  const salt = options.salt ?? randomBytes(32);
  const derivedKey = await deriveKey(password, {
    kdf: 'scrypt',
    kdfparams: { n, r: SCRYPT_R, p: SCRYPT_P, dklen: DKLEN, salt: Buffer.from(salt) },
  });
  try {
    const cipher = createCipheriv('aes-128-ctr', derivedKey.subarray(0, 16), iv);
    const ciphertext = Buffer.concat([cipher.update(privateKey), cipher.final()]);
    return {
      version: 3,
      id,
      address: evmAddressOfPrivateKey(privateKey).slice(2).toLowerCase(),
      crypto: {
        cipher: 'aes-128-ctr',
        cipherparams: { iv: Buffer.from(iv).toString('hex') },
        ciphertext: ciphertext.toString('hex'),
        kdf: 'scrypt',
        kdfparams: { dklen: DKLEN, n, r: SCRYPT_R, p: SCRYPT_P, salt: Buffer.from(salt).toString('hex') },
        mac: mac(derivedKey, ciphertext).toString('hex'),
      },
    };
  } finally {
    derivedKey.fill(0);
  }
}

/**
 * Opens a keystore v3 file (scrypt or PBKDF2-SHA-256, aes-128-ctr), as geth and ethers write them;
 * the `Crypto` key of geth's older files is accepted. The password is used as its UTF-8 bytes,
 * unnormalized, as geth does. KDF costs beyond geth's standard are refused before any work.
 *
 * @throws WalletError `WALLET_LOCKED` when the password does not open the file (or the file was
 * altered), `INVALID_PARAM` when the file is malformed, too costly, or holds another address.
 *
 * @example
 * const { privateKey, address } = await decryptKeystoreV3(JSON.parse(text), password);
 */
export async function decryptKeystoreV3(json: unknown, password: string): Promise<DecryptedKeystoreV3> {
  const parsed = KeystoreFile.safeParse(withLowerCaseCrypto(json));
  if (!parsed.success) throw malformed(parsed.error);
  const { crypto, address: claimedAddress } = parsed.data;
  checkKdfCost(crypto);

  const derivedKey = await deriveKey(password, crypto);
  let privateKey: Buffer;
  try {
    if (!timingSafeEqual(mac(derivedKey, crypto.ciphertext), crypto.mac)) {
      throw new WalletError('WALLET_LOCKED', 'keystore_password does not open this keystore JSON.', {
        hint: 'Check the password; a file whose ciphertext or MAC was altered fails the same way.',
      });
    }
    const decipher = createDecipheriv('aes-128-ctr', derivedKey.subarray(0, 16), crypto.cipherparams.iv);
    privateKey = Buffer.concat([decipher.update(crypto.ciphertext), decipher.final()]);
  } finally {
    derivedKey.fill(0);
  }

  try {
    if (!secp256k1.utils.isValidSecretKey(privateKey)) {
      throw new WalletError('INVALID_PARAM', 'The keystore JSON holds a value that is not a secp256k1 private key.');
    }
    const address = evmAddressOfPrivateKey(privateKey);
    if (
      claimedAddress !== undefined &&
      claimedAddress.replace(/^0x/, '').toLowerCase() !== address.slice(2).toLowerCase()
    ) {
      throw new WalletError('INVALID_PARAM', 'The keystore JSON address does not match the key it holds.', {
        hint: 'The file was altered or assembled from two keystores.',
      });
    }
    return { privateKey: Uint8Array.from(privateKey), address };
  } finally {
    privateKey.fill(0);
  }
}

/** ethers (and early geth) write `Crypto`; geth reads either, as Go matches JSON keys case-insensitively. */
function withLowerCaseCrypto(json: unknown): unknown {
  if (typeof json !== 'object' || json === null || 'crypto' in json || !('Crypto' in json)) return json;
  const { Crypto, ...rest } = json as Record<string, unknown>;
  return { ...rest, crypto: Crypto };
}

/** Names the field and what is wrong with it; zod's messages here never quote the input. */
function malformed(error: z.ZodError): WalletError {
  const issue = error.issues[0];
  const field = issue && issue.path.length > 0 ? issue.path.join('.') : undefined;
  let message: string;
  if (field === undefined) message = 'The keystore JSON must be an object.';
  else if (issue?.code === 'invalid_value') message = `The keystore JSON ${field} is not supported: ${issue.message}.`;
  else message = `The keystore JSON ${field} is missing or invalid: ${issue?.message ?? 'invalid'}.`;
  return new WalletError('INVALID_PARAM', message, { hint: 'Expected a Web3 Secret Storage (keystore v3) file.' });
}

function checkKdfCost(crypto: KdfSection): void {
  const tooLarge = (name: string, limit: number) =>
    new WalletError('INVALID_PARAM', `The keystore JSON crypto.kdfparams.${name} is too large (at most ${limit}).`, {
      hint: 'This wallet refuses KDF costs beyond those geth writes.',
    });
  if (crypto.kdfparams.dklen < DKLEN) {
    throw new WalletError('INVALID_PARAM', `The keystore JSON crypto.kdfparams.dklen must be at least ${DKLEN}.`);
  }
  if (crypto.kdfparams.dklen > MAX_DKLEN) throw tooLarge('dklen', MAX_DKLEN);
  if (crypto.kdf === 'pbkdf2') {
    if (crypto.kdfparams.c > MAX_PBKDF2_C) throw tooLarge('c', MAX_PBKDF2_C);
    return;
  }
  const { n, r, p } = crypto.kdfparams;
  if (n > MAX_SCRYPT_N) throw tooLarge('n', MAX_SCRYPT_N);
  if (!isPowerOfTwo(n)) {
    throw new WalletError('INVALID_PARAM', 'The keystore JSON crypto.kdfparams.n must be a power of two, at least 2.');
  }
  if (r > MAX_SCRYPT_R) throw tooLarge('r', MAX_SCRYPT_R);
  if (p > MAX_SCRYPT_P) throw tooLarge('p', MAX_SCRYPT_P);
  if (128 * n * r * p > MAX_SCRYPT_COST) {
    throw new WalletError(
      'INVALID_PARAM',
      `The keystore JSON scrypt cost 128·n·r·p is too large (at most ${MAX_SCRYPT_COST}).`,
      { hint: 'This wallet refuses KDF costs beyond those geth writes.' },
    );
  }
}

type KdfInput =
  | { kdf: 'scrypt'; kdfparams: { n: number; r: number; p: number; dklen: number; salt: Buffer } }
  | { kdf: 'pbkdf2'; kdfparams: { c: number; dklen: number; salt: Buffer } };

async function deriveKey(password: string, { kdf, kdfparams }: KdfInput): Promise<Buffer> {
  const secret = Buffer.from(password, 'utf8');
  try {
    if (kdf === 'pbkdf2') {
      const { c, dklen, salt } = kdfparams;
      return await new Promise((resolve, reject) =>
        pbkdf2(secret, salt, c, dklen, 'sha256', (error, key) => (error ? reject(error) : resolve(key))),
      );
    }
    const { n, r, p, dklen, salt } = kdfparams;
    // OpenSSL enforces RFC 7914's n < 2^(16·r); geth, ethers and noble do not, and the wiki's
    // r = 1, n = 2^18 vector breaks it. Such files take noble's (slower) implementation.
    if (n >= 2 ** (16 * r)) return Buffer.from(await scryptAsync(secret, salt, { N: n, r, p, dkLen: dklen }));
    return await new Promise((resolve, reject) =>
      scrypt(secret, salt, dklen, { N: n, r, p, maxmem: 128 * r * (n + p + 2) + 16 * 1024 * 1024 }, (error, key) =>
        error ? reject(error) : resolve(key),
      ),
    );
  } catch (error) {
    throw new WalletError('INTERNAL', `The ${kdf} key derivation failed.`, { cause: error });
  } finally {
    secret.fill(0);
  }
}

/** keccak256(derivedKey[16..32] ++ ciphertext), the spec's MAC. */
function mac(derivedKey: Buffer, ciphertext: Buffer): Buffer {
  return Buffer.from(keccak_256(Buffer.concat([derivedKey.subarray(16, 32), ciphertext])));
}

function isPowerOfTwo(n: number): boolean {
  return n >= 2 && Number.isInteger(Math.log2(n));
}
