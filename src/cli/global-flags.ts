import yargsParser from 'yargs-parser';
import type { PaymentChoice } from '../mcp/x402-payer.js';
import { FUNCTION_DIALECTS } from '../shared/function-catalogue.js';
import { isProfile, PROFILES, type Profile } from '../shared/profiles.js';
import { UsageError } from './usage-error.js';
import { refuseEndpointCredentialsInArgv } from './url-credentials.js';

/** A flag of the CLI itself (not generated from a tool). */
export type CliFlag = {
  name: string;
  alias?: string;
  type: 'string' | 'boolean' | 'array';
  /** Placeholder shown in help for a value: `<path>`. */
  value?: string;
  choices?: readonly string[];
  description: string;
  /** A flag that takes a value but may stand alone, meaning true (a boolean-or-string union). */
  bareMeansTrue?: boolean;
  /** What its value completes to in a shell, beyond text (src/cli/completion/values-file.ts): `server`. */
  completes?: string;
};

/** Valid before or after any command. */
export const GLOBAL_FLAGS: readonly CliFlag[] = [
  { name: 'json', type: 'boolean', description: 'Print exactly the structured result, as JSON.' },
  {
    name: 'server',
    type: 'string',
    value: 'name|command',
    description: "Talk to another MCP server: a name from 'wallet servers', or a command (stdio).",
    completes: 'server',
  },
  {
    name: 'url',
    type: 'string',
    value: 'url',
    description: 'Talk to an MCP server over Streamable HTTP, e.g. http://127.0.0.1:9527/mcp.',
  },
  {
    name: 'header',
    type: 'array',
    value: 'name: value',
    description: 'An HTTP header for --url (repeatable); ${VAR} in it is read from the environment.',
  },
  {
    name: 'header-file',
    type: 'string',
    value: 'path',
    description: "HTTP headers for --url from an owner-only file, one 'Name: value' a line.",
  },
  {
    name: 'env',
    type: 'array',
    value: 'name=value',
    description: 'An environment variable for the --server command (repeatable).',
  },
  {
    name: 'timeout',
    type: 'string',
    value: 'ms',
    description: 'Give up on the server after this long (default 60000).',
  },
  {
    name: 'endpoint',
    type: 'array',
    value: 'chain.network=url',
    description: 'Use this node endpoint (repeatable), e.g. evm.local=http://127.0.0.1:8545.',
  },
  {
    name: 'passphrase-file',
    type: 'string',
    value: 'path',
    description: 'Unlock the keystore with the passphrase in this owner-only file.',
  },
  {
    name: 'passphrase-stdin',
    type: 'boolean',
    description: 'Unlock the keystore with the passphrase read from stdin.',
  },
  {
    name: 'get-tool-definition',
    type: 'boolean',
    description: 'Print every tool as one function-calling JSON document.',
  },
  {
    name: 'read-only',
    type: 'boolean',
    description: 'With --get-tool-definition: only the tools wallet serve --read-only serves.',
  },
  {
    name: 'profile',
    type: 'string',
    value: 'profile',
    choices: PROFILES,
    description: 'With --get-tool-definition: the tools as wallet serve --profile lists them (default default).',
  },
  {
    name: 'format',
    type: 'string',
    value: 'dialect',
    choices: FUNCTION_DIALECTS,
    description: 'Dialect of --get-tool-definition (default wallet).',
  },
  {
    name: 'yes',
    alias: 'y',
    type: 'boolean',
    description:
      "Run a destructive tool (a payment, a deletion) without the CLI's question; needed without a terminal. A server that asks for itself (wallet serve) still does.",
  },
  {
    name: 'pay-from',
    type: 'string',
    value: 'account',
    description:
      "Pay another server's tool that asks for x402 payment, from this EVM account (address or alias); see docs/CLI.md.",
  },
  {
    name: 'pay-token',
    type: 'string',
    value: 'address',
    description: 'With --pay-from: the only token to pay in (an EIP-3009 token such as USDC).',
  },
  {
    name: 'pay-max-price',
    type: 'string',
    value: 'base units',
    description: "With --pay-from: the most to pay for the call, in the token's base units (10000 is 0.01 USDC).",
  },
  {
    name: 'pay-network',
    type: 'string',
    value: 'network',
    description: 'With --pay-from: the EVM network to pay on (its chain id must be the one the tool asks for).',
  },
  {
    name: 'pay-dry-run',
    type: 'boolean',
    description: 'With --pay-from: show what the tool asks to be paid and its terms digest; sign and pay nothing.',
  },
  {
    name: 'pay-terms',
    type: 'string',
    value: 'digest',
    description: 'With --pay-from: pay only the terms a --pay-dry-run showed (their digest); other terms are refused.',
  },
  {
    name: 'detach',
    type: 'boolean',
    description:
      "When another server answers a call with a task: print the task's id and exit, without waiting ('wallet tasks' resumes).",
  },
  {
    name: 'accept-defaults',
    type: 'boolean',
    description: "Answer another server's questions with their defaults, without a terminal.",
  },
  {
    name: 'qr',
    type: 'boolean',
    description: 'Show a receive address as a QR code too (default: on a terminal); --no-qr turns it off.',
  },
  {
    name: 'color',
    type: 'boolean',
    description: 'Colour the output on a terminal; --no-color (or NO_COLOR) turns it off.',
  },
  { name: 'debug', type: 'boolean', description: 'Show error causes and stack traces.' },
  { name: 'help', alias: 'h', type: 'boolean', description: 'Show help.' },
  { name: 'version', alias: 'V', type: 'boolean', description: 'Show the version.' },
];

