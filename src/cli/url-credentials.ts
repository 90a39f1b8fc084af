import { UsageError } from './usage-error.js';

/**
 * Refuses an endpoint URL that carries a user or password when it came on the command line:
 * every local user sees a process's arguments (`ps`) and the shell history keeps them. The same
 * URL read from stdin, a file or the environment is fine. Anything that is not a URL passes (the
 * setting's own validation speaks for it).
 *
 * @example
 * refuseUrlCredentialsInArgv(value, `config set ${key}`, `wallet config set ${key} - < url-file`);
 */
export function refuseUrlCredentialsInArgv(value: string, given: string, instead: string): void {
  let url: URL;
  try {
    // As the domain reads an endpoint: without the backend's prefix, so `core-rpc+http:u:p@host`
    // is the http URL it becomes (whose user and password the parser finds even without `//`).
    url = new URL(value.trim().replace(/^(insight|core-rpc)\+/i, ''));
  } catch {
    return;
  }
  if (url.username === '' && url.password === '') return;
  throw new UsageError(
    `${given} got a URL with a user or password on the command line (ps and the shell history show it); nothing was changed.`,
    `Give it another way: ${instead}.`,
  );
}

/**
 * The `--endpoint chain.network=url` values, each refused when its URL carries a user or password
 * (see {@link refuseUrlCredentialsInArgv}); the environment variable of that network is the way.
 * Returns them, checked.
 */
export function refuseEndpointCredentialsInArgv(values: string[]): string[] {
  for (const value of values) {
    const at = value.indexOf('=');
    if (at < 0) continue;
    const named = /^(core|evm)\.([a-z][a-z0-9-]*)$/.exec(value.slice(0, at));
    const [chain, network] = named ? [named[1] ?? '', named[2] ?? ''] : ['<chain>', '<network>'];
    // As the domain names it (endpointEnvVar): WALLET_<CHAIN>_<NETWORK>_URL.
    const variable = `WALLET_${chain}_${network}_URL`.toUpperCase().replace(/[^A-Z0-9<>]/g, '_');
    refuseUrlCredentialsInArgv(
      value.slice(at + 1),
      '--endpoint',
      `the environment, ${variable}=<url>, or \`wallet config set ${chain}.networks.${network}.url -\` (on stdin)`,
    );
  }
  return values;
}
