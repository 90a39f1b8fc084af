import type { ConfigEntry } from '../domain/config/config-edit.js';
import { asOwnerVerb } from './owner-errors.js';
import { parseFlags, type CliFlag } from './global-flags.js';
import { readAll, type CliIo } from './io.js';
import { colorEnabled, createStyle, renderHuman, terminalSafe } from './render.js';
import { closestNames } from './suggest.js';
import { refuseUrlCredentialsInArgv } from './url-credentials.js';
import { rejectUnknownFlags } from './unknown-flags.js';
import { EXIT, UsageError } from './usage-error.js';

/** The subcommands of `wallet config`, for help and completion. */
export const CONFIG_SUBCOMMANDS = ['list', 'get', 'set', 'unset'] as const;
type ConfigSubcommand = (typeof CONFIG_SUBCOMMANDS)[number];

export const CONFIG_SUMMARIES: Readonly<Record<ConfigSubcommand, string>> = {
  list: 'Every setting of config.json, policy included',
  get: 'One setting of config.json',
  set: 'Set one key, validated as the wallet reads it',
  unset: 'Remove one key',
};

/** The subcommands of `wallet networks`. */
export const NETWORKS_SUBCOMMANDS = ['add'] as const;

export const NETWORKS_SUMMARIES: Readonly<Record<(typeof NETWORKS_SUBCOMMANDS)[number], string>> = {
  add: 'Add an EVM network: its RPC URL and chain id',
};

const COMMON_FLAGS: readonly CliFlag[] = [
  { name: 'json', type: 'boolean', description: 'Print the result as JSON.' },
  { name: 'color', type: 'boolean', description: 'Colour the output on a terminal.' },
  { name: 'debug', type: 'boolean', description: 'Show error causes and stack traces.' },
  { name: 'help', alias: 'h', type: 'boolean', description: 'Show help.' },
];

/** Every flag `wallet config …` takes. */
export const CONFIG_FLAGS: readonly CliFlag[] = COMMON_FLAGS;

/** Every flag `wallet networks add` takes. */
export const NETWORKS_FLAGS: readonly CliFlag[] = [
  { name: 'rpc-url', type: 'string', value: 'url', description: "The network's JSON-RPC endpoint (- reads stdin)." },
  {
    name: 'chain-id',
    type: 'string',
    value: 'id',
    description: 'Its chain id; checked against the node when it answers, else asked from it.',
  },
  ...COMMON_FLAGS,
];

const CONFIG_HELP = `wallet config — read and change config.json without editing JSON.

Usage:
  wallet config [list] [--json]      every setting the file holds, spending policy included
  wallet config get <key>            one setting
  wallet config set <key> <value>    set it (value - reads it from stdin, e.g. a URL with a password)
  wallet config unset <key>          remove it

Keys:
  default_wallet                                   the wallet used when wallet_id is omitted (must exist)
  core.default_network                             mainnet, testnet or regtest
  core.networks.<mainnet|testnet|regtest>.backend  core-rpc or insight
  core.networks.<mainnet|testnet|regtest>.url      the node's or explorer's URL
  core.networks.<mainnet|testnet|regtest>.cookie_file
  evm.default_network                              a configured EVM network
  evm.networks.<name>.url | chain_id               (wallet networks add makes a new one)
  platform.default_network                         mainnet, testnet or a configured Platform network
  platform.networks.<name>.dapi_addresses          DAPI URLs, space- or comma-separated (local, devnets)
  platform.networks.<name>.quorum_url              the quorum service whose keys verify proofs

Every change is validated exactly as the wallet reads the file, and written atomically under a
lock; a refused value names the key and leaves the file unchanged. URLs are shown with their
credentials masked. Spending-policy keys (….policy.…) are listed but edited by hand (docs/POLICY.md).
`;

const NETWORKS_HELP = `wallet networks — EVM networks of one's own.

Usage:
  wallet networks add <name> --rpc-url <url> [--chain-id <id>]

The node is asked for its chain id: a --chain-id it does not serve is refused; without
--chain-id its answer is taken (an unreachable node is then refused). 'wallet network-info'
lists every network; the built-in ones take a URL with 'wallet config set evm.networks.<name>.url'.
`;

