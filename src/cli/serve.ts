import { MIN_API_KEY_LENGTH } from '../mcp/http/guards.js';
import { DEFAULT_LISTEN, isLoopbackHost, parseListenAddress, type ListenAddress } from '../mcp/http/listen-address.js';
import { isLogLevel, LOG_LEVELS, type LogLevel } from '../mcp/logger.js';
import type { WalletServerSetup } from '../mcp/setup.js';
import { isProfile, PROFILES } from '../shared/profiles.js';
import { useNodeStreams } from '../shared/std-output.js';
import { startStdioServer } from '../mcp/stdio/serve.js';
import { parseFlags, repeatedValues, type CliFlag } from './global-flags.js';
import { privateDataDir } from './data-dir-check.js';
import type { CliIo } from './io.js';
import { readSecretFile } from './secrets.js';
import { untilClosedOrCut } from './stop-signals.js';
import { RUN_FINISH_MS, taskRunsUnderWay } from '../mcp/tasks.js';
import { EXIT, UsageError } from './usage-error.js';
import { rejectRepeatedFlags, rejectUnknownFlags } from './unknown-flags.js';
import { refuseEndpointCredentialsInArgv } from './url-credentials.js';

const DEFAULT_LISTEN_TEXT = `${DEFAULT_LISTEN.host}:${DEFAULT_LISTEN.port}`;

export const SERVE_FLAGS: readonly CliFlag[] = [
  { name: 'read-only', type: 'boolean', description: 'Serve only the tools whose annotations say read-only.' },
  {
    name: 'profile',
    type: 'string',
    choices: PROFILES,
    description: 'How tools/list shows the tools: default (lean), full (everything) or compact (action tools).',
  },
  {
    name: 'log-level',
    type: 'string',
    choices: LOG_LEVELS,
    description: 'Log requests to stderr (method, tool, id, outcome, duration). Default: $WALLET_LOG_LEVEL or off.',
  },
  {
    name: 'passphrase-file',
    type: 'string',
    value: 'path',
    description: 'Unlock the keystore with the passphrase in this owner-only file. Default: $WALLET_PASSPHRASE_FILE.',
  },
  { name: 'endpoint', type: 'array', value: 'chain.network=url', description: 'Use this node endpoint (repeatable).' },
  { name: 'http', type: 'boolean', description: 'Serve Streamable HTTP at /mcp (and GET /health) instead of stdio.' },
  {
    name: 'listen',
    type: 'string',
    value: 'host:port',
    description: `Where --http listens (default ${DEFAULT_LISTEN_TEXT}; port 0 picks a free one).`,
  },
  {
    name: 'api-key-file',
    type: 'string',
    value: 'path',
    description: `The bearer token --http requires, from an owner-only file (default $MCP_API_KEY; at least ${MIN_API_KEY_LENGTH} characters).`,
  },
  {
    name: 'auth',
    type: 'boolean',
    description: '--no-auth serves --http without a token: only with --read-only, on loopback.',
  },
  { name: 'allow-remote', type: 'boolean', description: 'Let --listen bind an address other machines can reach.' },
  {
    name: 'allowed-host',
    type: 'array',
    value: 'name',
    description: 'Another host name clients may send in Host/Origin (repeatable).',
  },
  { name: 'help', alias: 'h', type: 'boolean', description: 'Show help.' },
];

