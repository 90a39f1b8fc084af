import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Client, ProtocolError } from '@modelcontextprotocol/client';
import { InMemoryTransport } from '@modelcontextprotocol/server';
import { createWalletServer } from '../../src/mcp/server.js';
import { walletServerOptions } from '../../src/mcp/setup.js';
import { ERROR_META_KEY, FULL_DESCRIPTION_META_KEY } from '../../src/shared/protocol-meta.js';
import { ALL_TOOLS } from '../../src/tools/index.js';
import { tempHome } from '../helpers/io.js';

/** A real SDK client on the real server, in memory: the full MCP path. */
async function connect(env: Record<string, string> = {}): Promise<Client> {
  // The full profile: this suite checks every part of a listed tool (test/mcp/profiles.test.ts the others).
  const server = createWalletServer(
    walletServerOptions({
      localOnly: false,
      caller: 'agent',
      readOnly: false,
      profile: 'full',
      env: { WALLET_HOME: tempHome(), ...env },
    }),
  );
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const client = new Client({ name: 'test', version: '1' });
  await client.connect(clientSide);
  return client;
}

/** What a served (not local) server lists: every tool but those that reveal or accept secrets. */
const SERVED = ALL_TOOLS.filter((tool) => tool.localOnly !== true);

describe('MCP server', () => {
  let client: Client;
  before(async () => {
    client = await connect({ WALLET_CORE_REGTEST_URL: 'http://rpcuser:rpcpass@127.0.0.1:19443' });
  });
  after(() => client.close());

  it('identifies itself from package.json', () => {
    assert.equal(client.getServerVersion()?.name, 'wallet');
    assert.match(client.getServerVersion()?.version ?? '', /^\d+\.\d+\.\d+/);
  });

  it('lists every tool with summary, schemas, annotations and full description', async () => {
    const { tools } = await client.listTools();
    assert.deepEqual(
      tools.map((tool) => tool.name),
      SERVED.map((tool) => tool.name),
    );
    for (const tool of tools) {
      const definition = ALL_TOOLS.find((candidate) => candidate.name === tool.name);
      assert.ok(definition);
      assert.equal(tool.description, definition.summary);
      assert.ok((tool.description ?? '').length <= 60);
      assert.equal(tool.title, definition.title);
      assert.equal(tool.inputSchema.type, 'object');
      assert.equal(tool.outputSchema?.['type'], 'object');
      assert.deepEqual({ ...tool.annotations, title: undefined }, { ...definition.annotations, title: undefined });
      assert.equal(tool._meta?.[FULL_DESCRIPTION_META_KEY], definition.description);
    }
  });

  it('answers invalid input with an isError result that names the field and carries the code', async () => {
    const result = await client.callTool({ name: 'network_info', arguments: { chain: 'bitcoin' } });
    assert.equal(result.isError, true);
    assert.match((result.content[0] as { text: string }).text, /^INVALID_PARAM: Invalid argument 'chain'/);
    assert.equal((result._meta?.[ERROR_META_KEY] as { code: string }).code, 'INVALID_PARAM');
    const unknownKey = await client.callTool({ name: 'tool_describe', arguments: { name: 'network_info', nmae: 'x' } });
    assert.match((unknownKey.content[0] as { text: string }).text, /Unknown argument 'nmae'/);
    const missing = await client.callTool({ name: 'core_address_validate', arguments: {} });
    assert.match((missing.content[0] as { text: string }).text, /Missing required argument 'address'/);
  });

  it('names unknown argument keys clipped, five at most, so the message stays one short line', async () => {
    const junk = Object.fromEntries(Array.from({ length: 12 }, (_, index) => [`${index}${'k'.repeat(100_000)}`, 1]));
    const result = await client.callTool({ name: 'tool_describe', arguments: { name: 'network_info', ...junk } });
    const text = (result.content[0] as { text: string }).text;
    assert.equal(result.isError, true);
    assert.match(text, /^INVALID_PARAM: Unknown arguments '0k{63}…', '1k{63}…', .* and 7 more\./);
    assert.ok(text.length < 1_000, `${text.length} characters`);
  });

  it('refuses a tools/list cursor it never handed out with -32602', async () => {
    await assert.rejects(client.listTools({ cursor: 'page-2' }), (error: unknown) => {
      assert.ok(error instanceof ProtocolError);
      assert.equal(error.code, -32602);
      assert.match(error.message, /Invalid cursor/);
      return true;
    });
  });

  it('refuses an unknown tool with a JSON-RPC error naming only the tool', async () => {
    await assert.rejects(client.callTool({ name: 'no_such_tool', arguments: {} }), (error: unknown) => {
      assert.ok(error instanceof ProtocolError);
      assert.equal(error.code, -32602);
      assert.match(error.message, /Unknown tool: no_such_tool/);
      return true;
    });
  });

  it('reports a broken config file as a clear tool error', async () => {
    const { mkdtempSync, writeFileSync } = await import('node:fs');
    const { join } = await import('node:path');
    const { tmpdir } = await import('node:os');
    const home = mkdtempSync(join(tmpdir(), 'wallet-test-'));
    writeFileSync(join(home, 'config.json'), '{"evm": 5}');
    const broken = await connect({ WALLET_HOME: home });
    const result = await broken.callTool({ name: 'network_info', arguments: {} });
    assert.equal(result.isError, true);
    assert.match((result.content[0] as { text: string }).text, /config file .*config\.json is invalid at evm/);
    await broken.close();
  });
});
