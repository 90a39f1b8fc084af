import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { z } from 'zod';
import { commandToToolName, isValidToolName, toolNameToCommand } from '../../src/shared/naming.js';
import { ToolCatalogue, definitionProblems, describeTool } from '../../src/tools/catalogue.js';
import { defineTool } from '../../src/tools/define.js';
import { coinsOf, tokenUnits, WeiAmount } from '../../src/tools/fields.js';
import { ALL_TOOLS, servedTools } from '../../src/tools/index.js';

const HINTS = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false };

function sampleTool(overrides: Partial<Parameters<typeof defineTool>[0]> = {}) {
  return defineTool({
    name: 'core_thing_get',
    group: 'core_wallet',
    title: 'Demo',
    summary: 'Gets a demo thing',
    description: 'Gets a demo thing.',
    input: () => z.strictObject({ id: z.string().describe('The id.') }),
    output: () => z.object({ id: z.string().describe('The id.') }),
    annotations: HINTS,
    handler: async ({ id }) => ({ id }),
    ...overrides,
  });
}

describe('every registered tool', () => {
  for (const tool of ALL_TOOLS) {
    it(`${tool.name}: is a sound definition`, () => {
      assert.deepEqual(definitionProblems(tool), []);
    });
    it(`${tool.name}: name and command round-trip`, () => {
      const command = toolNameToCommand(tool.name);
      assert.match(command, /^[a-z][a-z0-9]*(-[a-z0-9]+)+$/);
      assert.equal(commandToToolName(command), tool.name);
      assert.equal(describeTool(tool).command, command);
    });
    it(`${tool.name}: sets all four annotation hints`, () => {
      for (const key of ['readOnlyHint', 'destructiveHint', 'idempotentHint', 'openWorldHint'] as const) {
        assert.equal(typeof tool.annotations[key], 'boolean', key);
      }
    });
  }

  it('has unique names', () => {
    assert.equal(new Set(ALL_TOOLS.map((tool) => tool.name)).size, ALL_TOOLS.length);
  });
});

