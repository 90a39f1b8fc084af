import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { request as httpRequest, type IncomingMessage, type RequestOptions } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { BlockList, isIP, type LookupFunction } from 'node:net';
import { WalletError } from '../errors.js';

/**
 * What a tool may fetch for an agent: the rules of docs/X402.md. `https` only, except a URL that
 * itself names a loopback host the policy lists (local development); an optional host allowlist;
 * no private, link-local or otherwise non-public address, checked on the address each connection
 * really uses (so DNS cannot point a public name at the machine's own services); redirects followed
 * under the same rules; a bounded body and time.
 */
export type FetchRules = {
  /** Host names the policy allows (lower case), or null: any public host. */
  allowedHosts: ReadonlySet<string> | null;
  /** The config path of the allowlist, named in a refusal. */
  allowedHostsRule: string;
  /** The most body bytes read; a longer body is cut there (`truncated`). */
  maxBytes: number;
  /** The most one request (with its redirects) may take. */
  timeoutMs: number;
  maxRedirects: number;
  /** Resolves host names; Node's DNS unless a test says otherwise. */
  lookup?: typeof dnsLookup;
};

/** An answer read under the rules. */
export type FetchedAnswer = {
  /** The URL that answered, after redirects. */
  url: URL;
  status: number;
  headers: Headers;
  body: Buffer;
  /** The body was longer than `maxBytes` and is cut there. */
  truncated: boolean;
};

export const MAX_BODY_BYTES = 64 * 1024;
export const FETCH_TIMEOUT_MS = 30_000;
export const MAX_REDIRECTS = 5;

/** Ranges no request may reach: private, shared, link-local, documentation, multicast, reserved. */
const NOT_PUBLIC = new BlockList();
for (const [prefix, bits] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const) {
  NOT_PUBLIC.addSubnet(prefix, bits, 'ipv4');
}
for (const [prefix, bits] of [
  ['::', 128],
  ['::1', 128],
  ['fc00::', 7],
  ['fe80::', 10],
  ['fec0::', 10],
  ['ff00::', 8],
  ['2001:db8::', 32],
  ['100::', 64],
  // Forms that carry an IPv4 address and are not unwrapped below: IPv4-compatible (::a.b.c.d),
  // IPv4-translated (::ffff:0:a.b.c.d), local-use NAT64, 6to4 and Teredo. None is needed to reach
  // a public resource, and each could reach a private one.
  ['::', 96],
  ['::ffff:0:0:0', 96],
  ['64:ff9b:1::', 48],
  ['2002::', 16],
  ['2001::', 32],
] as const) {
  NOT_PUBLIC.addSubnet(prefix, bits, 'ipv6');
}

const LOOPBACK = new BlockList();
LOOPBACK.addSubnet('127.0.0.0', 8, 'ipv4');
LOOPBACK.addAddress('::1', 'ipv6');

/** An IPv4 address carried in an IPv6 one (`::ffff:10.0.0.1`, NAT64 `64:ff9b::a00:1`), else the address. */
function unwrapped(address: string): { address: string; family: 'ipv4' | 'ipv6' } {
  const lower = address.toLowerCase();
  const dotted = /^(?:::ffff:|64:ff9b::)(\d+\.\d+\.\d+\.\d+)$/.exec(lower);
  if (dotted?.[1]) return { address: dotted[1], family: 'ipv4' };
  const hex = /^(?:::ffff:|64:ff9b::)([0-9a-f]{1,4}):([0-9a-f]{1,4})$/.exec(lower);
  if (hex?.[1] && hex[2]) {
    const high = parseInt(hex[1], 16);
    const low = parseInt(hex[2], 16);
    return { address: [high >> 8, high & 255, low >> 8, low & 255].join('.'), family: 'ipv4' };
  }
  return { address: lower, family: isIP(lower) === 4 ? 'ipv4' : 'ipv6' };
}

/** Whether an IP address is a loopback one (127.0.0.0/8, ::1, or one of those inside IPv6). */
export function isLoopbackAddress(address: string): boolean {
  const { address: plain, family } = unwrapped(address);
  return LOOPBACK.check(plain, family);
}

/** Whether an IP address is on the public internet (not private, link-local, loopback, reserved). */
export function isPublicAddress(address: string): boolean {
  const { address: plain, family } = unwrapped(address);
  return !NOT_PUBLIC.check(plain, family);
}

/** The host of a URL as compared: lower case, no trailing dot, IPv6 without brackets. */
export function hostOf(url: URL): string {
  return url.hostname
    .toLowerCase()
    .replace(/\.$/, '')
    .replace(/^\[(.*)\]$/, '$1');
}

