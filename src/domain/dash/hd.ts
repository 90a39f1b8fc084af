import { generateMnemonic, mnemonicToSeed, validateMnemonic } from '@scure/bip39';
import { wordlist } from '@scure/bip39/wordlists/english.js';
import { HDKey } from '@scure/bip32';
import { createBase58check } from '@scure/base';
import { sha256 } from '@noble/hashes/sha2.js';
import type { CoreNetwork } from '../config/networks.js';
import { WalletError } from '../errors.js';
import { publicKeyAddress } from './address.js';
import { RESTORE } from '../keystore/keystore-format.js';
import { dashParams } from './params.js';
import { publicChild } from './public-derivation.js';

/** BIP44 chains of an account: 0 receives payments, 1 takes change. */
export type AddressChain = 'receive' | 'change';
export const CHAIN_INDEX: Readonly<Record<AddressChain, number>> = { receive: 0, change: 1 };

/** Added to a BIP32 index to make it hardened (the ' in m/44'). */
export const HARDENED = 0x80000000;

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

/** BIP44 account path: m/44'/coin'/account'. */
export function accountPath(network: CoreNetwork, account: number): string {
  return `m/44'/${dashParams(network).coinType}'/${account}'`;
}

export function addressPath(network: CoreNetwork, account: number, chain: AddressChain, index: number): string {
  return `${accountPath(network, account)}/${CHAIN_INDEX[chain]}/${index}`;
}

/** The account's extended public key (xpub on mainnet, tpub elsewhere). */
export function accountXpub(master: HDKey, network: CoreNetwork, account: number): string {
  return master.derive(accountPath(network, account)).publicExtendedKey;
}

/** A watch-only view of one account: addresses from its xpub, no secret needed. */
export class AccountWatcher {
  private readonly account: HDKey;
  private readonly chains = new Map<number, HDKey>();

  constructor(
    xpub: string,
    readonly network: CoreNetwork,
  ) {
    try {
      this.account = HDKey.fromExtendedKey(xpub, dashParams(network).bip32);
    } catch (error) {
      // Stored in clear beside its network: a key of another network or a broken one was edited in.
      throw new WalletError('KEYSTORE_DAMAGED', `The stored account xpub is not a ${network} extended public key.`, {
        ...RESTORE,
        cause: error,
      });
    }
  }

  publicKey(chain: AddressChain, index: number): Uint8Array {
    const chainIndex = CHAIN_INDEX[chain];
    let chainKey = this.chains.get(chainIndex);
    if (!chainKey) {
      chainKey = publicChild(this.account, chainIndex);
      this.chains.set(chainIndex, chainKey);
    }
    const key = publicChild(chainKey, index).publicKey;
    if (!key) throw new WalletError('INTERNAL', 'Derived a key without a public key.');
    return key;
  }

  address(chain: AddressChain, index: number): string {
    return publicKeyAddress(this.publicKey(chain, index), this.network);
  }
}

/** The private key at a path, as the node's WIF (compressed) for export or cross-checks. */
export function toWif(privateKey: Uint8Array, network: CoreNetwork): string {
  const payload = new Uint8Array(34);
  payload[0] = dashParams(network).wif;
  payload.set(privateKey, 1);
  payload[33] = 0x01;
  return createBase58check(sha256).encode(payload);
}
