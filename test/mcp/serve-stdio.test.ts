import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, it } from 'node:test';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { WALLET_BIN } from '../helpers/paths.js';
import { SpawnedWallet } from '../helpers/spawned.js';
import { tempHome } from '../helpers/io.js';

const initialize = (id: number, protocolVersion: string) => ({
  jsonrpc: '2.0',
  id,
  method: 'initialize',
  params: { protocolVersion, capabilities: {}, clientInfo: { name: 'raw-test', version: '1' } },
});

function assertJsonRpcOnly(lines: readonly unknown[]): void {
  for (const line of lines) assert.equal((line as { jsonrpc?: unknown }).jsonrpc, '2.0', JSON.stringify(line));
}

describe('wallet serve over stdio', () => {
  for (const version of ['2025-03-26', '2025-06-18', '2025-11-25']) {
    it(`serves a legacy client that opens with initialize ${version}, then exits when stdin closes`, async () => {
      const server = new SpawnedWallet(['serve']);
      server.send(initialize(1, version));
      const init = (await server.response(1)) as {
        result: { protocolVersion: string; serverInfo: { name: string }; capabilities: Record<string, unknown> };
      };
      assert.equal(init.result.protocolVersion, version);
      assert.equal(init.result.serverInfo.name, 'wallet');
      // It gets its own human yes before destructive calls: a client need not ask as well.
      assert.deepEqual(init.result.capabilities['experimental'], { 'wallet/consent': {} });
      server.send({ jsonrpc: '2.0', method: 'notifications/initialized' });

      server.send({ jsonrpc: '2.0', id: 2, method: 'tools/list' });
      const list = (await server.response(2)) as { result: { tools: { name: string }[] } };
      assert.ok(list.result.tools.some((tool) => tool.name === 'tool_describe'));

      server.send({ jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'network_info', arguments: {} } });
      const call = (await server.response(3)) as { result: { structuredContent: { default_core_network: string } } };
      assert.equal(call.result.structuredContent.default_core_network, 'testnet');

      server.send({ jsonrpc: '2.0', id: 4, method: 'wallet/nonsense' });
      assert.equal(((await server.response(4)) as { error: { code: number } }).error.code, -32601);

      server.send('this is not json {');
      assert.equal(((await server.response(null)) as { error: { code: number } }).error.code, -32700);

      server.send({ jsonrpc: '2.0', id: 5, method: 'ping' });
      assert.deepEqual(((await server.response(5)) as { result: object }).result, {});

      server.child.stdin.end();
      const exit = await server.exited;
      assert.deepEqual(exit, { code: 0, signal: null });
      assertJsonRpcOnly(server.lines);
    });
  }

  it('answers every request of input that ends at once, then exits 0 (issue 19)', async () => {
    const server = new SpawnedWallet(['serve']);
    const requests = [
      initialize(1, '2025-11-25'),
      { jsonrpc: '2.0', method: 'notifications/initialized' },
      { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'network_info', arguments: { chain: 'evm' } } },
      {
        jsonrpc: '2.0',
        id: 3,
        method: 'tools/call',
        params: { name: 'core_address_validate', arguments: { address: 'XpESxaUmonkq8RaLLp46Tv1VVLoqHqtY4x' } },
      },
      { jsonrpc: '2.0', id: 4, method: 'tools/list' },
      { jsonrpc: '2.0', id: 5, params: {} },
      ...Array.from({ length: 12 }, (_, index) => ({ jsonrpc: '2.0', id: 10 + index, method: 'ping' })),
    ];
    server.child.stdin.end(requests.map((request) => JSON.stringify(request) + '\n').join(''));
    assert.deepEqual(await server.exited, { code: 0, signal: null });
    const answered = server.lines.map((line) => (line as { id: unknown }).id);
    const expected = requests.flatMap((request) => ('id' in request ? [request.id] : []));
    assert.deepEqual([...answered].sort(), [...expected].sort());
    assert.equal(((await server.response(5)) as { error: { code: number } }).error.code, -32600);
    assertJsonRpcOnly(server.lines);
  });

  it('on SIGTERM, answers the call in flight before it exits (issue 19)', async () => {
    // An EVM node that answers each request after 600 ms: the call is in flight when SIGTERM comes.
    const node = createServer((request, response) => {
      let body = '';
      request.on('data', (chunk: Buffer) => (body += chunk.toString()));
      request.on('end', () => {
        const calls = JSON.parse(body) as { id: number; method: string } | { id: number; method: string }[];
        const answer = (call: { id: number; method: string }) => ({
          jsonrpc: '2.0',
          id: call.id,
          result: call.method === 'eth_chainId' ? '0xaa36a7' : '0x0',
        });
        setTimeout(() => {
          response.setHeader('content-type', 'application/json');
          response.end(JSON.stringify(Array.isArray(calls) ? calls.map(answer) : answer(calls)));
        }, 600);
      });
    });
    await new Promise<void>((resolve) => node.listen(0, '127.0.0.1', resolve));
    const port = (node.address() as AddressInfo).port;
    try {
      const server = new SpawnedWallet(['serve'], { WALLET_EVM_SEPOLIA_URL: `http://127.0.0.1:${port}` });
      server.send(initialize(1, '2025-11-25'));
      await server.response(1);
      server.send({
        jsonrpc: '2.0',
        id: 2,
        method: 'tools/call',
        params: {
          name: 'evm_balance_get',
          arguments: { address: '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266', network: 'sepolia' },
        },
      });
      await new Promise((resolve) => setTimeout(resolve, 200));
      server.child.kill('SIGTERM');
      assert.deepEqual(await server.exited, { code: 0, signal: null });
      const answer = (await server.response(2, 100)) as { result?: { isError?: boolean } };
      assert.ok(answer.result, 'the call in flight was answered');
      assert.notEqual(answer.result.isError, true, JSON.stringify(answer));
    } finally {
      node.close();
    }
  });

  it('answers a batch on a 2025-03-26 connection with one array', async () => {
    const server = new SpawnedWallet(['serve']);
    server.send(initialize(1, '2025-03-26'));
    await server.response(1);
    server.send([
      { jsonrpc: '2.0', method: 'notifications/initialized' },
      { jsonrpc: '2.0', id: 2, method: 'ping' },
      { jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'network_info', arguments: {} } },
    ]);
    server.child.stdin.end();
    assert.equal((await server.exited).code, 0);
    const batch = server.lines.find((line) => Array.isArray(line)) as { id: number; result: object }[] | undefined;
    assert.ok(batch, 'one array answers the batch');
    assert.deepEqual(batch.map((reply) => reply.id).sort(), [2, 3]);
    assert.ok(batch.every((reply) => reply.result));
  });

  it('answers a request without jsonrpc 2.0 with -32600 and keeps serving', async () => {
    const server = new SpawnedWallet(['serve']);
    server.send({ id: 9, method: 'tools/list' });
    assert.equal(((await server.response(9)) as { error: { code: number } }).error.code, -32600);
    server.send(initialize(1, '2025-06-18'));
    assert.ok(((await server.response(1)) as { result?: unknown }).result);
    server.child.stdin.end();
    assert.equal((await server.exited).code, 0);
  });

  it('serves a current (2026-07-28) client through the SDK', async () => {
    const client = new Client(
      { name: 'modern-test', version: '1' },
      { versionNegotiation: { mode: { pin: '2026-07-28' } } },
    );
    await client.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: [WALLET_BIN, 'serve'],
        env: { PATH: process.env['PATH'] ?? '', WALLET_HOME: tempHome() },
        stderr: 'ignore',
      }),
    );
    assert.equal(client.getNegotiatedProtocolVersion(), '2026-07-28');
    const { tools } = await client.listTools();
    assert.ok(tools.some((tool) => tool.name === 'network_info'));
    const result = await client.callTool({ name: 'tool_describe', arguments: { name: 'network_info' } });
    assert.equal((result.structuredContent as { tools: { command: string }[] }).tools[0]?.command, 'network-info');
    await client.close();
  });

  it('exits 0 on SIGTERM', async () => {
    const server = new SpawnedWallet(['serve']);
    server.send(initialize(1, '2025-11-25'));
    await server.response(1);
    server.child.kill('SIGTERM');
    assert.deepEqual(await server.exited, { code: 0, signal: null });
  });

  it('logs requests to stderr with --log-level debug, never arguments or results', async () => {
    const server = new SpawnedWallet(['serve', '--log-level', 'debug'], {
      WALLET_CORE_REGTEST_URL: 'http://rpcuser:sup3rsecret@127.0.0.1:19443',
    });
    server.send(initialize(1, '2025-11-25'));
    await server.response(1);
    server.send({
      jsonrpc: '2.0',
      id: 2,
      method: 'tools/call',
      params: { name: 'tool_describe', arguments: { name: 'MARKER-ARGUMENT' } },
    });
    await server.response(2);
    server.send({ jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'network_info', arguments: {} } });
    await server.response(3);
    server.child.stdin.end();
    await server.exited;
    assert.match(server.stderr, /debug request method=initialize id=1 outcome=ok ms=\d+/);
    assert.match(
      server.stderr,
      /debug request method=tools\/call tool=tool_describe id=2 outcome=tool-error:INVALID_PARAM ms=\d+/,
    );
    assert.match(server.stderr, /debug request method=tools\/call tool=network_info id=3 outcome=ok ms=\d+/);
    assert.ok(!server.stderr.includes('MARKER-ARGUMENT'), 'an argument reached the log');
    assert.ok(!server.stderr.includes('sup3rsecret'), 'a credential reached the log');
    assertJsonRpcOnly(server.lines);
  });

  it('keeps answering when nobody reads its stderr, logging at debug', async () => {
    // An agent that never reads the server's stderr: the pipe fills after some thousand log lines.
    // The server writes its logs through Node's stream, which holds what the pipe cannot take.
    const server = new SpawnedWallet(['serve', '--log-level', 'debug']);
    server.child.stderr.removeAllListeners('data');
    server.child.stderr.pause();
    server.send(initialize(0, '2025-11-25'));
    await server.response(0);
    server.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    const pings = 6000;
    for (let id = 1; id <= pings; id++) server.send({ jsonrpc: '2.0', id, method: 'ping' });
    await server.response(pings, 30_000);
    assert.equal(server.lines.length, pings + 1);
    assertJsonRpcOnly(server.lines);
    server.child.stderr.resume();
    server.child.stdin.end();
    assert.equal((await server.exited).code, 0);
  });

  it('logs nothing by default', async () => {
    const server = new SpawnedWallet(['serve']);
    server.send(initialize(1, '2025-11-25'));
    await server.response(1);
    server.child.stdin.end();
    await server.exited;
    assert.equal(server.stderr, '');
  });
});
