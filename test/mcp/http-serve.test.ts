import assert from 'node:assert/strict';
import { request as httpRequest } from 'node:http';
import { connect as connectSocket } from 'node:net';
import { chmodSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { startHttpServe, type HttpServe } from '../helpers/http-serve.js';
import { tempHome, wallet } from '../helpers/io.js';
import { startHttpServer } from '../../src/mcp/http/serve.js';

const TOKEN = 'http-serve-test-token-0123456789';
const INIT = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
};

/** A raw HTTP request, so that Host and Origin can be anything. */
function raw(
  url: string,
  options: { method?: string; headers?: Record<string, string>; body?: unknown },
): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: string }> {
  const target = new URL(url);
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      {
        host: target.hostname,
        port: target.port,
        path: target.pathname,
        method: options.method ?? 'POST',
        headers: {
          accept: 'application/json, text/event-stream',
          ...(options.body === undefined ? {} : { 'content-type': 'application/json' }),
          ...options.headers,
        },
      },
      (res) => {
        let body = '';
        res.on('data', (chunk: Buffer) => (body += chunk.toString()));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
      },
    );
    req.on('error', reject);
    req.end(options.body === undefined ? undefined : JSON.stringify(options.body));
  });
}

/**
 * What the server answers on a plain socket to `head` and the `body` written after it: the bytes
 * read until it closes the connection or `done` says the answer is whole. An error after an answer
 * (a server that closes without reading a body resets the connection) is not the answer's.
 */
function exchange(
  url: string,
  head: (host: string) => string,
  options: { body?: string; done?: (text: string) => boolean; timeoutMs?: number } = {},
): Promise<string> {
  const target = new URL(url);
  return new Promise((resolve, reject) => {
    let text = '';
    const finish = (error?: Error): void => {
      clearTimeout(timer);
      socket.destroy();
      if (text === '' && error) reject(error);
      else resolve(text);
    };
    const socket = connectSocket(Number(target.port), target.hostname, () => {
      socket.write(head(target.host));
      if (options.body !== undefined) socket.write(options.body);
    });
    socket.on('data', (chunk: Buffer) => {
      text += chunk.toString();
      if (options.done?.(text)) finish();
    });
    socket.on('close', () => finish());
    socket.on('error', finish);
    const timer = setTimeout(
      () => finish(new Error(`no answer within ${options.timeoutMs ?? 5_000} ms: ${text}`)),
      options.timeoutMs ?? 5_000,
    );
  });
}

async function connect(url: string, mode: 'legacy' | 'auto', token?: string): Promise<Client> {
  const client = new Client({ name: 'http-test', version: '1' }, { versionNegotiation: { mode } });
  const headers: Record<string, string> = token === undefined ? {} : { authorization: `Bearer ${token}` };
  await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } }));
  return client;
}

