import type { ToolCommand } from '../help.js';
import { bashScript } from './bash.js';
import { fishScript } from './fish.js';
import type { CompletionShell, EmbeddedTables } from './model.js';
import { completionTable } from './table.js';
import { cliTable } from './verbs.js';
import { zshScript } from './zsh.js';

export { serverCacheKey } from './cache-key.js';
export { COMPLETION_FILES, COMPLETION_SHELLS, type CompletionShell } from './model.js';
export { completionTable } from './table.js';

const SCRIPTS: Readonly<Record<CompletionShell, (tables: EmbeddedTables) => string>> = {
  bash: bashScript,
  zsh: zshScript,
  fish: fishScript,
};

/**
 * The completion script for `shell`, with the CLI's verbs and global flags and `commands` (the
 * built-in server's) embedded. For `--server`/`--url` the script reads the server's cached table.
 *
 * @example
 * io.stdout.write(completionScript('zsh', toolCommands(await session.listTools())));
 */
export function completionScript(shell: CompletionShell, commands: readonly ToolCommand[]): string {
  return SCRIPTS[shell]({ cli: cliTable(), tools: completionTable(commands) });
}
