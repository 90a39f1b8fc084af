import { closeSync, fdatasyncSync, lstatSync, type Stats } from 'node:fs';
import { join } from 'node:path';
import { wordlist } from '@scure/bip39/wordlists/english.js';
import { checkPrivateFile, ensurePrivateDir, openPrivateAppend, writeAll } from '../../shared/private-files.js';
import { decodeAddress } from '../dash/address.js';
import { hasSystemCode } from '../errors.js';
import { AUTHORITIES, type Authority } from './authority.js';
import { ALIAS_PATTERN } from '../keystore/keystore-format.js';

const AUDIT_LOG_FILE_NAME = 'audit.log';

/**
 * What one destructive call contributes to its audit line, from fields each tool names
 * explicitly: never a secret, never its raw arguments.
 */
export type AuditFields = {
  network?: string | undefined;
  /** The Dash wallet acting, by alias or fingerprint. */
  wallet_id?: string | undefined;
  /** The account acting: an EVM account (its address or alias), or the Dash address that signed a message. */
  from?: string | undefined;
  /** In base units (`unit`), as a string of digits. */
  amount?: string | undefined;
  /** `token`: the base units of the ERC-20 `token`. */
  unit?: 'duffs' | 'wei' | 'token' | undefined;
  /** The ERC-20 contract a token amount is of (checksummed). */
  token?: string | undefined;
  recipient?: string | readonly string[] | null | undefined;
  /** A Dash transaction id. */
  txid?: string | undefined;
  /** An EVM transaction hash. */
  hash?: string | undefined;
  /** The most the fee can be (or what it was), in base units (`unit`). */
  fee?: string | undefined;
  /** A transaction signed and handed back, not broadcast (its outcome is `signed`). */
  signed_only?: boolean | undefined;
  /** The EIP-712 hash of signed typed data. */
  typed_data_hash?: string | undefined;
  /**
   * The host a resource was fetched from (`evm_x402_fetch`): a host name or an IP address, never a
   * URL; for a payment to another MCP server's tool, its URL's host or `stdio:<saved server name>`.
   */
  host?: string | undefined;
  /**
   * On a failed call: a payment was signed and sent before it failed (the line's amount, token and
   * recipient are what was signed); it may be settled all the same, and the 24-hour ledger counts it.
   */
  payment_signed?: boolean | undefined;
  dry_run?: boolean | undefined;
  /** Who stood behind a call that ran: the owner (a human said yes) or an agent within its autonomy. */
  authority?: Authority | undefined;
  /** The owner's approval it was asked for, or ran under (`ap-…`). */
  approval?: string | undefined;
};

/**
 * `sent` broadcast; `signed` signed and handed back; `dry_run` planned only; `asked` the user was
 * asked to confirm it (its outcome comes on a later line, or none when nobody answered); `ok` done
 * (a deletion, a typed-data signature); `error` refused or failed.
 */
export type AuditOutcome = 'sent' | 'signed' | 'dry_run' | 'asked' | 'ok' | 'error';

/** One line of the audit log. */
export type AuditRecord = AuditFields & {
  time: string;
  tool: string;
  outcome: AuditOutcome;
  error?: { code: string; message: string };
};

/**
 * What a field holds when its value did not validate: the value itself is never written, since a
 * caller's text in the wrong field can be a private key, a WIF, an xprv or a mnemonic.
 */
export const INVALID_AUDIT_VALUE = '(invalid)';

/** How a network is named (built-in or configured): lower-case letters, digits and dashes. */
export const NETWORK_NAME_PATTERN = /^[a-z][a-z0-9-]{0,31}$/;

/** What a recipient may be besides an address: the markers the tools write themselves. */
const RECIPIENT_MARKERS = ['(contract creation)', '(no address)'] as const;

const EVM_ADDRESS = /^0x[0-9a-fA-F]{40}$/;
const FINGERPRINT = /^[0-9a-fA-F]{8}$/;
/** A uint256 in decimal has at most 78 digits. */
const BASE_UNITS = /^[0-9]{1,78}$/;
const TXID = /^[0-9a-fA-F]{64}$/;
const EVM_HASH = /^0x[0-9a-fA-F]{64}$/;
const UNITS: readonly string[] = ['duffs', 'wei', 'token'];
const APPROVAL_ID = /^ap-[a-z2-7]{10}$/;
/**
 * A lower-case host name, an IP address or `stdio:<saved server name>`; one whose characters,
 * punctuation left out, hold a key-shaped run (64 hex digits, 50 Base58 ones) is not written.
 */
