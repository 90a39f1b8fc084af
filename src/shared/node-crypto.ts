import type * as NodeCrypto from 'node:crypto';

/**
 * `node:crypto`, loaded on first use. Loading it initialises 17 of Node's own modules, ~2 ms of a
 * start (docs/PERFORMANCE.md), which a call that encrypts, signs and writes nothing (checking an
 * address, `network-info`) need not pay. The modules every call of the built-in server
 * initialises take it from here; the others import it as usual.
 */
export function nodeCrypto(): typeof NodeCrypto {
  return process.getBuiltinModule('node:crypto');
}
