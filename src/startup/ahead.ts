import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import { lineRelay, spawnServer } from '../mcp/stdio-child.js';
import { resolveDataDir } from '../shared/data-dir.js';
import type { SpawnedAhead } from '../cli/connection.js';
import { readCommandLine } from '../cli/command-line.js';
import { callsTool, refuseBuiltInFlags } from '../cli/global-flags.js';
import { SERVER_NAME, serversFilePath } from '../cli/servers/names.js';
import { parseEnvFlags } from '../cli/servers/pairs.js';
import { stdioTarget, type StdioTarget } from '../cli/target.js';
import { mayRememberEra } from '../cli/tool-cache-era.js';

/**
 * The entry of `dist/ahead.cjs`, a small bundle (no zod, no MCP SDK) that `bin/wallet.js` runs
 * before it loads the CLI's (2.2 MB) when the command line has `--server`: for a tool call of a
 * stdio server given as a command line whose protocol era the cache seems to remember, it spawns
 * the server at once, so that the server starts while the CLI loads. The CLI then resolves its
 * target again with the same functions, checks the cache with its schema, and adopts this process
 * (`startServerAhead` in connection.ts) or ends it. Anything else (a bad flag, a server that may
 * be a name of servers.json, a server met for the first time, Windows) spawns nothing here and is
 * left to the CLI. `env` is where the data directory is read from; the server gets this process's
 * environment, as the CLI's own spawn gives it.
 */
export function spawnAhead(
  argv: readonly string[],
  env: Readonly<Record<string, string | undefined>> = process.env,
): SpawnedAhead | undefined {
  if (process.platform === 'win32') return undefined;
  let target: StdioTarget | undefined;
  let dataDir: string;
  try {
    dataDir = resolveDataDir({ env, platform: process.platform, home: homedir() });
    target = stdioTargetOf(argv, dataDir);
  } catch {
    return undefined;
  }
  if (!target || !mayRememberEra(dataDir, target.spec)) return undefined;
  const relay = lineRelay();
  return {
    spec: target.spec,
    command: target.command,
    process: spawnServer(target.command, relay.push),
    relayStderr: relay.to,
  };
}

/** The stdio server a tool call of this command line speaks to, as `runCli` resolves it; throws what it refuses. */
function stdioTargetOf(argv: readonly string[], dataDir: string): StdioTarget | undefined {
  const { globals, verb } = readCommandLine(argv);
  const { server } = globals;
  if (!callsTool(globals, verb) || server === undefined || globals.url !== undefined) return undefined;
  if (globals.headers.length > 0 || globals.headerFile !== undefined) return undefined;
  refuseBuiltInFlags(globals);
  // A word that may name a server of servers.json is left to the CLI, which reads that file with its schema.
  if (SERVER_NAME.test(server) && existsSync(serversFilePath(dataDir))) return undefined;
  return stdioTarget(server, parseEnvFlags(globals.env));
}