describe('definition checks name the tool and the problem', () => {
  const cases: [string, Parameters<typeof sampleTool>[0], RegExp][] = [
    ['bad name', { name: 'DemoGet' }, /name must match domain_object_action/],
    ['two-part name', { name: 'core_get' }, /name must match/],
    ['long summary', { summary: 'x'.repeat(61) }, /summary is 61 characters \(at most 60\)/],
    ['empty description', { description: ' ' }, /description is empty/],
    [
      'undeclared group',
      { group: 'core_thing' as unknown as 'core_wallet' },
      /group 'core_thing' is not declared in src\/tools\/compact-groups\.ts: join one of wallet_meta, core_wallet/,
    ],
    [
      'group of another domain',
      { group: 'evm_account' },
      /group 'evm_account' is not of the core domain: join a core_… group/,
    ],
    [
      'meta tool outside wallet_meta',
      { name: 'network_info', group: 'core_wallet' },
      /a meta tool's group is wallet_meta/,
    ],
    [
      'missing hint',
      { annotations: { ...HINTS, openWorldHint: undefined as unknown as boolean } },
      /annotation openWorldHint is not set/,
    ],
    [
      'read-only and destructive',
      { annotations: { ...HINTS, destructiveHint: true } },
      /read-only tool cannot be destructive/,
    ],
    [
      'destructive without audit fields',
      { annotations: { ...HINTS, readOnlyHint: false, destructiveHint: true } },
      /a destructive tool must declare audit/,
    ],
    [
      'destructive without consent',
      { annotations: { ...HINTS, readOnlyHint: false, destructiveHint: true }, audit: () => ({}) },
      /a destructive tool must declare consent/,
    ],
    ['read-only with consent', { consent: 'human', audit: () => ({}) }, /a read-only tool needs no consent/],
    [
      'consent without audit fields',
      { annotations: { ...HINTS, readOnlyHint: false }, consent: 'human' },
      /a tool that needs consent must declare audit/,
    ],
    ['precheck without consent', { precheck: async () => undefined }, /precheck is for a tool that needs consent/],
    ['undescribed input', { input: () => z.strictObject({ id: z.string() }) }, /input field id has no description/],
    [
      'undescribed nested input',
      { input: () => z.strictObject({ to: z.object({ address: z.string() }).describe('Recipient.') }) },
      /input field to\.address has no description/,
    ],
    ['loose input', { input: () => z.object({ id: z.string().describe('The id.') }) }, /z\.strictObject/],
    [
      'secret not local-only',
      { input: () => z.strictObject({ mnemonic: z.string().meta({ format: 'password' }).describe('Words.') }) },
      /mnemonic is secret, so the tool must be localOnly/,
    ],
    [
      'nullable secret not local-only',
      { input: () => z.strictObject({ key: z.string().meta({ format: 'password' }).nullable().describe('Key.') }) },
      /key is secret, so the tool must be localOnly/,
    ],
    [
      'secret list not local-only',
      { input: () => z.strictObject({ keys: z.array(z.string().meta({ writeOnly: true })).describe('Keys.') }) },
      /keys is secret/,
    ],
    ['undescribed output', { output: () => z.object({ id: z.string() }) }, /output field id has no description/],
    [
      'QR field not in the output',
      { receiveAddressField: 'address' },
      /receiveAddressField address is not an output field/,
    ],
    ['dry-run field that does not exist', { dryRunField: 'dry_run' }, /dryRunField dry_run is not an optional boolean/],
    [
      'dry-run field that is no boolean',
      { dryRunField: 'id', input: () => z.strictObject({ id: z.string().optional().describe('An id.') }) },
      /dryRunField id is not an optional boolean/,
    ],
    [
      'dry-run field that is required',
      { dryRunField: 'plan', input: () => z.strictObject({ plan: z.boolean().describe('Plan only.') }) },
      /dryRunField plan is not an optional boolean/,
    ],
    [
      'amount field without a unit',
      { output: () => z.object({ fee_dash: z.string().describe('The fee.') }) },
      /output field fee_dash looks like an amount but declares no unit/,
    ],
    [
      'nested amount field without a unit',
      {
        input: () =>
          z.strictObject({
            to: z.array(z.strictObject({ amount: z.string().describe('How much.') })).describe('Payees.'),
          }),
      },
      /input field to\.amount looks like an amount but declares no unit/,
    ],
    [
      'unknown unit',
      { output: () => z.object({ fee: z.string().meta({ 'x-unit': 'satoshi' }).describe('The fee.') }) },
      /output field fee declares an unknown unit satoshi/,
    ],
    [
      'token unit naming an absent decimals field',
      { output: () => z.object({ balance: tokenUnits('decimals').describe('Held.') }) },
      /output field balance names decimals in its unit, which is not a field beside it/,
    ],
    [
      'coin twin of an absent field',
      { output: () => z.object({ total_dash: coinsOf('total_duffs').describe('Total.') }) },
      /output field total_dash names total_duffs in its unit/,
    ],
    [
      'fee field that declares no unit',
      {
        dryRunField: 'dry_run',
        feeField: { field: 'cost' },
        input: () => z.strictObject({ dry_run: z.boolean().optional().describe('Plan only.') }),
        output: () => z.object({ cost: z.string().describe('What it costs.') }),
      },
      /feeField cost is not an output field declaring duffs or wei/,
    ],
    [
      'check field that is not an output field',
      { checkField: 'valid' },
      /checkField valid is not a required boolean output field/,
    ],
    [
      'check field that is optional',
      { checkField: 'ok', output: () => z.object({ ok: z.boolean().optional().describe('Passed.') }) },
      /checkField ok is not a required boolean output field/,
    ],
    ['outcome on a tool that is not audited', { outcome: 'sent' }, /outcome sent is for the audit line/],
    [
      'fee field without a dry run',
      { feeField: { field: 'fee' }, output: () => z.object({ fee: WeiAmount.describe('The fee.') }) },
      /feeField needs a dryRunField/,
    ],
  ];
  for (const [label, overrides, expected] of cases) {
    it(label, () => {
      const tool = sampleTool(overrides);
      const catalogue = new ToolCatalogue([tool]);
      // Refused before its first use: listed, or looked up for a call.
      for (const use of [() => catalogue.list(), () => catalogue.get(tool.name)]) {
        assert.throws(use, (error: Error) => {
          assert.match(error.message, new RegExp(`tool '${tool.name}': `));
          assert.match(error.message, expected);
          return true;
        });
      }
    });
  }

  it('accepts a sound sample and refuses a duplicate', () => {
    assert.equal(new ToolCatalogue([sampleTool()]).list().length, 1);
    assert.throws(() => new ToolCatalogue([sampleTool(), sampleTool()]), /registered twice/);
  });

  it('counts its tools without checking them (a server logs the count at start, before any listing)', () => {
    const unsound = sampleTool({ summary: '' });
    const catalogue = new ToolCatalogue([sampleTool({ name: 'core_other_get' }), unsound]);
    assert.equal(catalogue.size, 2);
    assert.throws(() => catalogue.list(), /summary is empty/);
  });
});

