import type { CliIo } from '../io.js';
import type { Style } from '../render.js';
import { UsageError } from '../usage-error.js';

/** One `wallet servers <subcommand>` run: its words after the subcommand, its flags, its streams. */
export type ServersRun = {
  words: string[];
  parsed: Readonly<Record<string, unknown>>;
  io: CliIo;
  dataDir: string;
  style: Style;
  json: boolean;
};

/** A flag given at most once, as text. */
export function single(parsed: Readonly<Record<string, unknown>>, name: string): string | undefined {
  const value = parsed[name];
  if (Array.isArray(value)) throw new UsageError(`--${name} is given more than once.`);
  return value === undefined ? undefined : String(value);
}

export function noMoreWords(words: readonly string[], command: string): void {
  if (words.length > 0)
    throw new UsageError(`Unexpected argument '${words[0]}' after '${command}'.`, "See 'wallet servers --help'.");
}
