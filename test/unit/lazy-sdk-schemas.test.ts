import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { types } from 'node:util';
import * as sdk from '@modelcontextprotocol/core/internal';
import { z } from 'zod';
import { bundleWithPlugin } from '../helpers/plugin-bundle.js';

type Exports = Record<string, unknown> & { __z: typeof z };

/** What converting `schema` to JSON Schema gives, or the error it throws (the same either way). */
function converted(zod: typeof z, schema: z.ZodType, io: 'input' | 'output'): unknown {
  try {
    return {
      schema: zod.toJSONSchema(schema, { io }),
      standard: schema['~standard'].jsonSchema?.[io]({ target: 'draft-2020-12' }),
    };
  } catch (error) {
    return { threw: error instanceof Error ? error.message : String(error) };
  }
}

const isSchema = (value: unknown): value is z.ZodType => typeof value === 'object' && value !== null && '_zod' in value;

/**
 * The build's plugin that defers the MCP SDK's protocol schemas (src/startup/bundle-options.mjs), on
 * the SDK's core package bundled with it: every exported schema must be a stand-in (but the
 * `z.lazy` it leaves alone), convert to the same JSON Schema as the SDK's own, keep the aliases
 * the same object and parse alike.
 */
describe("the bundles' lazy SDK schemas: the SDK's core, bundled with the plugin, against the SDK", () => {
  let bundled: Exports;
  before(async () => {
    ({ exports: bundled } = await bundleWithPlugin<Exports>(
      'lazySdkSchemas',
      "export * from '@modelcontextprotocol/core/internal';\nexport { z as __z } from 'zod';\n",
      'lazy-sdk-schemas/core',
    ));
  });

  const schemaNames = () => Object.keys(sdk).filter((name) => isSchema((sdk as Record<string, unknown>)[name]));

  it('stands in for every exported schema but the z.lazy, aliases included', () => {
    const names = schemaNames();
    assert.ok(names.length > 150, `only ${names.length} schemas exported`);
    const eager = names.filter((name) => !types.isProxy(bundled[name]));
    assert.deepEqual(eager, ['JSONValueSchema']);
    assert.equal(bundled['ReadResourceRequestParamsSchema'], bundled['ResourceRequestParamsSchema']);
  });

  it('converts every schema to the JSON Schema of the SDK, both ways', () => {
    const sdkExports = sdk as Record<string, unknown>;
    for (const name of schemaNames()) {
      const own = bundled[name];
      const original = sdkExports[name];
      assert.ok(isSchema(own) && isSchema(original), name);
      for (const io of ['input', 'output'] as const) {
        assert.deepEqual(converted(bundled.__z, own, io), converted(z, original, io), `${name} (${io})`);
      }
    }
  });

  it('parses requests as the SDK does', () => {
    const call = { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'network_info', arguments: {} } };
    for (const [name, input] of [
      ['JSONRPCMessageSchema', call],
      ['CallToolRequestSchema', { method: 'tools/call', params: { name: 'x', arguments: { a: [1, { b: null }] } } }],
      ['CallToolRequestSchema', { method: 'tools/call', params: {} }],
      [
        'InitializeRequestSchema',
        {
          method: 'initialize',
          params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'c', version: '1' } },
        },
      ],
    ] as const) {
      const own = bundled[name] as z.ZodType;
      const original = (sdk as Record<string, unknown>)[name] as z.ZodType;
      assert.deepEqual(
        JSON.parse(JSON.stringify(own.safeParse(input))),
        JSON.parse(JSON.stringify(original.safeParse(input))),
        name,
      );
    }
  });
});

type ServerExports = {
  inputRequired: { elicit: (params: { message: string; requestedSchema: unknown }) => unknown };
  __z: typeof z;
};

/** What `inputRequired.elicit` makes of a form, or the error it throws (the same either way). */
function elicited(server: ServerExports, form: (zod: typeof z) => z.ZodType): unknown {
  try {
    return server.inputRequired.elicit({ message: 'Confirm?', requestedSchema: form(server.__z) });
  } catch (error) {
    return { threw: error instanceof Error ? error.message : String(error) };
  }
}

/**
 * The same plugin on the SDK's server, whose main chunk derives constants from schemas as it
 * loads (the keys an elicitation form may have): an elicitation given as a zod schema is checked
 * and converted as the SDK does it unbundled.
 */
describe("the bundles' lazy SDK schemas: the server's elicitation forms, bundled with the plugin, against the SDK", () => {
  let bundled: ServerExports;
  let source: string;
  let original: ServerExports;
  before(async () => {
    ({ exports: bundled, source } = await bundleWithPlugin<ServerExports>(
      'lazySdkSchemas',
      "export { inputRequired } from '@modelcontextprotocol/server';\nexport { z as __z } from 'zod';\n",
      'lazy-sdk-schemas/server',
    ));
    original = { ...((await import('@modelcontextprotocol/server')) as unknown as ServerExports), __z: z };
  });

  it('defers the constants of the elicitation check', () => {
    for (const name of ['ROOT_KEYS', 'PROPERTY_KEYS_BY_TYPE', 'SUPPORTED_STRING_FORMATS']) {
      assert.match(source, new RegExp(`\\b${name} = lazySchema\\(`), name);
    }
  });

  it('checks and converts elicitation forms as the SDK does', () => {
    const forms: Array<(zod: typeof z) => z.ZodType> = [
      (zod) =>
        zod.object({
          name: zod.string().min(1).max(40).describe('Your name'),
          age: zod.int().min(0).optional(),
          colour: zod.enum(['red', 'green']),
          agree: zod.boolean().default(false),
          email: zod.email(),
          day: zod.iso.date(),
          tags: zod.array(zod.enum(['a', 'b'])),
        }),
      (zod) => zod.object({ code: zod.string().regex(/^[A-Z]{3}$/) }),
      (zod) => zod.object({ nested: zod.object({ a: zod.string() }) }),
      (zod) => zod.object({ when: zod.string().meta({ format: 'date', pattern: '^x$' }) }),
      (zod) => zod.object({ count: zod.number().multipleOf(5) }),
      (zod) => zod.strictObject({ a: zod.string() }),
    ];
    const outcomes = forms.map((form, index) => {
      const theirs = elicited(original, form);
      assert.deepEqual(elicited(bundled, form), theirs, `form ${index}`);
      return theirs as object;
    });
    // Not vacuous: the forms reach both the conversion and the refusals.
    assert.ok(outcomes[0] && !('threw' in outcomes[0]), 'the first form is refused');
    assert.ok(outcomes[2] && 'threw' in outcomes[2], 'a nested object is accepted');
  });
});
