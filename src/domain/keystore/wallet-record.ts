import { z } from 'zod';
import { CORE_NETWORKS, type CoreNetwork } from '../config/networks.js';
import { WalletError } from '../errors.js';
import type { KdfParams } from './cipher.js';
import { ALIAS_PATTERN, Sealed } from './keystore-format.js';

// A wallet's keystore file, `<fingerprint>-<network>.json`: its format, zod schemas and field rules.

export const FORMAT = 'wallet-keystore';
export const VERSION = 1;

export const FINGERPRINT_PATTERN = /^[0-9a-f]{8}$/;

/**
 * The most addresses one chain of an account hands out. Far beyond any real wallet (discovery
 * stops 20 past the last used one), it keeps a damaged or altered `next_receive` (2^31, say) from
 * making every call derive addresses for minutes: such a file is refused with a clear error.
 */
export const MAX_ISSUED_ADDRESSES = 100_000;
export const WALLET_FILE = /^[0-9a-f]{8}-[a-z]+\.json$/;

const EvmAccountRecord = z.strictObject({
  index: z
    .int()
    .min(0)
    .max(MAX_ISSUED_ADDRESSES - 1),
  address: z.string().regex(/^0x[0-9a-fA-F]{40}$/),
  alias: z.string().regex(ALIAS_PATTERN).nullable(),
});

export const EntrySchema = z.strictObject({
  format: z.literal(FORMAT),
  version: z.literal(VERSION),
  id: z.string().regex(FINGERPRINT_PATTERN),
  alias: z.string().regex(ALIAS_PATTERN),
  network: z.enum(CORE_NETWORKS),
  created_at: z.iso.datetime(),
  account: z.strictObject({
    index: z.int().min(0),
    path: z.string(),
    xpub: z.string(),
    next_receive: z.int().min(0).max(MAX_ISSUED_ADDRESSES),
    next_change: z.int().min(0).max(MAX_ISSUED_ADDRESSES),
  }),
  /** EVM accounts derived from this seed: the xpub of m/44'/60'/0'/0 and each address handed out. */
  evm: z
    .strictObject({
      xpub: z.string(),
      accounts: z.array(EvmAccountRecord),
    })
    .optional(),
  crypto: Sealed,
});

/** An EVM account as the keystore records it; `alias` names it in place of its address. */
export type EvmAccountRecord = z.infer<typeof EvmAccountRecord>;

/** One wallet as stored: public data in clear, the mnemonic sealed. */
export type WalletEntry = z.infer<typeof EntrySchema>;

/** What unlocking gives: the BIP39 mnemonic and its optional passphrase. */
export type WalletSecret = { mnemonic: string; mnemonicPassphrase: string };

export type NewWallet = {
  alias: string;
  network: CoreNetwork;
  id: string;
  account: { index: number; path: string; xpub: string };
  secret: WalletSecret;
  passphrase: string;
};

export const Plaintext = z.strictObject({ mnemonic: z.string(), mnemonic_passphrase: z.string() });

/** The fields a sealed secret is bound to: change one and the secret no longer opens. */
export function associatedData(entry: Pick<WalletEntry, 'id' | 'network' | 'account'>, kdf: KdfParams): string {
  return JSON.stringify([FORMAT, VERSION, entry.id, entry.network, entry.account.path, entry.account.xpub, kdf]);
}

export function checkAlias(alias: string): void {
  if (!ALIAS_PATTERN.test(alias)) {
    throw new WalletError(
      'INVALID_PARAM',
      'alias must be 1-32 characters: a lower-case letter, then letters, digits, - or _.',
    );
  }
  if (FINGERPRINT_PATTERN.test(alias)) {
    throw new WalletError(
      'INVALID_PARAM',
      'alias must not look like a fingerprint (8 hex digits): the two name wallets alike.',
    );
  }
}