/** Whether a URL names a loopback host itself: `localhost` (and `*.localhost`) or a loopback address. */
function namesLoopback(host: string): boolean {
  if (host === 'localhost' || host.endsWith('.localhost')) return true;
  return isIP(host) !== 0 && isLoopbackAddress(host);
}

/**
 * Refuses a URL the rules do not let the wallet fetch, before any request: not `https` (or
 * `http` to a loopback host), user name or password in it, a private or link-local address written
 * in it, a redirect from another host to a loopback one, a loopback host the allowlist does not
 * name, or any host off the allowlist when there is one.
 */
export function checkResourceUrl(url: URL, rules: FetchRules, redirectedFrom?: URL): void {
  const what = redirectedFrom ? `a redirect of resource_url (to ${shownUrl(url)})` : 'resource_url';
  const host = hostOf(url);
  const loopback = namesLoopback(host);
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && loopback)) {
    throw new WalletError(
      'INVALID_PARAM',
      `${what} must be an https URL (http only for a loopback host such as 127.0.0.1): ${url.protocol} is refused. Nothing was signed or sent.`,
      { hint: 'Pass the https address of the resource.' },
    );
  }
  if (url.username !== '' || url.password !== '') {
    throw new WalletError('INVALID_PARAM', `${what} must not carry a user name or password.`, {
      hint: 'Pass credentials the resource needs in headers instead.',
    });
  }
  if (loopback && redirectedFrom && !namesLoopback(hostOf(redirectedFrom))) {
    throw new WalletError(
      'POLICY_VIOLATION',
      `Refused: ${shownUrl(redirectedFrom)} redirects to a loopback host; only a URL that names one itself may reach this machine. Nothing was signed or sent.`,
    );
  }
  if (isIP(host) !== 0 && !loopback && !isPublicAddress(host)) throw privateAddress(url, host);
  // This machine's own services are private too: reached only for local development, when the
  // owner lists the loopback host.
  if (loopback && !rules.allowedHosts?.has(host)) {
    throw new WalletError(
      'POLICY_VIOLATION',
      `Refused by policy ${rules.allowedHostsRule}: ${host} is this machine, and a loopback host is fetched only when listed there (local development). Nothing was signed or sent.`,
      { hint: `For local development, add "${host}" to allowed_hosts in the config file.` },
    );
  }
  if (rules.allowedHosts && !rules.allowedHosts.has(host)) {
    throw new WalletError(
      'POLICY_VIOLATION',
      `Refused by policy ${rules.allowedHostsRule}: ${host} (the host of ${what}) is not an allowed host. Nothing was signed or sent.`,
      { hint: 'Fetch from a listed host, or add this one to allowed_hosts in the config file if you trust it.' },
    );
  }
}

function privateAddress(url: URL, address: string): WalletError {
  return new WalletError(
    'POLICY_VIOLATION',
    `Refused: ${hostOf(url)} is at ${address}, a private, link-local or reserved address; the wallet fetches only from public hosts (and from a listed loopback host a URL names). Nothing was signed or sent.`,
  );
}

/** A URL as an error may show it: scheme, host and port only (a path or query can carry a key). */
export function shownUrl(url: URL): string {
  return `${url.protocol}//${url.host}`;
}

/**
 * A DNS lookup that hands the connection only addresses the URL may reach: loopback ones when it
 * names a loopback host, public ones otherwise. Checked where the socket gets its address, so a
 * name that resolves differently on the second query gains nothing.
 */
function checkedLookup(url: URL, lookup: typeof dnsLookup): LookupFunction {
  const loopback = namesLoopback(hostOf(url));
  return (hostname, options, callback) => {
    lookup(hostname, { ...options, all: true }, (error, addresses: LookupAddress[]) => {
      if (error) {
        callback(error, '', 0);
        return;
      }
      const refused = addresses.find((entry) =>
        loopback ? !isLoopbackAddress(entry.address) : !isPublicAddress(entry.address),
      );
      if (refused || addresses.length === 0) {
        const reason = refused
          ? privateAddress(url, refused.address)
          : new WalletError('BACKEND_UNAVAILABLE', `${hostOf(url)} has no address.`);
        callback(reason, '', 0);
        return;
      }
      if (options.all) callback(null, addresses);
      else callback(null, addresses[0]?.address ?? '', addresses[0]?.family ?? 4);
    });
  };
}

/** What is sent: the method, headers and body of the caller's request. */
export type OutgoingRequest = { method: string; headers: Headers; body: Buffer | undefined };