describe('wallet serve --http', () => {
  let served: HttpServe;
  before(async () => {
    served = await startHttpServe(['--log-level', 'info'], { env: { MCP_API_KEY: TOKEN } });
  });
  after(() => served.stop());

  it('answers GET /health with 200 without a token', async () => {
    const response = await fetch(served.health);
    assert.equal(response.status, 200);
    assert.deepEqual(await response.json(), { status: 'ok', name: 'wallet', version: '0.1.0' });
  });

  it('refuses /mcp with 401 without a token, with a wrong one, and with a non-Bearer scheme', async () => {
    for (const authorization of [undefined, `Bearer ${TOKEN}x`, `Bearer ${TOKEN.slice(0, -1)}`, `Basic ${TOKEN}`]) {
      const response = await raw(served.url, {
        body: INIT,
        headers: authorization === undefined ? {} : { authorization },
      });
      assert.equal(response.status, 401, String(authorization));
      assert.match(String(response.headers['www-authenticate']), /^Bearer /);
      assert.ok(!response.body.includes(TOKEN), 'the token is never echoed');
    }
    await assert.rejects(connect(served.url, 'auto', 'wrong-token-wrong-token'));
    await assert.rejects(connect(served.url, 'legacy'));
  });

  it('refuses a foreign Host or Origin with 403 (DNS rebinding), even with the token', async () => {
    const auth = { authorization: `Bearer ${TOKEN}` };
    const evilHost = await raw(served.url, { body: INIT, headers: { ...auth, host: 'evil.example.com' } });
    assert.equal(evilHost.status, 403);
    const evilOrigin = await raw(served.url, { body: INIT, headers: { ...auth, origin: 'http://evil.example.com' } });
    assert.equal(evilOrigin.status, 403);
    const nullOrigin = await raw(served.url, { body: INIT, headers: { ...auth, origin: 'null' } });
    assert.equal(nullOrigin.status, 403);
    const port = new URL(served.url).port;
    const local = await raw(served.url, {
      body: INIT,
      headers: { ...auth, host: `localhost:${port}`, origin: `http://localhost:${port}` },
    });
    assert.equal(local.status, 200);
    const evilHealth = await raw(served.health, { method: 'GET', headers: { host: 'evil.example.com' } });
    assert.equal(evilHealth.status, 403);
    const pathInHost = await raw(served.url, { body: INIT, headers: { ...auth, host: `127.0.0.1:${port}/mcp?` } });
    assert.equal(pathInHost.status, 400);
  });

  it('answers a malformed Host with 400, never 500 (issue 19)', async () => {
    const auth = { authorization: `Bearer ${TOKEN}` };
    for (const host of ['evil@localhost', 'localhost:99999', 'localhost:', 'a b']) {
      const response = await raw(served.url, { body: INIT, headers: { ...auth, host } });
      assert.equal(response.status, 400, host);
      assert.match(response.body, /invalid Host header/);
    }
  });

  it('answers 401 from the headers alone: a slow unauthenticated body holds nothing open (issue 19)', async () => {
    const started = performance.now();
    const answer = await exchange(
      served.url,
      (host) =>
        `POST /mcp HTTP/1.1\r\nHost: ${host}\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n{`,
      { done: (text) => text.includes('\r\n\r\n') && text.includes('}') },
    );
    assert.match(answer, /^HTTP\/1\.1 401 /);
    assert.ok(performance.now() - started < 5_000);
  });

  it('evicts the least recently used idle legacy session: 1,000 abandoned clients lock nobody out (issue 19)', async () => {
    const auth = { authorization: `Bearer ${TOKEN}` };
    const keeper = await connect(served.url, 'legacy', TOKEN);
    try {
      for (let index = 0; index < 1_000; index++) {
        const init = await raw(served.url, { body: INIT, headers: auth });
        assert.equal(init.status, 200, `initialize ${index}: ${init.body}`);
        // A client in use stays: it is never the least recently used.
        if (index % 50 === 0) await keeper.listTools();
      }
      await keeper.callTool({ name: 'network_info', arguments: {} });
      const fresh = await connect(served.url, 'legacy', TOKEN);
      try {
        const result = await fresh.callTool({ name: 'network_info', arguments: {} });
        assert.notEqual(result.isError, true);
      } finally {
        await fresh.close();
      }
    } finally {
      await keeper.close();
    }
  });

  it('refuses a body over 2 MiB with 413 before reading it all', async () => {
    // Only the first 64 KiB of the body is ever sent: the answer comes from Content-Length.
    const body = JSON.stringify({ ...INIT, params: { ...INIT.params, padding: 'x'.repeat(3 * 1024 * 1024) } });
    const answer = await exchange(
      served.url,
      (host) =>
        `POST /mcp HTTP/1.1\r\nHost: ${host}\r\nAuthorization: Bearer ${TOKEN}\r\n` +
        `Content-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: ${body.length}\r\n\r\n`,
      { body: body.slice(0, 64 * 1024), done: (text) => text.includes('\r\n\r\n') },
    );
    assert.match(answer, /^HTTP\/1\.1 413 /);
  });

  it('serves a 2025-era client: an initialize session (Mcp-Session-Id) that DELETE ends', async () => {
    const auth = { authorization: `Bearer ${TOKEN}` };
    const init = await raw(served.url, { body: INIT, headers: auth });
    assert.equal(init.status, 200);
    const session = String(init.headers['mcp-session-id']);
    assert.match(session, /^[0-9a-f-]{36}$/);
    assert.match(init.body, /"protocolVersion":"2025-11-25"/);
    const headers = { ...auth, 'mcp-session-id': session, 'mcp-protocol-version': '2025-11-25' };
    const initialized = await raw(served.url, {
      body: { jsonrpc: '2.0', method: 'notifications/initialized' },
      headers,
    });
    assert.equal(initialized.status, 202);
    const list = await raw(served.url, { body: { jsonrpc: '2.0', id: 2, method: 'tools/list' }, headers });
    assert.equal(list.status, 200);
    assert.match(list.body, /"core_funds_send"/);
    const noSession = await raw(served.url, { body: { jsonrpc: '2.0', id: 3, method: 'tools/list' }, headers: auth });
    assert.equal(noSession.status, 400);
    const ended = await raw(served.url, { method: 'DELETE', headers });
    assert.equal(ended.status, 200);
    const gone = await raw(served.url, { body: { jsonrpc: '2.0', id: 4, method: 'tools/list' }, headers });
    assert.equal(gone.status, 404);

    const client = await connect(served.url, 'legacy', TOKEN);
    try {
      assert.equal(client.getNegotiatedProtocolVersion(), '2025-11-25');
      const tools = await client.listTools();
      assert.ok(tools.tools.some((tool) => tool.name === 'evm_funds_send'));
      const result = await client.callTool({ name: 'core_address_create', arguments: { wallet_id: 'nope' } });
      assert.equal(result.isError, true);
      assert.match(JSON.stringify(result.content), /WALLET_NOT_FOUND/);
    } finally {
      await client.close();
    }
  });

  it('serves a 2026-07-28 client statelessly: list and call, no session', async () => {
    const client = await connect(served.url, 'auto', TOKEN);
    try {
      assert.equal(client.getNegotiatedProtocolVersion(), '2026-07-28');
      const tools = await client.listTools();
      assert.ok(tools.tools.some((tool) => tool.name === 'core_wallets_list'));
      assert.ok(!tools.tools.some((tool) => tool.name === 'core_wallet_export'), 'never the local-only tools');
      const result = await client.callTool({ name: 'core_wallets_list', arguments: {} });
      assert.deepEqual((result.structuredContent as { wallets: unknown[] }).wallets, []);
    } finally {
      await client.close();
    }
    assert.doesNotMatch(served.stderr(), /\[stdout!\]/, 'nothing on stdout');
    assert.ok(!served.stderr().includes(TOKEN), 'the token is never logged');
    assert.match(served.stderr(), /info http method=POST path=\/mcp status=401/);
  });

  it('works as the CLI --url target with --header "Authorization: Bearer …"', async () => {
    const home = tempHome();
    const header = ['--url', served.url, '--header', `Authorization: Bearer ${TOKEN}`];
    const listed = await wallet([...header, 'core-wallets-list', '--json'], { home });
    assert.equal(listed.code, 0, listed.stderr);
    assert.deepEqual(JSON.parse(listed.stdout).wallets, []);
    const refused = await wallet(['--url', served.url, 'tools', '--refresh'], { home });
    assert.equal(refused.code, 3);
    assert.match(refused.stderr, /401/);
  });
});