const SERVE_HELP = `wallet serve — the wallet's tools over MCP, on stdio or Streamable HTTP

Usage: wallet serve [--read-only] [--profile default|full|compact] [--log-level debug] [--passphrase-file <path>]
       wallet serve --http [--listen ${DEFAULT_LISTEN_TEXT}] [--api-key-file <path>] …

Speaks MCP for an agent (Claude, Codex, Gemini CLI, …): both the 2025 'initialize' handshake and
the 2026-07-28 protocol. Tools that reveal or accept secrets are never served. Spends obey the
spending policy in the config file, and every destructive call is written to the audit log
(docs/POLICY.md). Where the client supports elicitation, a destructive call asks the user first.
A call that waits for the owner's approval is also shown on a local approval page (loopback only:
/approvals with --http, else a port of its own); each one's single-use link is printed on stderr.

stdio (default): stdout carries JSON-RPC only; logs go to stderr. When stdin closes (or on SIGTERM)
it answers the requests in flight (at most 30 s; SIGTERM 5 s), then exits.
Stopping (stdio or HTTP), it first lets the task runs it started (an approved call a poll set
going) finish and record their results, at most 5 minutes, saying so on stderr; the same signal
again (a second SIGTERM, or Ctrl-C twice) stops it at once, cutting them.

HTTP (--http): POST/GET/DELETE /mcp, and GET /health without a token. /mcp needs
'Authorization: Bearer <token>', the token from $MCP_API_KEY or --api-key-file (at least
${MIN_API_KEY_LENGTH} characters, compared in constant time). Requests whose Host or Origin names another
host are refused (DNS rebinding). Listens on loopback unless --allow-remote.

Profiles (what every agent pays for in its context, docs/PERFORMANCE.md has the figures):
  default   every tool, lean: summaries, short field descriptions; the full text, exact schemas
            and output schemas come from tool_describe.
  full      every tool with everything: full descriptions (in _meta), input and output schemas.
  compact   at most 8 tools, one per domain and object (core_wallet, evm_tx, …), each taking an
            'action' and that action's arguments; every action of the other profiles is there.

Flags:
  --read-only                  Serve only the tools whose annotations say read-only.
  --profile <default|full|compact>
                               How tools/list shows the tools (default: default).
  --log-level <${LOG_LEVELS.join('|')}>
                               Log each request to stderr; default $WALLET_LOG_LEVEL, else off.
  --passphrase-file <path>     Unlock the keystore at start (owner-only file; default
                               $WALLET_PASSPHRASE_FILE).
  --endpoint <chain.network=url>
                               Use this node endpoint (repeatable).
  --http                       Serve Streamable HTTP instead of stdio.
  --listen <host:port>         Where to listen (default ${DEFAULT_LISTEN_TEXT}; port 0: any free port).
  --api-key-file <path>        The bearer token, from an owner-only file (default $MCP_API_KEY).
  --no-auth                    No token: allowed only with --read-only on loopback (nothing can spend).
  --allow-remote               Allow a --listen address other machines can reach (prints a warning).
  --allowed-host <name>        Another host name clients use to reach this server (repeatable).

Examples:
  wallet setup claude-code                     # writes this entry into an agent's config
  claude mcp add wallet -- wallet serve --profile compact
  MCP_API_KEY=$(cat ~/.wallet-token) wallet serve --http --passphrase-file ~/.wallet-pass
  wallet serve --http --read-only --no-auth --listen 127.0.0.1:0
  wallet --url http://127.0.0.1:9527/mcp --header 'Authorization: Bearer \${MCP_API_KEY}' tools
`;

