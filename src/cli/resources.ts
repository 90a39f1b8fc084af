import { linkSync, lstatSync, renameSync, rmSync, type Stats } from 'node:fs';
import { dirname } from 'node:path';
import type {
  ListedPrompt,
  ListedResource,
  ListedResourceTemplate,
  McpSession,
  PromptMessages,
  ResourceContents,
} from '../mcp/session.js';
import { syncDir, writeTempBeside } from '../shared/private-files.js';
import { argumentsFromFlags, checkRequired, parseArgsJson } from './arguments.js';
import { flagsOfCommand } from './commands.js';
import { DEFAULT_TIMEOUT_MS, type Connection } from './connection.js';
import { GLOBAL_FLAGS, parseFlags, type CliFlag, type GlobalOptions, type ParsedFlags } from './global-flags.js';
import { renderFlagLines } from './help.js';
import type { CliIo } from './io.js';
import { isUriTemplate, promptInputSchema, templateInputSchema } from './listing-schemas.js';
import { renderHuman, terminalSafe, type Style } from './render.js';
import { flagsFromSchema, type FlagSpec } from './schema-flags.js';
import type { ServerListings } from './tool-cache.js';
import { isErrnoCode } from './servers/config.js';
import { rejectUnknownFlags } from './unknown-flags.js';
import { EXIT, UsageError } from './usage-error.js';

/**
 * The client side of MCP beyond tools: `wallet resources`, `resource <uri>`, `prompts` and
 * `prompt <name>`, against whichever server the run talks to. Loaded only for these verbs.
 * What they list is cached for TAB (tool-cache.ts, `<key>.listings.json`).
 */

export const LISTING_VERBS = ['resources', 'resource', 'prompts', 'prompt'] as const;

export type ListingVerb = (typeof LISTING_VERBS)[number];

/** `wallet resource`'s own flag. */
export const RESOURCE_FLAGS: readonly CliFlag[] = [
  {
    name: 'output',
    type: 'string',
    value: 'file',
    description: 'Write the resource to this new file (owner-only); needed for a binary one.',
  },
  {
    name: 'force',
    type: 'boolean',
    description: 'With --output: replace an existing file (a new, owner-only one; never through a link).',
  },
];

export type ListingRun = {
  argv: readonly string[];
  io: CliIo;
  globals: GlobalOptions;
  connection: Connection;
  style: Style;
};

export async function runListingVerb(verb: ListingVerb, run: ListingRun): Promise<number> {
  switch (verb) {
    case 'resources':
      return listResources(run);
    case 'resource':
      return readResource(run);
    case 'prompts':
      return listPrompts(run);
    case 'prompt':
      return getPrompt(run);
  }
}

const USAGE: Readonly<Record<ListingVerb, string>> = {
  resources: 'wallet [--server <name|command> | --url <url>] resources [--json]',
  resource:
    'wallet [--server … | --url …] resource <uri | uri template | name> [--<variable> <value>…] [--output <file> [--force]] [--json]',
  prompts: 'wallet [--server … | --url …] prompts [--json]',
  prompt: 'wallet [--server … | --url …] prompt <name> [--<argument> <value>…] [--json]',
};

const SUMMARY: Readonly<Record<ListingVerb, string>> = {
  resources: "List the server's resources and resource templates, with their MIME types and sizes.",
  resource:
    'Read a resource: text to stdout, a binary one only with --output <file> (or as base64 with --json). ' +
    "A URI template (or a template's name) takes its variables as flags.",
  prompts: "List the server's prompts and their arguments.",
  prompt: 'Get a prompt, its arguments given as flags: its messages, printed.',
};

function verbHelp(
  verb: ListingVerb,
  style: Style,
  specs: readonly FlagSpec[] = [],
  what?: string,
  description?: string,
): string {
  const own = verb === 'resource' ? RESOURCE_FLAGS : [];
  const lines = [
    `${style.heading(`wallet ${verb}`)}${what ? ` ${terminalSafe(what, true)}` : ''}`,
    '',
    ...(description ? [terminalSafe(description), ''] : []),
    SUMMARY[verb],
    '',
    `${style.heading('Usage:')} ${USAGE[verb]}`,
  ];
  if (specs.length > 0 || own.length > 0)
    lines.push('', style.heading('Flags:'), ...renderFlagLines(specs, own, style));
  lines.push('', 'Global flags (--json, --server, --url, …): wallet --help.');
  return lines.join('\n') + '\n';
}