describe('wallet serve --http timeouts (issue 19)', () => {
  it('answers 408 and closes when an authenticated client sends its body too slowly', async () => {
    const serving = await startHttpServer({
      caller: 'agent',
      readOnly: true,
      env: { WALLET_HOME: tempHome() },
      listen: { host: '127.0.0.1', port: 0 },
      apiKey: TOKEN,
      requestTimeoutMs: 1_000,
    });
    try {
      const started = performance.now();
      const answer = await exchange(
        serving.url,
        (host) =>
          `POST /mcp HTTP/1.1\r\nHost: ${host}\r\nAuthorization: Bearer ${TOKEN}\r\n` +
          'Content-Type: application/json\r\nContent-Length: 100000\r\n\r\n{',
        { timeoutMs: 15_000 },
      );
      assert.match(answer, /^HTTP\/1\.1 408 /);
      const elapsed = performance.now() - started;
      assert.ok(elapsed >= 900 && elapsed < 10_000, `closed after ${Math.round(elapsed)} ms`);
    } finally {
      await serving.close();
    }
  });
});

describe('wallet serve --http --read-only --no-auth', () => {
  it('serves only read-only tools, without a token, on loopback', async () => {
    const served = await startHttpServe(['--read-only', '--no-auth']);
    try {
      assert.match(served.stderr(), /warning: serving without a token/);
      const client = await connect(served.url, 'auto');
      try {
        const { tools } = await client.listTools();
        assert.ok(tools.length >= 10, String(tools.length));
        for (const tool of tools) assert.equal(tool.annotations?.readOnlyHint, true, tool.name);
        assert.ok(!tools.some((tool) => tool.name === 'evm_funds_send' || tool.name === 'core_address_create'));
        await assert.rejects(
          client.callTool({
            name: 'evm_funds_send',
            arguments: { from: '0x0', to: '0x0', value_wei: '1', network: 'local' },
          }),
          /Unknown tool: evm_funds_send/,
        );
      } finally {
        await client.close();
      }
    } finally {
      await served.stop();
    }
  });
});

