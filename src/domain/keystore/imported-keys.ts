import { z } from 'zod';
import { open, seal, type KdfParams } from './cipher.js';
import { Sealed, ALIAS_PATTERN } from './keystore-format.js';

/**
 * An EVM private key imported on its own (not derived from a wallet's seed): one owner-only file
 * per key, `evm-<address>.json`, beside the wallets, sealed like them.
 */
const FORMAT = 'wallet-evm-key';
const VERSION = 1;

export const IMPORTED_KEY_FILE = /^evm-[0-9a-f]{40}\.json$/;

const ImportedKeySchema = z.strictObject({
  format: z.literal(FORMAT),
  version: z.literal(VERSION),
  address: z.string().regex(/^0x[0-9a-fA-F]{40}$/),
  alias: z.string().regex(ALIAS_PATTERN).nullable(),
  created_at: z.iso.datetime(),
  crypto: Sealed,
});

/** An imported key as stored: its address and alias in clear, the key sealed. */
export type ImportedKeyEntry = z.infer<typeof ImportedKeySchema>;

export function importedKeyFileName(address: string): string {
  return `evm-${address.slice(2).toLowerCase()}.json`;
}

/** The sealed key is bound to the format and the address: move it to another file and it no longer opens. */
function associatedData(address: string, kdf: KdfParams): string {
  return JSON.stringify([FORMAT, VERSION, address.toLowerCase(), kdf]);
}

export async function sealImportedKey(request: {
  address: string;
  alias: string | null;
  privateKey: Uint8Array;
  passphrase: string;
}): Promise<ImportedKeyEntry> {
  const crypto = await seal(Buffer.from(request.privateKey).toString('hex'), request.passphrase, (kdf) =>
    associatedData(request.address, kdf),
  );
  return {
    format: FORMAT,
    version: VERSION,
    address: request.address,
    alias: request.alias,
    created_at: new Date().toISOString(),
    crypto,
  };
}

/** The private key, or undefined when the passphrase is wrong or the file was altered. */
export async function openImportedKey(entry: ImportedKeyEntry, passphrase: string): Promise<Uint8Array | undefined> {
  const hex = await open(entry.crypto, passphrase, associatedData(entry.address, entry.crypto.kdfparams));
  if (hex === undefined || !/^[0-9a-f]{64}$/.test(hex)) return undefined;
  return Uint8Array.from(Buffer.from(hex, 'hex'));
}

export function parseImportedKey(json: unknown): ImportedKeyEntry | undefined {
  const parsed = ImportedKeySchema.safeParse(json);
  return parsed.success ? parsed.data : undefined;
}
