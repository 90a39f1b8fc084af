import { parse } from 'shell-quote';
import { UsageError } from './usage-error.js';

/**
 * Splits `--server "<command line>"` into a command and its arguments, with shell quoting rules
 * but no shell: operators, globs and substitutions are refused rather than run.
 *
 * @example
 * splitCommandLine('npx -y "@modelcontextprotocol/server-everything"')
 * // { command: 'npx', args: ['-y', '@modelcontextprotocol/server-everything'] }
 */
export function splitCommandLine(line: string): { command: string; args: string[] } {
  const words: string[] = [];
  for (const entry of parse(line, (name) => `$${name}`)) {
    if (typeof entry !== 'string') {
      throw new UsageError(
        '--server takes one command with its arguments, not shell syntax.',
        'Wrap a pipeline in a script.',
      );
    }
    words.push(entry);
  }
  const [command, ...args] = words;
  if (!command) throw new UsageError('--server needs a command, e.g. --server "node my-server.js".');
  return { command, args };
}
