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

/** A well-formed `Host` header: a name or address, and a port that exists. */
export function isValidHostHeader(host: string | undefined): boolean {
  if (host === undefined || !HOST_HEADER.test(host)) return false;
  const port = /:(\d+)$/.exec(host)?.[1];
  return port === undefined || Number(port) <= 65535;
}

/** 403 for a `Host` or `Origin` outside the allowed names; undefined when the request may go on. */
export function rebindingResponse(request: Request, hostnames: string[]): Response | undefined {
  if (!isValidHostHeader(request.headers.get('host') ?? undefined)) {
    return jsonRpcError(403, -32000, 'Invalid Host header.');
  }
  return hostHeaderValidationResponse(request, hostnames) ?? originValidationResponse(request, hostnames);
}

/** Why an `Authorization` header does not carry the token, or undefined when it does. */
export type BearerCheck = (header: string | undefined) => 'missing bearer token' | 'invalid bearer token' | undefined;

/**
 * Checks `Authorization: Bearer <key>` in constant time (both sides hashed first, so neither the
 * key's length nor a common prefix shows in the timing).
 */
export function bearerCheck(apiKey: string): BearerCheck {
  const expected = digest(apiKey);
  return (header = '') => {
    const match = /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(header);
    if (match?.[1] !== undefined && timingSafeEqual(digest(match[1]), expected)) return undefined;
    return header === '' ? 'missing bearer token' : 'invalid bearer token';
  };
}

/** The headers of a 401 for a missing or wrong token. */
export const UNAUTHORIZED_HEADERS = { 'WWW-Authenticate': 'Bearer realm="wallet", error="invalid_token"' };

/** {@link bearerCheck} on a web `Request`: the 401 to send, or undefined. */
export function bearerGate(apiKey: string): (request: Request) => Response | undefined {
  const check = bearerCheck(apiKey);
  return (request) => {
    const error = check(request.headers.get('authorization') ?? undefined);
    return error === undefined ? undefined : jsonRpcError(401, -32001, `Unauthorized: ${error}.`, UNAUTHORIZED_HEADERS);
  };
}

function digest(text: string): Buffer {
  return createHash('sha256').update(text, 'utf8').digest();
}
