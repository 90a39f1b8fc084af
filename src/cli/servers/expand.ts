/**
 * `${VAR}` and `${VAR:-default}`, the references Claude Code's .mcp.json allows, and Cursor's
 * `${env:VAR}`. `$VAR` is left as written, and a default is literal text (no nesting).
 */
const REFERENCE = /\$\{(?:env:)?([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}/g;

/** A `${VAR}` with no default whose variable is not set. */
export class MissingVariableError extends Error {
  override name = 'MissingVariableError';
  constructor(readonly variable: string) {
    super(`\${${variable}} is not set`);
  }
}

/**
 * `text` with its references replaced from `env`: `${VAR}` by VAR's value (an empty value counts
 * as set), `${VAR:-default}` by the default when VAR is unset or empty, as in a POSIX shell.
 * Throws MissingVariableError for a `${VAR}` whose variable is unset.
 *
 * @example
 * expandReferences('Bearer ${TOKEN}', { TOKEN: 'abc' }) // 'Bearer abc'
 * expandReferences('${HOST:-localhost}:8080', {}) // 'localhost:8080'
 */
export function expandReferences(text: string, env: Readonly<Record<string, string | undefined>>): string {
  return text.replace(REFERENCE, (_match, name: string, fallback: string | undefined) => {
    const value = env[name];
    if (fallback !== undefined) return value === undefined || value === '' ? fallback : value;
    if (value === undefined) throw new MissingVariableError(name);
    return value;
  });
}

/** True when `text` holds a `${VAR}` reference (so it is not itself a secret on the command line). */
export function hasReference(text: string): boolean {
  return new RegExp(REFERENCE.source).test(text);
}
