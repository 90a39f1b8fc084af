import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { isUriTemplate, promptInputSchema, templateInputSchema } from '../../src/cli/listing-schemas.js';
import { flagsFromSchema } from '../../src/cli/schema-flags.js';

describe('resource templates and prompts as flags', () => {
  it('makes each RFC 6570 variable a flag, required unless it is a query one', () => {
    const specs = flagsFromSchema(templateInputSchema('demo://{+base}/items/{itemId}{?lang,page}{&sort}'));
    assert.deepEqual(
      specs.map((spec) => [spec.flag, spec.property, spec.required]),
      [
        ['base', 'base', true],
        ['item-id', 'itemId', true],
        ['lang', 'lang', false],
        ['page', 'page', false],
        ['sort', 'sort', false],
      ],
    );
  });

  it('reads explode and prefix modifiers as the variable itself, once', () => {
    const specs = flagsFromSchema(templateInputSchema('demo://{path*}/{name:3}/{name}'));
    assert.deepEqual(
      specs.map((spec) => spec.property),
      ['path', 'name'],
    );
  });

  it('tells a template from a URI', () => {
    assert.equal(isUriTemplate('demo://resource/dynamic/text/{resourceId}'), true);
    assert.equal(isUriTemplate('demo://resource/static/document/startup.md'), false);
  });

  it("makes a prompt's arguments string flags, required as the prompt says", () => {
    const specs = flagsFromSchema(
      promptInputSchema({
        name: 'args-prompt',
        arguments: [
          { name: 'city', description: 'Name of the city', required: true },
          { name: 'state', description: 'Name of the state' },
        ],
      }),
    );
    assert.deepEqual(
      specs.map((spec) => [spec.flag, spec.kind, spec.required, spec.description]),
      [
        ['city', 'string', true, 'Name of the city'],
        ['state', 'string', false, 'Name of the state'],
      ],
    );
  });
});
