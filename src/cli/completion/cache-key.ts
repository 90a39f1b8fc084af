import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex, utf8ToBytes } from '@noble/hashes/utils.js';

/**
 * The name of the tool cache of a server in `<data dir>/cache/tools/<key>.tsv`: the SHA-256, in
 * lowercase hex, of `server:<value>` or `url:<value>`, the value exactly as the CLI received it.
 * The completion scripts compute the same key with `sha256sum` (or `shasum -a 256`). noble's
 * hash, not `node:crypto`: `bin/wallet.js`'s early spawn (`src/startup/ahead.ts`) computes it too, before
 * anything else would load `node:crypto` (~2.5 ms).
 *
 * @example
 * serverCacheKey('url', 'http://127.0.0.1:3001/mcp') // sha256('url:http://127.0.0.1:3001/mcp'), 64 hex digits
 */
export function serverCacheKey(kind: 'server' | 'url', value: string): string {
  return bytesToHex(sha256(utf8ToBytes(`${kind}:${value}`)));
}
