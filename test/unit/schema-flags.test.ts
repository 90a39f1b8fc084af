import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { argumentsFromFlags, checkRequired, parseArgsJson } from '../../src/cli/arguments.js';
import { flagsOfCommand } from '../../src/cli/commands.js';
import { GLOBAL_FLAGS, parseFlags } from '../../src/cli/global-flags.js';
import { flagsFromSchema, type FlagSpec } from '../../src/cli/schema-flags.js';
import { UsageError } from '../../src/cli/usage-error.js';

const schema = {
  type: 'object',
  $defs: { Point: { type: 'object', properties: { x: { type: 'number' } } } },
  properties: {
    wallet_id: { type: 'string', description: 'Wallet' },
    maxTokens: { type: 'integer', description: 'Max' },
    ratio: { type: 'number' },
    dry_run: { type: 'boolean', default: false },
    network: { type: 'string', enum: ['mainnet', 'testnet'] },
    tags: { type: 'array', items: { type: 'string' } },
    sizes: { type: 'array', items: { type: 'integer' } },
    origin: { $ref: '#/$defs/Point' },
    note: { anyOf: [{ type: 'string' }, { type: 'null' }] },
    limit: { type: ['integer', 'null'] },
    either: { oneOf: [{ type: 'string' }, { type: 'object' }] },
    mnemonic: { type: 'string', writeOnly: true },
    json: { type: 'string' },
  },
  required: ['wallet_id', 'mnemonic'],
};

const specs = flagsFromSchema(schema);
const spec = (property: string): FlagSpec => {
  const found = specs.find((entry) => entry.property === property);
  assert.ok(found, property);
  return found;
};

describe('flags from JSON Schema', () => {
  it('names flags in kebab case, and steers clear of the CLI flags', () => {
    assert.equal(spec('wallet_id').flag, 'wallet-id');
    assert.equal(spec('maxTokens').flag, 'max-tokens');
    assert.equal(spec('json').flag, 'arg-json');
  });
  it('maps each JSON Schema shape to a flag kind', () => {
    assert.deepEqual(
      ['wallet_id', 'maxTokens', 'ratio', 'dry_run', 'network', 'origin', 'either'].map((name) => spec(name).kind),
      ['string', 'integer', 'number', 'boolean', 'string', 'json', 'json'],
    );
    assert.deepEqual(spec('network').choices, ['mainnet', 'testnet']);
    assert.equal(spec('tags').array, true);
    assert.equal(spec('sizes').kind, 'integer');
    assert.equal(spec('note').nullable, true);
    assert.equal(spec('note').kind, 'string');
    assert.equal(spec('limit').nullable, true);
    assert.equal(spec('limit').kind, 'integer');
    assert.equal(spec('dry_run').hasDefault, true);
    assert.equal(spec('mnemonic').secret, true);
    assert.equal(spec('wallet_id').required, true);
    assert.equal(spec('ratio').required, false);
  });
});

