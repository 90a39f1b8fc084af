/**
 * tool_describe, through a real SDK client on the wallet's server (in memory): the full definition
 * of a tool, found by its name or its CLI command, and what it answers for a name it does not know.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { tempHome } from '../../helpers/io.js';
import { failureCode, localServer, type ToolCaller } from '../../helpers/mcp.js';

type Described = { tools: Record<string, unknown>[] };

describe('tool_describe', () => {
  let server: ToolCaller;
  before(async () => {
    server = await localServer({ env: { WALLET_HOME: tempHome() }, caller: 'agent', localOnly: false });
  });
  after(() => server.close());

  it('returns the full definition and the CLI command', async () => {
    const [described, ...others] = (await server.call<Described>('tool_describe', { name: 'tool-describe' })).tools;
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

  it('finds a tool by its name as well as by its command, with the same answer', async () => {
    const byName = await server.call<Described>('tool_describe', { name: 'network_info' });
    const byCommand = await server.call<Described>('tool_describe', { name: 'network-info' });
    assert.deepEqual(byName, byCommand);
    assert.equal(byName.tools[0]?.['name'], 'network_info');
  });

  it('refuses a name no tool has, with a code', async () => {
    assert.ok(await failureCode(server.call('tool_describe', { name: 'no_such_tool' })));
  });
});