/** `wallet serve`: runs until the client closes stdin (stdio) or a signal arrives, then exits 0. */
export async function runServe(argv: readonly string[], io: CliIo): Promise<number> {
  // A server writes its logs through Node's streams, never blocking on an unread stderr.
  useNodeStreams();
  const parsed = parseFlags(argv, SERVE_FLAGS);
  rejectUnknownFlags(parsed, SERVE_FLAGS, 'serve');
  rejectRepeatedFlags(parsed, SERVE_FLAGS);
  if (parsed['help'] === true) {
    io.stdout.write(SERVE_HELP);
    return EXIT.ok;
  }
  io = { ...io, env: withoutUnsubstitutedSettings(io) };
  const level = parsed['log-level'] ?? io.env['WALLET_LOG_LEVEL'] ?? 'off';
  if (!isLogLevel(level)) {
    throw new UsageError(`--log-level must be one of ${LOG_LEVELS.join(', ')}; got '${String(level)}'.`);
  }
  const strays = httpOnlyFlagsWithoutHttp(parsed);
  if (strays.length > 0) throw new UsageError(`${strays.join(', ')} ${strays.length === 1 ? 'needs' : 'need'} --http.`);
  const http = parsed['http'] === true ? await httpSettings(parsed, io) : undefined;
  // $WALLET_PASSPHRASE_FILE (empty: none) is how an MCP bundle's optional setting reaches it.
  const passphraseFile = parsed['passphrase-file'] ?? (io.env['WALLET_PASSPHRASE_FILE'] || undefined);
  const profile = parsed['profile'] ?? 'default';
  if (!isProfile(profile))
    throw new UsageError(`--profile must be one of ${PROFILES.join(', ')}; got '${String(profile)}'.`);
  // The server's services resolve the same folder from the same environment.
  privateDataDir(io);
  const setup: Omit<WalletServerSetup, 'localOnly'> = {
    // An agent calls: every call that signs or deletes needs a human yes or the policy's autonomy.
    caller: 'agent',
    readOnly: parsed['read-only'] === true,
    profile,
    logLevel: level satisfies LogLevel,
    env: io.env,
    endpoints: refuseEndpointCredentialsInArgv(repeatedValues(parsed, 'endpoint')),
    passphrase:
      typeof passphraseFile === 'string'
        ? await readSecretFile(
            passphraseFile,
            parsed['passphrase-file'] === undefined ? '$WALLET_PASSPHRASE_FILE' : '--passphrase-file',
          )
        : undefined,
    // The approval page's single-use links are the owner's: stderr, never the agent's stdout.
    announce: (line) => io.stderr.write(`wallet: ${line}\n`),
  };
  const serving = http ? await startHttp(setup, http, io) : startStdioServer(setup);
  // Stopping, it waits for the task runs it started (an approved payment): a second signal cuts them.
  await untilClosedOrCut(serving, (signal) => {
    const cut = serving.cut();
    io.stderr.write(
      `wallet: stopped at once by a second ${signal}: ${cut} task run(s) cut (a restarted serve fails them as interrupted).\n`,
    );
    process.exit(EXIT.interrupted);
  });
  const left = taskRunsUnderWay();
  if (left > 0) {
    io.stderr.write(
      `wallet: ${left} task run(s) cut: still running after ${RUN_FINISH_MS / 1000} s (a restarted serve fails them as interrupted).\n`,
    );
    process.exit(EXIT.interrupted);
  }
  return EXIT.ok;
}

type HttpSettings = { listen: ListenAddress; apiKey: string | undefined; allowedHosts: string[] };

const HTTP_ONLY_FLAGS = ['listen', 'api-key-file', 'auth', 'allow-remote', 'allowed-host'] as const;

/**
 * The checked settings of `--http`: a token unless `--read-only --no-auth` on loopback, loopback
 * unless `--allow-remote`. Warnings for the risky-but-allowed choices go to stderr.
 */
