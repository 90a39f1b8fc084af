import { statSync } from 'node:fs';
import { readPrivateText, UnsafeFileError } from '../../shared/private-files.js';
import { asWalletError, WalletError } from '../errors.js';

/** The `sslmode` values libpq knows, and node-postgres reads from a URL. */
const SSL_MODES = ['disable', 'prefer', 'require', 'verify-ca', 'verify-full', 'no-verify'] as const;

/**
 * The URL parameters that carry a secret (libpq's `password`, and `sslpassword` for the client
 * key); node-postgres reads a URL's parameters as options, so either would take effect.
 */
const SECRET_PARAMS: readonly string[] = ['password', 'sslpassword'];

/**
 * Where the shared state lives, when it is not the data directory: a PostgreSQL URL (never with a
 * password in it) and, at most, the owner-only file its password is read from.
 */
export type StateLocation = {
  url: string;
  /** The URL as shown in messages: host, port and database only. */
  shown: string;
  /** The password, read from `state.password_file`, else PGPASSWORD; else libpq's PGPASSFILE applies. */
  password: string | undefined;
};

/** The `state` section of config.json. */
export type StateConfig = { url?: string | undefined; password_file?: string | undefined };

/**
 * The state store the wallet uses: `WALLET_STATE_URL`, else config `state.url`, else none (the
 * data directory's files). A URL must be `postgres://` (or `postgresql://`) without a password:
 * the password comes from libpq's environment (`PGPASSWORD`, `PGPASSFILE`, `~/.pgpass`) or from
 * `state.password_file` (`WALLET_STATE_PASSWORD_FILE`), an owner-only file, never from argv or
 * config.json.
 */
export function resolveStateLocation(
  env: Readonly<Record<string, string | undefined>>,
  config: StateConfig | undefined,
): StateLocation | undefined {
  const fromEnv = env['WALLET_STATE_URL']?.trim();
  const url = fromEnv === undefined || fromEnv === '' ? config?.url : fromEnv;
  if (url === undefined) return undefined;
  const where = fromEnv ? 'WALLET_STATE_URL' : 'state.url in config.json';
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch (error) {
    throw new WalletError('INVALID_PARAM', `${where} is not a URL.`, {
      hint: 'Set it to postgres://USER@HOST:PORT/DATABASE (see docs/REPLICAS.md).',
      cause: error,
    });
  }
  if (parsed.protocol !== 'postgres:' && parsed.protocol !== 'postgresql:') {
    throw new WalletError('INVALID_PARAM', `${where} must be a postgres:// URL.`, {
      hint: 'The state store is PostgreSQL; unset it to keep the state in the data directory.',
    });
  }
  if (parsed.password !== '') {
    throw new WalletError('INVALID_PARAM', `${where} holds a password; the state store's password never goes there.`, {
      hint: 'Remove it from the URL; give it in PGPASSWORD, a PGPASSFILE, or an owner-only file named by state.password_file.',
    });
  }
  for (const name of parsed.searchParams.keys()) {
    const lower = name.toLowerCase();
    if (SECRET_PARAMS.includes(lower)) {
      throw new WalletError(
        'INVALID_PARAM',
        `${where} holds a ${lower} parameter; the state store's secrets never go there.`,
        {
          hint: 'Remove it from the URL; give the password in PGPASSWORD, a PGPASSFILE, or an owner-only file named by state.password_file.',
        },
      );
    }
    if (lower === 'passfile') {
      throw new WalletError('INVALID_PARAM', `${where} has a passfile parameter, which node-postgres ignores.`, {
        hint: 'Name the password file in PGPASSFILE, or in state.password_file (WALLET_STATE_PASSWORD_FILE).',
      });
    }
  }
  const sslmode = parsed.searchParams.get('sslmode');
  if (sslmode !== null && !(SSL_MODES as readonly string[]).includes(sslmode)) {
    throw new WalletError('INVALID_PARAM', `${where} has an unknown sslmode.`, {
      hint: `sslmode is one of ${SSL_MODES.join(', ')}.`,
    });
  }
  const passwordFile = env['WALLET_STATE_PASSWORD_FILE'] ?? config?.password_file;
  return {
    url,
    shown: `${parsed.hostname || 'localhost'}:${parsed.port || '5432'}${parsed.pathname}`,
    // PGPASSWORD from the wallet's own environment (node-postgres reads process.env's itself, and PGPASSFILE).
    password: passwordFile === undefined ? env['PGPASSWORD'] : readPasswordFile(passwordFile),
  };
}

function readPasswordFile(path: string): string {
  let text: string;
  try {
    text = readPrivateText(path);
  } catch (error) {
    if (error instanceof UnsafeFileError) throw asWalletError(error);
    throw new WalletError('INVALID_PARAM', `Cannot read the state store's password file ${path}.`, {
      hint: 'Point state.password_file (or WALLET_STATE_PASSWORD_FILE) at an owner-only (0600) file.',
      cause: error,
    });
  }
  // A secret others can read is not owner-only (readPrivateText refuses only what others can write).
  if (process.platform !== 'win32' && (statSync(path).mode & 0o077) !== 0) {
    throw new WalletError('INVALID_PARAM', `The state store's password file ${path} can be read by others.`, {
      hint: `Make it owner-only: chmod 600 ${path}.`,
    });
  }
  return text.replace(/\r?\n$/, '');
}
