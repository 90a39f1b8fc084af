/**
 * The three profiles of `wallet serve` (issue 18): what each tools/list costs an agent (byte
 * budgets, deterministic, so enforced here; tokens are measured in bench/context-cost.mjs), that
 * the compact profile reaches every action through the same calls, and that a client which
 * validates structuredContent against outputSchema (as the Python SDK does) is satisfied.
 */
import assert from 'node:assert/strict';
import { cpSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { InMemoryTransport } from '@modelcontextprotocol/server';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { createWalletServer } from '../../src/mcp/server.js';
import { walletServerOptions } from '../../src/mcp/setup.js';
import type { Profile } from '../../src/shared/profiles.js';
import {
  DEFINITIONS_DIGEST_META_KEY,
  DESCRIBE_ALL_META_KEY,
  ERROR_META_KEY,
  FULL_DESCRIPTION_META_KEY,
} from '../../src/shared/protocol-meta.js';
import { ALL_TOOLS, compactTools, describeTool } from '../../src/tools/index.js';
import { isSchemaRecord, SCHEMA_RECORD_FILE, type SchemaRecord } from '../../src/startup/schema-record.js';
import { tempHome } from '../helpers/io.js';
import { listingProblems, resultBytes, type Listed } from '../helpers/listing-budgets.js';
import { ROOT, WALLET_BIN } from '../helpers/paths.js';

type CallResult = Awaited<ReturnType<Client['callTool']>>;

async function connect(profile: Profile, readOnly = false): Promise<Client> {
  const server = createWalletServer(
    walletServerOptions({ localOnly: false, caller: 'agent', readOnly, profile, env: { WALLET_HOME: tempHome() } }),
  );
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const client = new Client({ name: 'profiles-test', version: '1' });
  await client.connect(clientSide);
  return client;
}

function errorCode(result: CallResult): string | undefined {
  return (result._meta?.[ERROR_META_KEY] as { code?: string } | undefined)?.code;
}

function textOf(result: CallResult): string {
  return (result.content as { type: string; text?: string }[]).map((block) => block.text ?? '').join('');
}

const SERVED = ALL_TOOLS.filter((tool) => tool.localOnly !== true);
const READ_ONLY = SERVED.filter((tool) => tool.annotations.readOnlyHint);

describe('profiles of wallet serve', () => {
  const clients = new Map<string, Client>();
  const lists = new Map<string, Listed>();
  before(async () => {
    for (const [key, profile, readOnly] of [
      ['default', 'default', false],
      ['default-ro', 'default', true],
      ['full', 'full', false],
      ['compact', 'compact', false],
      ['compact-ro', 'compact', true],
    ] as const) {
      const client = await connect(profile, readOnly);
      clients.set(key, client);
      lists.set(key, await client.listTools());
    }
  });
  after(async () => {
    for (const client of clients.values()) await client.close();
  });
  const list = (key: string): Listed => lists.get(key) ?? assert.fail(`no list ${key}`);
  const client = (key: string): Client => clients.get(key) ?? assert.fail(`no client ${key}`);

  it('default: every served tool, in catalogue order, within 600 B per tool and 400 B per tool for the model', () => {
    for (const [key, tools] of [
      ['default', SERVED],
      ['default-ro', READ_ONLY],
    ] as const) {
      const listed = list(key);
      assert.deepEqual(
        listed.tools.map((tool) => tool.name),
        tools.map((tool) => tool.name),
      );
      assert.deepEqual(listingProblems('default', listed), [], key);
    }
  });

  it('default: no noise in the schemas, no full text, no output schema; hints kept', () => {
    const text = JSON.stringify(list('default'));
    for (const noise of ['$schema', '9007199254740991', 'minLength', FULL_DESCRIPTION_META_KEY, 'outputSchema']) {
      assert.ok(!text.includes(noise), `the default list carries ${noise}`);
    }
    for (const tool of list('default').tools) {
      const definition = SERVED.find((candidate) => candidate.name === tool.name);
      assert.equal(tool.description, definition?.summary);
      assert.deepEqual(tool.annotations, definition?.annotations);
      assert.deepEqual(
        Object.keys(tool.inputSchema.properties ?? {}),
        Object.keys(describeTool(definition ?? assert.fail()).inputSchema['properties'] as object),
      );
    }
    const describer = list('default').tools.filter((tool) => tool._meta?.[DESCRIBE_ALL_META_KEY] !== undefined);
    assert.deepEqual(
      describer.map((tool) => [tool.name, tool._meta?.[DESCRIBE_ALL_META_KEY]]),
      [['tool_describe', {}]],
    );
  });

  it('full: today’s list, full descriptions and output schemas', () => {
    for (const tool of list('full').tools) {
      const definition = SERVED.find((candidate) => candidate.name === tool.name) ?? assert.fail(tool.name);
      assert.equal(tool._meta?.[FULL_DESCRIPTION_META_KEY], definition.description);
      assert.deepEqual(tool.inputSchema, describeTool(definition).inputSchema);
      assert.deepEqual(tool.outputSchema, describeTool(definition).outputSchema);
    }
    assert.ok(resultBytes(list('full')) > 2 * resultBytes(list('default')));
  });

  it('compact: at most 8 tools, under 4,000 bytes, each description naming every action', () => {
    for (const key of ['compact', 'compact-ro']) assert.deepEqual(listingProblems('compact', list(key)), [], key);
  });

  it('compact: every served tool is one action, and its hints are those of its most dangerous action', async () => {
    const described = (await client('compact').callTool({
      name: 'wallet_meta',
      arguments: { action: 'tool_describe' },
    })) as CallResult;
    const tools = (
      described.structuredContent as {
        tools: { name: string; actions: { action: string; tool: string; input_schema: object }[] }[];
      }
    ).tools;
    assert.deepEqual(
      tools.flatMap((tool) => tool.actions.map((action) => action.tool)).sort(),
      SERVED.map((tool) => tool.name).sort(),
    );
    for (const listed of list('compact').tools) {
      const actions = tools.find((tool) => tool.name === listed.name)?.actions ?? assert.fail(listed.name);
      const hints = actions.map(
        (action) => (SERVED.find((tool) => tool.name === action.tool) ?? assert.fail()).annotations,
      );
      assert.deepEqual(listed.annotations, {
        readOnlyHint: hints.every((hint) => hint.readOnlyHint),
        destructiveHint: hints.some((hint) => hint.destructiveHint),
        idempotentHint: hints.every((hint) => hint.idempotentHint),
        openWorldHint: hints.some((hint) => hint.openWorldHint),
      });
      for (const action of actions) {
        const definition = SERVED.find((tool) => tool.name === action.tool) ?? assert.fail();
        assert.deepEqual(action.input_schema, describeTool(definition).inputSchema);
      }
    }
    const spending = list('compact').tools.filter((tool) => tool.annotations?.destructiveHint);
    assert.ok(spending.some((tool) => tool.name === 'evm_tx') && spending.some((tool) => tool.name === 'core_funds'));
  });

  it('compact: each action answers exactly as its tool does in the default profile', async () => {
    const described = (await client('compact').callTool({
      name: 'wallet_meta',
      arguments: { action: 'tool_describe' },
    })) as CallResult;
    const tools = (
      described.structuredContent as { tools: { name: string; actions: { action: string; tool: string }[] }[] }
    ).tools;
    for (const compact of tools) {
      for (const { action, tool } of compact.actions) {
        // No arguments: a listing answers, anything that needs a wallet or an address is refused
        // by its own input check, before any confirmation, network or keystore work.
        const viaAction = (await client('compact').callTool({
          name: compact.name,
          arguments: { action },
        })) as CallResult;
        const direct = (await client('default').callTool({ name: tool, arguments: {} })) as CallResult;
        assert.equal(viaAction.isError, direct.isError, `${compact.name}.${action}`);
        assert.equal(errorCode(viaAction), errorCode(direct), `${compact.name}.${action}`);
        if (direct.isError) assert.equal(textOf(viaAction), textOf(direct));
        else if (tool !== 'tool_describe' && tool !== 'get_tool_definition') {
          assert.deepEqual(viaAction.structuredContent, direct.structuredContent, `${compact.name}.${action}`);
        }
      }
    }
  });

  it('compact: an unknown or missing action is INVALID_PARAM listing the valid ones', async () => {
    const wallet = compactTools(SERVED).find((tool) => tool.name === 'core_wallet') ?? assert.fail('no core_wallet');
    const valid = wallet.actions.map(({ action }) => action);
    assert.ok(valid.includes('create') && !valid.includes('export'), valid.join(', '));
    for (const args of [{ action: 'explode' }, {}, { action: 42 }]) {
      const result = (await client('compact').callTool({ name: 'core_wallet', arguments: args })) as CallResult;
      assert.equal(result.isError, true);
      assert.equal(errorCode(result), 'INVALID_PARAM');
      const meta = result._meta?.[ERROR_META_KEY] as { hint?: string };
      assert.equal(
        meta.hint,
        `Pass action as one of: ${valid.join(', ')}. tool_describe shows each action's arguments.`,
      );
      assert.ok(!textOf(result).includes('explode'), 'the unvalidated value is not repeated');
    }
    const unknownTool = client('compact').callTool({ name: 'core_wallet_create', arguments: {} });
    await assert.rejects(unknownTool, /Unknown tool/);
  });

  it('tool_describe without a name describes every tool; with one, that tool', async () => {
    const all = (await client('default').callTool({ name: 'tool_describe', arguments: {} })) as CallResult;
    const described = (all.structuredContent as { tools: { name: string; description: string }[] }).tools;
    assert.deepEqual(
      described.map((tool) => tool.name),
      SERVED.map((tool) => tool.name),
    );
    for (const tool of described) {
      assert.equal(tool.description, SERVED.find((candidate) => candidate.name === tool.name)?.description);
    }
    const one = (await client('default').callTool({
      name: 'tool_describe',
      arguments: { name: 'core-wallet-create' },
    })) as CallResult;
    assert.deepEqual(
      (one.structuredContent as { tools: { name: string }[] }).tools.map((tool) => tool.name),
      ['core_wallet_create'],
    );
  });

  it('structuredContent validates against the output schema, as the Python SDK checks it', async () => {
    const ajv = new Ajv2020({ strict: false });
    const outputSchemas = new Map<string, object>();
    for (const tool of list('full').tools) if (tool.outputSchema) outputSchemas.set(tool.name, tool.outputSchema);
    const describedAll = (await client('default').callTool({ name: 'tool_describe', arguments: {} })) as CallResult;
    const described = (describedAll.structuredContent as { tools: { name: string; output_schema: object }[] }).tools;
    const calls: [string, Record<string, unknown>][] = [
      ['network_info', {}],
      ['core_wallets_list', {}],
      ['core_address_validate', { address: 'yRd4FhXfVGHXpsuZXPNkMrfD9GVj46pnjt' }],
      ['evm_accounts_list', {}],
      ['tool_describe', { name: 'network_info' }],
      ['get_tool_definition', {}],
    ];
    for (const [name, args] of calls) {
      for (const key of ['full', 'default']) {
        const result = (await client(key).callTool({ name, arguments: args })) as CallResult;
        assert.equal(result.isError, undefined, `${key} ${name}`);
        // The full list's schema, and for the default list the one tool_describe gives: the same.
        const schema =
          key === 'full' ? outputSchemas.get(name) : described.find((tool) => tool.name === name)?.output_schema;
        assert.ok(schema, name);
        assert.ok(ajv.validate(schema, result.structuredContent), `${key} ${name}: ${ajv.errorsText()}`);
      }
    }
  });

  it('get_tool_definition describes the tools as this profile lists them', async () => {
    for (const key of ['default', 'full', 'compact']) {
      const arguments_ = key === 'compact' ? { action: 'get_tool_definition' } : {};
      const name = key === 'compact' ? 'wallet_meta' : 'get_tool_definition';
      const result = (await client(key).callTool({ name, arguments: arguments_ })) as CallResult;
      const functions = (result.structuredContent as { tool: { functions: { name: string; parameters: unknown }[] } })
        .tool.functions;
      assert.deepEqual(
        functions.map((fn) => [fn.name, fn.parameters]),
        list(key).tools.map((tool) => [tool.name, tool.inputSchema]),
      );
    }
  });
});

/** A copy of the package (bin, dist, package.json) whose schema record `edit` changed. */
function packageWithRecord(edit: (record: SchemaRecord) => SchemaRecord): string {
  const root = tempHome();
  for (const part of ['bin', 'dist', 'package.json']) cpSync(join(ROOT, part), join(root, part), { recursive: true });
  const file = join(root, SCHEMA_RECORD_FILE);
  const record: unknown = JSON.parse(readFileSync(file, 'utf8'));
  assert.ok(isSchemaRecord(record), `${SCHEMA_RECORD_FILE} has not the record's shape`);
  writeFileSync(file, JSON.stringify(edit(record)));
  return root;
}

/** The default profile's tools/list of `wallet serve` run from `root`'s bin/wallet.js. */
async function servedFrom(root: string): Promise<Listed> {
  const client = new Client({ name: 'profiles-test', version: '1' });
  await client.connect(
    new StdioClientTransport({
      command: process.execPath,
      args: [join(root, 'bin', 'wallet.js'), 'serve'],
      env: { PATH: process.env['PATH'] ?? '', WALLET_HOME: tempHome() },
      stderr: 'ignore',
    }),
  );
  try {
    return await client.listTools();
  } finally {
    await client.close();
  }
}

describe('the bundle serves each profile as the compiled modules do', () => {
  it("takes its schemas from its build's record, and no other record", async () => {
    const brief = (record: SchemaRecord, stamp: string): SchemaRecord => {
      const info = record.tools['network_info'];
      assert.ok(info);
      const lean = { ...info.lean, description: 'A brief only the record has' };
      return { digest: stamp, tools: { ...record.tools, network_info: { ...info, lean } } };
    };
    const described = (listed: Listed) => listed.tools.find((tool) => tool.name === 'network_info')?.inputSchema;
    const own = packageWithRecord((record) => brief(record, record.digest));
    const other = packageWithRecord((record) => brief(record, '0123456789abcdef'));
    try {
      assert.equal(described(await servedFrom(own))?.['description'], 'A brief only the record has');
      assert.equal(described(await servedFrom(other))?.['description'], undefined, 'converted, not from the record');
    } finally {
      rmSync(own, { recursive: true, force: true });
      rmSync(other, { recursive: true, force: true });
    }
  });

  // The bundle takes every schema from the build's record (dist/tool-schemas.json) instead of
  // converting the tools' zod schemas: what it lists and what tool_describe answers must be what
  // the modules it was built from convert, byte for byte, the briefs of the lean form included.
  for (const profile of ['default', 'full', 'compact'] as const) {
    it(`${profile}: tools/list and describe-all alike`, async () => {
      const describeAll =
        profile === 'compact'
          ? { name: 'wallet_meta', arguments: { action: 'tool_describe' } }
          : { name: 'tool_describe', arguments: {} };
      const modules = await connect(profile);
      const bundle = new Client({ name: 'profiles-test', version: '1' });
      try {
        await bundle.connect(
          new StdioClientTransport({
            command: process.execPath,
            args: [WALLET_BIN, 'serve', '--profile', profile],
            env: { PATH: process.env['PATH'] ?? '', WALLET_HOME: tempHome() },
            stderr: 'ignore',
          }),
        );
        const served = await bundle.listTools();
        // Only the bundle carries its build's digest of the definitions, beside the describe-all
        // marker (which a full list, complete already, has not).
        const digests = served.tools.flatMap((tool) => {
          if (!tool._meta || !(DEFINITIONS_DIGEST_META_KEY in tool._meta)) return [];
          const { [DEFINITIONS_DIGEST_META_KEY]: digest, ...rest } = tool._meta;
          tool._meta = rest;
          return [digest];
        });
        assert.equal(digests.length, profile === 'full' ? 0 : 1, 'the describing tool carries the digest');
        assert.deepEqual(served.tools, (await modules.listTools()).tools);
        assert.deepEqual(await bundle.callTool(describeAll), await modules.callTool(describeAll));
      } finally {
        await bundle.close();
        await modules.close();
      }
    });
  }
});
