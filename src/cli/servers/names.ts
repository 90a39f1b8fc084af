import { join } from 'node:path';

// The name rules of servers.json and where it is, apart from its parser: checking a flag needs no zod schema.

/** Where the named servers live: `<dataDir>/servers.json`. */
export function serversFilePath(dataDir: string): string {
  return join(dataDir, 'servers.json');
}

/** A server's name in servers.json and on the command line (`--server <name>`). */
export const SERVER_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

export const SERVER_NAME_RULE = 'a letter or digit, then letters, digits, . _ or -, at most 64 in all';

/** An HTTP header name (an RFC 9110 token). */
export const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

/** An environment variable name a process can be given on every platform. */
export const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