/**
 * The longest `--timeout`: Node's timers hold at most 2^31 - 1 ms (~24.8 days); a longer one
 * would fire at once (a timer) or throw (AbortSignal.timeout).
 */
const MAX_TIMEOUT_MS = 2 ** 31 - 1;

/** The typed, checked view of the global flags after a parse. */
export type GlobalOptions = {
  json: boolean;
  server: string | undefined;
  url: string | undefined;
  headers: string[];
  headerFile: string | undefined;
  env: string[];
  yes: boolean;
  acceptDefaults: boolean;
  detach: boolean;
  qr: boolean | undefined;
  timeoutMs: number | undefined;
  endpoints: string[];
  passphraseFile: string | undefined;
  passphraseStdin: boolean;
  getToolDefinition: boolean;
  format: string | undefined;
  readOnly: boolean;
  profile: Profile | undefined;
  color: boolean | undefined;
  debug: boolean;
  help: boolean;
  version: boolean;
  /** What `--pay-*` says about paying another server's tool with x402; undefined without `--pay-from`. */
  payment: PaymentFlags | undefined;
};

/** The `--pay-*` flags, all given (a payment names its account, token, price cap and network). */
export type PaymentFlags = PaymentChoice;

/** The CLI's own verbs, shown after the tool commands. */
export const CLI_VERBS: readonly { name: string; summary: string }[] = [
  { name: 'serve', summary: 'Serve the wallet tools over MCP, stdio or HTTP (for agents)' },
  { name: 'tools', summary: 'List the tools of the server with their badges (--refresh)' },
  { name: 'resources', summary: "List the server's resources and resource templates" },
  { name: 'resource', summary: 'Read a resource by URI (a template takes its variables as flags)' },
  { name: 'prompts', summary: "List the server's prompts and their arguments" },
  { name: 'prompt', summary: 'Get a prompt, its arguments as flags' },
  { name: 'tasks', summary: "Follow another server's task: get, result, cancel <id>" },
  { name: 'setup', summary: 'Register the wallet with an agent: claude-code, codex, vscode, …' },
  { name: 'servers', summary: 'Named MCP servers: list, add, remove, import' },
  { name: 'approvals', summary: 'Answer what agents wait on: list, approve, deny' },
  { name: 'config', summary: 'Read and change config.json: list, get, set, unset' },
  { name: 'networks', summary: 'Add an EVM network of your own: networks add' },
  { name: 'state', summary: 'The state replicas share: status, migrate, policy-record, import' },
  { name: 'daemon', summary: "The kept-alive servers' daemon: status, stop" },
  { name: 'completion', summary: 'Print a shell completion script: bash, zsh or fish' },
];

/**
 * Whether a run with these flags and first word calls a tool of its server: a verb that is no
 * verb of the CLI's own, without help or `--get-tool-definition`. Such a run connects whatever
 * the cache holds, so a stdio server spoken to before is spawned ahead (`startServerAhead` in
 * connection.ts, and `bin/wallet.js` through src/startup/ahead.ts).
 */
export function callsTool(globals: GlobalOptions, verb: string | undefined): boolean {
  return (
    verb !== undefined && !CLI_VERBS.some((own) => own.name === verb) && !globals.help && !globals.getToolDefinition
  );
}

