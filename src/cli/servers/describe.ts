import { isHttpEntry, type ServerEntry } from './config.js';
import { joinCommandLine } from './command-line.js';

/**
 * What may be shown of a named server: the command line or URL, and only the names of its env
 * variables and headers (their values are often tokens).
 */
export type ServerSummary =
  | { name: string; transport: 'stdio'; command: string; args: string[]; env: string[]; keepAlive: boolean }
  | { name: string; transport: 'http'; url: string; headers: string[]; keepAlive: boolean };

export function summarizeServer(name: string, entry: ServerEntry): ServerSummary {
  if (isHttpEntry(entry)) {
    return {
      name,
      transport: 'http',
      url: maskCredentials(entry.url),
      headers: Object.keys(entry.headers ?? {}),
      keepAlive: entry.keep_alive === true,
    };
  }
  return {
    name,
    transport: 'stdio',
    command: entry.command,
    args: (entry.args ?? []).map(maskCredentials),
    env: Object.keys(entry.env ?? {}),
    keepAlive: entry.keep_alive === true,
  };
}

/** One row of `wallet servers list`. */
export function summaryRow(summary: ServerSummary): Record<string, string> {
  const [target, names] =
    summary.transport === 'http'
      ? [summary.url, summary.headers.length > 0 ? `headers: ${summary.headers.join(', ')}` : '']
      : [
          joinCommandLine(summary.command, summary.args),
          summary.env.length > 0 ? `env: ${summary.env.join(', ')}` : '',
        ];
  return {
    name: summary.name,
    transport: summary.transport + (summary.keepAlive ? ' (kept alive)' : ''),
    'command / url': target,
    'env / headers': names,
  };
}

const USERINFO_PASSWORD = /(:\/\/[^/\s:@]*:)([^@\s/]+)@/g;
const SECRET_QUERY = /([?&][^=&#\s]*(?:key|token|secret|passw|auth|sig)[^=&#\s]*=)([^&#\s]+)/gi;
const REFERENCE_ONLY = /^\$\{[^}]+\}$/;

/**
 * `text` with the credentials a URL can carry hidden: a password in `user:password@` and the value
 * of query parameters named like keys or tokens. `${VAR}` references stay readable.
 *
 * @example
 * maskCredentials('https://u:hunter2@example.com/mcp?api_key=abc') // 'https://u:***@example.com/mcp?api_key=***'
 */
function maskCredentials(text: string): string {
  return text
    .replace(USERINFO_PASSWORD, (match, head: string, password: string) =>
      REFERENCE_ONLY.test(password) ? match : `${head}***@`,
    )
    .replace(SECRET_QUERY, (match, head: string, value: string) => (REFERENCE_ONLY.test(value) ? match : `${head}***`));
}
