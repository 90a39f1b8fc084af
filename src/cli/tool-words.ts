import { propertyToFlag } from '../shared/naming.js';
import type { ToolCommand } from './help.js';

/** A tool name in running text: lower snake case, two parts or more. */
const TOOL_NAME = /\b[a-z][a-z0-9]*(?:_[a-z0-9]+)+\b/g;

/** An argument in backticks, alone or with a value: `network`, `network: testnet`. */
const ARGUMENT = /`([a-z][a-z0-9_]*)(?:: ([^`]*))?`/g;

export type ToolWords = {
  /** The listed tools and their commands. */
  commands: readonly ToolCommand[];
  /** The argument names that are flags here: the called tool's properties, the CLI's own flags (snake case). */
  arguments: ReadonlySet<string>;
};

/**
 * A server's message or hint in the CLI's words. The domain names tools and arguments, never
 * flags ("check with `evm_tx_get`", "pass `network: testnet`"), since an agent reads them over
 * MCP; here a listed tool becomes its command and a backticked argument its flag.
 *
 * @example
 * inCliWords('Pass `network: testnet`; core_wallets_list shows them.', words)
 * // 'Pass --network testnet; core-wallets-list shows them.'
 */
export function inCliWords(text: string, words: ToolWords): string {
  const commands = new Map(words.commands.map((entry) => [entry.tool.name, entry.command]));
  return text
    .replace(ARGUMENT, (whole, name: string, value: string | undefined) => {
      const command = commands.get(name);
      if (command !== undefined && value === undefined) return command;
      if (!words.arguments.has(name)) return whole;
      const flag = propertyToFlag(name);
      if (value === undefined || value === 'true') return `--${flag}`;
      if (value === 'false') return `--no-${flag}`;
      return `--${flag} ${value}`;
    })
    .replace(TOOL_NAME, (word) => commands.get(word) ?? word);
}
