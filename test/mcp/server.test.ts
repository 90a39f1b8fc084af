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

  it('calls a tool: structuredContent plus the same JSON as text, credentials redacted', async () => {
    const result = await client.callTool({ name: 'network_info', arguments: { chain: 'core' } });
    assert.equal(result.isError, undefined);
    const structured = result.structuredContent as { networks: { network: string; endpoint: string | null }[] };
    assert.deepEqual(structured, JSON.parse((result.content[0] as { text: string }).text));
    assert.deepEqual(
      structured.networks.map((entry) => entry.network),
      ['mainnet', 'testnet', 'regtest'],
    );
    const regtest = structured.networks.find((entry) => entry.network === 'regtest');
    assert.equal(regtest?.endpoint, 'http://***@127.0.0.1:19443/');
    assert.ok(!JSON.stringify(result).includes('rpcpass'));
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

  it('tool_describe returns the full definition and the CLI command', async () => {
    const result = await client.callTool({ name: 'tool_describe', arguments: { name: 'tool-describe' } });
    const [described, ...others] = (result.structuredContent as { tools: Record<string, unknown>[] }).tools;
    assert.equal(others.length, 0);
    assert.ok(described);
    assert.equal(described['name'], 'tool_describe');
    assert.equal(described['command'], 'tool-describe');
    assert.match(String(described['description']), /Examples: wallet tool-describe --name network_info/);
    assert.deepEqual(Object.keys(described['input_schema'] as object).includes('properties'), true);
    assert.deepEqual(described['annotations'], {
      readOnlyHint: true,
      destructiveHint: false,
      idempotentHint: true,
      openWorldHint: false,
    });
  });

  it('get_tool_definition describes every tool as a function', async () => {
    const result = await client.callTool({ name: 'get_tool_definition', arguments: {} });
    const document = result.structuredContent as {
      tool: { name: string; functions: { name: string; parameters: { type: string } }[] };
    };
    assert.equal(document.tool.name, 'wallet');
    assert.deepEqual(
      document.tool.functions.map((fn) => fn.name),
      SERVED.map((tool) => tool.name),
    );
    for (const fn of document.tool.functions) assert.equal(fn.parameters.type, 'object');
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
