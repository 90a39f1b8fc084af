import { WalletError } from '../errors.js';
import type { WalletKeystore } from '../keystore/keystore.js';
import { Keystore } from '../keystore/keystore.js';
import { filePasskeys } from '../state/files/passkeys.js';
import { sharedStateOf } from '../state/shared.js';
import { MAX_PASSKEYS, PasskeySchema, type Passkey, type PasskeyRecords } from './passkey-record.js';

export type { Passkey } from './passkey-record.js';

/** A name for a passkey: letters, digits, `-`, `_`, `.` and spaces; what `passkey add --name` takes. */
export const PASSKEY_NAME = /^[\w. -]{1,64}$/;

/**
 * The owner's passkeys: `<dataDir>/passkeys.json` (0600, replaced atomically, changed under a
 * cross-process lock), or, when this process opened a PostgreSQL state store for `dataDir`, its
 * `wallet_passkeys` (src/domain/state/shared.ts): every replica then verifies the same keys and
 * counters. Once one is enrolled, a human yes to an agent's call is a WebAuthn
 * assertion of one of them: the approvals store refuses any other (see {@link ApprovalStore.decide}),
 * and a client's elicitation answer approves nothing. Only public keys are kept: the file holds no
 * secret, but who may write it decides who approves, so it is the owner's alone.
 */
export class PasskeyStore {
  readonly path: string;
  private readonly records: PasskeyRecords;

  constructor(dataDir: string) {
    this.records = sharedStateOf(dataDir)?.passkeys ?? filePasskeys(dataDir);
    this.path = this.records.path;
  }

  /** The enrolled passkeys (a damaged file is `POLICY_VIOLATION`, never taken as none). */
  async list(): Promise<Passkey[]> {
    return this.records.read();
  }

  /**
   * Whether any passkey is enrolled, answered synchronously. A file that cannot be read or parsed
   * counts as enrolled: a damaged file must not lift the passkey requirement.
   */
  enrolled(): boolean {
    return this.records.enrolled();
  }

  /**
   * Whether any passkey is enrolled, read now from where they live (with a state store, not the
   * replica's cached read, which may be a second old): asked before a yes given without a passkey
   * is accepted. Unreadable: enrolled.
   */
  enrolledNow(): Promise<boolean> {
    return this.records.enrolledNow();
  }

  /** Enrolls `passkey`; a credential already enrolled, or a name in use, is refused. */
  async add(passkey: Passkey): Promise<Passkey> {
    const entry = PasskeySchema.parse(passkey);
    return this.change((passkeys) => {
      if (passkeys.some((each) => each.id === entry.id)) {
        throw new WalletError('INVALID_PARAM', 'That passkey is already enrolled.');
      }
      if (passkeys.some((each) => each.name === entry.name)) {
        throw new WalletError('INVALID_PARAM', `A passkey named '${entry.name}' is already enrolled.`, {
          hint: 'Give it another name, or remove the old one first.',
        });
      }
      if (passkeys.length >= MAX_PASSKEYS) {
        throw new WalletError('INVALID_PARAM', `${passkeys.length} passkeys are enrolled already.`, {
          hint: 'Remove one with wallet approvals passkey remove <name>.',
        });
      }
      return { passkeys: [...passkeys, entry], result: entry };
    });
  }

  /** Removes the passkey named `which` (or with that credential id); `INVALID_PARAM` when none is. */
  async remove(which: string): Promise<Passkey> {
    return this.change((passkeys) => {
      const found = passkeys.find((each) => each.name === which || each.id === which);
      if (!found) {
        throw new WalletError('INVALID_PARAM', `No passkey '${which.slice(0, 64)}'.`, {
          hint: 'wallet approvals passkey list names them.',
        });
      }
      return { passkeys: passkeys.filter((each) => each !== found), result: found };
    });
  }

  /**
   * Records a verified assertion of passkey `id` that reported `counter`, under the lock: a counter
   * that did not move past the stored one (a cloned authenticator, or a replay) is refused, unless
   * the authenticator keeps no counter at all (both 0).
   */
  async recordUse(id: string, counter: number): Promise<Passkey> {
    return this.change((passkeys) => {
      const found = passkeys.find((each) => each.id === id);
      if (!found) throw new WalletError('POLICY_VIOLATION', 'That passkey is not enrolled; nothing was approved.');
      if ((counter > 0 || found.counter > 0) && counter <= found.counter) {
        throw new WalletError(
          'POLICY_VIOLATION',
          `The passkey '${found.name}' reported use count ${counter}, not above ${found.counter}: it may have been cloned. Nothing was approved.`,
          { hint: 'Remove it with wallet approvals passkey remove and enroll a new one.' },
        );
      }
      const used: Passkey = { ...found, counter, last_used: new Date().toISOString() };
      return { passkeys: passkeys.map((each) => (each === found ? used : each)), result: used };
    });
  }

  private change<T>(update: (passkeys: Passkey[]) => { passkeys: Passkey[]; result: T }): Promise<T> {
    return this.records.change(update);
  }
}

/**
 * Refuses a passkey's enrolment or removal (`what`) without the keystore passphrase: `WALLET_LOCKED`
 * when `passphrase` is not the keystore's, `INVALID_PARAM` when the keystore holds nothing yet.
 */
export async function checkOwnerPassphrase(dataDir: string, passphrase: string, what: string): Promise<void> {
  const keystore: WalletKeystore = sharedStateOf(dataDir)?.keystore ?? new Keystore(dataDir);
  const check = await keystore.checkPassphrase(passphrase);
  if (check === 'empty') {
    throw new WalletError('INVALID_PARAM', `The keystore is empty: no passkey was ${what}.`, {
      hint: 'Create or import a wallet first: its passphrase is what guards the passkeys.',
    });
  }
  if (check === 'wrong') {
    throw new WalletError('WALLET_LOCKED', `That is not the keystore passphrase: no passkey was ${what}.`, {
      hint: 'Give the passphrase your wallets open with.',
    });
  }
}
