/**
 * litecoind in regtest for the fault tests, as test/helpers/litecoind.ts starts it, but stopped
 * at once: its chain is thrown away, so it is SIGKILLed by its pid and its data directory removed,
 * and nothing is left to keep the test process alive (that helper's stop() waits on a 20 s timer
 * that keeps the event loop, and so the test file, running after the tests are done).
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { freePort } from '../helpers/ports.js';

export type ThrowawayNode = {
  /** http://user:password@127.0.0.1:port/ */
  url: string;
  rpc<T = unknown>(method: string, params?: unknown[]): Promise<T>;
  stop(): Promise<void>;
};

export async function startThrowawayRegtest(binary: string): Promise<ThrowawayNode> {
  const dataDir = mkdtempSync(join(tmpdir(), 'wallet-faults-litecoind-'));
  const rpcPort = await freePort();
  const p2pPort = await freePort();
  const user = 'faults';
  const password = `pw${Math.random().toString(36).slice(2)}`;
  const child = spawn(
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
      '-minrelaytxfee=0.00001',
      '-disablewallet',
      '-printtoconsole=0',
    ],
    { stdio: 'ignore' },
  );
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const killOnExit = (): void => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  };
  process.once('exit', killOnExit);
  const auth = `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;
  let id = 0;
  const rpc = async <T>(method: string, params: unknown[] = []): Promise<T> => {
    const response = await fetch(`http://127.0.0.1:${rpcPort}/`, {
      method: 'POST',
      headers: { authorization: auth, 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '1.0', id: ++id, method, params }),
      signal: AbortSignal.timeout(30_000),
    });
    const reply = (await response.json()) as { result: T; error: { message: string } | null };
    if (reply.error) throw new Error(`${method}: ${reply.error.message}`);
    return reply.result;
  };
  const stop = async (): Promise<void> => {
    process.removeListener('exit', killOnExit);
    killOnExit();
    await exited;
    rmSync(dataDir, { recursive: true, force: true });
  };
  const deadline = Date.now() + 30_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`litecoind exited with ${child.exitCode} before answering`);
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
  return { url: `http://${user}:${password}@127.0.0.1:${rpcPort}/`, rpc, stop };
}
