/**
 * A real local Ethereum node for tests: Foundry's anvil, the binary shipped in the platform package
 * of the `@foundry-rs/anvil` devDependency, on a loopback port it picks itself (port 0, read back
 * from its `Listening on` line: no other process can take it first) with the well-known test
 * mnemonic. It mines every transaction at once, keeps its chain in memory and is stopped by its pid.
 */
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

/** Foundry's (and Hardhat's) default development mnemonic. */
export const ANVIL_MNEMONIC = 'test test test test test test test test test test test junk';
/** The first account of ANVIL_MNEMONIC (m/44'/60'/0'/0/0): unlocked in anvil, 10000 ether. */
export const ANVIL_FIRST_ACCOUNT = '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266';
export const ANVIL_DEFAULT_CHAIN_ID = 31337;

const READY_TIMEOUT_MS = 15_000;
const STOP_GRACE_MS = 5_000;
const RPC_TIMEOUT_MS = 10_000;
const OUTPUT_TAIL_CHARS = 4_000;
const RECEIPT_TIMEOUT_MS = 10_000;

const PLATFORMS: Partial<Record<NodeJS.Platform, string>> = { linux: 'linux', darwin: 'darwin' };
const ARCHITECTURES: Partial<Record<NodeJS.Architecture, string>> = { x64: 'amd64', arm64: 'arm64' };

/** The anvil binary inside `@foundry-rs/anvil-<os>-<arch>`, resolved without its `bin.mjs` wrapper. */
export function anvilBinary(): string {
  const os = PLATFORMS[process.platform];
  const arch = ARCHITECTURES[process.arch];
  if (!os || !arch) throw new Error(`no @foundry-rs/anvil package for ${process.platform}-${process.arch}`);
  const manifest = createRequire(import.meta.url).resolve(`@foundry-rs/anvil-${os}-${arch}/package.json`);
  return join(dirname(manifest), 'bin', 'anvil');
}

export type AnvilOptions = {
  /** Defaults to ANVIL_DEFAULT_CHAIN_ID (31337). */
  chainId?: number;
  /** Mine a block every this many seconds instead of each transaction at once. */
  blockTime?: number;
};

export type AnvilNode = {
  /** http://127.0.0.1:port/ */
  url: string;
  pid: number;
  chainId: number;
  rpc<T = unknown>(method: string, params?: unknown[]): Promise<T>;
  /**
   * The transaction's receipt once it is mined. anvil answers `eth_sendTransaction` before its
   * automine has run, so a receipt asked for at once can be null on a loaded machine.
   */
  mined<T = { status: string; blockNumber: string }>(hash: string): Promise<T>;
  /** SIGTERM, then SIGKILL if anvil has not exited within a few seconds; resolves once it has. */
  stop(): Promise<void>;
};

type RpcReply<T> = { result: T; error?: never } | { result?: never; error: { code: number; message: string } };

/**
 * Starts anvil and waits until it answers `eth_chainId`.
 *
 * @example
 * const node = await startAnvil();
 * try {
 *   const balance = await node.rpc<string>('eth_getBalance', [ANVIL_FIRST_ACCOUNT, 'latest']);
 * } finally {
 *   await node.stop();
 * }
 */
export async function startAnvil(options: AnvilOptions = {}): Promise<AnvilNode> {
  const chainId = options.chainId ?? ANVIL_DEFAULT_CHAIN_ID;
  const child = spawn(
    anvilBinary(),
    [
      '--host',
      '127.0.0.1',
      '--port',
      '0',
      '--chain-id',
      String(chainId),
      '--mnemonic',
      ANVIL_MNEMONIC,
      '--color',
      'never',
      ...(options.blockTime === undefined ? [] : ['--block-time', String(options.blockTime)]),
    ],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let output = '';
  let port: number | undefined;
  const keepTail = (chunk: Buffer): void => {
    output = (output + chunk.toString('utf8')).slice(-OUTPUT_TAIL_CHARS);
    port ??= Number(/Listening on 127\.0\.0\.1:(\d+)/.exec(output)?.[1]) || undefined;
  };
  child.stdout.on('data', keepTail);
  child.stderr.on('data', keepTail);
  let spawnError: Error | undefined;
  const exited = new Promise<void>((resolve) => {
    child.once('error', (error) => {
      spawnError = error;
      resolve();
    });
    child.once('exit', () => resolve());
  });
  const running = (): boolean => spawnError === undefined && child.exitCode === null && child.signalCode === null;
  // A test that forgets stop() must not leave anvil behind when the test process exits.
  const killOnExit = (): void => {
    if (running()) child.kill('SIGKILL');
  };
  process.once('exit', killOnExit);

  let url = '';
  let id = 0;
  const rpc = async <T>(method: string, params: unknown[] = []): Promise<T> => {
    const response = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: ++id, method, params }),
      signal: AbortSignal.timeout(RPC_TIMEOUT_MS),
    });
    const reply = (await response.json()) as RpcReply<T>;
    if (reply.error) throw new Error(`${method}: ${reply.error.message} (code ${reply.error.code})`);
    return reply.result as T;
  };
  const stop = async (): Promise<void> => {
    process.removeListener('exit', killOnExit);
    if (!running()) return;
    child.kill('SIGTERM');
    const graceful = await Promise.race([exited.then(() => true), sleep(STOP_GRACE_MS, false, { ref: false })]);
    if (!graceful) {
      child.kill('SIGKILL');
      await exited;
    }
  };
  const failure = (reason: string): Error => {
    const tail = output.trim();
    return new Error(`anvil ${reason}${tail ? `; its output ended with:\n${tail}` : ' (it printed nothing)'}`);
  };

  const deadline = Date.now() + READY_TIMEOUT_MS;
  while (port === undefined) {
    if (!running()) {
      await stop();
      await exited;
      if (spawnError) throw failure(`could not be started: ${spawnError.message}`);
      throw failure(`exited (code ${child.exitCode}, signal ${child.signalCode}) before listening`);
    }
    if (Date.now() > deadline) {
      await stop();
      throw failure(`did not say where it listens within ${READY_TIMEOUT_MS / 1000} s`);
    }
    await sleep(20);
  }
  url = `http://127.0.0.1:${port}/`;
  let answered: string | undefined;
  while (answered === undefined) {
    if (!running()) {
      await stop();
      await exited;
      if (spawnError) throw failure(`could not be started: ${spawnError.message}`);
      throw failure(`exited (code ${child.exitCode}, signal ${child.signalCode}) before answering`);
    }
    try {
      answered = await rpc<string>('eth_chainId');
    } catch (error) {
      if (Date.now() > deadline) {
        await stop();
        throw failure(`did not answer eth_chainId on ${url} within ${READY_TIMEOUT_MS / 1000} s: ${String(error)}`);
      }
      await sleep(100);
    }
  }
  if (Number(answered) !== chainId) {
    await stop();
    throw failure(`answered chain id ${answered}, expected ${chainId}`);
  }
  const mined = async <T>(hash: string): Promise<T> => {
    const until = Date.now() + RECEIPT_TIMEOUT_MS;
    for (;;) {
      const receipt = await rpc<T | null>('eth_getTransactionReceipt', [hash]);
      if (receipt !== null) return receipt;
      if (Date.now() > until) throw new Error(`transaction ${hash} was not mined within ${RECEIPT_TIMEOUT_MS} ms`);
      await sleep(50);
    }
  };
  return { url, pid: child.pid ?? 0, chainId, rpc, mined, stop };
}
