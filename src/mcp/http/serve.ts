import { createServer, type IncomingMessage, type Server as NodeHttpServer } from 'node:http';
import { toNodeHandler, type NodeIncomingMessageLike } from '@modelcontextprotocol/node';
import { createLogger } from '../logger.js';
import { createWalletServer, type WalletServerOptions } from '../server.js';
import { walletServerOptions, type WalletServerSetup } from '../setup.js';
import { createHttpApp, MCP_PATH } from './app.js';
import { allowedHostnames, bearerCheck, isValidHostHeader, UNAUTHORIZED_HEADERS } from './guards.js';
import { MAX_BODY_BYTES } from './limits.js';
import { authorityOf, isLoopbackHost, type ListenAddress } from './listen-address.js';
import { ApprovalStore } from '../../domain/policy/approvals.js';
import { ApprovalPageHost, ownPortPage } from '../page/host.js';
import { cutTaskRuns, finishTaskRuns } from '../tasks.js';

export type HttpServeOptions = WalletServerOptions & {
  listen: ListenAddress;
  /** The bearer token; undefined serves without one (the CLI allows that for read-only loopback only). */
  apiKey: string | undefined;
  /** More host names a client may use in `Host`/`Origin` (a DNS name of this machine). */
  allowedHosts?: readonly string[];
  /** How long a client may take to send a request's headers (default {@link HEADERS_TIMEOUT_MS}). */
  headersTimeoutMs?: number;
  /** How long a client may take to send a whole request (default {@link REQUEST_TIMEOUT_MS}). */
  requestTimeoutMs?: number;
  /** Tells the owner something on stderr (the approval page's single-use links). */
  announce?: ((line: string) => void) | undefined;
};

/** A client that has not sent its headers after this long is cut off (Node's default is 60 s). */
const HEADERS_TIMEOUT_MS = 10_000;

/** A client that has not sent its whole request (a 2 MiB body at most) after this long gets 408. */
const REQUEST_TIMEOUT_MS = 30_000;

export type HttpServing = {
  /** The MCP endpoint, with the port actually bound. */
  url: string;
  /** Resolves when the server has stopped, and the task runs it started have ended (see {@link finishTaskRuns}). */
  closed: Promise<void>;
  close(): Promise<void>;
  /** Stops waiting for the task runs now (a second signal): how many are cut. */
  cut(): number;
};

