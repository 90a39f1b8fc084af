import { setTimeout as sleep } from 'node:timers/promises';
import { systemFailureWords } from '../../shared/system-errors.js';
import { redactUrl } from '../config/endpoints.js';
import { WalletError } from '../errors.js';

export type HttpRequest = {
  url: string;
  method: 'GET' | 'POST';
  body?: unknown;
  headers?: Record<string, string>;
  timeoutMs?: number;
  /** Safe to repeat: retried on connection failures, timeouts and 5xx (never a broadcast). */
  idempotent: boolean;
  signal?: AbortSignal | undefined;
};

export type HttpResponse = { status: number; json: unknown; text: string };

export const DEFAULT_TIMEOUT_MS = 15_000;
const RETRY_DELAYS_MS = [250, 1000];

/**
 * One HTTP exchange with a chain backend. Credentials in the URL become a Basic header (fetch
 * refuses them in URLs); every error names the endpoint with credentials masked, and is
 * `BACKEND_UNAVAILABLE` unless the server answered (then the caller reads the status).
 */
export async function httpJson(request: HttpRequest): Promise<HttpResponse> {
  const { url, headers } = splitCredentials(request.url, request.headers ?? {});
  const shown = redactUrl(request.url);
  const attempts = request.idempotent ? RETRY_DELAYS_MS.length + 1 : 1;
  let lastError: unknown;
  for (let attempt = 0; attempt < attempts; attempt++) {
    if (attempt > 0) await sleep(RETRY_DELAYS_MS[attempt - 1] ?? 1000, undefined, { signal: request.signal });
    const timeout = AbortSignal.timeout(request.timeoutMs ?? DEFAULT_TIMEOUT_MS);
    const signal = request.signal ? AbortSignal.any([request.signal, timeout]) : timeout;
    try {
      const response = await fetch(url, {
        method: request.method,
        headers: {
          accept: 'application/json',
          ...(request.body === undefined ? {} : { 'content-type': 'application/json' }),
          ...headers,
        },
        ...(request.body === undefined ? {} : { body: JSON.stringify(request.body) }),
        signal,
      });
      const text = await response.text();
      if (response.status >= 500 && attempt < attempts - 1 && !looksLikeJsonRpcError(text)) {
        lastError = new Error(`HTTP ${response.status}`);
        continue;
      }
      return { status: response.status, json: parseJson(text), text };
    } catch (error) {
      if (request.signal?.aborted) throw error;
      lastError = timeout.aborted
        ? new Error(`no answer within ${Math.round((request.timeoutMs ?? DEFAULT_TIMEOUT_MS) / 1000)} s`)
        : error;
    }
  }
  throw new WalletError('BACKEND_UNAVAILABLE', `Cannot reach ${shown}: ${describe(lastError)}.`, {
    hint: 'Check the endpoint (network_info) and that the node or explorer is running.',
    cause: lastError,
  });
}

function splitCredentials(
  raw: string,
  headers: Record<string, string>,
): { url: string; headers: Record<string, string> } {
  const parsed = new URL(raw);
  if (parsed.username === '' && parsed.password === '') return { url: raw, headers };
  const user = decodeURIComponent(parsed.username);
  const password = decodeURIComponent(parsed.password);
  parsed.username = '';
  parsed.password = '';
  return {
    url: parsed.toString(),
    headers: { authorization: `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`, ...headers },
  };
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** A JSON-RPC node answers errors with HTTP 500 and a JSON body: an answer, not an outage. */
function looksLikeJsonRpcError(text: string): boolean {
  return text.startsWith('{') && text.includes('"error"');
}

function describe(error: unknown): string {
  if (error instanceof Error) {
    return systemFailureWords(error) ?? error.message.split('\n')[0] ?? 'failed';
  }
  return 'failed';
}
