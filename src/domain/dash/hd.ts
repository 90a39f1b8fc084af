import { generateMnemonic, mnemonicToSeed, validateMnemonic } from '@scure/bip39';
import { wordlist } from '@scure/bip39/wordlists/english.js';
import { HDKey } from '@scure/bip32';
import { createBase58check } from '@scure/base';
import { sha256 } from '@noble/hashes/sha2.js';
import type { CoreNetwork } from '../config/networks.js';
// For its one-shot tuning of the curve bip32 derives on (loading it registers the tuning).
import '../secp256k1.js';
import { WalletError } from '../errors.js';
import { dashParams } from './params.js';
import { accountPath } from './paths.js';

const MNEMONIC_WORD_COUNTS = [12, 24] as const;
export type MnemonicWordCount = (typeof MNEMONIC_WORD_COUNTS)[number];

/** A new English BIP39 mnemonic: 128 bits of entropy for 12 words, 256 for 24. */
export function newMnemonic(words: MnemonicWordCount): string {
  return generateMnemonic(wordlist, words === 12 ? 128 : 256);
}

/** The mnemonic with its words normalized (lower case, single spaces), or `INVALID_PARAM`. */
export function checkMnemonic(mnemonic: string): string {
  const normalized = mnemonic.normalize('NFKD').trim().toLowerCase().split(/\s+/).join(' ');
  const count = normalized === '' ? 0 : normalized.split(' ').length;
  if (!(MNEMONIC_WORD_COUNTS as readonly number[]).includes(count)) {
    throw new WalletError('INVALID_PARAM', `mnemonic has ${count} words; expected 12 or 24.`);
  }
  if (!validateMnemonic(normalized, wordlist)) {
    throw new WalletError(
      'INVALID_PARAM',
      'mnemonic is not a valid BIP39 English mnemonic (unknown word or bad checksum).',
    );
  }
  return normalized;
}

/** The BIP32 master key of a mnemonic and its optional BIP39 passphrase ("25th word"). */
export async function masterKey(mnemonic: string, mnemonicPassphrase: string, network: CoreNetwork): Promise<HDKey> {
  const seed = await mnemonicToSeed(mnemonic, mnemonicPassphrase);
  try {
    return HDKey.fromMasterSeed(seed, dashParams(network).bip32);
  } finally {
    seed.fill(0);
  }
}

/** The master key's fingerprint as 8 hex digits: the wallet's stable id. */
export function fingerprintHex(master: HDKey): string {
  return master.fingerprint.toString(16).padStart(8, '0');
}

/** The account's extended public key (xpub on mainnet, tpub elsewhere). */
export function accountXpub(master: HDKey, network: CoreNetwork, account: number): string {
  return master.derive(accountPath(network, account)).publicExtendedKey;
}

/** The private key at a path, as the node's WIF (compressed) for export or cross-checks. */
export function toWif(privateKey: Uint8Array, network: CoreNetwork): string {
  const payload = new Uint8Array(34);
  payload[0] = dashParams(network).wif;
  payload.set(privateKey, 1);
  payload[33] = 0x01;
  return createBase58check(sha256).encode(payload);
}
