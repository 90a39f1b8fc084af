import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { z } from 'zod';
import { lazySchema } from '../../src/startup/lazy-schema.js';

/** A schema built as the MCP SDK builds its protocol schemas, and a stand-in for it that counts builds. */
function pair() {
  let builds = 0;
  const build = () =>
    z
      .looseObject({
        method: z.string().describe('The method'),
        params: z.optional(z.record(z.string(), z.unknown())),
      })
      .meta({ title: 'Request' });
  const real = build();
  const lazy = lazySchema(() => {
    builds += 1;
    return build();
  });
  return { real, lazy, builds: () => builds };
}

describe('lazySchema: a zod schema built on first use, the same for its users', () => {
  it('builds nothing until the schema is used, then once', () => {
    const { lazy, builds } = pair();
    const composed = z.object({ request: lazy, others: z.array(lazy) });
    assert.equal(builds(), 0, 'composing it into another schema builds nothing');
    assert.equal(composed.parse({ request: { method: 'a' }, others: [] }).request.method, 'a');
    assert.equal(lazy.safeParse({ method: 'b' }).success, true);
    assert.equal(builds(), 1);
  });

  it('parses and refuses exactly as the schema it stands for', () => {
    const { real, lazy } = pair();
    for (const input of [
      { method: 'tools/call', params: { name: 'x' } },
      { method: 'tools/list', extra: true },
      { method: 1 },
      { params: {} },
      null,
      'tools/list',
    ]) {
      assert.deepEqual(lazy.safeParse(input), real.safeParse(input), JSON.stringify(input));
    }
    assert.throws(() => lazy.parse({ method: 1 }), z.ZodError);
  });

  it('is a zod object schema to instanceof, typeof, `in` and its keys', () => {
    const { real, lazy } = pair();
    assert.equal(typeof lazy, 'object');
    assert.ok(lazy instanceof z.ZodObject);
    assert.ok(lazy instanceof z.ZodType);
    assert.ok('_zod' in lazy);
    assert.deepEqual(Object.keys(lazy.shape), Object.keys(real.shape));
    assert.deepEqual(Reflect.ownKeys(lazy).sort(), Reflect.ownKeys(real).sort());
    assert.equal(lazy['~standard'].vendor, 'zod');
  });

  it('reads the metadata registered on the built schema (its methods run on it, not the stand-in)', () => {
    const { lazy } = pair();
    assert.deepEqual(lazy.meta(), { title: 'Request' });
    assert.equal(lazy.shape.method.description, 'The method');
    assert.deepEqual(z.toJSONSchema(lazy.shape.method), {
      $schema: 'https://json-schema.org/draft/2020-12/schema',
      type: 'string',
      description: 'The method',
    });
  });

  it('converts to the JSON Schema of the schema it stands for, inside others too', () => {
    const { real, lazy } = pair();
    const around = (inner: z.ZodType) =>
      z.object({ request: inner, retries: z.number().int().default(0), maybe: inner.optional() });
    for (const io of ['input', 'output'] as const) {
      assert.deepEqual(z.toJSONSchema(lazy, { io }), z.toJSONSchema(real, { io }));
      assert.deepEqual(z.toJSONSchema(around(lazy), { io }), z.toJSONSchema(around(real), { io }));
      assert.deepEqual(
        lazy['~standard'].jsonSchema[io]({ target: 'draft-2020-12' }),
        real['~standard'].jsonSchema[io]({ target: 'draft-2020-12' }),
      );
    }
  });

  it('derives schemas as the built one does (extend, optional, union)', () => {
    const { lazy } = pair();
    const call = lazy.extend({ method: z.literal('tools/call') });
    assert.equal(call.safeParse({ method: 'tools/call' }).success, true);
    assert.equal(call.safeParse({ method: 'tools/list' }).success, false);
    assert.equal(lazy.optional().safeParse(undefined).success, true);
    assert.equal(z.union([z.string(), lazy]).safeParse({ method: 'm' }).success, true);
  });

  it("serves a recursive schema that names itself (as the SDK's JSON value does)", () => {
    type Json = string | number | boolean | null | Json[] | { [key: string]: Json };
    const JsonValue: z.ZodType<Json> = lazySchema(() =>
      z.lazy(() =>
        z.union([z.string(), z.number(), z.boolean(), z.null(), z.array(JsonValue), z.record(z.string(), JsonValue)]),
      ),
    );
    assert.equal(JsonValue.safeParse({ a: [1, 'b', { c: null }] }).success, true);
    assert.equal(JsonValue.safeParse({ a: [undefined] }).success, false);
  });

  it('stands for objects only: a value that is not one is refused when first touched', () => {
    const notAnObject = lazySchema(() => 5 as unknown as z.ZodString);
    assert.throws(() => notAnObject.parse('x'), /not an object/);
    const set = lazySchema(() => new Set(['a']) as unknown as z.ZodString);
    assert.equal((set as unknown as Set<string>).has('a'), true);
  });
});