describe('wallet serve --http refuses unsafe set-ups (exit 2, nothing served)', () => {
  const refusals: [string, string[], Record<string, string>, RegExp][] = [
    ['no token', ['serve', '--http'], {}, /needs a bearer token: set MCP_API_KEY or pass --api-key-file/],
    ['a short token', ['serve', '--http'], { MCP_API_KEY: 'short-token' }, /at least 16 characters/],
    [
      '--no-auth without --read-only',
      ['serve', '--http', '--no-auth'],
      {},
      /--no-auth is allowed only with --read-only/,
    ],
    [
      '--no-auth off loopback',
      ['serve', '--http', '--no-auth', '--read-only', '--listen', '0.0.0.0:0', '--allow-remote'],
      {},
      /--no-auth is allowed only on a loopback address/,
    ],
    [
      'a non-loopback address without --allow-remote',
      ['serve', '--http', '--listen', '0.0.0.0:0'],
      { MCP_API_KEY: TOKEN },
      /needs --allow-remote/,
    ],
    ['--listen without --http', ['serve', '--listen', '127.0.0.1:0'], {}, /--listen needs --http/],
    ['a bad --listen', ['serve', '--http', '--listen', 'host:99999'], { MCP_API_KEY: TOKEN }, /at most 65535/],
  ];
  for (const [name, argv, env, message] of refusals) {
    it(name, async () => {
      const result = await wallet(argv, { env });
      assert.equal(result.code, 2, result.stderr);
      assert.match(result.stderr, message);
      assert.equal(result.stdout, '');
    });
  }

  it('a token file readable by others', async () => {
    const dir = tempHome();
    const file = join(dir, 'token');
    writeFileSync(file, `${TOKEN}\n`);
    chmodSync(file, 0o644);
    const result = await wallet(['serve', '--http', '--api-key-file', file]);
    assert.equal(result.code, 2);
    assert.match(result.stderr, /readable by others/);
    assert.ok(!result.stderr.includes(TOKEN));
  });

  it('takes the token from an owner-only --api-key-file, and warns on a non-loopback --allow-remote bind', async () => {
    const dir = tempHome();
    const file = join(dir, 'token');
    writeFileSync(file, `${TOKEN}\n`, { mode: 0o600 });
    const served = await startHttpServe(['--api-key-file', file, '--listen', '0.0.0.0:0', '--allow-remote']);
    try {
      assert.match(served.stderr(), /warning: listening on 0\.0\.0\.0: other machines can reach this server/);
      const url = served.url.replace('0.0.0.0', '127.0.0.1');
      const ok = await raw(url, { body: INIT, headers: { authorization: `Bearer ${TOKEN}` } });
      assert.equal(ok.status, 200);
      const bad = await raw(url, { body: INIT, headers: { authorization: 'Bearer not-the-token-at-all' } });
      assert.equal(bad.status, 401);
    } finally {
      await served.stop();
    }
  });
});
