import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { ROOT, WALLET_BIN } from './paths.js';
import { tempHome } from './io.js';

/** `conformance/` holds Node 22 and the tools that need it (scripts/install-tools.mjs installs them). */
export const CONFORMANCE_DIR = join(ROOT, 'conformance');
export const NODE_22 = join(CONFORMANCE_DIR, 'node_modules', '.bin', 'node');

/** A spawned `wallet serve --http`, its URL read from the line it prints on stderr. */
export type HttpServe = {
  url: string;
  health: string;
  home: string;
  child: ChildProcess;
  stderr: () => string;
  stop: () => Promise<void>;
};

/**
 * Starts `wallet serve --http <args>` on a free loopback port (unless args name --listen) and
 * resolves once it listens. Rejects with its stderr if it exits first or takes over 15 s.
 */
export async function startHttpServe(
  args: readonly string[],
  options: { home?: string; env?: Record<string, string> } = {},
): Promise<HttpServe> {
  const home = options.home ?? tempHome();
  const listen = args.includes('--listen') ? [] : ['--listen', '127.0.0.1:0'];
  const child = spawn(process.execPath, [WALLET_BIN, 'serve', '--http', ...listen, ...args], {
    env: { ...process.env, WALLET_HOME: home, MCP_API_KEY: '', ...options.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  let stdout = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`serve --http did not start: ${stderr}`)), 15_000);
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
      const match = /serving MCP at (\S+)/.exec(stderr);
      if (match?.[1]) {
        clearTimeout(timer);
        resolve(match[1]);
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`serve --http exited ${code}: ${stderr}`));
    });
  });
  return {
    url,
    health: url.replace(/\/mcp$/, '/health'),
    home,
    child,
    stderr: () => stderr + (stdout === '' ? '' : `\n[stdout!] ${stdout}`),
    stop: async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      await exited;
    },
  };
}
