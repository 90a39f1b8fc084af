import { createServer, type Server as NodeHttpServer } from 'node:http';
import { toNodeHandler, type NodeIncomingMessageLike } from '@modelcontextprotocol/node';
import { createLogger } from '../logger.js';
import { createWalletServer, type WalletServerOptions } from '../server.js';
import { walletServerOptions, type WalletServerSetup } from '../setup.js';
import { createHttpApp, MCP_PATH } from './app.js';
import { allowedHostnames } from './guards.js';
import { MAX_BODY_BYTES } from './limits.js';
import { authorityOf, type ListenAddress } from './listen-address.js';

export type HttpServeOptions = WalletServerOptions & {
  listen: ListenAddress;
  /** The bearer token; undefined serves without one (the CLI allows that for read-only loopback only). */
  apiKey: string | undefined;
  /** More host names a client may use in `Host`/`Origin` (a DNS name of this machine). */
  allowedHosts?: readonly string[];
};

export type HttpServing = {
  /** The MCP endpoint, with the port actually bound. */
  url: string;
  /** Resolves when the server has stopped. */
  closed: Promise<void>;
  close(): Promise<void>;
};

/** Serves the wallet over Streamable HTTP at `/mcp` (see {@link createHttpApp}) until closed. */
export async function serveWalletHttp(options: HttpServeOptions): Promise<HttpServing> {
  const logger = options.logger ?? createLogger('off');
  const app = createHttpApp({
    createServer: () => createWalletServer({ ...options, logger }),
    logger,
    hostnames: allowedHostnames(options.listen.host, options.allowedHosts),
    apiKey: options.apiKey,
  });
  const handler = toNodeHandler(app, {
    maxRequestBodySize: MAX_BODY_BYTES,
    onerror: (error) => logger.warn('http-error', { error: error.name }),
  });
  // Node's IncomingMessage types `method` and `url` as possibly undefined; a request the server
  // received always has both.
  const server = createServer((request, response) => void handler(request as NodeIncomingMessageLike, response));
  await listen(server, options.listen);
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : options.listen.port;
  const url = `http://${authorityOf({ host: options.listen.host, port })}${MCP_PATH}`;
  logger.info('serving', { transport: 'http', url, tools: options.catalogue.list().length });
  const closed = new Promise<void>((resolve) => server.once('close', resolve));
  return {
    url,
    closed,
    close: async () => {
      await app.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
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
export function startHttpServer(
  setup: Omit<WalletServerSetup, 'localOnly'> & Omit<HttpServeOptions, keyof WalletServerOptions>,
): Promise<HttpServing> {
  const { listen, apiKey, allowedHosts = [] } = setup;
  return serveWalletHttp({ ...walletServerOptions({ ...setup, localOnly: false }), listen, apiKey, allowedHosts });
}
