import { isIP } from 'node:net';
import { UsageError } from '../../shared/usage-error.js';

/** Where `wallet serve --http` listens. */
export type ListenAddress = { host: string; port: number };

export const DEFAULT_LISTEN: ListenAddress = { host: '127.0.0.1', port: 9527 };

/**
 * Parses `--listen`: `host:port`, `[v6]:port`, `host` or `:port`. A port of 0 takes a free one.
 * Throws a `UsageError` whose message names the flag.
 */
export function parseListenAddress(text: string): ListenAddress {
  const bracketed = /^\[([^\]]+)\](?::(\d+))?$/.exec(text);
  let host: string;
  let port: string | undefined;
  if (bracketed) {
    host = bracketed[1] ?? '';
    port = bracketed[2];
  } else if ((text.match(/:/g) ?? []).length > 1) {
    throw new UsageError(`--listen: write an IPv6 address in brackets, e.g. [::1]:${DEFAULT_LISTEN.port}.`);
  } else {
    const colon = text.lastIndexOf(':');
    host = colon === -1 ? text : text.slice(0, colon);
    port = colon === -1 ? undefined : text.slice(colon + 1);
  }
  host = host === '' ? DEFAULT_LISTEN.host : host;
  if (!/^[A-Za-z0-9.:%-]+$/.test(host)) throw new UsageError(`--listen: '${host}' is not a host name or IP address.`);
  if (port !== undefined && !/^\d{1,5}$/.test(port)) throw new UsageError('--listen: the port must be a number.');
  const number = port === undefined ? DEFAULT_LISTEN.port : Number(port);
  if (number > 65535) throw new UsageError('--listen: the port must be at most 65535.');
  return { host, port: number };
}

/** Only this machine can reach the address: 127.0.0.0/8, ::1 or the name localhost. */
export function isLoopbackHost(host: string): boolean {
  const plain = host.replace(/^\[|\]$/g, '').toLowerCase();
  if (plain === 'localhost') return true;
  if (isIP(plain) === 4) return plain.startsWith('127.');
  if (isIP(plain) === 6) return plain === '::1' || plain === '0:0:0:0:0:0:0:1';
  return false;
}

/** The address as a URL authority: IPv6 in brackets. */
export function authorityOf(address: ListenAddress): string {
  return `${isIP(address.host) === 6 ? `[${address.host}]` : address.host}:${address.port}`;
}
