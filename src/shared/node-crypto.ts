import type * as NodeCrypto from 'node:crypto';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);

/**
 * `node:crypto`, loaded on first use. Loading it initialises 17 of Node's own modules, ~2 ms of a
 * start (docs/PERFORMANCE.md), which checking an address, `network-info` and listing EVM accounts
 * (they encrypt, sign, derive and write nothing) need not pay. The modules every call of the
 * built-in server initialises take it from here; the others import it as usual.
 */
export function nodeCrypto(): typeof NodeCrypto {
  return require('node:crypto') as typeof NodeCrypto;
}
