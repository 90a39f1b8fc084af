import type { Readable, Writable } from 'node:stream';
import { serveStdio } from '@modelcontextprotocol/server/stdio';
import { createLogger } from '../logger.js';
import { createWalletServer, type WalletServerOptions } from '../server.js';
import { walletServerOptions, type WalletServerSetup } from '../setup.js';
import { ownPortPage } from '../page/host.js';
import { cutTaskRuns, finishTaskRuns } from '../tasks.js';
import { StdioLineTransport } from './line-transport.js';
import { ServedTransport } from './served-transport.js';

type StdioServeOptions = WalletServerOptions & {
  stdin?: Readable;
  stdout?: Writable;
  /** How long requests in flight at the end of stdin may take (default 30 s). */
  endOfInputDrainMs?: number;
};

/** How long SIGTERM lets the requests in flight finish (shorter than the end of input's bound). */
const SIGTERM_DRAIN_MS = 5_000;

type StdioServing = {
  /** Resolves when the connection ends: stdin closed, or {@link StdioServing.close} called. */
  closed: Promise<void>;
  /**
   * Reads no more requests, lets those in flight finish and writes their answers (at most
   * `drainMs`), then closes: what SIGTERM does.
   */
  close(drainMs?: number): Promise<void>;
};

/** `wallet serve` over stdio: it ends once the task runs it started have (see {@link finishTaskRuns}). */
export type WalletStdioServing = StdioServing & {
  /** Stops waiting for the task runs now (a second signal): how many are cut. */
  cut(): number;
};

/**
 * Serves the wallet over stdio, both protocol eras: a 2025-era `initialize` opening pins a legacy
 * instance, a 2026-07-28 `server/discover` a modern one (the SDK's `serveStdio` decides). stdout
 * carries JSON-RPC only; malformed lines are answered by {@link StdioLineTransport}.
 */
function serveWalletStdio(options: StdioServeOptions): StdioServing {
  const logger = options.logger ?? createLogger('off');
  const stdin = options.stdin ?? process.stdin;
  const inner = new StdioLineTransport(
    stdin,
    options.stdout ?? process.stdout,
    (reason, replied) => logger.debug('rejected-line', { reason, replied }),
    undefined,
    options.endOfInputDrainMs,
  );
  const transport = new ServedTransport(inner, logger);
  const handle = serveStdio(() => createWalletServer({ ...options, logger, transport: 'stdio' }), {
    transport,
    onerror: (error) => logger.warn('server-error', { error: error.name }),
  });
  logger.info('serving', { transport: 'stdio', tools: options.catalogue.size });
  return {
    closed: transport.closed,
    close: async (drainMs = SIGTERM_DRAIN_MS) => {
      await inner.drain(drainMs);
      await handle.close();
    },
  };
}

/**
 * `wallet serve`: the wallet's tools over this process's stdio, never the local-only ones; the
 * owner's approval page on a loopback port of its own, from the first approval filed.
 */
export function startStdioServer(setup: Omit<WalletServerSetup, 'localOnly'>): WalletStdioServing {
  const options = walletServerOptions({ ...setup, localOnly: false });
  // A state store set is opened now, so the passkeys and the approval page read it from the start,
  // and what replicas stopped mid-payment left is reconciled (said on stderr); a store that cannot
  // be opened fails the first call that needs it (BUSY, BACKEND_INVALID).
  void options.services
    .openSharedState()
    .then((lines) => {
      for (const line of lines) setup.announce?.(line);
    })
    .catch(() => undefined);
  const announce = setup.announce ?? (() => undefined);
  const approvalPage = ownPortPage(options.services, announce);
  const serving = serveWalletStdio({ ...options, approvalPage });
  // Once the requests in flight are answered, the task runs this process started (an approved
  // payment a poll set going) end before it does: a one-shot client's end of input cuts none midway.
  let ending: Promise<void> | undefined;
  const end = (): Promise<void> =>
    (ending ??= finishTaskRuns({ announce }).then(
      () => approvalPage.close(),
      () => approvalPage.close(),
    ));
  return {
    closed: serving.closed.then(end),
    close: async (drainMs) => {
      await serving.close(drainMs);
      await end();
    },
    cut: cutTaskRuns,
  };
}
