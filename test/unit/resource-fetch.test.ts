/**
 * What evm_x402_fetch may fetch (src/domain/x402/resource-fetch.ts): the addresses it may reach,
 * the URLs it refuses before any request, and the address check at connection time, so that a
 * name resolving to this machine or a private network is refused with nothing sent to it. DNS
 * answers are made up here (the rules take a lookup function); the server is a real one on
 * loopback that counts its connections.
 */
import assert from 'node:assert/strict';
import type { lookup as dnsLookup } from 'node:dns';
import { createServer, type Server } from 'node:http';
import { after, before, describe, it } from 'node:test';
import { WalletError } from '../../src/domain/errors.js';
import {
  checkResourceUrl,
  fetchUnderRules,
  isLoopbackAddress,
  isPublicAddress,
  type FetchRules,
} from '../../src/domain/x402/resource-fetch.js';
import { listenOnFreePort } from '../helpers/ports.js';

const rules = (overrides: Partial<FetchRules> = {}): FetchRules => ({
  allowedHosts: null,
  allowedHostsRule: 'evm.networks.local.policy.allowed_hosts',
  maxBytes: 1024,
  timeoutMs: 5_000,
  maxRedirects: 2,
  ...overrides,
});

/** A DNS that answers `address` for every name. */
const answering = (address: string): typeof dnsLookup =>
  ((
    _hostname: string,
    _options: unknown,
    callback: (error: null, addresses: { address: string; family: number }[]) => void,
  ) => callback(null, [{ address, family: address.includes(':') ? 6 : 4 }])) as unknown as typeof dnsLookup;

const code = (run: () => unknown): string => {
  try {
    run();
  } catch (error) {
    return error instanceof WalletError ? error.code : String(error);
  }
  return 'ok';
};