function timeoutOf(globals: GlobalOptions, connection: Connection): number | undefined {
  return globals.timeoutMs ?? (connection.isBuiltIn ? undefined : DEFAULT_TIMEOUT_MS);
}

/** The session, refused with a clear word when the server declared no such thing. */
async function sessionServing(run: ListingRun, what: 'resources' | 'prompts'): Promise<McpSession> {
  const session = await run.connection.open();
  if (!session.serves[what]) {
    throw new UsageError(
      `${terminalSafe(session.server.name, true)} serves no ${what} (it declares no '${what}' capability).`,
      run.connection.isBuiltIn
        ? `The wallet serves tools only; --server or --url talks to another server.`
        : `'wallet tools' lists what it serves.`,
    );
  }
  return session;
}

/** Keeps what was listed for TAB; a cache, so a failure to write it fails nothing. */
async function remember(run: ListingRun, listings: Partial<ServerListings>): Promise<void> {
  const target = run.connection.target;
  if (target.kind === 'built-in') return;
  const { ToolListCache } = await import('./tool-cache.js');
  await new ToolListCache(run.connection.dataDir).writeListings(target.spec, listings).catch(() => undefined);
}

/** A command line with only the global flags and `own` allowed, and the words after the verb. */
function simpleLine(run: ListingRun, verb: ListingVerb, own: readonly CliFlag[] = []): string[] {
  const flags = [...GLOBAL_FLAGS, ...own];
  const parsed = parseFlags(run.argv, flags);
  rejectUnknownFlags({ ...parsed, _: [] }, flags, verb);
  return parsed._.map(String).slice(1);
}

async function listResources(run: ListingRun): Promise<number> {
  const { io, globals, style } = run;
  if (globals.help) return printed(io, verbHelp('resources', style));
  const extra = simpleLine(run, 'resources');
  if (extra.length > 0)
    throw new UsageError(`Unexpected argument '${terminalSafe(extra[0] ?? '', true)}' after 'resources'.`);
  const session = await sessionServing(run, 'resources');
  const { resources, templates } = await session.listResources({ timeoutMs: timeoutOf(globals, run.connection) });
  await remember(run, { resources, templates });
  if (globals.json) return printed(io, JSON.stringify({ resources, templates }, null, 2) + '\n');
  const rows = resources.map((resource: ListedResource) => ({
    uri: resource.uri,
    name: resource.title ?? resource.name,
    mime_type: resource.mimeType ?? '',
    size: typeof resource.size === 'number' ? `${resource.size} B` : '',
    description: resource.description ?? '',
  }));
  const templateRows = templates.map((template: ListedResourceTemplate) => ({
    uri_template: template.uriTemplate,
    name: template.title ?? template.name,
    mime_type: template.mimeType ?? '',
    description: template.description ?? '',
  }));
  const parts = [
    style.heading(`Resources (${rows.length}):`) + '\n' + (rows.length > 0 ? safeRender(rows, style) : '  (none)\n'),
  ];
  if (templateRows.length > 0)
    parts.push(style.heading(`Resource templates (${templateRows.length}):`) + '\n' + safeRender(templateRows, style));
  parts.push(
    "Read one: wallet resource <uri>; a template's variables are flags (wallet resource <template> --help).\n",
  );
  return printed(io, parts.join('\n'));
}

