/**
 * The registry's promise, in the unit tier: a tool is defined once and everything follows. Every
 * invariant that a new tool could break (a sound definition, unique names, the budgets of each
 * profile's tools/list, the compact profile's size, the CLI's command, completions and
 * docs/TOOLS.md) is checked over the registered tools and over the registered tools plus a new
 * tool of a new object, written as docs/ARCHITECTURE.md's "How to add a tool" says. These used to
 * fail only after minutes of `npm test`, in a served compact list.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Client } from '@modelcontextprotocol/client';
import { InMemoryTransport } from '@modelcontextprotocol/server';
import { z } from 'zod';
import { toolCommands } from '../../src/cli/commands.js';
import { COMPLETION_SHELLS, completionScript } from '../../src/cli/completion/index.js';
import { createWalletServer } from '../../src/mcp/server.js';
import { walletServerOptions } from '../../src/mcp/setup.js';
import type { Profile } from '../../src/shared/profiles.js';
import { definitionProblems } from '../../src/tools/catalogue.js';
import { defineTool, type AnyTool } from '../../src/tools/define.js';
import { OptionalEvmNetwork } from '../../src/tools/fields.js';
import { COMPACT_GROUPS, COMPACT_MAX_TOOLS } from '../../src/tools/compact-groups.js';
import { ALL_TOOLS, findServed, servedTools } from '../../src/tools/index.js';
import { renderToolsMarkdown } from '../../src/tools/tools-markdown.js';
import { tempHome } from '../helpers/io.js';
import { listingProblems, type Listed } from '../helpers/listing-budgets.js';

/** An object no registered tool has, so the recipe's tool below stays new whatever tools are added. */
const NEW_OBJECT = 'recipeprobe';

/** A read-only tool of an object no tool had, as the recipe writes it. */
const RECIPE_TOOL = defineTool({
  name: `evm_${NEW_OBJECT}_get`,
  group: 'evm_account',
  title: 'EVM chain id',
  summary: 'Get the chain id of an EVM network',
  description: ['Asks the network node for its chain id (EIP-155).', '', 'Example:', '  wallet evm-chain-id-get'].join(
    '\n',
  ),
  input: () => z.strictObject({ network: OptionalEvmNetwork }),
  output: () => z.object({ chain_id: z.string().describe('The chain id, in digits.') }),
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: true },
  handler: async () => assert.fail('the registry test lists tools, it calls none'),
});

type Setup = { localOnly: boolean; readOnly: boolean; profile: Profile };

/** tools/list of a wallet server of these tools, through a real client, in memory. */
async function listed(tools: readonly AnyTool[], setup: Setup): Promise<Listed> {
  const server = createWalletServer({
    ...walletServerOptions({ ...setup, caller: 'agent', env: { WALLET_HOME: tempHome() } }),
    catalogue: servedTools(setup, tools),
  });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const client = new Client({ name: 'registry-test', version: '1' });
  await client.connect(clientSide);
  try {
    return await client.listTools();
  } finally {
    await client.close();
  }
}

describe('registry: the compact groups', () => {
  it('the recipe tool is of an object no registered tool has', () => {
    assert.deepEqual(
      ALL_TOOLS.filter((tool) => tool.name.split('_')[1] === NEW_OBJECT).map((tool) => tool.name),
      [],
    );
  });
  it(`declares at most ${COMPACT_MAX_TOOLS}, each with a label`, () => {
    const groups = Object.entries(COMPACT_GROUPS);
    assert.ok(groups.length <= COMPACT_MAX_TOOLS, `${groups.length} groups in src/tools/compact-groups.ts`);
    for (const [group, label] of groups) assert.match(`${group} ${label}`, /^[a-z0-9]+_[a-z0-9]+ \S/);
  });
});

for (const [label, tools] of [
  ['the registered tools', ALL_TOOLS],
  ['a new tool in a new object, added by the recipe', [...ALL_TOOLS, RECIPE_TOOL]],
] as const) {
  describe(`registry: ${label}`, () => {
    it('every definition is sound, every name unique', () => {
      assert.deepEqual(
        tools.flatMap((tool) => definitionProblems(tool).map((problem) => `${tool.name}: ${problem}`)),
        [],
      );
      assert.equal(new Set(tools.map((tool) => tool.name)).size, tools.length);
    });

    it('every profile of wallet serve keeps its budgets, read-only or not', async () => {
      for (const profile of ['default', 'full', 'compact'] as const) {
        for (const readOnly of [false, true]) {
          const list = await listed(tools, { localOnly: false, readOnly, profile });
          assert.ok(list.tools.length > 0, `${profile}${readOnly ? ' --read-only' : ''} lists no tool`);
          assert.deepEqual(listingProblems(profile, list), [], `${profile}${readOnly ? ' --read-only' : ''}`);
        }
      }
    });

    it('every tool is an action of its declared compact group', () => {
      for (const tool of tools) {
        const found = findServed(tools, 'compact', tool.group);
        assert.ok(found && 'compact' in found, `${tool.name}: no compact tool ${tool.group}`);
        assert.ok(
          found.compact.actions.some((action) => action.tool === tool),
          `${tool.name} is not an action of ${tool.group}`,
        );
      }
    });

    it('the CLI makes a command of every tool; completions and docs/TOOLS.md name it', async () => {
      // What the CLI sees: its in-process server serves every tool, the local-only ones too.
      const commands = toolCommands((await listed(tools, { localOnly: true, readOnly: false, profile: 'full' })).tools);
      const markdown = renderToolsMarkdown(tools);
      for (const shell of COMPLETION_SHELLS) {
        const script = completionScript(shell, commands);
        for (const { command } of commands) assert.ok(script.includes(command), `${shell} completes ${command}`);
      }
      for (const tool of tools) {
        const command = commands.find((candidate) => candidate.tool.name === tool.name);
        assert.equal(command?.command, tool.name.replaceAll('_', '-'), tool.name);
        assert.ok(markdown.includes(`## ${tool.name}\n`), `docs/TOOLS.md describes ${tool.name}`);
      }
    });
  });
}