const HOST_NAME =
  /^(?:(?:[a-z0-9-]{1,32}\.){0,8}[a-z0-9-]{1,32}|[0-9a-f:.]{2,45}|stdio:[A-Za-z0-9][A-Za-z0-9._-]{0,63})$/;

const isText = (value: unknown): value is string => typeof value === 'string';
/** The keystore's alias rule: at most 32 characters, no upper case, no spaces, so never a whole key or phrase. */
const isAlias = (value: unknown): boolean => isText(value) && ALIAS_PATTERN.test(value);
const isEvmAddress = (value: unknown): boolean => isText(value) && EVM_ADDRESS.test(value);
const isDashAddress = (value: unknown): boolean => isText(value) && decodeAddress(value) !== undefined;
const isRecipient = (value: unknown): boolean =>
  isText(value) &&
  (EVM_ADDRESS.test(value) ||
    (RECIPIENT_MARKERS as readonly string[]).includes(value) ||
    decodeAddress(value) !== undefined);

/**
 * Every field an audit line may hold, in the order it is written (when and what first, then the
 * details), with the test its value must pass. A field not listed here is never written.
 */
const FIELD_CHECKS: { readonly [Key in keyof AuditFields]-?: (value: unknown) => boolean } = {
  network: (value) => isText(value) && NETWORK_NAME_PATTERN.test(value),
  wallet_id: (value) => isAlias(value) || (isText(value) && FINGERPRINT.test(value)),
  from: (value) => isEvmAddress(value) || isAlias(value) || isDashAddress(value),
  amount: (value) => isText(value) && BASE_UNITS.test(value),
  unit: (value) => isText(value) && UNITS.includes(value),
  token: isEvmAddress,
  recipient: (value) => value === null || isRecipient(value),
  fee: (value) => isText(value) && BASE_UNITS.test(value),
  txid: (value) => isText(value) && TXID.test(value),
  hash: (value) => isText(value) && EVM_HASH.test(value),
  typed_data_hash: (value) => isText(value) && EVM_HASH.test(value),
  host: (value) =>
    isText(value) &&
    HOST_NAME.test(value) &&
    !/[0-9a-fA-F]{64}|[1-9A-HJ-NP-Za-km-z]{50}/.test(value.replace(/[.:_-]/g, '')),
  payment_signed: (value) => typeof value === 'boolean',
  signed_only: (value) => typeof value === 'boolean',
  dry_run: (value) => typeof value === 'boolean',
  authority: (value) => AUTHORITIES.some((authority) => authority === value),
  approval: (value) => isText(value) && APPROVAL_ID.test(value),
};

/** The fields that name a hash the call computed: never one the caller wrote. */
const COMPUTED_HASHES = ['txid', 'hash', 'typed_data_hash'] as const;

/**
 * The audit fields fit to write or show: each value that passes its field's test (an address, a
 * network name, digits, a hash of its length, an alias), and {@link INVALID_AUDIT_VALUE} in place
 * of any other; unknown fields are dropped. Given the call's raw arguments, a hash found anywhere
 * in them is dropped too: a hash is computed, and a 64-hex "hash" quoted from the arguments may be
 * a private key.
 *
 * @example
 * auditableFields({ network: 'local', recipient: 'test test test … junk' }) // { network: 'local', recipient: '(invalid)' }
 */
export function auditableFields(fields: AuditFields, args?: unknown): AuditFields {
  const quoted = args === undefined ? [] : argumentTexts(args);
  const checked: Record<string, unknown> = {};
  for (const [key, check] of Object.entries(FIELD_CHECKS) as [keyof AuditFields, (value: unknown) => boolean][]) {
    const value = fields[key];
    if (value === undefined) continue;
    if ((COMPUTED_HASHES as readonly string[]).includes(key) && isText(value) && quotedIn(quoted, value)) continue;
    if (key === 'recipient' && Array.isArray(value)) {
      checked[key] = value.map((one: unknown) => (isRecipient(one) ? one : INVALID_AUDIT_VALUE));
    } else {
      checked[key] = check(value) ? value : INVALID_AUDIT_VALUE;
    }
  }
  return checked as AuditFields;
}

/** Every string in a call's arguments, however deep. */
function argumentTexts(args: unknown, found: string[] = [], depth = 0): string[] {
  if (typeof args === 'string') found.push(args.toLowerCase());
  else if (typeof args === 'object' && args !== null && depth < 16) {
    for (const value of Object.values(args)) argumentTexts(value, found, depth + 1);
  }
  return found;
}