describe('arguments from flags', () => {
  it('keeps strings as strings: 0x10 and 0012 are not numbers', () => {
    const args = argumentsFromFlags(specs, { 'wallet-id': '0012', 'arg-json': '0x10', tags: ['0x10', '007'] });
    assert.deepEqual(args, { wallet_id: '0012', json: '0x10', tags: ['0x10', '007'] });
  });
  it('converts numbers only where the schema says so', () => {
    const args = argumentsFromFlags(specs, { 'max-tokens': '12', ratio: '0.5', sizes: ['1', '2'], limit: 'null' });
    assert.deepEqual(args, { maxTokens: 12, ratio: 0.5, sizes: [1, 2], limit: null });
  });
  it('parses JSON for objects and unions', () => {
    const args = argumentsFromFlags(specs, { origin: '{"x":1}', either: '{"a":2}' });
    assert.deepEqual(args, { origin: { x: 1 }, either: { a: 2 } });
  });
  it('lets flags override --args-json', () => {
    assert.deepEqual(argumentsFromFlags(specs, { ratio: '2' }, { ratio: 1, wallet_id: 'a' }), {
      ratio: 2,
      wallet_id: 'a',
    });
  });
  const failures: [string, Record<string, unknown>, RegExp][] = [
    ['hex integer', { 'max-tokens': '0x10' }, /--max-tokens must be an integer; got '0x10'/],
    ['fractional integer', { 'max-tokens': '1.5' }, /--max-tokens must be an integer/],
    ['unsafe integer', { 'max-tokens': '90071992547409930' }, /--max-tokens must be an integer/],
    ['word for a number', { ratio: 'abc' }, /--ratio must be a number/],
    ['bad choice', { network: 'devnet' }, /--network must be one of mainnet, testnet; got 'devnet'/],
    ['bad JSON', { origin: '{x' }, /--origin takes a JSON value/],
    ['repeated single flag', { ratio: ['1', '2'] }, /--ratio was given more than once/],
    ['bad array element', { sizes: ['1', 'two'] }, /--sizes must be an integer; got 'two'/],
    // A key or phrase in the wrong flag is never echoed: only its length.
    [
      'a private key for a choice',
      { network: 'ab'.repeat(32) },
      /--network must be one of mainnet, testnet; got \(a value of 64 characters, not shown\)\.$/,
    ],
    [
      'a phrase for a JSON value',
      { origin: 'test test test test test test test test test test test junk' },
      /--origin takes a JSON value; got \(a value of 59 characters, not shown\)\.$/,
    ],
  ];
  for (const [label, parsed, expected] of failures) {
    it(`names the flag: ${label}`, () => {
      assert.throws(
        () => argumentsFromFlags(specs, parsed),
        (error: unknown) => error instanceof UsageError && expected.test(error.message),
      );
    });
  }
  it('reports missing required flags, secrets by their safe flags', () => {
    assert.throws(
      () => checkRequired(specs, {}),
      /Missing required flags: --wallet-id, --mnemonic-stdin or --mnemonic-file/,
    );
    assert.doesNotThrow(() => checkRequired(specs, { wallet_id: 'a', mnemonic: 'x' }));
  });
  it('takes --args-json objects only', () => {
    assert.deepEqual(parseArgsJson('{"a":1}', '--args-json'), { a: 1 });
    assert.throws(() => parseArgsJson('[1]', '--args-json'), /must be a JSON object/);
    assert.throws(() => parseArgsJson('{', '--args-json'), /not valid JSON/);
  });
});

describe('flags that stand alone or lack their value', () => {
  const unionSchema = {
    type: 'object',
    properties: {
      nextThoughtNeeded: { anyOf: [{ type: 'boolean' }, { type: 'string' }] },
      path: { type: 'string' },
    },
  };
  const unionSpecs = flagsFromSchema(unionSchema);
  const parse = (argv: string[]): Record<string, unknown> =>
    argumentsFromFlags(unionSpecs, parseFlags(argv, [...GLOBAL_FLAGS, ...flagsOfCommand(unionSpecs)]));

  it('a bare flag for a boolean-or-string union means true; --no-x means false; a value is kept', () => {
    assert.deepEqual(parse(['--next-thought-needed']), { nextThoughtNeeded: true });
    assert.deepEqual(parse(['--next-thought-needed', '--path', 'a']), { nextThoughtNeeded: true, path: 'a' });
    assert.deepEqual(parse(['--no-next-thought-needed']), { nextThoughtNeeded: false });
    assert.deepEqual(parse(['--next-thought-needed', 'maybe']), { nextThoughtNeeded: 'maybe' });
  });

  it('a flag with its value missing is a usage error naming the flag, not an empty string sent on', () => {
    for (const argv of [['--path'], ['--path', '--next-thought-needed'], ['--server']]) {
      assert.throws(
        () => parse(argv),
        (error: unknown) => error instanceof UsageError && error.message === `${argv[0]} needs a value.`,
      );
    }
    assert.deepEqual(parse(['--path', '']), { path: '' }, 'an empty value given on purpose stays');
  });
});
