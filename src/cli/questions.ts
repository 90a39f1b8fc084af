import type { QuestionAnswer, QuestionAnswerer } from '../mcp/session.js';
import {
  isJsonSchema,
  isSecretSchema,
  schemaProperties,
  requiredProperties,
  type JsonSchema,
} from '../shared/json-schema.js';
import type { Activity } from './activity.js';
import type { CliIo } from './io.js';
import { terminalSafe } from './render.js';

type Answer = string | number | boolean | string[];

/**
 * Who answers another server's questions (elicitation) in this run:
 * - on a terminal (stdin and stderr), the user, field by field on stderr (form mode), or by
 *   opening the URL themselves and pressing Enter (URL mode);
 * - with `--accept-defaults` and no terminal, the question's own defaults (form mode only);
 * - otherwise nobody: no elicitation is declared, so a server asks some other way or says why it
 *   cannot go on.
 * A form that asks for a secret is declined: a secret is never typed into a server's form.
 */
export function questionAnswerer(io: CliIo, activity: Activity, acceptDefaults: boolean): QuestionAnswerer | undefined {
  const interactive = io.stderr.isTTY === true && io.stdin.isTTY === true;
  if (!interactive && !acceptDefaults) return undefined;
  const lines = new LineReader(io);
  return {
    form: true,
    url: interactive,
    async answer(question) {
      activity.pause();
      const say = (text: string): unknown => io.stderr.write(text);
      say(`\nThe server asks: ${terminalSafe(question.message)}\n`);
      if (question.mode === 'url') {
        if (!interactive) return declined(say, 'it asks to open a URL, and there is no terminal here.');
        say(`Open this URL in a browser: ${terminalSafe(question.url)}\n`);
        const reply = await lines.ask(say, 'Press Enter when done, or n to decline: ');
        if (reply === undefined) return { action: 'cancel' };
        return /^n(o)?$/i.test(reply.trim()) ? declined(say, 'you said no.') : { action: 'accept' };
      }
      const fields = formFields(question.requestedSchema);
      const secret = fields.find((field) => field.secret);
      if (secret) {
        return declined(
          say,
          `it asks for '${terminalSafe(secret.name)}', which looks like a secret; secrets are never typed into a server's form.`,
        );
      }
      if (!interactive) return defaultsOnly(fields, say);
      const go = await lines.ask(say, 'Answer it? [Y/n] ');
      if (go === undefined) return { action: 'cancel' };
      if (/^n(o)?$/i.test(go.trim())) return declined(say, 'you said no.');
      const content: Record<string, Answer> = {};
      for (const field of fields) {
        const value = await askField(field, lines, say);
        if (value === CANCELLED) return { action: 'cancel' };
        if (value !== undefined) content[field.name] = value;
      }
      return { action: 'accept', content };
    },
  };
}

/** `--accept-defaults`: each field's default; a required field without one cannot be answered. */
function defaultsOnly(fields: readonly FormField[], say: (text: string) => unknown): QuestionAnswer {
  const content: Record<string, Answer> = {};
  for (const field of fields) {
    if (field.defaultValue !== undefined) content[field.name] = field.defaultValue;
    else if (field.required) {
      return declined(say, `'${terminalSafe(field.name)}' has no default, and there is no terminal to ask on.`);
    }
  }
  say(`Answered with its defaults (--accept-defaults).\n`);
  return { action: 'accept', content };
}

function declined(say: (text: string) => unknown, why: string): QuestionAnswer {
  say(`Declined: ${why}\n`);
  return { action: 'decline' };
}

type FormField = {
  name: string;
  label: string;
  kind: 'string' | 'number' | 'integer' | 'boolean' | 'choices' | 'several';
  choices: readonly string[];
  required: boolean;
  defaultValue: Answer | undefined;
  secret: boolean;
};

/** Names a form field for a secret gets, which no form prompt takes whatever its schema says. */
const SECRET_NAME = /pass(word|phrase)|secret|mnemonic|seed|private.?key|api.?key|token|credential|pin\b/i;

/** The fields of an elicitation form: flat properties of strings, numbers, booleans and enums. */
export function formFields(schema: JsonSchema): FormField[] {
  const required = new Set(requiredProperties(schema));
  return schemaProperties(schema).map(([name, property]) => {
    const type = property['type'];
    // A multi-select field: an array whose items are an enum (`items.enum` or `items.anyOf` consts).
    const items = property['items'];
    const several = type === 'array' && isJsonSchema(items) ? enumOf(items) : [];
    const choices = several.length > 0 ? several : enumOf(property);
    const kind: FormField['kind'] =
      several.length > 0
        ? 'several'
        : choices.length > 0
          ? 'choices'
          : type === 'number' || type === 'integer' || type === 'boolean'
            ? type
            : 'string';
    const title = typeof property['title'] === 'string' ? property['title'] : name;
    const description = typeof property['description'] === 'string' ? property['description'] : '';
    const fallback = property['default'];
    return {
      name,
      label: description && description !== title ? `${title} (${description})` : title,
      kind,
      choices,
      required: required.has(name),
      defaultValue: isAnswer(fallback) ? fallback : undefined,
      secret: isSecretSchema(property) || SECRET_NAME.test(name),
    };
  });
}

