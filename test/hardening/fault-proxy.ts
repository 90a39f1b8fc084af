/**
 * An HTTP proxy in front of a real backend (anvil, litecoind, the fake Dash servers) that injects
 * one fault into the exchanges a rule picks, and forwards the rest untouched (path, body, the
 * Authorization header). It records every exchange, and whether it reached the backend, so a test
 * can tell that a broadcast never got there.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { listenOnFreePort } from '../helpers/ports.js';

export type FaultKind =
  /** Accept the connection, read the request, never answer. */
  | 'hang'
  /** Reset the connection (TCP RST) instead of answering. */
  | 'reset'
  /** HTTP 500 with an HTML page, as a crashed app behind a web server answers. */
  | 'http-500'
  /** HTTP 200, content-type JSON, a body cut off in the middle. */
  | 'invalid-json'
  /** HTTP 200, valid JSON that is neither a JSON-RPC reply nor any shape the API documents. */
  | 'wrong-shape'
  /** HTTP 200, a JSON-RPC reply of the right id whose result has the wrong type. */
  | 'wrong-result';

export type Fault = FaultKind | { kind: 'rewrite'; change: (reply: unknown) => unknown };

/** What a rule sees of a request: its path, and its JSON-RPC method when it is one. */
export type Seen = { path: string; rpcMethod: string | undefined };

/** `at`: when the request arrived (`performance.now()` of the test process). */
type Exchange = Seen & { fault: string | null; forwarded: boolean; at: number };

export type FaultProxy = {
  /** `http://127.0.0.1:<port>` (no trailing slash). */
  origin: string;
  port: number;
  /** Picks the fault of each request; undefined forwards it. */
  rule: (seen: Seen) => Fault | undefined;
  exchanges: Exchange[];
  close(): Promise<void>;
};

async function bodyOf(request: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

function rpcCall(body: Buffer): { method: string | undefined; id: unknown } {
  try {
    const parsed = JSON.parse(body.toString('utf8')) as { method?: unknown; id?: unknown };
    return { method: typeof parsed.method === 'string' ? parsed.method : undefined, id: parsed.id ?? null };
  } catch {
    return { method: undefined, id: null };
  }
}

function json(response: ServerResponse, status: number, text: string): void {
  response.writeHead(status, { 'content-type': 'application/json' });
  response.end(text);
}

/**
 * Starts a proxy to `target` (an origin, e.g. `http://127.0.0.1:8545`) on a free loopback port.
 *
 * @example
 * const proxy = await startFaultProxy(node.origin);
 * proxy.rule = ({ rpcMethod }) => (rpcMethod === 'eth_chainId' ? 'reset' : undefined);
 */
export async function startFaultProxy(target: string): Promise<FaultProxy> {
  const sockets = new Set<Socket>();
  const proxy: FaultProxy = {
    origin: '',
    port: 0,
    rule: () => undefined,
    exchanges: [],
    close: async () => undefined,
  };
  const handle = async (request: IncomingMessage, response: ServerResponse): Promise<void> => {
    const body = await bodyOf(request);
    const call = rpcCall(body);
    const seen: Seen = { path: request.url ?? '/', rpcMethod: call.method };
    const fault = proxy.rule(seen);
    const exchange: Exchange = {
      ...seen,
      fault: fault === undefined ? null : typeof fault === 'string' ? fault : fault.kind,
      forwarded: false,
      at: performance.now(),
    };
    proxy.exchanges.push(exchange);
    switch (fault) {
      case 'hang':
        return;
      case 'reset':
        request.socket.resetAndDestroy();
        return;
      case 'http-500':
        response.writeHead(500, { 'content-type': 'text/html' });
        response.end('<html><body><h1>500 Internal Server Error</h1></body></html>\n');
        return;
      case 'invalid-json':
        json(response, 200, `{"jsonrpc":"2.0","id":${JSON.stringify(call.id)},"result":{"chain":"reg`);
        return;
      case 'wrong-shape':
        json(response, 200, JSON.stringify({ status: 'ok', data: [1, 2, 3] }));
        return;
      case 'wrong-result':
        json(
          response,
          200,
          JSON.stringify({ jsonrpc: '2.0', id: call.id, result: { unexpected: [true] }, error: null }),
        );
        return;
    }
    const headers: Record<string, string> = {};
    for (const name of ['authorization', 'content-type', 'accept']) {
      const value = request.headers[name];
      if (typeof value === 'string') headers[name] = value;
    }
    const answer = await fetch(`${target}${seen.path}`, {
      method: request.method ?? 'GET',
      headers,
      ...(request.method === 'GET' || request.method === 'HEAD' ? {} : { body }),
    });
    exchange.forwarded = true;
    const text = await answer.text();
    if (fault === undefined) {
      response.writeHead(answer.status, { 'content-type': answer.headers.get('content-type') ?? 'application/json' });
      response.end(text);
      return;
    }
    json(response, answer.status, JSON.stringify(fault.change(JSON.parse(text))));
  };
  const server: Server = createServer((request, response) => {
    handle(request, response).catch((error: unknown) => {
      if (!response.headersSent) response.writeHead(502, { 'content-type': 'text/plain' });
      response.end(`fault proxy: ${String(error)}`);
    });
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  });
  const port = await listenOnFreePort(server);
  proxy.port = port;
  proxy.origin = `http://127.0.0.1:${port}`;
  proxy.close = () =>
    new Promise((resolve) => {
      for (const socket of sockets) socket.destroy();
      server.close(() => resolve());
    });
  return proxy;
}
