import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { before, describe, it } from 'node:test';
import { pathToFileURL } from 'node:url';
import { types } from 'node:util';
import * as sdk from '@modelcontextprotocol/core/internal';
import { build, type Plugin } from 'esbuild';
import { z } from 'zod';
import { ROOT } from '../helpers/paths.js';

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
 * The build's plugin that defers the MCP SDK's protocol schemas (scripts/bundle-options.mjs), on
 * the SDK's core package bundled with it: every exported schema must be a stand-in (but the
 * `z.lazy` it leaves alone), convert to the same JSON Schema as the SDK's own, keep the aliases
 * the same object and parse alike.
 */
describe("the bundles' lazy SDK schemas: the SDK's core, bundled with the plugin, against the SDK", () => {
  let bundled: Exports;
  before(async () => {
    const { lazySdkSchemas } = (await import(pathToFileURL(join(ROOT, 'scripts', 'bundle-options.mjs')).href)) as {
      lazySdkSchemas: Plugin;
    };
    const outfile = join(ROOT, 'build', 'lazy-sdk-schemas', 'core.cjs');
    await build({
      stdin: {
        contents: "export * from '@modelcontextprotocol/core/internal';\nexport { z as __z } from 'zod';\n",
        resolveDir: ROOT,
        loader: 'js',
      },
      bundle: true,
      platform: 'node',
      format: 'cjs',
      outfile,
      plugins: [lazySdkSchemas],
      logLevel: 'silent',
    });
    bundled = createRequire(import.meta.url)(outfile) as Exports;
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
