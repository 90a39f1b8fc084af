import { generateMnemonic, mnemonicToSeed, validateMnemonic } from '@scure/bip39';
import { wordlist } from '@scure/bip39/wordlists/english.js';
import { HDKey } from '@scure/bip32';
import type { CoreNetwork } from '../config/networks.js';
// For its one-shot tuning of the curve bip32 derives on (loading it registers the tuning).
import '../secp256k1.js';
import { WalletError } from '../errors.js';
import { dashParams } from '../dash/params.js';

/**
 * A wallet's seed, for both chains: its BIP39 mnemonic and the BIP32 master key every account
 * derives from (the Dash account in dash/hd.ts, the EVM accounts in evm/hd.ts).
 */
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

/**
 * The BIP32 master key of a mnemonic and its optional BIP39 passphrase ("25th word"). Its
 * extended-key version bytes are those of the wallet's Dash network, which its file records.
 */
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
