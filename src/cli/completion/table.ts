import type { ToolCommand } from '../help.js';
import { toolCompletionCommands, type CompletionCommand, type CompletionFlag } from './model.js';

/**
 * The text the completion scripts read, embedded in them and cached per server: one record per
 * line, fields separated by one tab. No field holds a tab or a line break, and every field but the
 * last is non-empty (bash's `read` merges adjacent tabs), so summaries cannot break a reader.
 *
 * ```
 * wallet-completion  1                                     (header; readers skip unknown records)
 * cmd   <parent>  <name>  <accepts>  <summary>             a command; parent '-' is the top level
 * flag  <scope>   <flag>  <kind>     <description>         kind: none | text | choice | file | wallet
 *                                                          | evm-network | evm-account | server (values-file.ts)
 * val   <scope>   <flag>  <value>                          a value of a `choice` or `evm-network` flag
 * ```
 *
 * `<scope>` is the command's path joined by spaces (`servers import`), or `-` for the global flags;
 * `<accepts>` is `globals`, `files`, `globals,files` or `-`.
 */
const TABLE_HEADER = 'wallet-completion\t1';

/**
 * The table of tool commands and their flags: embedded in the scripts for the built-in server, and
 * written to `<data dir>/cache/tools/<serverCacheKey>.tsv` for any other server.
 *
 * @example
 * completionTable(toolCommands(await session.listTools()))
 * // 'wallet-completion\t1\ncmd\t-\tnetwork-info\tglobals\tConfigured networks…\nflag\tnetwork-info\t--chain\tchoice\t…'
 */
export function completionTable(commands: readonly ToolCommand[]): string {
  return renderTable(toolCompletionCommands(commands), []);
}

/**
 * The table of `commands` with `globalFlags`. Used by the tool tables here and by the CLI's own
 * table (verbs.ts): this module imports none of the CLI's commands, so the tool-list cache, which
 * writes tool tables, loads no server.
 */
export function renderTable(commands: readonly CompletionCommand[], globalFlags: readonly CompletionFlag[]): string {
  const lines = [TABLE_HEADER, ...flagRecords('-', globalFlags)];
  for (const command of commands) {
    const name = command.path.at(-1) ?? '';
    if (!isCommandName(name)) continue;
    const parent = command.path.length > 1 ? command.path.slice(0, -1).join(' ') : '-';
    const accepts = [command.acceptsGlobals ? 'globals' : '', command.acceptsFiles ? 'files' : ''].filter(Boolean);
    lines.push(['cmd', parent, name, accepts.join(',') || '-', oneLine(command.summary)].join('\t'));
    lines.push(...flagRecords(command.path.join(' '), command.flags));
  }
  return lines.join('\n') + '\n';
}

function flagRecords(scope: string, flags: readonly CompletionFlag[]): string[] {
  return flags
    .filter((flag) => isFlagName(flag.name))
    .flatMap((flag) => [
      ['flag', scope, flag.name, flag.value, oneLine(flag.description)].join('\t'),
      ...(flag.value !== 'none'
        ? flag.choices
            .filter((choice) => choice !== '' && !hasControl(choice))
            .map((choice) => `val\t${scope}\t${flag.name}\t${choice}`)
        : []),
    ]);
}

/** A name a shell word can hold alone: no blanks or control characters, and not taken for a flag. */
function isCommandName(name: string): boolean {
  return name !== '' && !name.startsWith('-') && !/\s/.test(name) && !hasControl(name);
}

/** `--name` or `-n`: nothing a shell or `--flag=value` would split. */
function isFlagName(name: string): boolean {
  return /^--?[^\s=-][^\s=]*$/.test(name) && !hasControl(name);
}

function hasControl(text: string): boolean {
  // eslint-disable-next-line no-control-regex
  return /[\u0000-\u001f\u007f-\u009f]/.test(text);
}

const SUMMARY_MAX = 100;

/** The first non-blank line, control characters as spaces, at most SUMMARY_MAX characters. */
function oneLine(text: string): string {
  const first = text.split(/\r\n|\r|\n/).find((line) => line.trim() !== '') ?? '';
  // eslint-disable-next-line no-control-regex
  const clean = first.replace(/[\u0000-\u001f\u007f-\u009f\s]+/g, ' ').trim();
  return clean.length > SUMMARY_MAX ? `${clean.slice(0, SUMMARY_MAX - 1).trimEnd()}…` : clean;
}

/** What every script says about where its answers come from and the table format. */
export const TABLES_COMMENT = `# TAB never runs wallet, node or a server: commands and flags come from the tables below, or,
# with --server/--url, from the list wallet cached for that server in
# <data dir>/cache/tools/<sha256 of "server:<value>" or "url:<value>">.tsv.
# Tables: one record per line, fields separated by one tab (src/cli/completion/table.ts):
#   cmd <parent> <name> <accepts> <summary>, flag <scope> <flag> <kind> <description>,
#   val <scope> <flag> <value>; parent and scope '-' mean the top level.`;
