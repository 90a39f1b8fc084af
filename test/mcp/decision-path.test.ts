/**
 * One decision path: an agent's payment through `wallet serve`'s consent gate is validated once,
 * planned once (its dry run) and decided once, and the real handler runs only to sign, never to
 * find out whether the policy would refuse it. Counted on the real tool, against a real anvil,
 * through the real server and an SDK client: schema validations, dry runs, real runs.
 */
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { Client } from '@modelcontextprotocol/client';
import { InMemoryTransport } from '@modelcontextprotocol/server';
import type { z } from 'zod';
import { WalletServices } from '../../src/domain/services.js';
import { createWalletServer } from '../../src/mcp/server.js';
import { ALL_TOOLS, ToolCatalogue, type AnyTool } from '../../src/tools/index.js';
import { startAnvil, type AnvilNode } from '../helpers/anvil.js';
import { approveAsOwner } from '../helpers/approvals.js';
import { tempHome } from '../helpers/io.js';
import { importAnvilAccount } from '../helpers/mcp.js';
import { writeLocalPolicy } from '../helpers/policy.js';

const PASSPHRASE = 'decision passphrase';
const RECIPIENT = '0x90F79bf6EB2c4f870365E785982E1f101E93b906';
const MILLI = 10n ** 15n;

type Counts = { validations: number; plans: number; runs: number };

/** evm_funds_send with its schema validations and handler runs (dry or real) counted. */
function counted(tool: AnyTool, counts: Counts): AnyTool {
  const schema = tool.input;
  const input = new Proxy(schema, {
    get(target, key) {
      if (key === 'safeParse') {
        return (value: unknown) => {
          counts.validations += 1;
          return target.safeParse(value);
        };
      }
      return Reflect.get(target, key, target) as unknown;
    },
  }) as z.ZodObject;
  return {
    ...tool,
    input,
    output: tool.output,
    handler: (args: unknown, context) => {
      if ((args as Record<string, unknown>)['dry_run'] === true) counts.plans += 1;
      else counts.runs += 1;
      return tool.handler(args, context);
    },
  };
}

async function agentClient(home: string, node: AnvilNode, counts: Counts): Promise<Client> {
  const tools = ALL_TOOLS.filter((tool) => !tool.localOnly).map((tool) =>
    tool.name === 'evm_funds_send' ? counted(tool, counts) : tool,
  );
  const server = createWalletServer({
    catalogue: new ToolCatalogue(tools),
    services: new WalletServices({
      env: { WALLET_HOME: home, WALLET_EVM_LOCAL_URL: node.url },
      passphrase: PASSPHRASE,
    }),
    caller: 'agent',
  });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  // A client that declares no elicitation: the owner answers out of band.
  const client = new Client({ name: 'counting-agent', version: '1' });
  await client.connect(clientSide);
  return client;
}

describe('one decision path', () => {
  let node: AnvilNode;
  let home: string;

  before(async () => {
    node = await startAnvil({ chainId: 31337 });
    home = tempHome();
    await importAnvilAccount(home, PASSPHRASE, { walletAlias: 'w', accountAlias: 'payer' });
    writeLocalPolicy(home, {
      autonomous: { max_per_tx_wei: (10n * MILLI).toString(), max_per_24h_wei: (20n * MILLI).toString() },
    });
  });
  after(async () => {
    await node.stop();
    rmSync(home, { recursive: true, force: true });
  });

  it('a payment with a question: one plan to ask, one real run once approved', async () => {
    const counts: Counts = { validations: 0, plans: 0, runs: 0 };
    const client = await agentClient(home, node, counts);
    try {
      const args = { address: 'payer', to: RECIPIENT, value_wei: (50n * MILLI).toString(), network: 'local' };
      const asked = await client.callTool({ name: 'evm_funds_send', arguments: args });
      await approveAsOwner(home, asked);
      assert.deepEqual(counts, { validations: 1, plans: 1, runs: 0 }, 'asking: validated once, planned once');
      const sent = await client.callTool({ name: 'evm_funds_send', arguments: args });
      assert.equal(sent.isError, undefined, JSON.stringify(sent._meta));
      assert.equal((sent.structuredContent as Record<string, unknown>)['sent'], true);
      // The agent's repeat of the call is a second tools/call, validated where it enters.
      assert.deepEqual(counts, { validations: 2, plans: 1, runs: 1 }, 'approved: run once, not planned again');
      process.stderr.write(`decision path, payment with a question: ${JSON.stringify(counts)}\n`);
    } finally {
      await client.close();
    }
  });

  it('an autonomous payment: planned and decided once, then run once', async () => {
    const counts: Counts = { validations: 0, plans: 0, runs: 0 };
    const client = await agentClient(home, node, counts);
    try {
      const args = { address: 'payer', to: RECIPIENT, value_wei: MILLI.toString(), network: 'local' };
      const sent = await client.callTool({ name: 'evm_funds_send', arguments: args });
      assert.equal((sent.structuredContent as Record<string, unknown>)['sent'], true, JSON.stringify(sent._meta));
      assert.deepEqual(counts, { validations: 1, plans: 1, runs: 1 });
      process.stderr.write(`decision path, autonomous payment: ${JSON.stringify(counts)}\n`);
    } finally {
      await client.close();
    }
  });
});
