import { flagsOfCommand } from '../commands.js';
import type { CliFlag } from '../global-flags.js';
import type { ToolCommand } from '../help.js';
import { promptInputSchema, templateInputSchema } from '../listing-schemas.js';
import type { ServerListings } from '../tool-cache.js';
import { flagsFromSchema, type FlagSpec } from '../schema-flags.js';
import { COMPLETION_VALUE_KINDS, type CompletionValueKind } from './values-file.js';

/** The shells `wallet completion` writes a script for. */
export const COMPLETION_SHELLS = ['bash', 'zsh', 'fish'] as const;

export type CompletionShell = (typeof COMPLETION_SHELLS)[number];

/** The file each script is installed as (and generated into completions/), as its shell looks for it. */
export const COMPLETION_FILES: Readonly<Record<CompletionShell, string>> = {
  bash: 'wallet.bash',
  zsh: '_wallet',
  fish: 'wallet.fish',
};

/**
 * What a flag's value completes to: nothing to complete (`none`, a boolean), free text (`text`),
 * one of `choices` (`choice`), a path (`file`), a wallet of the local keystore (`wallet`), or
 * the values the CLI last saw of a kind (`evm-network`, `evm-account`, `server`: values-file.ts).
 */
type ValueKind = 'none' | 'text' | 'choice' | 'file' | 'wallet' | CompletionValueKind;

export type CompletionFlag = {
  /** As typed: `--network`, `-y`. */
  name: string;
  value: ValueKind;
  choices: readonly string[];
  description: string;
};

/** A command or subcommand, named by its path: `['core-address-create']`, `['servers', 'import']`. */
export type CompletionCommand = {
  path: readonly string[];
  summary: string;
  /** The global flags are valid after it too. */
  acceptsGlobals: boolean;
  /** Its positional arguments are paths. */
  acceptsFiles: boolean;
  flags: readonly CompletionFlag[];
};

/**
 * What completes after a flag: a boolean takes no value, a value kind the tool's schema declares
 * (`x-completes`) to its examples and the saved values of that kind, choices to themselves,
 * `…-file` to a path, `--wallet-id` to the keystore's wallets, the CLI's `--server` to the saved
 * servers.
 */
function valueKindOf(name: string, type: CliFlag['type'], choices: readonly string[], completes?: string): ValueKind {
  if (type === 'boolean') return 'none';
  const declared = COMPLETION_VALUE_KINDS.find((kind) => kind === completes);
  if (declared) return declared;
  if (choices.length > 0) return 'choice';
  if (name.endsWith('-file')) return 'file';
  if (name === 'wallet-id') return 'wallet';
  return 'text';
}

/**
 * A flag of the CLI itself (global or of a verb), its alias, and `--no-x` when its description
 * offers that negation (`--no-color`).
 */
export function cliFlagCompletions(flag: CliFlag): CompletionFlag[] {
  const choices = flag.choices ?? [];
  const value = valueKindOf(flag.name, flag.type, choices, flag.completes);
  const long = { name: `--${flag.name}`, value, choices, description: flag.description };
  const alias = flag.alias ? [{ ...long, name: `-${flag.alias}` }] : [];
  const negated = flag.type === 'boolean' && flag.description.includes(`--no-${flag.name}`);
  return [long, ...alias, ...(negated ? [{ ...long, name: `--no-${flag.name}` }] : [])];
}

/**
 * Tool commands as completion commands: the flags `flagsOfCommand` gives each one, except the
 * inline flag of a secret (refused; only `--x-stdin` and `--x-file` are offered), with the
 * schema's choices, and `--no-x` for every boolean property.
 */
export function toolCompletionCommands(commands: readonly ToolCommand[]): CompletionCommand[] {
  return commands.map(({ command, tool }) => ({
    path: [command],
    summary: tool.description ?? tool.title ?? '',
    acceptsGlobals: true,
    acceptsFiles: false,
    flags: toolFlags(flagsFromSchema(tool.inputSchema)),
  }));
}

/**
 * A server's resources, resource templates and prompts as subcommands of `resource` and `prompt`
 * (`resource demo://static/1`, `prompt args-prompt`): TAB after `wallet --server X resource`
 * offers the URIs, after a template or a prompt its flags.
 */
export function listingCompletionCommands(listings: ServerListings): CompletionCommand[] {
  const output: CompletionFlag = {
    name: '--output',
    value: 'file',
    choices: [],
    description: 'Write the resource to this file (needed for a binary one)',
  };
  const entry = (path: string[], summary: string, flags: CompletionFlag[]): CompletionCommand => ({
    path,
    summary,
    acceptsGlobals: true,
    acceptsFiles: false,
    flags,
  });
  return [
    ...listings.resources.map((resource) =>
      entry(['resource', resource.uri], resource.description ?? resource.title ?? resource.name, [output]),
    ),
    ...listings.templates.map((template) =>
      entry(['resource', template.uriTemplate], template.description ?? template.title ?? template.name, [
        ...toolFlags(flagsFromSchema(templateInputSchema(template.uriTemplate))),
        output,
      ]),
    ),
    ...listings.prompts.map((prompt) =>
      entry(
        ['prompt', prompt.name],
        prompt.description ?? prompt.title ?? '',
        toolFlags(flagsFromSchema(promptInputSchema(prompt))),
      ),
    ),
  ];
}

function toolFlags(specs: readonly FlagSpec[]): CompletionFlag[] {
  const byFlag = new Map(specs.map((spec) => [spec.flag, spec]));
  const secretOf = new Map(
    specs
      .filter((spec) => spec.secret)
      .flatMap((spec) => [`${spec.flag}-stdin`, `${spec.flag}-file`].map((name) => [name, spec])),
  );
  const flags: CompletionFlag[] = [];
  for (const flag of flagsOfCommand(specs)) {
    const spec = byFlag.get(flag.name);
    if (spec?.secret) continue;
    const choices = spec ? specChoices(spec) : [];
    const completion = {
      name: `--${flag.name}`,
      value: valueKindOf(flag.name, flag.type, choices, spec?.completes),
      choices,
      description: flagDescription(flag, spec, secretOf.get(flag.name)),
    };
    flags.push(completion);
    if (spec && flag.type === 'boolean') flags.push({ ...completion, name: `--no-${flag.name}` });
  }
  return flags;
}

/** The values a flag completes to from its table: its choices, or the examples of a declared kind. */
function specChoices(spec: FlagSpec): string[] {
  if (spec.choices) return spec.choices.map(String);
  if (spec.completes !== undefined) return [...(spec.examples ?? [])];
  return spec.kind === 'boolean' && spec.array ? ['true', 'false'] : [];
}

function flagDescription(flag: CliFlag, spec: FlagSpec | undefined, secret: FlagSpec | undefined): string {
  if (spec) return spec.description;
  if (secret) {
    const what = secret.description || secret.property;
    return flag.name.endsWith('-stdin') ? `${what} (read from stdin)` : `${what} (read from an owner-only file)`;
  }
  if (flag.name === 'args-json') return "The whole argument object as JSON; '-' reads it from stdin";
  return flag.description;
}

/** The two tables a script embeds: the CLI's verbs and global flags, and the built-in tool commands. */
export type EmbeddedTables = { cli: string; tools: string };
