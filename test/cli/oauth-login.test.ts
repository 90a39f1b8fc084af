import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { chmodSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { startEverythingHttp, type HttpServer } from '../helpers/everything-http.js';
import { startHttpServe } from '../helpers/http-serve.js';
import { tempHome } from '../helpers/io.js';
import { IDP_CLIENT_ID, startOAuthProxy, VALID_WORKLOAD_JWT, type OAuthProxy } from '../helpers/oauth-proxy.js';
import { dpopSession } from '../../src/mcp/oauth/dpop.js';
import { LoginRequiredError } from '../../src/mcp/oauth/errors.js';
import { OAuthSessionAuth, type LoginPrompt } from '../../src/mcp/oauth/login.js';
import { revokeTokens } from '../../src/mcp/oauth/revoke.js';
import { OAuthStore, type OAuthRecord } from '../../src/mcp/oauth/store.js';

type StoredLogin = { client?: { client_id: string }; tokens?: { access_token: string; refresh_token?: string } };

/** The one stored OAuth login of data directory `home`. */
function storedLogin(home: string): StoredLogin {
  const [file] = readdirSync(join(home, 'oauth'));
  assert.ok(file, 'no login stored');
  return JSON.parse(readFileSync(join(home, 'oauth', file), 'utf8')) as StoredLogin;
}
import { ROOT, WALLET_BIN } from '../helpers/paths.js';

/** $BROWSER for the tests: follows the authorization server's redirects back to the CLI. */
const BROWSER = `${process.execPath} ${join(ROOT, 'test', 'fixtures', 'oauth', 'follow-browser.mjs')}`;

type Ran = { code: number | null; stdout: string; stderr: string };

/** The real `wallet` binary, without a terminal (stdin a pipe, given `input`), in data directory `home`. */
function wallet(home: string, args: string[], env: Record<string, string> = {}, input = ''): Promise<Ran> {
  const base: Record<string, string | undefined> = { ...process.env, WALLET_HOME: home, ...env };
  if (!('BROWSER' in env)) delete base['BROWSER'];
  const child = spawn(process.execPath, [WALLET_BIN, ...args], { env: base, stdio: ['pipe', 'pipe', 'pipe'] });
  child.stdin.end(input);
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  return new Promise((resolve) => child.on('close', (code) => resolve({ code, stdout, stderr })));
}

describe('a server that takes a bearer token, reached without one', () => {
  it('says it takes a bearer token and how to send it, not to log in', async () => {
    const served = await startHttpServe(['--read-only'], { env: { MCP_API_KEY: 'a-bearer-token-of-the-test' } });
    try {
      const run = await wallet(tempHome(), ['--url', served.url, 'tools']);
      assert.equal(run.code, 3, run.stderr);
      assert.equal(run.stdout, '');
      assert.match(run.stderr, /answered HTTP 401 and publishes no OAuth login, so it takes a bearer token\n/);
      assert.match(run.stderr, /hint: Send the token: --header 'Authorization: Bearer \$\{TOKEN\}'.*--header-file/);
      assert.doesNotMatch(run.stderr, /servers login/);
    } finally {
      await served.stop();
    }
  });
});

describe('OAuth login to an MCP server behind an authorization server (server-everything behind it)', () => {
  let everything: HttpServer;
  let proxy: OAuthProxy;
  before(async () => {
    everything = await startEverythingHttp();
    proxy = await startOAuthProxy(everything.url);
  });
  after(async () => {
    await proxy.stop();
    await everything.stop();
  });

  it('says which login to run when a 401 comes with no terminal and no $BROWSER', async () => {
    const run = await wallet(tempHome(), ['--url', proxy.url, 'echo', '--message', 'hi']);
    assert.equal(run.code, 3, run.stderr);
    assert.match(
      run.stderr,
      new RegExp(`answered HTTP 401 and wants an OAuth login: run 'wallet servers login --url ${proxy.url}'`),
    );
    assert.equal(run.stdout, '');
  });

  it('logs in with $BROWSER, keeps the tokens owner-only out of servers.json, and uses them', async () => {
    const home = tempHome();
    assert.equal((await wallet(home, ['servers', 'add', 'ev', '--url', proxy.url])).code, 0);
    const login = await wallet(home, ['servers', 'login', 'ev'], { BROWSER });
    assert.equal(login.code, 0, login.stderr);
    assert.match(login.stdout, /Logged in to 'ev'/);
    assert.match(login.stderr, /Open this address in a browser:\n\n {2}http:\/\/127\.0\.0\.1:\d+\/authorize\?/);
    const [file, ...others] = readdirSync(join(home, 'oauth'));
    assert.ok(file && others.length === 0);
    const path = join(home, 'oauth', file);
    assert.equal(statSync(path).mode & 0o777, 0o600);
    assert.equal(statSync(join(home, 'oauth')).mode & 0o777, 0o700);
    const token = proxy.issued.at(-1) as string;
    assert.ok(readFileSync(path, 'utf8').includes(token));
    assert.ok(!readFileSync(join(home, 'servers.json'), 'utf8').includes(token));
    for (const text of [login.stdout, login.stderr]) assert.ok(!text.includes(token), 'token printed');

    const call = await wallet(home, ['--server', 'ev', 'echo', '--message', 'through OAuth', '--json']);
    assert.equal(call.code, 0, call.stderr);
    assert.match(call.stdout, /through OAuth/);
    assert.ok(!call.stderr.includes(token));

    const logout = await wallet(home, ['servers', 'logout', 'ev']);
    assert.equal(logout.code, 0, logout.stderr);
    assert.deepEqual(readdirSync(join(home, 'oauth')), []);
    const again = await wallet(home, ['--server', 'ev', 'echo', '--message', 'hi']);
    assert.equal(again.code, 3);
    assert.match(again.stderr, /run 'wallet servers login ev'/);
  });

  it('starts the login by itself on a 401 when $BROWSER is set', async () => {
    const run = await wallet(tempHome(), ['--url', proxy.url, 'echo', '--message', 'auto', '--json'], { BROWSER });
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stdout, /auto/);
  });

  it('two processes refreshing at once spend the refresh token once', async () => {
    const home = tempHome();
    assert.equal((await wallet(home, ['servers', 'login', '--url', proxy.url], { BROWSER })).code, 0);
    const refreshesBefore = proxy.refreshUses.size;
    // Both calls get their 401 at the same moment, with the same stored refresh token; the
    // refresh takes a second, time enough for the other process to present it too if it did
    // not wait for the lock.
    proxy.expireAccessTokens(2, 1000);
    const runs = await Promise.all([
      wallet(home, ['--url', proxy.url, 'echo', '--message', 'one', '--json']),
      wallet(home, ['--url', proxy.url, 'echo', '--message', 'two', '--json']),
    ]);
    assert.equal(proxy.refusedRefreshes, 0, 'a refresh token was presented twice');
    for (const run of runs) assert.equal(run.code, 0, run.stderr);
    assert.equal(proxy.refreshUses.size, refreshesBefore + 1, 'one refresh for both processes');
    assert.deepEqual([...proxy.refreshUses.values()].slice(refreshesBefore), [1]);
  });

  it('a refresh that fails with a page repeating the form shows nothing of it, under --debug either', async () => {
    const home = tempHome();
    assert.equal((await wallet(home, ['servers', 'login', '--url', proxy.url], { BROWSER })).code, 0);
    const { tokens } = storedLogin(home);
    assert.ok(tokens?.refresh_token);
    proxy.expireAccessTokens();
    proxy.tokenEchoesForm = true;
    // No terminal, no $BROWSER: after the failed refresh, the run stops and says what to run.
    const run = await wallet(home, ['--debug', '--url', proxy.url, 'echo', '--message', 'hi']).finally(() => {
      proxy.tokenEchoesForm = false;
    });
    assert.equal(run.code, 3, run.stderr);
    assert.match(run.stderr, /Could not refresh OAuth tokens/, 'the SDK note is shown under --debug');
    assert.ok(!run.stderr.includes('Bad gateway for'), run.stderr);
    assert.ok(!run.stderr.includes(tokens.refresh_token), 'the refresh token was shown');
  });

  it('logout revokes the refresh token, then the access token, as the client, then deletes them', async () => {
    const home = tempHome();
    assert.equal((await wallet(home, ['servers', 'login', '--url', proxy.url], { BROWSER })).code, 0);
    const { client, tokens } = storedLogin(home);
    const before = proxy.revocations.length;
    const logout = await wallet(home, ['servers', 'logout', '--url', proxy.url]);
    assert.equal(logout.code, 0, logout.stderr);
    assert.match(logout.stdout, /Logged out of .*; the tokens were revoked\./);
    assert.equal(logout.stderr, '');
    assert.deepEqual(proxy.revocations.slice(before), [
      { token: tokens?.refresh_token, hint: 'refresh_token', clientId: client?.client_id, basic: null },
      { token: tokens?.access_token, hint: 'access_token', clientId: client?.client_id, basic: null },
    ]);
    assert.deepEqual(readdirSync(join(home, 'oauth')), []);
  });

  it('a client with a secret authenticates its revocations with HTTP Basic', async () => {
    const home = tempHome();
    const login = await wallet(
      home,
      ['servers', 'login', '--url', proxy.url, '--client-id', 'pre-registered', '--client-secret-stdin'],
      { BROWSER },
      's3cret:+&',
    );
    assert.equal(login.code, 0, login.stderr);
    const before = proxy.revocations.length;
    assert.equal((await wallet(home, ['servers', 'logout', '--url', proxy.url])).code, 0);
    const revoked = proxy.revocations.slice(before);
    assert.equal(revoked.length, 2);
    for (const request of revoked) {
      // RFC 6749 §2.3.1: id and secret form-urlencoded inside the Basic credentials.
      assert.equal(request.basic, 'pre-registered:s3cret%3A%2B%26');
      assert.equal(request.clientId, null);
    }
  });

  it('a revocation that fails is a warning on stderr, and the tokens are deleted all the same', async () => {
    const home = tempHome();
    assert.equal((await wallet(home, ['servers', 'login', '--url', proxy.url], { BROWSER })).code, 0);
    const { tokens } = storedLogin(home);
    proxy.revocationStatus = 503;
    try {
      const logout = await wallet(home, ['servers', 'logout', '--url', proxy.url, '--json']);
      assert.equal(logout.code, 0, logout.stderr);
      assert.match(
        logout.stderr,
        /^warning: the tokens of http:\/\/127\.0\.0\.1:\d+\/mcp were not revoked \(the revocation endpoint answered HTTP 503\); they are deleted here/,
      );
      assert.deepEqual(JSON.parse(logout.stdout), { loggedOut: proxy.url, removed: true, revoked: false });
      assert.ok(
        tokens && !logout.stderr.includes(tokens.access_token) && !logout.stderr.includes(tokens.refresh_token ?? '-'),
      );
      assert.deepEqual(readdirSync(join(home, 'oauth')), []);
    } finally {
      proxy.revocationStatus = 200;
    }
  });

  it('logout revokes after it let go of the lock: a slow authorization server holds nobody up', async () => {
    const home = tempHome();
    assert.equal((await wallet(home, ['servers', 'login', '--url', proxy.url], { BROWSER })).code, 0);
    const before = proxy.revocations.length;
    proxy.revocationDelayMs = 1500;
    try {
      const logout = wallet(home, ['servers', 'logout', '--url', proxy.url]);
      while (proxy.revocations.length === before) await new Promise((resolve) => setTimeout(resolve, 20));
      // The revocation is under way (the endpoint holds its answer): no OAuth lock may be held.
      const locks = readdirSync(join(home, 'locks')).filter((name) => name.startsWith('oauth-'));
      assert.ok(locks.length > 0, 'the logout took no lock');
      for (const lock of locks) assert.deepEqual(readdirSync(join(home, 'locks', lock)), [], `${lock} is held`);
      const done = await logout;
      assert.equal(done.code, 0, done.stderr);
      assert.match(done.stdout, /the tokens were revoked/);
    } finally {
      proxy.revocationDelayMs = 0;
    }
  });

  it('--client-metadata-url with a pre-registered --client-id keeps that client', async () => {
    const home = tempHome();
    const registered = proxy.registered.length;
    const login = await wallet(
      home,
      [
        'servers',
        'login',
        '--url',
        proxy.url,
        '--client-id',
        'pre-registered-cimd',
        '--client-secret-stdin',
        '--client-metadata-url',
        'https://client.example.com/wallet.json',
      ],
      { BROWSER },
      'secret',
    );
    assert.equal(login.code, 0, login.stderr);
    assert.equal(proxy.authorizedClients.at(-1), 'pre-registered-cimd');
    assert.equal(proxy.registered.length, registered, 'registered a client of its own');
    assert.equal(storedLogin(home).client?.client_id, 'pre-registered-cimd');
  });

  it('--client-assertion-file needs --client-id, stands alone as a grant, and a readable file', async () => {
    const home = tempHome();
    const file = join(home, 'workload.jwt');
    writeFileSync(file, 'a.b.c', { mode: 0o600 });
    const cases: [string[], RegExp][] = [
      [['--client-assertion-file', file], /need --client-id/],
      [['--client-id', 'w', '--client-assertion-file', file, '--client-credentials'], /a grant of its own/],
      [['--client-id', 'w', '--client-assertion-file', join(home, 'absent.jwt')], /cannot read .*absent\.jwt/],
    ];
    for (const [flags, message] of cases) {
      const run = await wallet(home, ['servers', 'login', '--url', proxy.url, ...flags]);
      assert.equal(run.code, 2, run.stderr);
      assert.match(run.stderr, message);
    }
  });

  it('a workload token is read from its file at each grant, and a refused one is not presented again', async () => {
    const home = tempHome();
    const file = join(home, 'workload.jwt');
    const login = ['servers', 'login', '--url', proxy.url, '--client-id', 'ci', '--client-assertion-file', file];
    writeFileSync(file, `${VALID_WORKLOAD_JWT}\n`, { mode: 0o600 });
    let before = proxy.assertions.length;
    const first = await wallet(home, login);
    assert.equal(first.code, 0, first.stderr);
    assert.deepEqual(proxy.assertions.slice(before), [VALID_WORKLOAD_JWT]);
    assert.ok(!readFileSync(join(home, 'oauth', readdirSync(join(home, 'oauth'))[0] ?? ''), 'utf8').includes('.valid'));

    // The platform rotated the token to one the authorization server refuses.
    const refused = 'eyJhbGciOiJub25lIn0.eyJzdWIiOiJvdGhlciJ9.expired';
    writeFileSync(file, refused, { mode: 0o600 });
    before = proxy.assertions.length;
    const second = await wallet(home, login);
    assert.equal(second.code, 3, second.stderr);
    assert.match(second.stderr, /refused the workload token/);
    assert.deepEqual(proxy.assertions.slice(before), [refused], 'a refused workload token was presented again');
    assert.ok(!second.stderr.includes(refused));
  });

  it('--id-token-file: usage errors name the flags, and an ID token others can read is refused', async () => {
    const home = tempHome();
    const idToken = join(home, 'id.jwt');
    writeFileSync(idToken, 'eyJhbGciOiJFUzI1NiJ9.eyJzdWIiOiJhbGljZSJ9.sso', { mode: 0o600 });
    const secret = join(home, 'secret');
    writeFileSync(secret, 'as-secret', { mode: 0o600 });
    const client = ['--client-id', 'c', '--client-secret-file', secret];
    const idp = ['--idp-issuer', 'https://idp.example.com', '--idp-client-id', 'i'];
    const cases: [string[], RegExp][] = [
      [['--idp-client-id', 'i'], /--idp-client-id is for an enterprise login: it needs --id-token-file/],
      [['--id-token-file', idToken, ...idp], /needs the client of the authorization server: --client-id, with/],
      [['--client-id', 'c', '--id-token-file', idToken, ...idp], /needs the client of the authorization server/],
      [[...client, '--id-token-file', idToken, ...idp, '--client-credentials'], /without --client-credentials/],
      [[...client, '--id-token-file', idToken, '--idp-client-id', 'i'], /--idp-issuer <url> or --idp-token-endpoint/],
      [
        [...client, '--id-token-file', idToken, ...idp, '--idp-token-endpoint', 'https://idp.example.com/token'],
        /--idp-issuer <url> or --idp-token-endpoint <url>, one of them/,
      ],
      [[...client, '--id-token-file', idToken, '--idp-issuer', 'https://idp.example.com'], /needs --idp-client-id/],
      [
        [...client, '--id-token-file', idToken, ...idp.slice(2), '--idp-issuer', 'http://idp.example.com'],
        /must be https/,
      ],
      [[...client, '--id-token-file', join(home, 'absent.jwt'), ...idp], /--id-token-file: cannot read .*absent\.jwt/],
    ];
    for (const [flags, message] of cases) {
      const run = await wallet(home, ['servers', 'login', '--url', proxy.url, ...flags]);
      assert.equal(run.code, 2, `${flags.join(' ')}: ${run.stderr}`);
      assert.match(run.stderr, message);
    }
    writeFileSync(join(home, 'not.jwt'), 'not a token', { mode: 0o600 });
    const notJwt = await wallet(home, [
      'servers',
      'login',
      '--url',
      proxy.url,
      ...client,
      '--id-token-file',
      join(home, 'not.jwt'),
      ...idp,
    ]);
    assert.equal(notJwt.code, 2, notJwt.stderr);
    assert.match(notJwt.stderr, /holds no JWT/);
    assert.ok(!notJwt.stderr.includes('not a token'));

    chmodSync(idToken, 0o644);
    const exchanges = proxy.exchanges.length;
    const open = await wallet(home, [
      'servers',
      'login',
      '--url',
      proxy.url,
      ...client,
      '--id-token-file',
      idToken,
      ...idp,
    ]);
    assert.equal(open.code, 2, open.stderr);
    assert.match(
      open.stderr,
      /--id-token-file: .*id\.jwt is readable by others \(mode 644\); refusing a secret from it/,
    );
    assert.ok(!open.stderr.includes('.sso'), 'the ID token was printed');
    assert.equal(proxy.exchanges.length, exchanges, 'an ID token others can read was sent');
    assert.ok(!readdirSync(home).includes('oauth'), 'a refused login stored something');
  });

  it('an enterprise login exchanges the ID token at each grant and keeps every secret to itself', async () => {
    const home = tempHome();
    // The single sign-on's files, outside the data directory (whose files the end checks).
    const sso = join(tempHome(), 'sso');
    const idTokenFile = join(sso, 'id.jwt');
    const firstIdToken = 'eyJhbGciOiJFUzI1NiJ9.eyJzdWIiOiJhbGljZSJ9.sso';
    mkdirSync(sso, { mode: 0o700 });
    writeFileSync(idTokenFile, `${firstIdToken}\n`, { mode: 0o600 });
    const idpSecretFile = join(sso, 'idp-secret');
    writeFileSync(idpSecretFile, 'idp-secret-value\n', { mode: 0o600 });
    const clientSecret = 'as-secret-value';
    const issuer = proxy.url.replace(/\/mcp$/, '');
    const login = await wallet(
      home,
      [
        'servers',
        'login',
        '--url',
        proxy.url,
        '--client-id',
        'enterprise-client',
        '--client-secret-stdin',
        '--id-token-file',
        idTokenFile,
        '--idp-issuer',
        `${issuer}/idp`,
        '--idp-client-id',
        IDP_CLIENT_ID,
        '--idp-client-secret-file',
        idpSecretFile,
      ],
      {},
      clientSecret,
    );
    assert.equal(login.code, 0, login.stderr);
    // RFC 8693 at the identity provider (its endpoint discovered), for this authorization server
    // and this MCP server; the ID-JAG is the JWT-bearer grant, the client authenticated with Basic.
    const exchange = proxy.exchanges.at(-1);
    assert.equal(exchange?.['subject_token'], firstIdToken);
    assert.equal(exchange?.['audience'], issuer);
    assert.equal(exchange?.['resource'], proxy.url);
    assert.equal(exchange?.['client_secret'], 'idp-secret-value');
    assert.equal(proxy.assertions.at(-1), proxy.idJags.at(-1));
    assert.equal(proxy.assertionClients.at(-1), `enterprise-client:${clientSecret}`);
    const stored = readFileSync(join(home, 'oauth', readdirSync(join(home, 'oauth'))[0] ?? ''), 'utf8');
    assert.match(stored, /"grant": "id_jag"/);
    assert.ok(stored.includes(JSON.stringify(idTokenFile)), 'the ID token file is not kept');

    // The token expired and the single sign-on renewed the ID token: the call, with no browser
    // and no terminal, exchanges the new one by itself.
    const renewedIdToken = 'eyJhbGciOiJFUzI1NiJ9.eyJzdWIiOiJhbGljZSIsIm4iOjJ9.sso';
    writeFileSync(idTokenFile, renewedIdToken, { mode: 0o600 });
    proxy.expireAccessTokens();
    const idpHeadersBefore = proxy.idpHeaders.length;
    const call = await wallet(home, [
      '--url',
      proxy.url,
      '--header',
      'X-Mcp-Only: mcp-header-value',
      'echo',
      '--message',
      'as alice',
      '--json',
    ]);
    assert.equal(call.code, 0, call.stderr);
    // The MCP server's headers go to the MCP server, never to the identity provider.
    const idpHeaders = proxy.idpHeaders.slice(idpHeadersBefore);
    assert.ok(idpHeaders.length > 0, 'the identity provider was asked');
    for (const headers of idpHeaders) assert.equal(headers['x-mcp-only'], undefined, 'an MCP header went to the IdP');
    assert.match(call.stdout, /as alice/);
    assert.equal(proxy.exchanges.at(-1)?.['subject_token'], renewedIdToken);
    assert.equal(proxy.assertions.at(-1), proxy.idJags.at(-1));

    // An ID token the identity provider refuses: a clear error, the token not in it.
    const refusedIdToken = 'eyJhbGciOiJFUzI1NiJ9.eyJzdWIiOiJhbGljZSJ9.expired';
    writeFileSync(idTokenFile, refusedIdToken, { mode: 0o600 });
    proxy.expireAccessTokens();
    const refused = await wallet(home, ['--url', proxy.url, 'echo', '--message', 'hi']);
    assert.equal(refused.code, 3, refused.stderr);
    assert.match(
      refused.stderr,
      /did not exchange the ID token of .*id\.jwt for a grant \(Token exchange failed: invalid_grant/,
    );

    // An identity provider that fails with a body repeating the form (the ID token, its client's
    // secret): its status is said, nothing of the body.
    writeFileSync(idTokenFile, renewedIdToken, { mode: 0o600 });
    proxy.expireAccessTokens();
    proxy.idpEchoesForm = true;
    const echoed = await wallet(home, ['--url', proxy.url, 'echo', '--message', 'hi']).finally(() => {
      proxy.idpEchoesForm = false;
    });
    assert.equal(echoed.code, 3, echoed.stderr);
    assert.match(
      echoed.stderr,
      /did not exchange the ID token of .*id\.jwt for a grant \(HTTP 502, not an OAuth error\)/,
    );

    // An identity provider that does not answer: the run ends within its --timeout, and says so.
    proxy.expireAccessTokens();
    proxy.idpDelayMs = 30_000;
    const started = Date.now();
    const hung = await wallet(home, ['--timeout', '1500', '--url', proxy.url, 'echo', '--message', 'hi']).finally(
      () => {
        proxy.idpDelayMs = 0;
      },
    );
    assert.equal(hung.code, 3, hung.stderr);
    assert.match(hung.stderr, /Cannot connect to the MCP server/);
    assert.ok(Date.now() - started < 10_000, `the run took ${Date.now() - started} ms (the IdP waits 30 s)`);

    // An authorization server whose token endpoint fails with a page repeating the form (the
    // ID-JAG, the client's secret): its status is said, nothing of the page, under --debug too.
    proxy.expireAccessTokens();
    proxy.tokenEchoesForm = true;
    const pageEcho = await wallet(home, ['--debug', '--url', proxy.url, 'echo', '--message', 'hi']).finally(() => {
      proxy.tokenEchoesForm = false;
    });
    assert.equal(pageEcho.code, 3, pageEcho.stderr);
    assert.match(pageEcho.stderr, /the authorization server answered HTTP 502, not an OAuth error/);
    assert.ok(!pageEcho.stderr.includes('Bad gateway for'), pageEcho.stderr);

    // The authorization server refuses the ID-JAG: said, and the ID token not exchanged again.
    writeFileSync(idTokenFile, renewedIdToken, { mode: 0o600 });
    proxy.expireAccessTokens();
    proxy.refuseIdJags = true;
    const exchangesBefore = proxy.exchanges.length;
    const grantRefused = await wallet(home, ['--url', proxy.url, 'echo', '--message', 'hi']).finally(() => {
      proxy.refuseIdJags = false;
    });
    assert.equal(grantRefused.code, 3, grantRefused.stderr);
    assert.match(grantRefused.stderr, /refused the grant for the ID token of .*id\.jwt/);
    assert.equal(proxy.exchanges.length, exchangesBefore + 1, 'the ID token was exchanged again after a refusal');

    // The file became readable by others after the login: refused at the next grant, not sent.
    chmodSync(idTokenFile, 0o640);
    proxy.expireAccessTokens();
    const exposedBefore = proxy.exchanges.length;
    const exposed = await wallet(home, ['--url', proxy.url, 'echo', '--message', 'hi']);
    assert.equal(exposed.code, 3, exposed.stderr);
    assert.match(exposed.stderr, /the ID token file .*id\.jwt is readable by others \(mode 640\)/);
    assert.equal(proxy.exchanges.length, exposedBefore, 'an ID token others can read was sent');

    const secrets = [firstIdToken, renewedIdToken, refusedIdToken, clientSecret, 'idp-secret-value', ...proxy.idJags];
    for (const [what, text] of Object.entries({
      'login stdout': login.stdout,
      'login stderr': login.stderr,
      'call stdout': call.stdout,
      'call stderr': call.stderr,
      'refused stdout': refused.stdout,
      'refused stderr': refused.stderr,
      'grant refused stderr': grantRefused.stderr,
      'echoed stderr': echoed.stderr,
      'hung stderr': hung.stderr,
      'page echo stderr': pageEcho.stderr,
      'exposed stderr': exposed.stderr,
    })) {
      for (const secret of secrets) assert.ok(!text.includes(secret), `${what} shows a secret`);
    }
    // The stored login holds the client's secrets (owner-only), never an ID token or an ID-JAG.
    for (const secret of [firstIdToken, renewedIdToken, ...proxy.idJags]) assert.ok(!stored.includes(secret));
    for (const file of filesUnder(home)) {
      const mode = statSync(file).mode & 0o777;
      if (mode === 0o600) continue;
      const text = readFileSync(file, 'utf8');
      for (const secret of secrets)
        assert.ok(!text.includes(secret), `${file} (mode ${mode.toString(8)}) holds a secret`);
    }
  });
});

/** Every file under `dir`, recursively. */
function filesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? filesUnder(join(dir, entry.name)) : entry.isFile() ? [join(dir, entry.name)] : [],
  );
}

