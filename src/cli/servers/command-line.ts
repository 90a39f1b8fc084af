import { UsageError } from '../usage-error.js';

const SHELL_OPERATOR = /[|&;<>()`]/;

/**
 * Splits a `--server "<command line>"` (a one-off, or the one `wallet servers add` stores) into
 * words, with the quoting of a POSIX shell and nothing else: `$` is never substituted, so
 * `${TOKEN}` and `${PORT:-8080}` stay as written (a stored line's references are expanded when
 * connecting). Operators outside quotes and unclosed quotes are refused: no shell will ever run
 * this line. (shell-quote, used before for one-off lines, cannot keep `${PORT:-8080}`.)
 *
 * @example
 * splitCommandLine(`npx -y server --token '\${TOKEN}' "a b"`)
 * // { command: 'npx', args: ['-y', 'server', '--token', '${TOKEN}', 'a b'] }
 */
export function splitCommandLine(line: string): { command: string; args: string[] } {
  const words: string[] = [];
  let word: string | undefined;
  let index = 0;
  const take = (text: string): void => {
    word = (word ?? '') + text;
  };
  while (index < line.length) {
    const char = line[index] ?? '';
    if (/\s/.test(char)) {
      if (word !== undefined) words.push(word);
      word = undefined;
      index++;
    } else if (char === "'") {
      const end = line.indexOf("'", index + 1);
      if (end === -1) throw unclosed('single');
      take(line.slice(index + 1, end));
      index = end + 1;
    } else if (char === '"') {
      index = readDoubleQuoted(line, index + 1, take);
    } else if (char === '\\') {
      take(line[index + 1] ?? '');
      index += 2;
    } else if (SHELL_OPERATOR.test(char)) {
      throw new UsageError(
        `--server takes one command with its arguments, not shell syntax ('${char}').`,
        'Quote the character, or wrap a pipeline in a script.',
      );
    } else {
      take(char);
      index++;
    }
  }
  if (word !== undefined) words.push(word);
  const [command, ...args] = words;
  if (!command) throw new UsageError('--server needs a command, e.g. --server "npx -y @scope/some-mcp-server".');
  return { command, args };
}

/** Inside "…": a backslash escapes only " \ $ and `, as in a shell. Returns the index after the closing quote. */
function readDoubleQuoted(line: string, start: number, take: (text: string) => void): number {
  let index = start;
  take('');
  while (index < line.length) {
    const char = line[index] ?? '';
    if (char === '"') return index + 1;
    const next = line[index + 1];
    if (char === '\\' && next !== undefined && '"\\$`'.includes(next)) {
      take(next);
      index += 2;
    } else {
      take(char);
      index++;
    }
  }
  throw unclosed('double');
}

function unclosed(kind: string): UsageError {
  return new UsageError(`--server has an unclosed ${kind} quote.`);
}

/**
 * Words back into one line a shell would split the same way: plain words as they are, others in
 * single quotes. `${VAR}` references read as written.
 *
 * @example
 * joinCommandLine('npx', ['-y', 'a b', '${TOKEN}']) // "npx -y 'a b' ${TOKEN}"
 */
export function joinCommandLine(command: string, args: readonly string[]): string {
  return [command, ...args].map(quoteWord).join(' ');
}

function quoteWord(word: string): string {
  if (/^[A-Za-z0-9_@%+=:,./{}$^-]+$/.test(word)) return word;
  return `'${word.replaceAll("'", `'\\''`)}'`;
}
