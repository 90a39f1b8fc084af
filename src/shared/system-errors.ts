/** The network failures a person meets most, in words; the code stays for a search. */
const SYSTEM_CODE_WORDS: Readonly<Record<string, string>> = {
  ENOTFOUND: 'its host name could not be resolved (ENOTFOUND: offline, or a typo in the host?)',
  EAI_AGAIN: 'its host name could not be resolved just now (EAI_AGAIN: offline, or DNS is down?)',
  ECONNREFUSED: 'nothing listens there (ECONNREFUSED: is it running, on that port?)',
  ECONNRESET: 'the connection was reset (ECONNRESET)',
  ETIMEDOUT: 'the connection timed out (ETIMEDOUT)',
};

/**
 * A failure to reach a host, in words, from the system error code under it: fetch (undici) puts
 * the code on the error's cause, or, for a host with several addresses all refused, on the first
 * of the cause's errors; a library may wrap the fetch error once more. Undefined when there is no
 * code.
 *
 * @example
 * systemFailureWords(await fetch('http://wallet-test.invalid').catch((error) => error))
 * // 'its host name could not be resolved (ENOTFOUND: offline, or a typo in the host?)'
 */
export function systemFailureWords(error: unknown): string | undefined {
  const code = systemCode(error, 0);
  return code === undefined ? undefined : (SYSTEM_CODE_WORDS[code] ?? code);
}

const MAX_DEPTH = 5;
/** An errno name (`ECONNREFUSED`) or a resolver's (`EAI_AGAIN`), not a library's own code (`ERA_NEGOTIATION_FAILED`). */
const SYSTEM_CODE = /^(E[A-Z0-9]{2,}|EAI_[A-Z]+)$/;

function systemCode(error: unknown, depth: number): string | undefined {
  if (typeof error !== 'object' || error === null || depth > MAX_DEPTH) return undefined;
  if ('code' in error && typeof error.code === 'string' && SYSTEM_CODE.test(error.code)) {
    return error.code;
  }
  if ('errors' in error && Array.isArray(error.errors)) {
    const found = systemCode((error.errors as unknown[])[0], depth + 1);
    if (found !== undefined) return found;
  }
  return 'cause' in error ? systemCode(error.cause, depth + 1) : undefined;
}