/** Two authorization servers and one MCP server, answered from memory; every request recorded. */
const MCP = 'https://mcp.example/mcp';
const AS_A = 'https://as-a.example';
const AS_B = 'https://as-b.example';
const PRM_URL = 'https://mcp.example/.well-known/oauth-protected-resource/mcp';

function asMetadata(issuer: string) {
  return {
    issuer,
    authorization_endpoint: `${issuer}/authorize`,
    token_endpoint: `${issuer}/token`,
    registration_endpoint: `${issuer}/register`,
    revocation_endpoint: `${issuer}/revoke`,
    response_types_supported: ['code'],
    grant_types_supported: ['authorization_code', 'refresh_token', 'urn:ietf:params:oauth:grant-type:jwt-bearer'],
    token_endpoint_auth_methods_supported: ['client_secret_basic'],
  };
}

type Seen = { method: string; url: string; body: string; authorization: string | null };

/** A fetch whose MCP server names `named()` as its authorization server. */
function network(named: () => string) {
  const seen: Seen[] = [];
  const reply = (body: unknown, status = 200) =>
    new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });
  const fetchFn = async (input: string | URL, init?: RequestInit): Promise<Response> => {
    const url = new URL(String(input));
    const headers = new Headers(init?.headers);
    seen.push({
      method: init?.method ?? 'GET',
      url: url.href,
      body: init?.body === undefined || init.body === null ? '' : String(init.body as string | URLSearchParams),
      authorization: headers.get('authorization'),
    });
    if (url.href === PRM_URL) return reply({ resource: MCP, authorization_servers: [named()] });
    const issuer = url.origin;
    if (url.pathname.startsWith('/.well-known/oauth-authorization-server')) return reply(asMetadata(issuer));
    if (url.pathname === '/register') return reply({ client_id: `registered-at-${url.host}`, redirect_uris: [] }, 201);
    if (url.pathname === '/token')
      return reply({ access_token: `at-${seen.length}`, token_type: 'Bearer', refresh_token: `rt-${seen.length}` });
    if (url.pathname === '/revoke') return reply({});
    return new Response('not found', { status: 404 });
  };
  return { seen, fetchFn };
}

