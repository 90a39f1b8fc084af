/**
 * get_tool_definition, through a real SDK client on the wallet's server (in memory): one document
 * describing every tool the server serves as a function an agent's config can take.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ALL_TOOLS } from '../../../src/tools/index.js';
import { tempHome } from '../../helpers/io.js';
import { localServer, type ToolCaller } from '../../helpers/mcp.js';

type Document = {
  tool: { name: string; functions: { name: string; description: string; parameters: { type: string } }[] };
};

/** What a served (not local) server lists: every tool but those that reveal or accept secrets. */
const SERVED = ALL_TOOLS.filter((tool) => tool.localOnly !== true);

describe('get_tool_definition', () => {
  let server: ToolCaller;
  before(async () => {
    server = await localServer({ env: { WALLET_HOME: tempHome() }, caller: 'agent', localOnly: false });
  });
  after(() => server.close());

  it('describes every tool served as a function', async () => {
    const document = await server.call<Document>('get_tool_definition', {});
    assert.equal(document.tool.name, 'wallet');
    assert.deepEqual(
      document.tool.functions.map((fn) => fn.name),
      SERVED.map((tool) => tool.name),
    );
    for (const fn of document.tool.functions) assert.equal(fn.parameters.type, 'object');
  });

  it("the CLI's own server (local-only tools too) describes those as well", async () => {
    const local = await localServer({ env: { WALLET_HOME: tempHome() } });
    try {
      const document = await local.call<Document>('get_tool_definition', {});
      assert.deepEqual(
        document.tool.functions.map((fn) => fn.name),
        ALL_TOOLS.map((tool) => tool.name),
      );
    } finally {
      await local.close();
    }
  });
});