describe('resource fetch rules', () => {
  it('tells public addresses from private, link-local, loopback and reserved ones (IPv4 inside IPv6 too)', () => {
    for (const address of ['8.8.8.8', '1.1.1.1', '2606:4700:4700::1111', '::ffff:8.8.8.8']) {
      assert.equal(isPublicAddress(address), true, address);
    }
    for (const address of [
      '10.1.2.3',
      '172.16.5.4',
      '192.168.1.1',
      '169.254.169.254',
      '127.0.0.1',
      '0.0.0.0',
      '100.64.0.1',
      '224.0.0.1',
      '::1',
      '::',
      'fe80::1',
      'fd00::1',
      '::ffff:10.0.0.1',
      '::ffff:7f00:1',
      '64:ff9b::a9fe:a9fe',
      // IPv4 carried in IPv6 forms that are not unwrapped: compatible, translated, local NAT64, 6to4, Teredo.
      '::7f00:1',
      '::ffff:0:7f00:1',
      '64:ff9b:1::a00:1',
      '2002:7f00:1::',
      '2001:0:4136:e378::1',
    ]) {
      assert.equal(isPublicAddress(address), false, address);
    }
    assert.deepEqual(
      ['127.0.0.1', '127.9.9.9', '::1', '::ffff:127.0.0.1', '10.0.0.1', '8.8.8.8'].map(isLoopbackAddress),
      [true, true, true, true, false, false],
    );
  });

  it('refuses, before any request, what is neither https nor a listed loopback http URL', () => {
    const loopbackListed = rules({ allowedHosts: null });
    const check = (url: string, from?: string) => {
      const host = new URL(url).hostname.replace(/^\[(.*)\]$/, '$1');
      // Every public host is allowed (no allowlist) except loopback, listed only where named.
      const loopback = ['127.0.0.1', 'localhost', '::1'].includes(host);
      const these = loopback ? rules({ allowedHosts: new Set([host]) }) : loopbackListed;
      return code(() => checkResourceUrl(new URL(url), these, from ? new URL(from) : undefined));
    };
    assert.equal(check('http://example.com/report'), 'INVALID_PARAM');
    assert.equal(check('file:///etc/passwd'), 'INVALID_PARAM');
    assert.equal(check('ftp://example.com/x'), 'INVALID_PARAM');
    assert.equal(check('https://user:secret@example.com/'), 'INVALID_PARAM');
    assert.equal(check('https://10.0.0.1/'), 'POLICY_VIOLATION');
    assert.equal(check('https://[fe80::1]/'), 'POLICY_VIOLATION');
    assert.equal(check('https://169.254.169.254/latest/meta-data'), 'POLICY_VIOLATION');
    for (const url of ['https://example.com/', 'http://127.0.0.1:8080/', 'http://localhost/', 'http://[::1]/']) {
      assert.equal(check(url), 'ok', url);
    }
    assert.equal(check('http://127.0.0.1/', 'https://example.com/'), 'POLICY_VIOLATION', 'no redirect into loopback');
    assert.equal(check('http://localhost/', 'http://127.0.0.1/'), 'ok', 'loopback to loopback');
    assert.equal(
      code(() => checkResourceUrl(new URL('http://127.0.0.1:8080/'), rules())),
      'POLICY_VIOLATION',
      'loopback only when the policy lists it',
    );
    assert.equal(
      code(() => checkResourceUrl(new URL('http://127.0.0.1/'), rules({ allowedHosts: new Set(['localhost']) }))),
      'POLICY_VIOLATION',
      'listed by another name',
    );
    const listed = rules({ allowedHosts: new Set(['api.example.com']) });
    assert.equal(
      code(() => checkResourceUrl(new URL('https://API.example.com./x'), listed)),
      'ok',
    );
    assert.equal(
      code(() => checkResourceUrl(new URL('https://other.example.com/x'), listed)),
      'POLICY_VIOLATION',
    );
  });

  describe('against a server on loopback', () => {
    let server: Server;
    let port: number;
    let connections = 0;
    before(async () => {
      server = createServer((request, response) => {
        if (request.url === '/big') {
          response.end('y'.repeat(5_000));
        } else if (request.url === '/loop') {
          response.writeHead(302, { location: '/loop' }).end();
        } else {
          response.end('hello');
        }
      });
      server.on('connection', () => connections++);
      port = await listenOnFreePort(server);
    });
    after(() => new Promise<void>((resolve) => server.close(() => resolve())));
    const get = (url: string, overrides: Partial<FetchRules> = {}) =>
      fetchUnderRules(
        new URL(url),
        { method: 'GET', headers: new Headers(), body: undefined },
        rules({ allowedHosts: new Set(['127.0.0.1', 'localhost', 'rebound.example']), ...overrides }),
      );
    const failure = (promise: Promise<unknown>) =>
      promise.then(
        () => 'ok',
        (error: unknown) => (error instanceof WalletError ? `${error.code}: ${error.message}` : String(error)),
      );

    it('refuses a public name that resolves to this machine, before connecting', async () => {
      const before = connections;
      const refused = await failure(get(`https://rebound.example:${port}/`, { lookup: answering('127.0.0.1') }));
      assert.match(refused, /^POLICY_VIOLATION: Refused: rebound\.example is at 127\.0\.0\.1, a private/);
      const mapped = await failure(get(`https://rebound.example:${port}/`, { lookup: answering('::ffff:127.0.0.1') }));
      assert.match(mapped, /^POLICY_VIOLATION: /);
      assert.equal(connections, before, 'nothing reached the server');
    });

    it('refuses a loopback name that resolves elsewhere; reads one that resolves to loopback', async () => {
      assert.match(
        await failure(get(`http://localhost:${port}/`, { lookup: answering('10.0.0.7') })),
        /^POLICY_VIOLATION: /,
      );
      const answer = await get(`http://localhost:${port}/`, { lookup: answering('127.0.0.1') });
      assert.deepEqual([answer.status, answer.body.toString(), answer.truncated], [200, 'hello', false]);
    });

    it('cuts a body at maxBytes and says so; stops after maxRedirects', async () => {
      const big = await get(`http://127.0.0.1:${port}/big`);
      assert.deepEqual([big.body.length, big.truncated], [1024, true]);
      assert.match(
        await failure(get(`http://127.0.0.1:${port}/loop`)),
        /^BACKEND_INVALID: .* redirected more than 2 times/,
      );
    });
  });
});