const NO_TERMINAL: LoginPrompt = {
  interactive: false,
  loginCommand: "'wallet servers login ev'",
  authorize: () => Promise.reject(new Error('no browser here')),
};

function unauthorized(): Response {
  return new Response('{"error":"invalid_token"}', {
    status: 401,
    headers: { 'www-authenticate': `Bearer resource_metadata="${PRM_URL}"` },
  });
}

/** A login made at authorization server A: tokens and client stamped with A, A's discovery cached. */
function loginAtA(extra: Partial<OAuthRecord> = {}): OAuthRecord {
  return {
    server: MCP,
    registration: 'pre-registered',
    client: { client_id: 'ci', client_secret: 'CLIENT-SECRET', issuer: AS_A },
    issuer: AS_A,
    tokens: { access_token: 'old', refresh_token: 'RT-A', token_type: 'Bearer', issuer: AS_A },
    discovery: {
      authorizationServerUrl: `${AS_A}/`,
      resourceMetadataUrl: PRM_URL,
      resourceMetadata: { resource: MCP, authorization_servers: [AS_A] },
      authorizationServerMetadata: asMetadata(AS_A),
    },
    ...extra,
  };
}

async function seeded(record: OAuthRecord): Promise<OAuthStore> {
  const store = new OAuthStore(tempHome(), MCP);
  await store.update(() => record);
  return store;
}

