import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { startEverythingHttp, type HttpServer } from '../helpers/everything-http.js';
import { tempHome } from '../helpers/io.js';
import { startOAuthProxy, VALID_WORKLOAD_JWT, type OAuthProxy } from '../helpers/oauth-proxy.js';

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
});
