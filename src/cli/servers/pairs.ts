import { UsageError } from '../usage-error.js';
import { ENV_NAME, HEADER_NAME } from './names.js';

/**
 * `--env NAME=value` flags as one record. A name given twice is refused rather than guessed at;
 * values are never echoed (they are often tokens).
 *
 * @example
 * parseEnvFlags(['GITHUB_TOKEN=${GITHUB_TOKEN}', 'LOG=debug']) // { GITHUB_TOKEN: '${GITHUB_TOKEN}', LOG: 'debug' }
 */
export function parseEnvFlags(values: readonly string[]): Record<string, string> {
  const env: Record<string, string> = {};
  for (const value of values) {
    const at = value.indexOf('=');
    const name = at === -1 ? value : value.slice(0, at);
    if (at === -1 || !ENV_NAME.test(name)) {
      throw new UsageError(
        `--env takes NAME=value with NAME made of letters, digits and _; got ${at === -1 ? 'no =' : `the name '${name}'`}.`,
        "e.g. --env LOG_LEVEL=debug, or --env 'GITHUB_TOKEN=${GITHUB_TOKEN}' to read it when connecting.",
      );
    }
    if (Object.hasOwn(env, name)) throw new UsageError(`--env ${name} is given twice.`);
    env[name] = value.slice(at + 1);
  }
  return env;
}

/** A header or variable name that usually carries a credential. */
export const SECRET_NAME = /auth|token|key|secret|pass|cookie|credential/i;

/**
 * `--header "Name: value"` flags as one record; names compared without case, as HTTP does.
 * `source` names where the lines came from in errors (`--header`, or `--header-file <path>`).
 *
 * @example
 * parseHeaderFlags(['Authorization: Bearer ${TOKEN}']) // { Authorization: 'Bearer ${TOKEN}' }
 */
export function parseHeaderFlags(values: readonly string[], source = '--header'): Record<string, string> {
  const headers: Record<string, string> = {};
  const seen = new Set<string>();
  for (const value of values) {
    const at = value.indexOf(':');
    const name = at === -1 ? '' : value.slice(0, at).trim();
    if (!HEADER_NAME.test(name)) {
      throw new UsageError(
        `${source} takes 'Name: value', the name made of letters, digits and - (no spaces).`,
        "e.g. --header 'Authorization: Bearer ${API_TOKEN}' (single quotes keep the reference for later).",
      );
    }
    const headerValue = value.slice(at + 1).trim();
    if (/[\r\n\0]/.test(headerValue)) throw new UsageError(`${source} ${name}: the value may not contain line breaks.`);
    if (headerValue === '') throw new UsageError(`${source} ${name}: the value is empty.`);
    if (seen.has(name.toLowerCase())) throw new UsageError(`${source} ${name} is given twice.`);
    seen.add(name.toLowerCase());
    headers[name] = headerValue;
  }
  return headers;
}