describe('OAuth credentials stay with the authorization server they were given for', () => {
  it("an expired token is refreshed at the login's authorization server, its discovery kept", async () => {
    const { seen, fetchFn } = network(() => AS_A);
    const store = await seeded(loginAtA());
    const session = new OAuthSessionAuth(store, NO_TERMINAL, new URL(MCP));
    await session.token();
    await session.onUnauthorized({ response: unauthorized(), serverUrl: new URL(MCP), fetchFn });
    const record = await store.read();
    assert.equal(record.tokens?.refresh_token?.startsWith('rt-'), true, 'not refreshed');
    assert.equal(record.discovery?.authorizationServerMetadata?.issuer, AS_A, 'the discovery was forgotten');
    assert.deepEqual(
      seen.filter((request) => request.url.includes('oauth-authorization-server')),
      [],
      'discovered the authorization server again after an ordinary expiry',
    );
  });

  it("a workload's token never goes to an authorization server the MCP server names later", async () => {
    const home = tempHome();
    const jwt = join(home, 'workload.jwt');
    writeFileSync(jwt, VALID_WORKLOAD_JWT, { mode: 0o600 });
    const { seen, fetchFn } = network(() => AS_B);
    const store = await seeded(
      loginAtA({ grant: 'jwt_bearer', assertionFile: jwt, client: { client_id: 'ci', issuer: AS_A } }),
    );
    const session = new OAuthSessionAuth(store, { ...NO_TERMINAL, interactive: true }, new URL(MCP));
    await session.token();
    await assert.rejects(
      session.onUnauthorized({ response: unauthorized(), serverUrl: new URL(MCP), fetchFn }),
      (error: unknown) =>
        error instanceof LoginRequiredError &&
        /another authorization server .* run 'wallet servers login ev'/.test(error.message),
    );
    const atB = seen.filter((request) => request.url.startsWith(AS_B) && request.method === 'POST');
    assert.deepEqual(atB, [], 'a credential went to the new authorization server');
    assert.ok(!seen.some((request) => request.body.includes(VALID_WORKLOAD_JWT)), 'the workload token was sent');
  });

  it('a client secret given to servers login is not sent to another authorization server either', async () => {
    const { seen, fetchFn } = network(() => AS_B);
    const store = await seeded(loginAtA());
    const session = new OAuthSessionAuth(store, NO_TERMINAL, new URL(MCP));
    await session.token();
    await assert.rejects(
      session.onUnauthorized({ response: unauthorized(), serverUrl: new URL(MCP), fetchFn }),
      /run 'wallet servers login ev'/,
    );
    assert.ok(!seen.some((request) => request.url.startsWith(AS_B) && request.method === 'POST'));
    assert.ok(!seen.some((request) => request.authorization !== null || request.body.includes('RT-A')));
  });

  it('logout revokes at the issuer of the tokens, not at the one the cached discovery names now', async () => {
    const { seen, fetchFn } = network(() => AS_B);
    const record = loginAtA({
      discovery: {
        authorizationServerUrl: `${AS_B}/`,
        authorizationServerMetadata: asMetadata(AS_B),
      },
    });
    const revocation = await revokeTokens(record, fetchFn);
    assert.deepEqual(revocation, { kind: 'revoked', tokens: 2 });
    assert.ok(!seen.some((request) => request.url.startsWith(AS_B)), 'asked the other authorization server');
    const revoked = seen.filter((request) => request.url === `${AS_A}/revoke`);
    assert.equal(revoked.length, 2);
    const basic = `Basic ${Buffer.from('ci:CLIENT-SECRET').toString('base64')}`;
    for (const request of revoked) assert.equal(request.authorization, basic);
  });

  it('logout sends no client credentials of another issuer, and says why a revocation failed', async () => {
    const { seen, fetchFn } = network(() => AS_A);
    const foreignClient = loginAtA({ client: { client_id: 'ci', client_secret: 'CLIENT-SECRET', issuer: AS_B } });
    assert.deepEqual(await revokeTokens(foreignClient, fetchFn), { kind: 'revoked', tokens: 2 });
    for (const request of seen.filter((entry) => entry.url.endsWith('/revoke'))) {
      assert.equal(request.authorization, null);
      assert.ok(!request.body.includes('CLIENT-SECRET'));
    }
    const plainHttp = loginAtA({
      discovery: {
        authorizationServerUrl: `${AS_A}/`,
        authorizationServerMetadata: { ...asMetadata(AS_A), revocation_endpoint: 'http://as-a.example/revoke' },
      },
    });
    assert.deepEqual(await revokeTokens(plainHttp, fetchFn), {
      kind: 'failed',
      reason: 'the revocation endpoint is not https',
    });
    const unstamped = loginAtA({ tokens: { access_token: 'old', refresh_token: 'RT-A', token_type: 'Bearer' } });
    const before = seen.length;
    assert.equal((await revokeTokens(unstamped, fetchFn)).kind, 'failed');
    assert.equal(seen.length, before, 'tokens of an unknown issuer were sent somewhere');
  });
});