/** `wallet config …`: config.json, read and edited with the loader's own validation. */
export async function runConfig(argv: readonly string[], io: CliIo, dataDir: string): Promise<number> {
  const { parsed, word, words } = subcommandOf(argv, 'config', CONFIG_FLAGS);
  if (parsed['help'] === true || word === 'help') {
    io.stdout.write(CONFIG_HELP);
    return EXIT.ok;
  }
  const subcommand = pick(CONFIG_SUBCOMMANDS, word ?? 'list', 'config');
  rejectUnknownFlags({ ...parsed, _: [] }, CONFIG_FLAGS, `config ${subcommand}`);
  const json = parsed['json'] === true;
  const edit = await import('../domain/config/config-edit.js');
  if (subcommand === 'list') {
    expectWords(words, 0, 'config list');
    const entries = await asOwnerVerb(() => edit.listConfig(dataDir));
    if (json) io.stdout.write(JSON.stringify({ settings: entries.map(publicEntry) }, null, 2) + '\n');
    else if (entries.length === 0)
      io.stderr.write("config.json sets nothing: the defaults apply ('wallet network-info' shows them).\n");
    else {
      const style = await createStyle(colorEnabled(colorFlag(parsed), io));
      io.stdout.write(renderHuman(entries.map(row), style));
    }
    return EXIT.ok;
  }
  const [key] = expectWords(words, subcommand === 'set' ? 2 : 1, `config ${subcommand}`);
  if (subcommand === 'get') {
    const entry = await asOwnerVerb(() => edit.getConfigValue(dataDir, key ?? ''));
    if (entry === undefined) {
      throw new UsageError(
        `config.json does not set ${terminalSafe(key ?? '')}.`,
        "'wallet config list' shows what it sets.",
      );
    }
    io.stdout.write(json ? JSON.stringify(publicEntry(entry), null, 2) + '\n' : `${terminalSafe(entry.value)}\n`);
    return EXIT.ok;
  }
  if (subcommand === 'set') {
    const given = words[1] ?? '';
    if (given !== '-') {
      refuseUrlCredentialsInArgv(
        given,
        `config set ${terminalSafe(key ?? '')}`,
        `on stdin, \`wallet config set ${terminalSafe(key ?? '')} -\``,
      );
    }
    const value = given === '-' ? (await readAll(io.stdin)).replace(/\r?\n$/, '') : given;
    await asOwnerVerb(() => edit.setConfigValue(dataDir, key ?? '', value));
    const shown = await asOwnerVerb(() => edit.getConfigValue(dataDir, key ?? ''));
    if (json) io.stdout.write(JSON.stringify(shown ? publicEntry(shown) : { key }, null, 2) + '\n');
    else io.stdout.write(`${terminalSafe(key ?? '')} = ${terminalSafe(shown?.value ?? '')}\n`);
    return EXIT.ok;
  }
  const removed = await asOwnerVerb(() => edit.unsetConfigValue(dataDir, key ?? ''));
  if (json) io.stdout.write(JSON.stringify({ key, removed }, null, 2) + '\n');
  else io.stdout.write(removed ? `${terminalSafe(key ?? '')} removed\n` : `${terminalSafe(key ?? '')} was not set\n`);
  return EXIT.ok;
}

/** `wallet networks add <name> --rpc-url … [--chain-id …]`: a user EVM network in config.json. */
export async function runNetworks(argv: readonly string[], io: CliIo, dataDir: string): Promise<number> {
  const { parsed, word, words } = subcommandOf(argv, 'networks', NETWORKS_FLAGS);
  if (parsed['help'] === true || word === 'help' || word === undefined) {
    io.stdout.write(NETWORKS_HELP);
    return EXIT.ok;
  }
  pick(NETWORKS_SUBCOMMANDS, word, 'networks');
  rejectUnknownFlags({ ...parsed, _: [] }, NETWORKS_FLAGS, 'networks add');
  const [name] = expectWords(words, 1, 'networks add');
  const given = parsed['rpc-url'];
  if (typeof given !== 'string' || given === '') throw new UsageError('networks add needs --rpc-url <url>.');
  if (given !== '-') refuseUrlCredentialsInArgv(given, '--rpc-url', 'on stdin, `--rpc-url -`');
  const url = given === '-' ? (await readAll(io.stdin)).replace(/\r?\n$/, '') : given;
  const chainIdText = parsed['chain-id'];
  let chainId: number | undefined;
  if (chainIdText !== undefined) {
    if (typeof chainIdText !== 'string' || !/^[1-9][0-9]{0,15}$/.test(chainIdText)) {
      throw new UsageError('--chain-id takes a positive whole number.');
    }
    chainId = Number(chainIdText);
  }
  const { addEvmNetwork } = await import('../domain/config/config-edit.js');
  const added = await asOwnerVerb(() => addEvmNetwork(dataDir, { name: name ?? '', url, chainId }));
  if (parsed['json'] === true) {
    io.stdout.write(JSON.stringify({ network: name, chain_id: added.chainId, checked: added.checked }, null, 2) + '\n');
  } else {
    io.stdout.write(`evm.${terminalSafe(name ?? '')}: chain id ${added.chainId}\n`);
    if (!added.checked) io.stderr.write('The node did not answer: its chain id is checked on first use.\n');
  }
  return EXIT.ok;
}

function subcommandOf(
  argv: readonly string[],
  verb: string,
  flags: readonly CliFlag[],
): { parsed: ReturnType<typeof parseFlags>; word: string | undefined; words: string[] } {
  const parsed = parseFlags(argv, flags);
  const positionals = ((parsed['_'] as unknown[] | undefined) ?? []).map(String);
  const [word, ...words] = positionals.slice(positionals.indexOf(verb) + 1);
  return { parsed, word, words };
}

function pick<T extends string>(choices: readonly T[], word: string, verb: string): T {
  const found = choices.find((candidate) => candidate === word);
  if (found !== undefined) return found;
  const near = closestNames(word, choices);
  throw new UsageError(
    `Unknown subcommand '${verb} ${terminalSafe(word)}'.`,
    near.length > 0 ? `Did you mean '${verb} ${near.join(`' or '${verb} `)}'?` : `See 'wallet ${verb} --help'.`,
  );
}

function expectWords(words: readonly string[], count: number, command: string): readonly string[] {
  if (words.length !== count) {
    throw new UsageError(
      `${command} takes ${count === 0 ? 'no words' : count === 1 ? 'a key' : 'a key and a value'}.`,
      `See 'wallet ${command.split(' ')[0] ?? ''} --help'.`,
    );
  }
  return words;
}

function colorFlag(parsed: ReturnType<typeof parseFlags>): boolean | undefined {
  return typeof parsed['color'] === 'boolean' ? parsed['color'] : undefined;
}

function publicEntry(entry: ConfigEntry): Record<string, unknown> {
  return { key: entry.key, value: entry.value, editable: entry.editable };
}

function row(entry: ConfigEntry): Record<string, unknown> {
  return { key: entry.key, value: entry.value, edit: entry.editable ? 'config set' : 'by hand (policy)' };
}
