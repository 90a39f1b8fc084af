import type { ListedTool } from '../mcp/client.js';
import { fullDescriptionOf } from '../shared/protocol-meta.js';
import { toolDomain } from '../shared/naming.js';
import { CLI_VERBS, type CliFlag } from './global-flags.js';
import { terminalSafe, type Style } from './render.js';
import type { FlagSpec } from './schema-flags.js';

/** A tool as a command: what help, completion and dispatch need. */
export type ToolCommand = { command: string; tool: ListedTool };

export { CLI_VERBS } from './global-flags.js';

/** `wallet tools`' own flag. */
export const TOOLS_FLAGS: readonly CliFlag[] = [
  { name: 'refresh', type: 'boolean', description: 'Ask the server again instead of using the cached list.' },
];

export function renderRootHelp(
  commands: readonly ToolCommand[],
  server: { name: string; version: string; builtIn: boolean },
  globalFlags: readonly CliFlag[],
  style: Style,
): string {
  // Another server's tools are not the wallet's: its help opens with that server, not our tagline.
  const lines = [
    server.builtIn
      ? `${style.heading('wallet')} — a Dash and Ethereum wallet for people and agents, over MCP.`
      : `${style.heading('wallet')} — ${terminalSafe(`Tools of ${server.name} ${server.version}.`, true)}`,
  ];
  lines.push(`${style.heading('Usage:')} wallet <command> [flags]`, '');
  const width = Math.max(
    ...commands.map((entry) => entry.command.length),
    ...CLI_VERBS.map((verb) => verb.name.length),
  );
  const groups = new Map<string, ToolCommand[]>();
  for (const entry of commands) {
    const domain = toolDomain(entry.tool.name);
    groups.set(domain, [...(groups.get(domain) ?? []), entry]);
  }
  for (const [domain, entries] of [...groups].sort(
    ([a], [b]) => domainOrder(a) - domainOrder(b) || a.localeCompare(b),
  )) {
    lines.push(style.heading(`${domainTitle(domain)} commands:`));
    for (const entry of entries) {
      const summary = terminalSafe(entry.tool.description ?? entry.tool.title ?? '', true);
      lines.push(`  ${style.key(terminalSafe(entry.command, true).padEnd(width))}  ${summary}`);
    }
    lines.push('');
  }
  lines.push(style.heading('CLI commands:'));
  for (const verb of CLI_VERBS) lines.push(`  ${style.key(verb.name.padEnd(width))}  ${verb.summary}`);
  lines.push('', style.heading('Global flags:'), ...flagLines(globalFlags.map(cliFlagRow), style), '');
  lines.push(`Run 'wallet <command> --help' for a command's flags and full description.`);
  return lines.join('\n') + '\n';
}

export function renderCommandHelp(entry: ToolCommand, specs: readonly FlagSpec[], style: Style): string {
  const { tool } = entry;
  // Everything a server wrote is made terminal-safe: an escape in a description could rewrite the screen.
  const description = terminalSafe(fullDescriptionOf(tool));
  const lines = [
    `${style.heading(terminalSafe(`wallet ${entry.command}`, true))}${tool.title ? ` — ${terminalSafe(tool.title, true)}` : ''}`,
    '',
    description,
    '',
    `${style.heading('Usage:')} wallet ${terminalSafe(entry.command, true)}${specs.some((spec) => spec.required) ? ' <flags>' : ' [flags]'}`,
    '',
    style.heading('Flags:'),
    ...flagLines(
      [
        ...specs.flatMap(specRows),
        {
          names: '--args-json <json|->',
          text: "The whole argument object as JSON; '-' reads it from stdin. Flags override it.",
        },
      ],
      style,
    ),
  ];
  const hints = tool.annotations;
  if (hints) {
    const yesNo = (value: boolean | undefined): string => (value === undefined ? 'unknown' : value ? 'yes' : 'no');
    lines.push(
      '',
      style.heading('Annotations:'),
      `  read-only: ${yesNo(hints.readOnlyHint)}  destructive: ${yesNo(hints.destructiveHint)}  ` +
        `idempotent: ${yesNo(hints.idempotentHint)}  open-world: ${yesNo(hints.openWorldHint)}`,
    );
  }
  lines.push('', `Global flags (--json, --server, …): wallet --help. Tool name: ${terminalSafe(tool.name, true)}.`);
  return lines.join('\n') + '\n';
}

type FlagRow = { names: string; text: string };

/** The help lines of generated flags (`specs`) and of the CLI's own (`own`): for `wallet resource` and `wallet prompt`. */
export function renderFlagLines(specs: readonly FlagSpec[], own: readonly CliFlag[], style: Style): string[] {
  return flagLines([...specs.flatMap(specRows), ...own.map(cliFlagRow)], style);
}

function specRows(spec: FlagSpec): FlagRow[] {
  const notes = [
    spec.required ? 'required' : '',
    spec.array ? 'repeatable' : '',
    spec.nullable ? "'null' allowed" : '',
    spec.hasDefault ? `default: ${JSON.stringify(spec.defaultValue)}` : '',
  ].filter(Boolean);
  const text = terminalSafe(spec.description + (notes.length > 0 ? ` [${notes.join(', ')}]` : ''), true);
  // A flag's name comes from a server's property or argument name: terminal-safe like its words.
  const flag = terminalSafe(spec.flag, true);
  if (spec.secret) {
    return [
      { names: `--${flag}-stdin`, text: `${text} Read from stdin (secret: never inline).` },
      {
        names: `--${flag}-file <path>`,
        text: 'Or read it from an owner-only file; on a terminal, omit both to be prompted.',
      },
    ];
  }
  const placeholder =
    spec.kind === 'boolean' && !spec.array
      ? ''
      : ` <${spec.choices ? terminalSafe(spec.choices.map(String).join('|'), true) : spec.kind === 'json' ? terminalSafe(spec.objectShape ?? 'json', true) : spec.kind}>`;
  const names = spec.kind === 'boolean' && !spec.array ? `--[no-]${flag}` : `--${flag}${placeholder}`;
  return [{ names, text }];
}

function cliFlagRow(flag: CliFlag): FlagRow {
  const value = flag.choices ? ` <${flag.choices.join('|')}>` : flag.value ? ` <${flag.value}>` : '';
  const alias = flag.alias ? `-${flag.alias}, ` : '';
  const name = flag.name === 'color' || flag.name === 'qr' ? `--[no-]${flag.name}` : `--${flag.name}`;
  return { names: `${alias}${name}${value}`, text: flag.description };
}

function flagLines(rows: readonly FlagRow[], style: Style): string[] {
  const width = Math.min(34, Math.max(0, ...rows.map((row) => row.names.length)));
  return rows.map((row) =>
    row.names.length > width
      ? `  ${style.key(row.names)}\n  ${' '.repeat(width)}  ${row.text}`
      : `  ${style.key(row.names.padEnd(width))}  ${row.text}`,
  );
}

const DOMAIN_TITLES: Readonly<Record<string, string>> = { core: 'Dash Core', evm: 'Ethereum / EVM', meta: 'Meta' };
const DOMAIN_ORDER = ['core', 'evm', 'meta'];

function domainTitle(domain: string): string {
  return DOMAIN_TITLES[domain] ?? domain;
}

function domainOrder(domain: string): number {
  const index = DOMAIN_ORDER.indexOf(domain);
  return index === -1 ? DOMAIN_ORDER.length : index;
}