describe('the DPoP key of a login', () => {
  it('signs with the stored key even when no discovery is cached', async () => {
    const store = await seeded({ ...loginAtA(), discovery: withDpop() });
    assert.ok(await dpopSession(store), 'no DPoP session where the authorization server offers DPoP');
    const { dpopKey } = await store.read();
    assert.ok(dpopKey, 'the key was not kept with the login');
    // The discovery is forgotten (the MCP server moved its authorization server): the tokens
    // are still bound to the key.
    await store.update((record) => ({ ...record, discovery: undefined }));
    assert.ok(await dpopSession(store), 'a login with a DPoP key sent its requests unsigned');
    assert.equal(await dpopSession(await seeded(loginAtA({ discovery: undefined }))), undefined);
  });

  it("is written under the login's lock: a token stored meanwhile by another writer is kept", async () => {
    const home = tempHome();
    const holder = new OAuthStore(home, MCP);
    await holder.update(() => ({ ...loginAtA(), discovery: withDpop() }));
    let acquired!: () => void;
    let release!: () => void;
    const held = new Promise<void>((resolve) => (acquired = resolve));
    const gate = new Promise<void>((resolve) => (release = resolve));
    const holding = holder.withLock(async () => {
      acquired();
      await gate;
      await holder.update((record) => ({
        ...record,
        tokens: { access_token: 'rotated', refresh_token: 'RT-ROTATED', token_type: 'Bearer', issuer: AS_A },
      }));
    });
    await held;
    // Another writer (another process, as far as the lock knows) makes the key meanwhile.
    let finishedWhileHeld = false;
    const making = dpopSession(new OAuthStore(home, MCP)).then(() => (finishedWhileHeld = true));
    await new Promise((resolve) => setTimeout(resolve, 300));
    assert.equal(finishedWhileHeld, false, 'the key was written while the lock was held');
    release();
    await holding;
    await making;
    const record = await holder.read();
    assert.equal(record.tokens?.refresh_token, 'RT-ROTATED', 'the rotated refresh token was overwritten');
    assert.ok(record.dpopKey);
  });
});

function withDpop(): OAuthRecord['discovery'] {
  return {
    authorizationServerUrl: `${AS_A}/`,
    authorizationServerMetadata: { ...asMetadata(AS_A), dpop_signing_alg_values_supported: ['ES256'] },
  };
}
