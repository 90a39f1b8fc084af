import { UnsafeFileError } from '../shared/private-files.js';

/**
 * The stable error codes of every wallet failure. A code is data that travels end to end
 * (domain -> tool result `_meta` -> CLI exit code); never parse a message to learn one. Each
 * tells the caller what to do next: `BUSY` retry in a moment, `KEYSTORE_DAMAGED` restore the
 * file from a backup, `BACKEND_INVALID` fix or change the node, `INTERNAL` report our bug.
 */
export const ERROR_CODES = [
  'INVALID_PARAM',
  'WALLET_NOT_FOUND',
  'WALLET_LOCKED',
  'NETWORK_MISMATCH',
  'NETWORK_REQUIRED',
  'INSUFFICIENT_FUNDS',
  'BACKEND_UNAVAILABLE',
  'POLICY_VIOLATION',
  'APPROVAL_REQUIRED',
  'INTERNAL',
  'BUSY',
  'KEYSTORE_DAMAGED',
  'BACKEND_INVALID',
] as const;

export type ErrorCode = (typeof ERROR_CODES)[number];

export type WalletErrorOptions = {
  /** What the user can do about it, one line. */
  hint?: string | undefined;
  /** The underlying failure; kept for `--debug`, never shown by default. */
  cause?: unknown;
  /**
   * Facts the caller acts on, as data (an approval's id and what it would sign); travels with the
   * code to MCP clients and the CLI. Never a secret, never a raw argument.
   */
  details?: Readonly<Record<string, unknown>> | undefined;
};

/**
 * A failure the wallet explains: a stable `code`, a one-line `message` and an optional `hint`.
 *
 * @example
 * throw new WalletError('WALLET_NOT_FOUND', "No wallet 'main'.", { hint: 'Known wallets: savings, spend.' });
 */
export class WalletError extends Error {
  override name = 'WalletError';
  readonly code: ErrorCode;
  readonly hint: string | undefined;
  readonly details: Readonly<Record<string, unknown>> | undefined;

  constructor(code: ErrorCode, message: string, options: WalletErrorOptions = {}) {
    super(oneLine(message), options.cause === undefined ? undefined : { cause: options.cause });
    this.code = code;
    this.hint = options.hint === undefined ? undefined : oneLine(options.hint);
    this.details = options.details;
  }

  /** Each error of the cause chain, this one first. */
  *walk(): Generator<unknown> {
    yield this;
    let current: unknown = this.cause;
    const seen = new Set<unknown>([this]);
    while (current !== undefined && current !== null && !seen.has(current)) {
      seen.add(current);
      yield current;
      current = current instanceof Error ? current.cause : undefined;
    }
  }
}

/**
 * A failure as the WalletError it travels as: a data-directory file refused by the private-file
 * checks ({@link UnsafeFileError}, from `shared/`, which cannot import this module) becomes
 * `KEYSTORE_DAMAGED` with its message and hint; anything else is returned as it is.
 */
export function asWalletError(error: unknown): unknown {
  return error instanceof UnsafeFileError
    ? new WalletError(error.code, error.message, { hint: error.hint, cause: error })
    : error;
}

export function isErrorCode(value: unknown): value is ErrorCode {
  return typeof value === 'string' && (ERROR_CODES as readonly string[]).includes(value);
}

function oneLine(text: string): string {
  return text.replace(/\s*\n\s*/g, ' ').trim();
}

/** Whether a Node system error (fs, net) carries this errno code, e.g. `ENOENT`. */
export function hasSystemCode(error: unknown, code: string): boolean {
  return typeof error === 'object' && error !== null && 'code' in error && (error as { code: unknown }).code === code;
}

/**
 * The causes under an error, one line, for `--debug` and `--log-level debug`: each link's class,
 * and of a system error its code, call and address (`Error ECONNREFUSED connect 127.0.0.1:8545`).
 * Only what cannot carry an argument is shown: a cause's own message may quote input (a zod
 * error does), so it is left out unless the link is a `WalletError` (whose message is shown anyway).
 *
 * @example
 * causeChain(new WalletError('BACKEND_UNAVAILABLE', 'Cannot reach x.', { cause: fetchError }))
 * // 'TypeError <- Error ECONNREFUSED connect 127.0.0.1:8545'
 */
export function causeChain(error: unknown): string {
  const links: string[] = [];
  const seen = new Set<unknown>([error]);
  let current: unknown = error instanceof Error ? error.cause : undefined;
  while (current !== undefined && current !== null && !seen.has(current) && links.length < 10) {
    seen.add(current);
    links.push(describeLink(current));
    current =
      current instanceof Error
        ? (current.cause ?? (current instanceof AggregateError ? current.errors[0] : undefined))
        : undefined;
  }
  return links.join(' <- ');
}

function describeLink(link: unknown): string {
  if (link instanceof WalletError) return `WalletError ${link.code}: ${link.message}`;
  if (!(link instanceof Error)) return typeof link;
  const system = link as Error & {
    code?: unknown;
    syscall?: unknown;
    address?: unknown;
    port?: unknown;
    hostname?: unknown;
  };
  const where =
    typeof system.address === 'string'
      ? `${system.address}${typeof system.port === 'number' ? `:${system.port}` : ''}`
      : typeof system.hostname === 'string'
        ? system.hostname
        : undefined;
  return [link.name, system.code, system.syscall, where]
    .filter((part) => typeof part === 'string' && /^[\w.:[\]-]+$/.test(part))
    .join(' ');
}