/** The flags of the built-in server, refused with `--server` or `--url`. */
export function refuseBuiltInFlags(globals: GlobalOptions): void {
  // Paying another server's tool (--pay-from) unlocks the keystore and reaches the EVM node: then they serve it.
  const paying = globals.payment !== undefined;
  if (!paying && (globals.passphraseFile !== undefined || globals.passphraseStdin)) {
    throw new UsageError(
      '--passphrase-file and --passphrase-stdin unlock the built-in keystore; not with --server or --url, but with --pay-from.',
    );
  }
  if (!paying && globals.endpoints.length > 0)
    throw new UsageError('--endpoint configures the built-in server; not with --server or --url, but with --pay-from.');
  if (globals.readOnly || globals.profile !== undefined) {
    throw new UsageError(
      "--read-only and --profile choose what the built-in server's --get-tool-definition shows; not with --server or --url.",
    );
  }
}

/** What a command line parses to: each flag by name, the other words in `_`. */
export type ParsedFlags = Record<string, unknown> & { _: (string | number)[] };

/**
 * Parses `argv` knowing `flags`: booleans as booleans, everything else as text (the CLI
 * converts). yargs' own parser (yargs-parser), configured the way this CLI needs it: no camelCase
 * twins, no number guessing, no dot paths, repeated flags collected, `--no-x` for false. A word
 * after a flag that takes a value is that value even when it starts with one `-` (`-` for stdin,
 * `-1.5e2`, `-1dash`): it is attached to its flag first (`--args-json=-`), so yargs never reads it
 * as a bundle of short flags (`-1dash` holds `-h`: help, and exit 0 from a spend command). After
 * a flag not in `flags` (a command's, before its flags are known), such a word is its value too,
 * unless it is made of short flags only (`--dry-run -h`): yargs would have made it a bundle.
 */
export function parseFlags(argv: readonly string[], flags: readonly CliFlag[]): ParsedFlags {
  const takesValue = new Map(
    flags.filter((flag) => flag.type !== 'boolean').map((flag): [string, CliFlag] => [`--${flag.name}`, flag]),
  );
  const known = new Set(flags.flatMap((flag) => [flag.name, `no-${flag.name}`]));
  const shortFlags = new Set(flags.flatMap((flag) => (flag.alias ? [flag.alias] : [])));
  const onlyShortFlags = (word: string): boolean => [...word.slice(1)].every((letter) => shortFlags.has(letter));
  const joined: string[] = [];
  for (let index = 0; index < argv.length; index++) {
    const word = argv[index] ?? '';
    const next = argv[index + 1];
    const flag = takesValue.get(word);
    if (word === '--') {
      joined.push(...argv.slice(index));
      break;
    }
    const dashWord = next !== undefined && next.startsWith('-') && !next.startsWith('--');
    const unknownLong = word.startsWith('--') && !word.includes('=') && !known.has(word.slice(2));
    if ((flag && dashWord) || (unknownLong && dashWord && next !== '-' && !onlyShortFlags(next))) {
      joined.push(`${word}=${next}`);
      index++;
    } else if (flag && (next === undefined || next.startsWith('-'))) {
      // Nothing follows but another flag: yargs would send on an empty string.
      if (!flag.bareMeansTrue) throw new UsageError(`${word} needs a value.`);
      joined.push(`${word}=true`);
    } else if (/^-[^-]/.test(word) && !onlyShortFlags(word)) {
      // Not a bundle of known short flags: `-1dash` (its flag forgotten) would otherwise set -h
      // among others, and a spend would print help and exit 0 having done nothing.
      const unknown = [...word.slice(1)].find((letter) => !shortFlags.has(letter)) ?? '';
      throw new UsageError(
        `Unknown flag -${unknown}${word.length > 2 ? ` in '${word}'` : ''}.`,
        "A value that starts with - goes right after the flag it is for; '<command> --help' lists the flags.",
      );
    } else joined.push(word);
  }
  const result = yargsParser.detailed(joined, {
    boolean: flags.filter((flag) => flag.type === 'boolean').map((flag) => flag.name),
    string: flags.filter((flag) => flag.type !== 'boolean').map((flag) => flag.name),
    array: flags.filter((flag) => flag.type === 'array').map((flag) => flag.name),
    alias: Object.fromEntries(flags.flatMap((flag) => (flag.alias ? [[flag.name, [flag.alias]]] : []))),
    configuration: {
      'camel-case-expansion': false,
      'parse-numbers': false,
      'parse-positional-numbers': false,
      'dot-notation': false,
      'greedy-arrays': false,
      'strip-aliased': true,
      'boolean-negation': true,
    },
  });
  if (result.error) throw new UsageError(result.error.message);
  return result.argv as ParsedFlags;
}

