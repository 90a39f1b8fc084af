import assert from 'node:assert/strict';
import { join } from 'node:path';
import { before, describe, it } from 'node:test';
import { types } from 'node:util';
import { ALL_TOOLS, describeTool, leanInputSchema, type AnyTool } from '../../src/tools/index.js';
import { Sealed } from '../../src/domain/keystore/keystore-format.js';
import { bundleWithPlugin } from '../helpers/plugin-bundle.js';
import { ROOT } from '../helpers/paths.js';

type Bundled = {
  ALL_TOOLS: readonly AnyTool[];
  describeTool: typeof describeTool;
  leanInputSchema: typeof leanInputSchema;
  fields: Record<string, unknown>;
  Sealed: typeof Sealed;
};

/** What parsing `input` gives, as JSON: the value, or the issues (paths, codes and messages). */
const parsed = (tool: AnyTool, input: unknown): unknown => JSON.parse(JSON.stringify(tool.input.safeParse(input)));

/**
 * The build's plugin that defers the top-level zod schemas of the wallet's own modules but the
 * tools' (src/startup/bundle-options.mjs), on the tool catalogue bundled with it (which imports the
 * domain modules), against the compiled modules: the domain's schemas are stand-ins that parse
 * as the schemas do; the tools' schemas, which are converted to JSON Schema, are left as written,
 * and every tool describes itself, lists its lean input and checks its input as it does unbundled.
 */
describe("the bundles' lazy schemas of the wallet's own modules, against the compiled modules", () => {
  let bundled: Bundled;
  before(async () => {
    const dist = join(ROOT, 'dist');
    ({ exports: bundled } = await bundleWithPlugin<Bundled>(
      'lazyOwnSchemas',
      [
        `export { ALL_TOOLS, describeTool, leanInputSchema } from ${JSON.stringify(join(dist, 'tools', 'index.js'))};`,
        `export * as fields from ${JSON.stringify(join(dist, 'tools', 'fields.js'))};`,
        `export { Sealed } from ${JSON.stringify(join(dist, 'domain', 'keystore', 'keystore-format.js'))};`,
      ].join('\n'),
      'lazy-own-schemas/tools',
    ));
  });

  it("stands in for a domain module's top-level schema, which parses as the schema does", () => {
    assert.ok(types.isProxy(bundled.Sealed), 'Sealed is not a stand-in');
    assert.ok(!types.isProxy(Sealed), 'the compiled module has a stand-in');
    assert.deepEqual(Object.keys(bundled.Sealed.shape), Object.keys(Sealed.shape));
    const sealed = {
      kdf: 'scrypt',
      kdfparams: { n: 16384, r: 8, p: 1, dklen: 32, salt: 'c2FsdA==' },
      cipher: 'aes-256-gcm',
      iv: 'aXY=',
      ciphertext: 'Y3Q=',
      tag: 'dGFn',
    };
    for (const input of [sealed, { ...sealed, kdf: 'pbkdf2' }, { ...sealed, extra: 1 }, {}, null]) {
      assert.deepEqual(
        JSON.parse(JSON.stringify(bundled.Sealed.safeParse(input))),
        JSON.parse(JSON.stringify(Sealed.safeParse(input))),
        JSON.stringify(input),
      );
    }
  });

  it("leaves the tools' schemas as written: the catalogue converts them to JSON Schema", () => {
    for (const name of ['JsonSchemaObject', 'Digits', 'WeiAmount', 'WalletId']) {
      assert.ok(name in bundled.fields, name);
      assert.ok(!types.isProxy(bundled.fields[name]), `${name} is a stand-in`);
    }
  });

  it('describes every tool, and lists its lean input, as the compiled modules do', () => {
    assert.deepEqual(
      bundled.ALL_TOOLS.map((tool) => tool.name),
      ALL_TOOLS.map((tool) => tool.name),
    );
    for (const [index, tool] of ALL_TOOLS.entries()) {
      const theirs = bundled.ALL_TOOLS[index];
      assert.ok(theirs);
      assert.deepEqual(bundled.describeTool(theirs), describeTool(tool), tool.name);
      assert.deepEqual(bundled.leanInputSchema(theirs), leanInputSchema(tool), tool.name);
    }
  });

  it('checks every input as the compiled modules do', () => {
    for (const [index, tool] of ALL_TOOLS.entries()) {
      const theirs = bundled.ALL_TOOLS[index];
      assert.ok(theirs);
      const fieldNames = Object.keys(tool.input.shape);
      // Nothing; every field a number (wrong for most); every field a string (wrong for some).
      for (const input of [
        {},
        Object.fromEntries(fieldNames.map((name) => [name, 1])),
        Object.fromEntries(fieldNames.map((name) => [name, '1'])),
        { unknown_field: true },
      ]) {
        assert.deepEqual(parsed(theirs, input), parsed(tool, input), `${tool.name} ${JSON.stringify(input)}`);
      }
    }
  });
});
