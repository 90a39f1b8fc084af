import type { z } from 'zod';

/**
 * Why `text` is not JSON, as a line and column. V8's own message may quote the text around the
 * error, and these files hold tokens, so only the position is kept.
 *
 * @example
 * describeJsonError(new SyntaxError('… in JSON at position 7'), '{"a": 1\n,}') // 'not valid JSON (line 2, column 1)'
 */
export function describeJsonError(error: unknown, text: string): string {
  const message = error instanceof Error ? error.message : '';
  const position = /at position (\d+)/.exec(message)?.[1];
  if (position !== undefined) {
    const before = text.slice(0, Number(position));
    const line = before.split('\n').length;
    const column = Number(position) - before.lastIndexOf('\n');
    return `not valid JSON (line ${line}, column ${column})`;
  }
  if (/end of JSON input/.test(message)) return 'not valid JSON (it ends too early)';
  return 'not valid JSON';
}

/** One schema problem as `where: what`, without the value (it may be a secret). */
export function describeIssue(issue: z.core.$ZodIssue | undefined, prefix: readonly PropertyKey[] = []): string {
  if (issue === undefined) return 'unexpected content';
  const path = [...prefix, ...issue.path];
  const nested = issue.code === 'invalid_key' ? issue.issues[0]?.message : undefined;
  const what = (nested ?? issue.message).replace(/^Invalid input: /, '');
  return path.length === 0 ? what : `${jsonPath(path)}: ${what}`;
}

/** `mcpServers.github.env.TOKEN`, or `mcpServers["my server"]` where a key is not a plain word. */
export function jsonPath(path: readonly PropertyKey[]): string {
  return path
    .map((key, index) =>
      typeof key === 'number'
        ? `[${key}]`
        : /^[A-Za-z_][A-Za-z0-9_-]*$/.test(String(key))
          ? `${index === 0 ? '' : '.'}${String(key)}`
          : `[${JSON.stringify(String(key))}]`,
    )
    .join('');
}