async function listPrompts(run: ListingRun): Promise<number> {
  const { io, globals, style } = run;
  if (globals.help) return printed(io, verbHelp('prompts', style));
  const extra = simpleLine(run, 'prompts');
  if (extra.length > 0)
    throw new UsageError(`Unexpected argument '${terminalSafe(extra[0] ?? '', true)}' after 'prompts'.`);
  const session = await sessionServing(run, 'prompts');
  const prompts = await session.listPrompts({ timeoutMs: timeoutOf(globals, run.connection) });
  await remember(run, { prompts });
  if (globals.json) return printed(io, JSON.stringify({ prompts }, null, 2) + '\n');
  const rows = prompts.map((prompt: ListedPrompt) => ({
    name: prompt.name,
    arguments: flagsFromSchema(promptInputSchema(prompt))
      .map((spec) => `--${spec.flag}${spec.required ? '' : '?'}`)
      .join(' '),
    description: prompt.description ?? prompt.title ?? '',
  }));
  const text = rows.length > 0 ? safeRender(rows, style) : '  (none)\n';
  return printed(
    io,
    `${style.heading(`Prompts (${rows.length}):`)}\n${text}\nGet one: wallet prompt <name> --<argument> <value>… (? marks an optional argument).\n`,
  );
}

async function getPrompt(run: ListingRun): Promise<number> {
  const { io, globals, style } = run;
  const [name, ...rest] = simpleWords(run.argv);
  if (name === undefined) {
    if (globals.help) return printed(io, verbHelp('prompt', style));
    throw new UsageError("'wallet prompt' takes a prompt's name.", "'wallet prompts' lists them.");
  }
  if (rest.length > 0)
    throw new UsageError(`Unexpected argument '${terminalSafe(rest[0] ?? '', true)}' after 'prompt ${name}'.`);
  const session = await sessionServing(run, 'prompts');
  const timeoutMs = timeoutOf(globals, run.connection);
  const prompts = await session.listPrompts({ timeoutMs });
  await remember(run, { prompts });
  const prompt = prompts.find((candidate) => candidate.name === name);
  if (!prompt) {
    const { closestNames } = await import('./suggest.js');
    const near = closestNames(
      name,
      prompts.map((candidate) => candidate.name),
    );
    throw new UsageError(
      `${terminalSafe(session.server.name, true)} has no prompt '${terminalSafe(name, true)}'.`,
      near.length > 0 ? `Did you mean ${near.join(', ')}?` : "'wallet prompts' lists them.",
    );
  }
  const specs = flagsFromSchema(promptInputSchema(prompt));
  if (globals.help) return printed(io, verbHelp('prompt', style, specs, prompt.name, prompt.description));
  const args = await argumentsOf(run, `prompt ${name}`, specs);
  const result = await session.getPrompt(prompt.name, stringsOf(args), { timeoutMs });
  if (globals.json) return printed(io, JSON.stringify(result, null, 2) + '\n');
  return printed(io, renderMessages(result, style));
}

