import type { FlagSpec } from './schema-flags.js';
import { UsageError } from './usage-error.js';
import { shownValue } from '../shared/text.js';

const INTEGER = /^-?\d+$/;
const NUMBER = /^-?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/;

/**
 * The tool arguments from parsed flags: `--args-json` first, each given flag over it. Text becomes
 * a number only where the schema says number or integer, so `0x10` and `0012` stay strings.
 * Every problem names its flag.
 */
export function argumentsFromFlags(
  specs: readonly FlagSpec[],
  parsed: Readonly<Record<string, unknown>>,
  base: Readonly<Record<string, unknown>> = {},
): Record<string, unknown> {
  const args: Record<string, unknown> = { ...base };
  for (const spec of specs) {
    if (spec.secret) continue;
    const raw = parsed[spec.flag];
    if (raw === undefined) continue;
    args[spec.property] = spec.array ? arrayValue(spec, raw) : singleValue(spec, raw);
  }
  return args;
}

/** Required properties still missing once flags, `--args-json` and secrets are in. */
export function checkRequired(specs: readonly FlagSpec[], args: Readonly<Record<string, unknown>>): void {
  const missing = specs.filter((spec) => spec.required && args[spec.property] === undefined);
  if (missing.length === 0) return;
  const names = missing.map((spec) => (spec.secret ? `--${spec.flag}-stdin or --${spec.flag}-file` : `--${spec.flag}`));
  throw new UsageError(`Missing required flag${missing.length > 1 ? 's' : ''}: ${names.join(', ')}.`);
}

/** Parses `--args-json` text: a JSON object, or a usage error. */
export function parseArgsJson(text: string, origin: string): Record<string, unknown> {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new UsageError(`${origin} is not valid JSON.`, `Pass one JSON object, e.g. --args-json '{"chain":"evm"}'.`);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new UsageError(`${origin} must be a JSON object.`);
  }
  return value as Record<string, unknown>;
}

function arrayValue(spec: FlagSpec, raw: unknown): unknown[] {
  const items = Array.isArray(raw) ? raw : [raw];
  return items.map((item) => convert(spec, item));
}

function singleValue(spec: FlagSpec, raw: unknown): unknown {
  if (Array.isArray(raw)) throw new UsageError(`--${spec.flag} was given more than once.`);
  return convert(spec, raw);
}

/** A secret's text (from stdin, a file or a prompt) as the value its schema asks for. */
export function secretValue(spec: FlagSpec, text: string): unknown {
  if (spec.kind === 'string') return text;
  try {
    return convert(spec, text);
  } catch {
    // convert's message quotes the text: never for a secret.
    throw new UsageError(`--${spec.flag}: what was read is not a valid ${spec.kind} value (not shown: it is secret).`);
  }
}

function convert(spec: FlagSpec, raw: unknown): unknown {
  if (typeof raw === 'boolean') {
    if (spec.kind === 'boolean' || spec.acceptsBoolean) return raw;
    throw new UsageError(`--${spec.flag} needs a value.`);
  }
  const text = String(raw);
  if (spec.nullable && spec.kind !== 'string' && text === 'null') return null;
  const value = fromText(spec, text);
  if (spec.choices && !spec.choices.includes(value as string | number | boolean)) {
    throw new UsageError(
      `--${spec.flag} must be one of ${spec.choices.map((choice) => String(choice)).join(', ')}; got ${shownValue(text)}.`,
    );
  }
  return value;
}

function fromText(spec: FlagSpec, text: string): unknown {
  switch (spec.kind) {
    case 'string':
      return text;
    case 'integer': {
      const value = Number(text);
      if (!INTEGER.test(text) || !Number.isSafeInteger(value)) {
        throw new UsageError(`--${spec.flag} must be an integer; got ${shownValue(text)}.`);
      }
      return value;
    }
    case 'number':
      if (!NUMBER.test(text) || !Number.isFinite(Number(text))) {
        throw new UsageError(`--${spec.flag} must be a number; got ${shownValue(text)}.`);
      }
      return Number(text);
    case 'boolean':
      if (text === 'true') return true;
      if (text === 'false') return false;
      throw new UsageError(`--${spec.flag} must be true or false; got ${shownValue(text)}.`);
    case 'json':
      try {
        return JSON.parse(text);
      } catch {
        if (spec.textFallback) return text;
        throw new UsageError(
          `--${spec.flag} takes a JSON value; got ${shownValue(text)}.`,
          'Quote JSON for your shell.',
        );
      }
  }
}