/** A repeatable flag's values, as text (none when absent). */
export function repeatedValues(parsed: Readonly<Record<string, unknown>>, name: string): string[] {
  const value = parsed[name];
  return value === undefined ? [] : (Array.isArray(value) ? value : [value]).map(String);
}

export function readGlobals(parsed: Readonly<Record<string, unknown>>): GlobalOptions {
  const text = (name: string): string | undefined => {
    const value = parsed[name];
    return Array.isArray(value) ? String(value[value.length - 1]) : value === undefined ? undefined : String(value);
  };
  const timeout = text('timeout');
  if (timeout !== undefined && (!/^[1-9]\d*$/.test(timeout) || Number(timeout) > MAX_TIMEOUT_MS)) {
    throw new UsageError(`--timeout takes milliseconds, a positive integer up to ${MAX_TIMEOUT_MS}; got '${timeout}'.`);
  }
  const format = text('format');
  if (format !== undefined && !(FUNCTION_DIALECTS as readonly string[]).includes(format)) {
    throw new UsageError(`--format must be one of ${FUNCTION_DIALECTS.join(', ')}; got '${format}'.`);
  }
  const profile = text('profile');
  if (profile !== undefined && !isProfile(profile)) {
    throw new UsageError(`--profile must be one of ${PROFILES.join(', ')}; got '${profile}'.`);
  }
  return {
    json: parsed['json'] === true,
    server: text('server'),
    url: text('url'),
    headers: repeatedValues(parsed, 'header'),
    headerFile: text('header-file'),
    env: repeatedValues(parsed, 'env'),
    yes: parsed['yes'] === true,
    acceptDefaults: parsed['accept-defaults'] === true,
    detach: parsed['detach'] === true,
    qr: typeof parsed['qr'] === 'boolean' ? parsed['qr'] : undefined,
    timeoutMs: timeout === undefined ? undefined : Number(timeout),
    endpoints: refuseEndpointCredentialsInArgv(repeatedValues(parsed, 'endpoint')),
    passphraseFile: text('passphrase-file'),
    passphraseStdin: parsed['passphrase-stdin'] === true,
    getToolDefinition: parsed['get-tool-definition'] === true,
    format,
    readOnly: parsed['read-only'] === true,
    profile,
    color: typeof parsed['color'] === 'boolean' ? parsed['color'] : undefined,
    debug: parsed['debug'] === true,
    help: parsed['help'] === true,
    version: parsed['version'] === true,
    payment: paymentFlags(text, parsed['pay-dry-run'] === true),
  };
}

/** The `--pay-*` flags: none, or `--pay-from` with the token, price cap and network it needs. */
function paymentFlags(text: (name: string) => string | undefined, dryRun: boolean): PaymentFlags | undefined {
  const from = text('pay-from');
  const token = text('pay-token');
  const maxPrice = text('pay-max-price');
  const network = text('pay-network');
  const terms = text('pay-terms');
  if (from === undefined) {
    const stray = [
      ['pay-token', token],
      ['pay-max-price', maxPrice],
      ['pay-network', network],
      ['pay-terms', terms],
      ['pay-dry-run', dryRun ? 'yes' : undefined],
    ].find(([, value]) => value !== undefined)?.[0];
    if (stray) throw new UsageError(`--${stray} goes with --pay-from, the account that pays.`);
    return undefined;
  }
  const missing = [
    ['--pay-token', token],
    ['--pay-max-price', maxPrice],
    ['--pay-network', network],
  ].filter(([, value]) => value === undefined);
  if (token === undefined || maxPrice === undefined || network === undefined) {
    throw new UsageError(
      `--pay-from pays only with ${missing.map(([flag]) => flag).join(', ')} too: the token, the most to pay and the network.`,
      "e.g. --pay-from holder --pay-token 0x036CbD53842c5426634e7929541eC2318f3dCF7e --pay-max-price 10000 --pay-network base-sepolia; see docs/CLI.md ('Paying for tools').",
    );
  }
  if (terms !== undefined && !/^[0-9a-f]{16}$/.test(terms)) {
    throw new UsageError(`--pay-terms takes the 16 hex digits a --pay-dry-run printed; got '${terms}'.`);
  }
  return { from, token, maxPrice, network, dryRun, terms };
}
