import { z } from 'zod';

/** Passkeys enrolled at once, at most. */
export const MAX_PASSKEYS = 20;
const BASE64URL = /^[A-Za-z0-9_-]+$/;

export const PasskeySchema = z.strictObject({
  /** The credential id, base64url, as the authenticator made it. */
  id: z.string().regex(BASE64URL).min(16).max(1400),
  /** The owner's name for it (`laptop`, `yubikey`). */
  name: z.string().min(1).max(64),
  /** The COSE public key, base64url. */
  public_key: z.string().regex(BASE64URL).min(16).max(2000),
  /** The authenticator's signature counter at its last use (0 for authenticators that keep none). */
  counter: z.number().int().min(0).max(0xffff_ffff),
  transports: z.array(z.string().max(32)).max(8).optional(),
  created: z.iso.datetime(),
  last_used: z.iso.datetime().optional(),
});

export type Passkey = z.infer<typeof PasskeySchema>;

/**
 * Where the owner's passkeys live: the data directory's `passkeys.json`
 * (src/domain/state/files/passkeys.ts) or the state store's `wallet_passkeys`
 * (src/domain/state/pg/passkeys.ts). `change` runs its update holding them all alone (a file
 * lock, a transaction's lock) and keeps what it returns.
 */
export type PasskeyRecords = {
  /** Where they are, for messages. */
  readonly path: string;
  read(): Promise<Passkey[]>;
  /**
   * Whether any is enrolled, answered at once (the approvals ask synchronously): anything that
   * cannot be read counts as enrolled, never as none.
   */
  enrolled(): boolean;
  /**
   * Whether any is enrolled, read from where they live at this moment (the store's cache is not
   * asked): what decides whether a yes without a passkey is accepted. Unreadable: enrolled.
   */
  enrolledNow(): Promise<boolean>;
  change<T>(update: (passkeys: Passkey[]) => { passkeys: Passkey[]; result: T }): Promise<T>;
};