function enumOf(property: JsonSchema): string[] {
  if (Array.isArray(property['enum']))
    return property['enum'].filter((value): value is string => typeof value === 'string');
  const oneOf = property['oneOf'] ?? property['anyOf'];
  if (!Array.isArray(oneOf)) return [];
  return oneOf.flatMap((member) =>
    isJsonSchema(member) && typeof member['const'] === 'string' ? [member['const']] : [],
  );
}

function isAnswer(value: unknown): value is Answer {
  return (
    ['string', 'number', 'boolean'].includes(typeof value) ||
    (Array.isArray(value) && value.every((v) => typeof v === 'string'))
  );
}

const CANCELLED = Symbol('cancelled');

/** One field, asked until the answer fits: an empty line takes the default (or skips an optional field). */
async function askField(
  field: FormField,
  lines: LineReader,
  say: (text: string) => unknown,
): Promise<Answer | undefined | typeof CANCELLED> {
  const hint =
    field.kind === 'boolean'
      ? 'y/n'
      : field.kind === 'choices'
        ? field.choices.map((choice) => terminalSafe(choice)).join('|')
        : field.kind === 'several'
          ? `any of ${field.choices.map((choice) => terminalSafe(choice)).join(',')}, comma-separated`
          : field.kind;
  const shownDefault = field.defaultValue === undefined ? '' : ` [${terminalSafe(String(field.defaultValue))}]`;
  for (;;) {
    const text = await lines.ask(
      say,
      `${terminalSafe(field.label)} (${hint})${field.required ? '' : ', optional'}${shownDefault}: `,
    );
    if (text === undefined) return CANCELLED;
    const typed = text.trim();
    if (typed === '') {
      if (field.defaultValue !== undefined) return field.defaultValue;
      if (!field.required) return undefined;
      say('An answer is required.\n');
      continue;
    }
    const value = parseAnswer(field, typed);
    if (value !== undefined) return value;
    say(`Not a valid ${hint} answer.\n`);
  }
}

function parseAnswer(field: FormField, typed: string): Answer | undefined {
  switch (field.kind) {
    case 'boolean':
      return /^(y|yes|true)$/i.test(typed) ? true : /^(n|no|false)$/i.test(typed) ? false : undefined;
    case 'integer':
      return /^-?\d+$/.test(typed) && Number.isSafeInteger(Number(typed)) ? Number(typed) : undefined;
    case 'number':
      return /^-?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/.test(typed) ? Number(typed) : undefined;
    case 'choices':
      return field.choices.includes(typed) ? typed : undefined;
    case 'several': {
      const picked = typed.split(',').map((part) => part.trim());
      return picked.every((part) => field.choices.includes(part)) ? picked : undefined;
    }
    case 'string':
      return typed;
  }
}

/**
 * Lines from stdin, one per question, keeping what was typed ahead (a paste, or a test's input)
 * for the next question. `undefined` when stdin has ended.
 */
class LineReader {
  private buffered = '';
  private ended = false;

  constructor(private readonly io: CliIo) {}

  async ask(say: (text: string) => unknown, prompt: string): Promise<string | undefined> {
    say(prompt);
    const stdin = this.io.stdin;
    const take = (): string | undefined => {
      const end = this.buffered.search(/\r?\n|\r/);
      if (end < 0) return undefined;
      const line = this.buffered.slice(0, end);
      this.buffered = this.buffered.slice(end + (this.buffered.startsWith('\r\n', end) ? 2 : 1));
      return line;
    };
    const ready = take();
    if (ready !== undefined) return ready;
    if (this.ended || stdin.readableEnded) return undefined;
    stdin.resume();
    try {
      return await new Promise<string | undefined>((resolve) => {
        const finish = (value: string | undefined): void => {
          // Paused at once: a stream holding more (lines typed ahead, relayed by the kept-alive
          // servers' daemon) would otherwise go on emitting them to nobody before `finally` runs.
          stdin.pause();
          stdin.off('data', onData);
          stdin.off('end', onEnd);
          resolve(value);
        };
        const onData = (chunk: Buffer | string): void => {
          this.buffered += chunk.toString();
          const line = take();
          if (line !== undefined) finish(line);
        };
        const onEnd = (): void => {
          this.ended = true;
          const rest = this.buffered;
          this.buffered = '';
          finish(rest === '' ? undefined : rest);
        };
        stdin.on('data', onData);
        stdin.on('end', onEnd);
      });
    } finally {
      stdin.pause();
    }
  }
}
