import { join } from 'node:path';
import { Readable } from 'node:stream';
import { readBuiltInTools } from '../cli/builtin-tools.js';
import { toolCommands } from '../cli/commands.js';
import { CLI_VERBS } from '../cli/global-flags.js';
import type { CliIo } from '../cli/io.js';
import { runCli } from '../cli/main.js';

/**
 * The CLI's help for the built-in server, as the build recorded it (`dist/help.json`, written by
 * src/startup/bundle.mjs): `wallet --help` and `wallet <tool command> --help` print text that depends
 * only on the code (the recorded tool list, the flags, the layout), so `bin/wallet.js` prints the
 * recorded text without loading the 2.2 MB bundle (docs/PERFORMANCE.md). Each text is the CLI's own
 * output for that command line, asked of `runCli` in-process; the record holds it twice, as
 * printed to a pipe and as printed to a terminal (coloured).
 */
export const HELP_RECORD_FILE = join('dist', 'help.json');

export type HelpRecord = {
  /** The package version the record belongs to: `bin/wallet.js` takes no record of another. */
  version: string;
  /** Every word that names a built-in tool's command (its command and its tool name) → its key. */
  commands: Record<string, string>;
  /** The help as printed to a pipe (or with NO_COLOR): key '' is `wallet --help`, a command's is its own. */
  plain: Record<string, string>;
  /** The same, as printed to a terminal. */
  color: Record<string, string>;
};

/** Asks the CLI for every help text the record holds; fails if any of them is not a plain success. */
export async function recordHelp(): Promise<HelpRecord> {
  const list = await readBuiltInTools();
  if (!list) throw new Error('dist/builtin-tools.json is missing or of another version: it is recorded first');
  const record: HelpRecord = { version: list.server.version, commands: {}, plain: {}, color: {} };
  const keys = [''];
  // A word the CLI takes as its own verb is never a tool's (toolCommands renames such a command).
  const verbs = new Set(CLI_VERBS.map((verb) => verb.name));
  for (const { command, tool } of toolCommands(list.tools)) {
    record.commands[command] = command;
    if (!verbs.has(tool.name)) record.commands[tool.name] = command;
    keys.push(command);
  }
  for (const key of keys) {
    const argv = key === '' ? ['--help'] : [key, '--help'];
    record.plain[key] = await helpOutput(argv, false);
    record.color[key] = await helpOutput(argv, true);
  }
  return record;
}

async function helpOutput(argv: readonly string[], terminal: boolean): Promise<string> {
  let out = '';
  let err = '';
  const io: CliIo = {
    stdout: { write: (text: string) => (out += text), isTTY: terminal },
    stderr: { write: (text: string) => (err += text), isTTY: false },
    stdin: Readable.from([]),
    env: {},
  };
  const code = await runCli(argv, io);
  if (code !== 0 || err !== '' || out === '') {
    throw new Error(`recording 'wallet ${argv.join(' ')}' failed (exit ${code}): ${err}`);
  }
  return out;
}
