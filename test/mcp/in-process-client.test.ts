/**
 * The CLI's own client of its in-process server (src/mcp/in-process-client.ts), against a real SDK
 * `Server` over the SDK's in-memory transport: the handshake, results, a JSON-RPC error, progress
 * and a timeout that cancels the request on the server.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { InMemoryTransport, ProtocolError, ProtocolErrorCode, Server } from '@modelcontextprotocol/server';
import { connectInProcess } from '../../src/mcp/in-process-client.js';
import { ConnectionError, RemoteProtocolError, type McpSession } from '../../src/mcp/session.js';
import { packageInfo } from '../../src/shared/package-info.js';

type Seen = { client?: { name: string; version: string } | undefined; protocolVersion?: string; aborted: boolean };

async function connected(): Promise<{ session: McpSession; seen: Seen }> {
  const seen: Seen = { aborted: false };
  const server = new Server({ name: 'probe', version: '1.2.3' }, { capabilities: { tools: {} } });
  server.oninitialized = () => {
    seen.client = server.getClientVersion();
  };
  server.setRequestHandler('tools/list', () => ({
    tools: [{ name: 'steps', inputSchema: { type: 'object' as const, properties: {} } }],
  }));
  server.setRequestHandler('tools/call', async (request, context) => {
    const token = context.mcpReq._meta?.progressToken;
    if (request.params.name === 'steps') {
      for (const step of [1, 2]) {
        if (token !== undefined) {
          await context.mcpReq.notify({
            method: 'notifications/progress',
            params: { progressToken: token, progress: step, total: 2, message: `step ${step}` },
          });
        }
      }
      return { content: [{ type: 'text', text: 'done' }], structuredContent: { args: request.params.arguments } };
    }
    if (request.params.name === 'never') {
      await new Promise<void>((resolve) => context.mcpReq.signal.addEventListener('abort', () => resolve()));
      seen.aborted = true;
      return { content: [] };
    }
    throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Unknown tool: ${request.params.name}`);
  });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  return { session: await connectInProcess(clientSide), seen };
}

describe('the in-process client', () => {
  it('initialises the session as an MCP client and reads results', async () => {
    const { session, seen } = await connected();
    try {
      assert.deepEqual(session.server, { name: 'probe', version: '1.2.3' });
      assert.deepEqual(seen.client, { name: packageInfo().name, version: packageInfo().version });
      assert.deepEqual(
        (await session.listTools()).map((tool) => tool.name),
        ['steps'],
      );
      const result = await session.callTool('steps', { a: '0x10' });
      assert.equal(result.isError, false);
      assert.deepEqual(result.structuredContent, { args: { a: '0x10' } });
      assert.deepEqual(result.content, [{ type: 'text', text: 'done' }]);
    } finally {
      await session.close();
    }
  });

  it("reports a JSON-RPC error as the server's refusal, with its code", async () => {
    const { session } = await connected();
    try {
      await assert.rejects(session.callTool('missing', {}), (error: unknown) => {
        assert.ok(error instanceof RemoteProtocolError);
        assert.equal(error.code, ProtocolErrorCode.InvalidParams);
        assert.match(error.message, /Unknown tool: missing/);
        return true;
      });
    } finally {
      await session.close();
    }
  });

  it('asks for progress when told to, and hands each notification on', async () => {
    const { session } = await connected();
    try {
      const notes: [string | undefined, number, number | undefined][] = [];
      await session.callTool('steps', {}, { onProgress: (...note) => notes.push(note) });
      assert.deepEqual(notes, [
        ['step 1', 1, 2],
        ['step 2', 2, 2],
      ]);
    } finally {
      await session.close();
    }
  });

  it('gives up after its timeout and cancels the request on the server', async () => {
    const { session, seen } = await connected();
    try {
      await assert.rejects(session.callTool('never', {}, { timeoutMs: 50 }), (error: unknown) => {
        assert.ok(error instanceof ConnectionError);
        assert.match(error.message, /did not answer in time/);
        return true;
      });
      for (let turn = 0; turn < 100 && !seen.aborted; turn++) await new Promise((resolve) => setImmediate(resolve));
      assert.equal(seen.aborted, true, 'the server was not told of the cancellation');
    } finally {
      await session.close();
    }
  });
});