function quotedIn(texts: readonly string[], hash: string): boolean {
  const digits = hash.toLowerCase().replace(/^0x/, '');
  return texts.some((text) => text.includes(digits));
}

/**
 * Secret-shaped runs in free text: 64 hex digits (a private key; a hash looks the same) and 50 or
 * more Base58 characters (a WIF has 51, an xprv 111; an address at most 42).
 */
const SECRET_SHAPED = /(?:0x)?[0-9a-fA-F]{64,}|[1-9A-HJ-NP-Za-km-z]{50,}/g;
const NOT_SHOWN = '(not shown)';
const WORD_RUN = /[a-z]+(?:\s+[a-z]+){11,}/g;
const BIP39_WORDS = new Set(wordlist);
/** Of a run of words, the stretch that could be a recovery phrase: 12 or more BIP39 words in a row. */
const PHRASE_LENGTH = 12;

/**
 * An error message as the audit line keeps it: a WalletError's message never quotes a secret, and
 * this makes sure of it for one that would: key-, WIF- and xprv-shaped runs and 12 or more BIP39
 * words in a row are replaced by "(not shown)".
 */
export function auditMessage(message: string): string {
  return message.replace(SECRET_SHAPED, NOT_SHOWN).replace(WORD_RUN, (run) => {
    const words = run.split(/\s+/);
    let start = 0;
    const kept: string[] = [];
    for (let at = 0; at <= words.length; at++) {
      if (at < words.length && BIP39_WORDS.has(words[at] ?? '')) continue;
      const stretch = words.slice(start, at);
      if (stretch.length >= PHRASE_LENGTH) kept.push(NOT_SHOWN);
      else kept.push(...stretch);
      if (at < words.length) kept.push(words[at] ?? '');
      start = at + 1;
    }
    return kept.join(' ');
  });
}

const TOOL_NAME = /^[a-z][a-z0-9_]{0,127}$/;
const ERROR_CODE = /^[A-Z][A-Z0-9_]{0,63}$/;

/**
 * Appends one JSON line to `<dataDir>/audit.log`: created owner-only (0600, in a 0700 folder),
 * opened for appending and written with one `write` per line, so lines from concurrent processes
 * never interleave and earlier lines are never rewritten. Fields left undefined are left out, and
 * every value is checked on the way ({@link auditLine}): whatever a tool's `audit` passes, no raw
 * argument reaches the file.
 */
export async function appendAuditRecord(dataDir: string, record: AuditRecord): Promise<void> {
  ensurePrivateDir(dataDir);
  const path = auditLogPath(dataDir);
  const line = auditLine(record);
  // Never through a link, never into another user's file: openPrivateAppend refuses them.
  const fd = openPrivateAppend(path);
  try {
    writeAll(fd, Buffer.from(`${JSON.stringify(line)}\n`, 'utf8'));
    fdatasyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

/**
 * Refuses a call before it runs when its audit line could not be written safely: `audit.log` is a
 * link, another user's file or writable by others ({@link checkPrivateFile}). A call whose line
 * would be lost, or appended through a link to a file elsewhere, does not happen.
 */
export function checkAuditLog(dataDir: string): void {
  const path = auditLogPath(dataDir);
  let info: Stats;
  try {
    info = lstatSync(path);
  } catch (error) {
    if (hasSystemCode(error, 'ENOENT')) return;
    throw error;
  }
  checkPrivateFile(path, info);
}

/**
 * A record as its line is written: when and what first, then the fields that validated
 * ({@link auditableFields}), then the error's code and message.
 */
export function auditLine(record: AuditRecord): Record<string, unknown> {
  // signed_only decides the outcome (`signed`); the line says it once, there.
  const { time, tool, outcome, error, signed_only: _signedOnly, ...fields } = record;
  return {
    time,
    tool: TOOL_NAME.test(tool) ? tool : INVALID_AUDIT_VALUE,
    outcome,
    ...auditableFields(fields),
    ...(error
      ? {
          error: {
            code: ERROR_CODE.test(error.code) ? error.code : INVALID_AUDIT_VALUE,
            message: auditMessage(error.message),
          },
        }
      : {}),
  };
}

/** The path of the audit log in a data directory. */
export function auditLogPath(dataDir: string): string {
  return join(dataDir, AUDIT_LOG_FILE_NAME);
}
