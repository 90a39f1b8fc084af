/**
 * A JSON-RPC proxy in front of a real node, for the faults a real node does not make on demand:
 * it forwards every call, except that `faults` may answer a method itself or drop the connection
 * after (or instead of) forwarding it.
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import { listenOnFreePort } from './ports.js';

export type Fault =
  /** Answer with this JSON-RPC error instead of asking the node. */
  | { kind: 'error'; code: number; message: string }
  /** Forward to the node, then drop the connection without answering. */
  | { kind: 'forward-then-drop' }
  /** Drop the connection without forwarding. */
  | { kind: 'drop' }
  /** Never answer (until the proxy closes). */
  | { kind: 'hang' }
  /** Forward to the node, then never answer (the node acted; the caller never hears of it). */
  | { kind: 'forward-then-hang' };

export type RpcProxy = {
  url: string;
  faults: Map<string, Fault>;
  /** The method of every call received, in order. */
  calls: string[];
  close(): Promise<void>;
};

async function body(request: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

export async function startRpcProxy(target: string): Promise<RpcProxy> {
  const faults = new Map<string, Fault>();
  const calls: string[] = [];
  const server: Server = createServer((request, response) => {
    void (async () => {
      const text = await body(request);
      const call = JSON.parse(text) as { id: number; method: string };
      calls.push(call.method);
      const fault = faults.get(call.method);
      if (fault?.kind === 'error') {
        response.writeHead(200, { 'content-type': 'application/json' });
        response.end(
          JSON.stringify({ jsonrpc: '2.0', id: call.id, error: { code: fault.code, message: fault.message } }),
        );
        return;
      }
      if (fault?.kind === 'hang') return;
      if (fault?.kind === 'drop') {
        request.socket.destroy();
        return;
      }
      const answer = await fetch(target, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: text,
      });
      const reply = await answer.text();
      if (fault?.kind === 'forward-then-drop') {
        request.socket.destroy();
        return;
      }
      if (fault?.kind === 'forward-then-hang') return;
      response.writeHead(answer.status, { 'content-type': 'application/json' });
      response.end(reply);
    })();
  });
  const port = await listenOnFreePort(server);
  return {
    url: `http://127.0.0.1:${port}/`,
    faults,
    calls,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
