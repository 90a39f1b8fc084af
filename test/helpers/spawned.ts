import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { createInterface } from 'node:readline';
import { WALLET_BIN } from './paths.js';
import { tempHome } from './io.js';

/** A spawned `wallet` whose stdout is read line by line, each line checked to be JSON. */
export class SpawnedWallet {
  readonly child: ChildProcessWithoutNullStreams;
  readonly lines: unknown[] = [];
  stderr = '';
  private waiters: (() => void)[] = [];
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;

  constructor(args: string[], env: Record<string, string> = {}) {
    this.child = spawn(process.execPath, [WALLET_BIN, ...args], {
      env: { ...process.env, WALLET_HOME: tempHome(), ...env },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    this.child.stderr.on('data', (chunk: Buffer) => (this.stderr += chunk.toString()));
    createInterface({ input: this.child.stdout }).on('line', (line) => {
      this.lines.push(JSON.parse(line));
      for (const wake of this.waiters.splice(0)) wake();
    });
    this.exited = new Promise((resolve) => this.child.on('exit', (code, signal) => resolve({ code, signal })));
  }

  send(message: unknown): void {
    this.child.stdin.write((typeof message === 'string' ? message : JSON.stringify(message)) + '\n');
  }

  /** The response to request `id`, waiting up to `ms`. */
  async response(id: number | string | null, ms = 10_000): Promise<Record<string, unknown>> {
    const deadline = Date.now() + ms;
    for (;;) {
      const found = this.lines.find((line) => (line as { id?: unknown }).id === id && !('method' in (line as object)));
      if (found) return found as Record<string, unknown>;
      if (Date.now() > deadline) throw new Error(`no response to id ${String(id)}; stderr: ${this.stderr}`);
      await new Promise<void>((resolve) => {
        this.waiters.push(resolve);
        setTimeout(resolve, 200);
      });
    }
  }
}
