import type { FetchLike } from '@modelcontextprotocol/client';

/** How long one request of a login may take when the run sets no bound of its own. */
export const LOGIN_REQUEST_TIMEOUT_MS = 60_000;

/**
 * `fetchFn`, each request of which is aborted after `timeoutMs` (the caller's own signal still
 * aborts it too): an authorization server or identity provider that never answers must not hold
 * a run past its bound, nor keep the process alive after the run gave up.
 */
export function boundedFetch(fetchFn: FetchLike, timeoutMs: number): FetchLike {
  return (url, init) => {
    const bound = AbortSignal.timeout(timeoutMs);
    return fetchFn(url, { ...init, signal: init?.signal ? AbortSignal.any([init.signal, bound]) : bound });
  };
}

/** Whether a request failed because it was aborted (its bound ran out, or its caller gave up). */
export function isTimeout(error: unknown): boolean {
  return error instanceof Error && (error.name === 'TimeoutError' || error.name === 'AbortError');
}