async function readResource(run: ListingRun): Promise<number> {
  const { io, globals, style } = run;
  const [given, ...rest] = simpleWords(run.argv);
  if (given === undefined) {
    if (globals.help) return printed(io, verbHelp('resource', style));
    throw new UsageError("'wallet resource' takes a resource's URI.", "'wallet resources' lists them.");
  }
  if (rest.length > 0)
    throw new UsageError(`Unexpected argument '${terminalSafe(rest[0] ?? '', true)}' after 'resource'.`);
  const timeoutMs = timeoutOf(globals, run.connection);
  // A template written out, or a resource's or template's name (a word without a scheme): from the list.
  let template = isUriTemplate(given) ? given : undefined;
  let uri = template ? undefined : given;
  const session = await sessionServing(run, 'resources');
  if (!template && !/^[a-z][a-z0-9+.-]*:/i.test(given)) {
    const { resources, templates } = await session.listResources({ timeoutMs });
    await remember(run, { resources, templates });
    const named = [
      ...resources.filter((resource) => resource.name === given).map((resource) => ({ uri: resource.uri })),
      ...templates
        .filter((candidate) => candidate.name === given)
        .map((candidate) => ({ template: candidate.uriTemplate })),
    ];
    if (named.length !== 1) {
      throw new UsageError(
        named.length === 0
          ? `'${terminalSafe(given, true)}' is neither a URI nor the name of a resource or template of ${terminalSafe(session.server.name, true)}.`
          : `'${terminalSafe(given, true)}' names ${named.length} resources or templates; give the URI.`,
        "'wallet resources' lists them.",
      );
    }
    const [only] = named;
    template = only && 'template' in only ? only.template : undefined;
    uri = only && 'uri' in only ? only.uri : undefined;
  }
  const specs = template ? flagsFromSchema(templateInputSchema(template)) : [];
  if (globals.help) return printed(io, verbHelp('resource', style, specs, template ?? uri));
  const parsed = await parsedLine(run, 'resource', specs, RESOURCE_FLAGS);
  if (template) {
    const values = stringsOf(await argumentsFrom(parsed, specs, io));
    const { expandUriTemplate } = await import('../mcp/uri-template.js');
    uri = expandUriTemplate(template, values);
  }
  const contents = await session.readResource(uri ?? given, { timeoutMs });
  const output = typeof parsed['output'] === 'string' ? parsed['output'] : undefined;
  if (output !== undefined) return writeContents(contents, output, parsed['force'] === true, uri ?? given, io);
  if (parsed['force'] === true) throw new UsageError('--force goes with --output.');
  if (globals.json) return printed(io, JSON.stringify({ contents }, null, 2) + '\n');
  const binary = contents.find((part) => part.text === undefined);
  if (binary) {
    const size = binary.blob === undefined ? 0 : Buffer.from(binary.blob, 'base64').length;
    throw new UsageError(
      `'${terminalSafe(binary.uri, true)}' is binary (${terminalSafe(binary.mimeType ?? 'no MIME type', true)}, ${size} bytes): not printed to a terminal or pipe.`,
      'Write it to a file with --output <file>, or print it as base64 in JSON with --json.',
    );
  }
  for (const part of contents) {
    const text = part.text ?? '';
    io.stdout.write(io.stdout.isTTY ? terminalSafe(text) + (text.endsWith('\n') ? '' : '\n') : text);
  }
  return EXIT.ok;
}

/** `--output`: the one part of a resource, its bytes (a blob decoded), to a file (created owner-only). */
function writeContents(
  contents: readonly ResourceContents[],
  path: string,
  force: boolean,
  uri: string,
  io: CliIo,
): number {
  if (contents.length !== 1) {
    throw new UsageError(
      `'${terminalSafe(uri, true)}' came in ${contents.length} parts; --output writes one.`,
      '--json prints them all.',
    );
  }
  const [part] = contents;
  const bytes = part?.blob !== undefined ? Buffer.from(part.blob, 'base64') : Buffer.from(part?.text ?? '', 'utf8');
  try {
    writeOutputFile(path, bytes, force);
  } catch (error) {
    if (error instanceof UsageError) throw error;
    const code = error instanceof Error && 'code' in error ? String(error.code) : 'an error';
    throw new UsageError(`Cannot write --output ${path}: ${code}.`, 'Give a path in a directory you can write to.');
  }
  io.stderr.write(
    `wrote ${bytes.length} bytes${part?.mimeType ? ` (${terminalSafe(part.mimeType, true)})` : ''} to ${path}\n`,
  );
  return EXIT.ok;
}

/**
 * Writes `bytes` to `path` as other writes of the wallet do: an owner-only temp file beside it
 * (opened exclusively, fsynced), then put in place at once, so a reader sees no file or the whole
 * one. An existing `path` is refused unless `force` (then replaced by a new owner-only file, its
 * old mode not kept); a symbolic link or anything but a regular file is always refused, never
 * written through. Without `force`, the temp file is hard-linked to `path`, which fails if a file
 * appeared there meanwhile.
 */