/**
 * Sends a request under the rules and reads its answer: redirects (301, 302, 303, 307, 308)
 * followed, each target checked again, and the caller's headers dropped when a redirect leaves the
 * origin; the body read up to `maxBytes`; the whole within `timeoutMs` or until `signal` aborts.
 *
 * @example
 * const answer = await fetchUnderRules(new URL('https://api.example.com/weather'), { method: 'GET', headers: new Headers(), body: undefined }, rules);
 */
export async function fetchUnderRules(
  start: URL,
  request: OutgoingRequest,
  rules: FetchRules,
  signal?: AbortSignal,
): Promise<FetchedAnswer> {
  const deadline = AbortSignal.timeout(rules.timeoutMs);
  const abort = signal ? AbortSignal.any([signal, deadline]) : deadline;
  let url = start;
  let current = request;
  checkResourceUrl(url, rules);
  for (let redirects = 0; ; redirects++) {
    const answer = await sendOnce(url, current, rules, abort);
    const location = answer.headers.get('location');
    if (!REDIRECTS.has(answer.status) || location === null) return answer;
    if (redirects >= rules.maxRedirects) {
      throw new WalletError(
        'BACKEND_INVALID',
        `${shownUrl(start)} redirected more than ${rules.maxRedirects} times. Nothing was signed or sent.`,
      );
    }
    let next: URL;
    try {
      next = new URL(location, url);
    } catch {
      throw new WalletError('BACKEND_INVALID', `${shownUrl(url)} redirected to something that is no URL.`);
    }
    checkResourceUrl(next, rules, url);
    const asGet =
      answer.status === 303 || ((answer.status === 301 || answer.status === 302) && current.method === 'POST');
    const sameOrigin = next.origin === url.origin;
    current = {
      method: asGet ? 'GET' : current.method,
      headers: sameOrigin ? current.headers : new Headers(),
      body: asGet ? undefined : current.body,
    };
    url = next;
  }
}

const REDIRECTS = new Set([301, 302, 303, 307, 308]);

function sendOnce(url: URL, request: OutgoingRequest, rules: FetchRules, signal: AbortSignal): Promise<FetchedAnswer> {
  const headers: Record<string, string> = {};
  request.headers.forEach((value, name) => {
    headers[name] = value;
  });
  if (request.body !== undefined) headers['content-length'] = String(request.body.length);
  const options: RequestOptions = {
    method: request.method,
    headers,
    signal,
    lookup: checkedLookup(url, rules.lookup ?? dnsLookup),
  };
  const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise<FetchedAnswer>((resolve, reject) => {
    const outgoing = send(url, options, (answer: IncomingMessage) => {
      const chunks: Buffer[] = [];
      let size = 0;
      let truncated = false;
      const finish = () =>
        resolve({
          url,
          status: answer.statusCode ?? 0,
          headers: headersOf(answer),
          body: Buffer.concat(chunks),
          truncated,
        });
      answer.on('data', (chunk: Buffer) => {
        if (truncated) return;
        const room = rules.maxBytes - size;
        if (chunk.length > room) {
          chunks.push(chunk.subarray(0, room));
          size = rules.maxBytes;
          truncated = true;
          answer.destroy();
          finish();
          return;
        }
        chunks.push(chunk);
        size += chunk.length;
      });
      answer.on('end', finish);
      answer.on('error', (error) => {
        if (!truncated) reject(transportError(url, error, signal));
      });
    });
    outgoing.on('error', (error) => reject(transportError(url, error, signal)));
    outgoing.end(request.body);
  });
}

function headersOf(answer: IncomingMessage): Headers {
  const headers = new Headers();
  const raw = answer.rawHeaders;
  for (let i = 0; i + 1 < raw.length; i += 2) {
    try {
      headers.append(raw[i] ?? '', raw[i + 1] ?? '');
    } catch {
      // A header the fetch standard refuses is left out: nothing here reads it.
    }
  }
  return headers;
}

function transportError(url: URL, error: unknown, signal: AbortSignal): WalletError {
  if (error instanceof WalletError) return error;
  if (signal.aborted) {
    return new WalletError(
      'BACKEND_UNAVAILABLE',
      `${shownUrl(url)} did not answer in time (or the call was cancelled).`,
      {
        cause: error,
      },
    );
  }
  return new WalletError('BACKEND_UNAVAILABLE', `Cannot reach ${shownUrl(url)}.`, {
    hint: 'Check the address and that the server is up.',
    cause: error,
  });
}
