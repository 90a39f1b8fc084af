import { createHash, timingSafeEqual } from 'node:crypto';
import { networkInterfaces } from 'node:os';
import { isIP } from 'node:net';
import {
  hostHeaderValidationResponse,
  localhostAllowedHostnames,
  originValidationResponse,
} from '@modelcontextprotocol/server';
import { jsonRpcError } from './responses.js';

/** The shortest bearer token `wallet serve --http` accepts. */
export const MIN_API_KEY_LENGTH = 16;

/**
 * The host names a request may name in `Host` (and a browser in `Origin`): the loopback names,
 * the address listened on, every local interface's address when listening on all of them, and
 * names the user allowed. Anything else is a DNS-rebinding attempt (or a misrouted request).
 */
export function allowedHostnames(listenHost: string, extra: readonly string[] = []): string[] {
  const names = new Set([...localhostAllowedHostnames(), ...extra.map((name) => name.toLowerCase())]);
  names.add(bracketed(listenHost.toLowerCase()));
  if (listenHost === '0.0.0.0' || listenHost === '::') {
    for (const addresses of Object.values(networkInterfaces())) {
      for (const address of addresses ?? []) names.add(bracketed(address.address.toLowerCase()));
    }
  }
  return [...names];
}

function bracketed(host: string): string {
  return isIP(host) === 6 ? `[${host}]` : host;
}

/** `name`, `name:port`, `[v6]` or `[v6]:port`: nothing else belongs in a Host header. */
const HOST_HEADER = /^(?:[A-Za-z0-9.-]+|\[[0-9A-Fa-f:.]+\])(?::\d{1,5})?$/;

/** 403 for a `Host` or `Origin` outside the allowed names; undefined when the request may go on. */
export function rebindingResponse(request: Request, hostnames: string[]): Response | undefined {
  if (!HOST_HEADER.test(request.headers.get('host') ?? '')) {
    return jsonRpcError(403, -32000, 'Invalid Host header.');
  }
  return hostHeaderValidationResponse(request, hostnames) ?? originValidationResponse(request, hostnames);
}

/**
 * Checks `Authorization: Bearer <key>` in constant time (both sides hashed first, so neither the
 * key's length nor a common prefix shows in the timing). Returns the 401 to send, or undefined.
 */
export function bearerGate(apiKey: string): (request: Request) => Response | undefined {
  const expected = digest(apiKey);
  return (request) => {
    const header = request.headers.get('authorization') ?? '';
    const match = /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(header);
    if (match?.[1] !== undefined && timingSafeEqual(digest(match[1]), expected)) return undefined;
    const error = header === '' ? 'missing bearer token' : 'invalid bearer token';
    return jsonRpcError(401, -32001, `Unauthorized: ${error}.`, {
      'WWW-Authenticate': 'Bearer realm="wallet", error="invalid_token"',
    });
  };
}

function digest(text: string): Buffer {
  return createHash('sha256').update(text, 'utf8').digest();
}