function writeOutputFile(path: string, bytes: Buffer, force: boolean): void {
  const existing = lstatOrUndefined(path);
  if (existing?.isSymbolicLink()) {
    throw new UsageError(`--output ${path} is a symbolic link; nothing is written through one.`, 'Give the real path.');
  }
  if (existing && !existing.isFile()) throw new UsageError(`--output ${path} exists and is not a regular file.`);
  if (existing && !force) {
    throw new UsageError(
      `--output ${path} exists; it was left as it is.`,
      'Pass --force to replace it, or give a new path.',
    );
  }
  const dir = dirname(path);
  const temp = writeTempBeside(path, bytes);
  try {
    if (force) renameSync(temp, path);
    else {
      try {
        linkSync(temp, path);
      } catch (error) {
        if (isErrnoCode(error, 'EEXIST')) {
          throw new UsageError(
            `--output ${path} exists; it was left as it is.`,
            'Pass --force to replace it, or give a new path.',
          );
        }
        throw error;
      }
    }
  } finally {
    rmSync(temp, { force: true });
  }
  syncDir(dir);
}

function lstatOrUndefined(path: string): Stats | undefined {
  try {
    return lstatSync(path);
  } catch (error) {
    if (isErrnoCode(error, 'ENOENT')) return undefined;
    throw error;
  }
}

/** The words after the verb, read knowing only the global flags and `--output` (a flag's value is not a word). */
function simpleWords(argv: readonly string[]): string[] {
  return parseFlags(argv, [...GLOBAL_FLAGS, ...RESOURCE_FLAGS])
    ._.map(String)
    .slice(1);
}

/** The command line parsed knowing the item's flags; any other flag is refused. */
async function parsedLine(
  run: ListingRun,
  command: string,
  specs: readonly FlagSpec[],
  own: readonly CliFlag[] = [],
): Promise<ParsedFlags> {
  const flags = [...GLOBAL_FLAGS, ...own, ...flagsOfCommand(specs)];
  const parsed = parseFlags(run.argv, flags);
  rejectUnknownFlags({ ...parsed, _: [] }, flags, command);
  return parsed;
}

async function argumentsOf(
  run: ListingRun,
  command: string,
  specs: readonly FlagSpec[],
): Promise<Record<string, unknown>> {
  return argumentsFrom(await parsedLine(run, command, specs), specs, run.io);
}

async function argumentsFrom(
  parsed: ParsedFlags,
  specs: readonly FlagSpec[],
  io: CliIo,
): Promise<Record<string, unknown>> {
  const json = parsed['args-json'];
  const base =
    json === '-'
      ? parseArgsJson(await (await import('./io.js')).readAll(io.stdin), '--args-json -')
      : json === undefined
        ? {}
        : parseArgsJson(String(json), '--args-json');
  const args = argumentsFromFlags(specs, parsed, base);
  checkRequired(specs, args);
  return args;
}

/** Prompt arguments and template variables are strings: a value from `--args-json` is sent as its text. */
function stringsOf(args: Readonly<Record<string, unknown>>): Record<string, string> {
  return Object.fromEntries(
    Object.entries(args).map(([key, value]) => [key, typeof value === 'string' ? value : JSON.stringify(value)]),
  );
}

function renderMessages(result: PromptMessages, style: Style): string {
  const lines: string[] = [];
  if (result.description) lines.push(terminalSafe(result.description), '');
  for (const message of result.messages) {
    const content = message.content;
    lines.push(style.heading(`${terminalSafe(message.role, true)}:`));
    lines.push(terminalSafe(contentText(content)), '');
  }
  return lines.join('\n');
}

/** A message's content as text: text as is; a resource's text, or what it is; other kinds named. */
function contentText(content: PromptMessages['messages'][number]['content']): string {
  if (content.type === 'text' && typeof content.text === 'string') return content.text;
  const resource = content['resource'];
  if (content.type === 'resource' && typeof resource === 'object' && resource !== null) {
    const { uri, text, mimeType } = resource as { uri?: unknown; text?: unknown; mimeType?: unknown };
    if (typeof text === 'string') return text;
    return `[resource ${String(uri)}${typeof mimeType === 'string' ? ` (${mimeType})` : ''}: binary, see --json]`;
  }
  const mimeType = typeof content['mimeType'] === 'string' ? ` ${content['mimeType']}` : '';
  return `[${content.type}${mimeType}: see --json]`;
}

function safeRender(rows: readonly Record<string, string>[], style: Style): string {
  return renderHuman(rows, style);
}

function printed(io: CliIo, text: string): number {
  io.stdout.write(text);
  return EXIT.ok;
}