async function httpSettings(parsed: Record<string, unknown>, io: CliIo): Promise<HttpSettings> {
  const listen = parseListenAddress(typeof parsed['listen'] === 'string' ? parsed['listen'] : DEFAULT_LISTEN_TEXT);
  const loopback = isLoopbackHost(listen.host);
  if (!loopback && parsed['allow-remote'] !== true) {
    throw new UsageError(
      `--listen ${listen.host} can be reached from other machines; serving there needs --allow-remote.`,
      `Use --listen 127.0.0.1:${listen.port} to stay on this machine.`,
    );
  }
  const allowedHosts = repeatedValues(parsed, 'allowed-host');
  for (const host of allowedHosts) {
    if (!/^[A-Za-z0-9.[\]:-]+$/.test(host)) throw new UsageError(`--allowed-host '${host}' is not a host name.`);
  }
  if (parsed['auth'] === false) {
    if (parsed['read-only'] !== true) {
      throw new UsageError(
        '--no-auth is allowed only with --read-only: anyone who can connect could spend.',
        undefined,
      );
    }
    if (!loopback) throw new UsageError('--no-auth is allowed only on a loopback address.');
    warn(io, 'serving without a token (--no-auth): any program on this machine can read balances and addresses.');
    return { listen, apiKey: undefined, allowedHosts };
  }
  const keyFile = parsed['api-key-file'];
  const apiKey = typeof keyFile === 'string' ? await readSecretFile(keyFile, '--api-key-file') : io.env['MCP_API_KEY'];
  if (apiKey === undefined || apiKey === '') {
    throw new UsageError(
      'wallet serve --http needs a bearer token: set MCP_API_KEY or pass --api-key-file.',
      'Make one with: openssl rand -hex 32. (--read-only --no-auth serves read-only tools without one, on loopback.)',
    );
  }
  if (apiKey.length < MIN_API_KEY_LENGTH || /\s/.test(apiKey)) {
    throw new UsageError(
      `The bearer token must be at least ${MIN_API_KEY_LENGTH} characters, without spaces (given: ${apiKey.length} characters).`,
      'Make one with: openssl rand -hex 32.',
    );
  }
  if (!loopback) warn(io, `listening on ${listen.host}: other machines can reach this server (--allow-remote).`);
  return { listen, apiKey, allowedHosts };
}

async function startHttp(setup: Omit<WalletServerSetup, 'localOnly'>, http: HttpSettings, io: CliIo) {
  // Loaded only here: the HTTP stack (the SDK's Node adapter, hono) costs every other command ~0.1 s.
  const { startHttpServer } = await import('../mcp/http/serve.js');
  // A state store it cannot use (unreachable: BUSY, exit 5; not migrated; another policy) stops the start.
  const { asOwnerVerb } = await import('./owner-errors.js');
  const serving = await asOwnerVerb(() => startHttpServer({ ...setup, ...http })).catch((error: unknown) => {
    const code = (error as NodeJS.ErrnoException).code;
    const where = `${http.listen.host}:${http.listen.port}`;
    if (code === 'EADDRINUSE') throw new UsageError(`--listen ${where}: the port is in use.`, 'Pick another port.');
    if (code === 'EADDRNOTAVAIL' || code === 'ENOTFOUND' || code === 'EACCES') {
      throw new UsageError(`--listen ${where}: cannot listen there (${code}).`);
    }
    throw error;
  });
  const health = serving.url.replace(/\/mcp$/, '/health');
  io.stderr.write(`wallet: serving MCP at ${serving.url} (health: ${health})\n`);
  return serving;
}

/** A value an MCP host left as written in a manifest, e.g. `${user_config.passphrase_file}`. */
const UNSUBSTITUTED = /^\$\{user_config\.[^}]*\}$/;

/**
 * The environment with every variable an MCP bundle host did not substitute (a setting the user left
 * unset, on a host that only substitutes settings with a value) treated as unset, with a warning:
 * the literal `${user_config.…}` is never a path or a network name.
 */
function withoutUnsubstitutedSettings(io: CliIo): CliIo['env'] {
  return Object.fromEntries(
    Object.entries(io.env).filter(([name, value]) => {
      if (value === undefined || !UNSUBSTITUTED.test(value)) return true;
      warn(io, `$${name} holds an unsubstituted MCP bundle setting; treating it as unset.`);
      return false;
    }),
  );
}

function warn(io: CliIo, message: string): void {
  io.stderr.write(`wallet: warning: ${message}\n`);
}

/** The flags that only mean something with --http, when given without it. */
function httpOnlyFlagsWithoutHttp(parsed: Record<string, unknown>): string[] {
  if (parsed['http'] === true) return [];
  return HTTP_ONLY_FLAGS.filter((name) => parsed[name] !== undefined).map((name) =>
    name === 'auth' ? '--no-auth' : `--${name}`,
  );
}
