import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** The browser's way back: a listener on 127.0.0.1 for the authorization server's redirect. */
export type LoopbackRedirect = {
  /** `http://127.0.0.1:<port>/callback`, the `redirect_uri` of the login. */
  readonly redirectUrl: string;
  /** The query of the first request to `/callback` (`code`, `state`, `iss`, or `error`). */
  readonly callback: Promise<URLSearchParams>;
  close(): Promise<void>;
};

const CALLBACK_PATH = '/callback';

const DONE_PAGE =
  '<!doctype html><meta charset="utf-8"><title>wallet</title>' +
  '<p>The login went back to the wallet CLI. You can close this tab.</p>';

/**
 * Listens on 127.0.0.1 (RFC 8252 §7.3: loopback, any port) for the redirect of one login. The
 * port `preferred` is tried first, so a client registered with that redirect URI keeps working;
 * else any free port (0). Only `GET /callback` counts; anything else is a 404.
 */
export async function listenForRedirect(preferred?: number): Promise<LoopbackRedirect> {
  let resolve!: (params: URLSearchParams) => void;
  const callback = new Promise<URLSearchParams>((done) => (resolve = done));
  const server = createServer((request, response) => {
    const url = new URL(request.url ?? '/', 'http://127.0.0.1');
    if (request.method !== 'GET' || url.pathname !== CALLBACK_PATH) {
      response.writeHead(404).end();
      return;
    }
    response.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' });
    response.end(DONE_PAGE);
    resolve(url.searchParams);
  });
  const port = await listen(server, preferred).catch(() => listen(server, 0));
  return {
    redirectUrl: `http://127.0.0.1:${port}${CALLBACK_PATH}`,
    callback,
    close: () =>
      new Promise<void>((done) => {
        server.closeAllConnections();
        server.close(() => done());
      }),
  };
}

function listen(server: Server, port = 0): Promise<number> {
  return new Promise((resolve, reject) => {
    const fail = (error: Error) => reject(error);
    server.once('error', fail);
    server.listen(port, '127.0.0.1', () => {
      server.off('error', fail);
      resolve((server.address() as AddressInfo).port);
    });
  });
}
