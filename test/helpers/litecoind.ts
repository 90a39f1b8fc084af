/**
 * A real Bitcoin-Core-family node for end-to-end tests: Debian's litecoind in regtest, on free
 * loopback ports with a temporary data directory, stopped by its pid. It speaks the same JSON-RPC
 * as Dash Core for everything the `core-rpc` backend uses without an address index
 * (`scantxoutset`, `gettxout`, `sendrawtransaction`, `getblockchaininfo`, `estimatesmartfee`).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { withFreshPorts } from './ports.js';

const CANDIDATES = ['/usr/lib/litecoin/litecoind', '/usr/bin/litecoind', '/usr/local/bin/litecoind'];

/** The litecoind daemon binary, or undefined where it is not installed. */
export function findLitecoind(): string | undefined {
  return CANDIDATES.find((path) => existsSync(path));
}

export type RegtestNode = {
  /** http://user:password@127.0.0.1:port/ */
  url: string;
  pid: number;
  rpc<T = unknown>(method: string, params?: unknown[]): Promise<T>;
  stop(): Promise<void>;
};

export function startRegtestNode(binary: string): Promise<RegtestNode> {
  // litecoind cannot report a port 0 it bound: a start that fails (a port taken meanwhile) is retried.
  return withFreshPorts(2, ([rpcPort = 0, p2pPort = 0]) => startRegtestOn(binary, rpcPort, p2pPort));
}

async function startRegtestOn(binary: string, rpcPort: number, p2pPort: number): Promise<RegtestNode> {
  const dataDir = mkdtempSync(join(tmpdir(), 'wallet-litecoind-'));
  const user = 'wallet';
  const password = `pw${Math.random().toString(36).slice(2)}`;
  const child: ChildProcess = spawn(
    binary,
    [
      '-regtest',
      `-datadir=${dataDir}`,
      `-rpcport=${rpcPort}`,
      `-port=${p2pPort}`,
      '-rpcbind=127.0.0.1',
      '-rpcallowip=127.0.0.1',
      '-listen=0',
      '-dnsseed=0',
      `-rpcuser=${user}`,
      `-rpcpassword=${password}`,
      // Dash transactions are version 3: non-standard to a Litecoin node's relay policy.
      '-acceptnonstdtxn=1',
      // Dash's minimum relay fee, 1000 duffs per kB.
      '-minrelaytxfee=0.00001',
      '-disablewallet',
      '-printtoconsole=0',
    ],
    { stdio: 'ignore' },
  );
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const url = `http://${user}:${password}@127.0.0.1:${rpcPort}/`;
  const auth = `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;
  let id = 0;
  const rpc = async <T>(method: string, params: unknown[] = []): Promise<T> => {
    const response = await fetch(`http://127.0.0.1:${rpcPort}/`, {
      method: 'POST',
      headers: { authorization: auth, 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '1.0', id: ++id, method, params }),
    });
    const reply = (await response.json()) as { result: T; error: { message: string } | null };
    if (reply.error) throw new Error(`${method}: ${reply.error.message}`);
    return reply.result;
  };
  const stop = async (): Promise<void> => {
    if (child.pid !== undefined && child.exitCode === null) process.kill(child.pid, 'SIGTERM');
    // An unref'd timer: a stopped node must not keep the test file running for 20 s.
    await Promise.race([exited, sleep(20_000, undefined, { ref: false })]);
    rmSync(dataDir, { recursive: true, force: true });
  };
  const deadline = Date.now() + 30_000;
  for (;;) {
    if (child.exitCode !== null) {
      rmSync(dataDir, { recursive: true, force: true });
      throw new Error(`litecoind exited with ${child.exitCode} before answering`);
    }
    try {
      await rpc('getblockchaininfo');
      break;
    } catch (error) {
      if (Date.now() > deadline) {
        await stop();
        throw error;
      }
      await sleep(200);
    }
  }
  return { url, pid: child.pid ?? 0, rpc, stop };
}
