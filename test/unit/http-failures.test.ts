/**
 * What a person reads when a node cannot be reached: the common system failures in words, with
 * their code, never a bare `ENOTFOUND` or `fetch failed` (issue 40).
 */
import assert from 'node:assert/strict';
import { createServer } from 'node:net';
import { describe, it } from 'node:test';
import { WalletError } from '../../src/domain/errors.js';
import { httpJson } from '../../src/domain/net/http.js';
import { systemFailureWords } from '../../src/shared/system-errors.js';

async function refusal(url: string): Promise<string> {
  const error = await httpJson({ url, method: 'GET', idempotent: false, timeoutMs: 5000 }).then(
    () => assert.fail(`${url} answered`),
    (failure: unknown) => failure,
  );
  assert.ok(error instanceof WalletError && error.code === 'BACKEND_UNAVAILABLE', String(error));
  return error.message;
}

describe('an unreachable endpoint, in words', () => {
  it('a host name that does not resolve', async () => {
    // .invalid never resolves (RFC 6761): offline, the resolver may say EAI_AGAIN instead.
    assert.match(
      await refusal('http://wallet-test.invalid/'),
      /^Cannot reach http:\/\/wallet-test\.invalid\/: its host name could not be resolved (just now )?\((ENOTFOUND|EAI_AGAIN): /,
    );
  });

  it('a port nothing listens on', async () => {
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const address = server.address();
    assert.ok(address !== null && typeof address === 'object');
    await new Promise<void>((resolve) => server.close(() => resolve()));
    assert.match(
      await refusal(`http://127.0.0.1:${address.port}/`),
      /: nothing listens there \(ECONNREFUSED: is it running, on that port\?\)\.$/,
    );
  });
});

describe('systemFailureWords', () => {
  const system = (code: string) => Object.assign(new Error(`getaddrinfo ${code} host`), { code });
  it('finds the code on a cause, a cause of a cause (a wrapping library), or the first of several errors', () => {
    const fetchFailed = new TypeError('fetch failed', { cause: system('ENOTFOUND') });
    assert.match(systemFailureWords(fetchFailed) ?? '', /^its host name could not be resolved \(ENOTFOUND/);
    const wrapped = new Error('Version negotiation probe failed: fetch failed', { cause: fetchFailed });
    assert.match(systemFailureWords(wrapped) ?? '', /\(ENOTFOUND: offline, or a typo in the host\?\)$/);
    const several = new TypeError('fetch failed', {
      cause: new AggregateError([system('ECONNREFUSED'), system('ECONNREFUSED')]),
    });
    assert.match(systemFailureWords(several) ?? '', /^nothing listens there \(ECONNREFUSED/);
  });
  it('an unknown code is shown as it is; no code, or a cause cycle, gives nothing', () => {
    assert.equal(systemFailureWords(new TypeError('fetch failed', { cause: system('EHOSTUNREACH') })), 'EHOSTUNREACH');
    assert.equal(systemFailureWords(new Error('HTTP 500')), undefined);
    const sdk = Object.assign(new Error('probe failed'), { code: 'ERA_NEGOTIATION_FAILED' });
    assert.equal(systemFailureWords(sdk), undefined, "a library's own code is not a system failure");
    assert.match(systemFailureWords(Object.assign(sdk, { cause: system('ECONNREFUSED') })) ?? '', /ECONNREFUSED/);
    const cycle: Error & { cause?: unknown } = new Error('a');
    cycle.cause = cycle;
    assert.equal(systemFailureWords(cycle), undefined);
    assert.equal(systemFailureWords('text'), undefined);
  });
});