/** Serves the wallet over Streamable HTTP at `/mcp` (see {@link createHttpApp}) until closed. */
async function serveWalletHttp(options: HttpServeOptions): Promise<HttpServing> {
  const logger = options.logger ?? createLogger('off');
  // Set once listening: the page's origin has the port actually bound.
  const served: { page?: ApprovalPageHost } = {};
  const app = createHttpApp({
    createServer: () => createWalletServer({ ...options, logger, transport: 'http', approvalPage: served.page }),
    logger,
    hostnames: allowedHostnames(options.listen.host, options.allowedHosts),
    apiKey: options.apiKey,
    approvalPage: () => (isLoopbackHost(options.listen.host) ? served.page : undefined),
  });
  const handler = toNodeHandler(app, {
    maxRequestBodySize: MAX_BODY_BYTES,
    onerror: (error) => logger.warn('http-error', { error: error.name }),
  });
  const refuse = preflight(options.apiKey);
  const requestTimeout = options.requestTimeoutMs ?? REQUEST_TIMEOUT_MS;
  const server = createServer(
    {
      headersTimeout: Math.min(options.headersTimeoutMs ?? HEADERS_TIMEOUT_MS, requestTimeout),
      requestTimeout,
      // How often Node looks for connections past those timeouts (default 30 s).
      connectionsCheckingInterval: Math.min(1_000, requestTimeout),
    },
    (request, response) => {
      const refusal = refuse(request);
      if (refusal) {
        const path = (request.url ?? '').split('?')[0] ?? '';
        logger.info('http', {
          method: request.method,
          path: path.length > 64 ? `${path.slice(0, 64)}…` : path,
          status: refusal.status,
          ms: 0,
        });
        // The body, if any, is never read: the connection closes after the answer.
        response.writeHead(refusal.status, {
          'Content-Type': 'application/json',
          Connection: 'close',
          ...refusal.headers,
        });
        response.end(
          JSON.stringify({ jsonrpc: '2.0', error: { code: refusal.code, message: refusal.message }, id: null }),
        );
        return;
      }
      // Node's IncomingMessage types `method` and `url` as possibly undefined; a request the server
      // received always has both.
      void handler(request as NodeIncomingMessageLike, response);
    },
  );
  await listen(server, options.listen);
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : options.listen.port;
  const origin = `http://${authorityOf({ host: options.listen.host, port })}`;
  const url = `${origin}${MCP_PATH}`;
  const announce = options.announce ?? (() => undefined);
  const { services } = options;
  // On loopback the page is a path of this server; on an address others reach, a port of its own
  // on loopback (the page is never served to another machine).
  served.page = isLoopbackHost(options.listen.host)
    ? new ApprovalPageHost(async () => {
        const { createApprovalPage } = await import('../page/page.js');
        return createApprovalPage({
          store: new ApprovalStore(services.dataDir, { state: () => services.stateStore() }),
          origin,
        });
      }, announce)
    : ownPortPage(services, announce);
  logger.info('serving', { transport: 'http', url, tools: options.catalogue.size });
  // Once it listens no more, the task runs it started (an approved payment a poll set going) end
  // before it does.
  let ending: Promise<void> | undefined;
  const end = (): Promise<void> => (ending ??= finishTaskRuns({ announce }).then(() => undefined));
  const closed = new Promise<void>((resolve) => server.once('close', resolve)).then(end);
  return {
    url,
    closed,
    close: async () => {
      await served.page?.close();
      await app.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await end();
    },
    cut: cutTaskRuns,
  };
}

type Refusal = { status: number; code: number; message: string; headers?: Record<string, string> };

/**
 * What is decided from the headers alone, before any body is read or a web `Request` is built: a
 * malformed `Host` (400: it would not even make a URL) and, at the MCP endpoint, a missing or wrong
 * token (401), so an unauthenticated client cannot hold a connection open by sending its body slowly.
 */
function preflight(apiKey: string | undefined): (request: IncomingMessage) => Refusal | undefined {
  const check = apiKey === undefined ? undefined : bearerCheck(apiKey);
  return (request) => {
    if (!isValidHostHeader(request.headers.host)) {
      return { status: 400, code: -32000, message: 'Bad Request: invalid Host header.' };
    }
    const url = request.url ?? '';
    const query = url.indexOf('?');
    const path = query === -1 ? url : url.slice(0, query);
    if (check === undefined || path !== MCP_PATH) return undefined;
    const error = check(request.headers.authorization);
    if (error === undefined) return undefined;
    return { status: 401, code: -32001, message: `Unauthorized: ${error}.`, headers: UNAUTHORIZED_HEADERS };
  };
}

function listen(server: NodeHttpServer, address: ListenAddress): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(address.port, address.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
}

/** `wallet serve --http`: the wallet's tools over HTTP, never the local-only ones. */
export async function startHttpServer(
  setup: Omit<WalletServerSetup, 'localOnly'> & Omit<HttpServeOptions, keyof WalletServerOptions>,
): Promise<HttpServing> {
  const { listen, apiKey, allowedHosts = [], headersTimeoutMs, requestTimeoutMs, announce } = setup;
  const options = walletServerOptions({ ...setup, localOnly: false });
  // A replica sharing a state store opens it before it listens: unreachable (BUSY), not migrated,
  // or a policy that differs from the store's, and it does not start (docs/REPLICAS.md).
  for (const line of await options.services.openSharedState()) announce?.(line);
  return serveWalletHttp({
    ...options,
    listen,
    apiKey,
    allowedHosts,
    announce,
    ...(headersTimeoutMs === undefined ? {} : { headersTimeoutMs }),
    ...(requestTimeoutMs === undefined ? {} : { requestTimeoutMs }),
  });
}