describe('naming', () => {
  it('allows only the meta tools outside the pattern', () => {
    assert.ok(isValidToolName('core_address_create'));
    assert.ok(isValidToolName('network_info'));
    assert.ok(!isValidToolName('wallet_info'));
    assert.ok(!isValidToolName('core__x_y'));
  });
});

describe('served tools', () => {
  const reader = sampleTool({ name: 'core_thing_get' });
  const writer = sampleTool({
    name: 'core_thing_delete',
    annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false },
    consent: 'human',
    audit: () => ({}),
  });
  const secret = sampleTool({
    name: 'core_secret_export',
    localOnly: true,
    input: () => z.strictObject({ mnemonic: z.string().meta({ format: 'password' }).describe('Words.') }),
  });
  const names = (options: { localOnly: boolean; readOnly: boolean }) =>
    servedTools(options, [reader, writer, secret])
      .list()
      .map((tool) => tool.name);

  it('the local CLI gets every tool', () => {
    assert.deepEqual(names({ localOnly: true, readOnly: false }), [
      'core_thing_get',
      'core_thing_delete',
      'core_secret_export',
    ]);
  });
  it('serve never gets local-only tools', () => {
    assert.deepEqual(names({ localOnly: false, readOnly: false }), ['core_thing_get', 'core_thing_delete']);
  });
  it('serve --read-only gets only read-only tools', () => {
    assert.deepEqual(names({ localOnly: false, readOnly: true }), ['core_thing_get']);
  });
});

describe('wallet tool annotations (the design contract)', () => {
  it('every destructive tool declares the fields of its audit-log line', () => {
    const destructive = ALL_TOOLS.filter((tool) => tool.annotations.destructiveHint);
    assert.ok(destructive.length >= 8, `${destructive.length} destructive tools`);
    for (const tool of destructive) {
      assert.equal(typeof tool.audit, 'function', `${tool.name} is destructive: give it audit(input, output)`);
      assert.ok(tool.consent !== undefined, `${tool.name} is destructive: declare consent ('policy' or 'human')`);
    }
  });
  it('a tool that checks something declares its check field, so the CLI exits 1 when it fails', () => {
    const checking = ALL_TOOLS.filter((tool) => 'valid' in tool.output.shape);
    assert.ok(checking.length >= 3, checking.map((tool) => tool.name).join(', '));
    for (const tool of checking) assert.equal(tool.checkField, 'valid', `${tool.name}: declare checkField`);
  });
  it('a tool with a dry run declares it, so confirmations can show its plan', () => {
    const planning = ALL_TOOLS.filter((tool) => 'dry_run' in tool.input.shape);
    assert.ok(planning.length >= 2, planning.map((tool) => tool.name).join(', '));
    for (const tool of planning) assert.equal(tool.dryRunField, 'dry_run', `${tool.name}: declare dryRunField`);
  });
  it('every destructive tool requires an explicit network', () => {
    for (const tool of ALL_TOOLS.filter((candidate) => candidate.annotations.destructiveHint)) {
      assert.ok(
        ((describeTool(tool).inputSchema['required'] as string[] | undefined) ?? []).includes('network'),
        tool.name,
      );
    }
  });
});
