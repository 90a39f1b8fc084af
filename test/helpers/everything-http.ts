import { spawn } from 'node:child_process';
import { createServer, request, type Server } from 'node:http';
import { EVERYTHING_SERVER } from './paths.js';
import { listenOnFreePort, withFreshPorts } from './ports.js';

/** A real Streamable HTTP MCP server (@modelcontextprotocol/server-everything) on a free port. */
export type HttpServer = { url: string; stop: () => Promise<void> };

export function startEverythingHttp(): Promise<HttpServer> {
  // server-everything takes its port from PORT and cannot report a port 0: retried on a taken port.
  return withFreshPorts(1, ([port = 0]) => startEverythingOn(port));
}

async function startEverythingOn(port: number): Promise<HttpServer> {
  const child = spawn(process.execPath, [EVERYTHING_SERVER, 'streamableHttp'], {
    env: { ...process.env, PORT: String(port) },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`server-everything did not start: ${stderr}`)), 20_000);
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
      if (stderr.includes('listening on port')) {
        clearTimeout(timer);
        resolve();
      }
    });
    child.once('exit', (code) => reject(new Error(`server-everything exited (${String(code)}): ${stderr}`)));
  });
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    stop: async () => {
      if (child.exitCode !== null) return;
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGKILL');
      await exited;
    },
  };
}

/**
 * A reverse proxy in front of `upstream` that answers 401 unless the request carries
 * `Authorization: Bearer <token>`: what an MCP server behind an API key looks like. Records the
 * Authorization headers it saw.
 */
export async function startBearerProxy(
  upstream: string,
  token: string,
): Promise<HttpServer & { seen: (string | undefined)[] }> {
  const target = new URL(upstream);
  const seen: (string | undefined)[] = [];
  const server: Server = createServer((incoming, outgoing) => {
    seen.push(incoming.headers.authorization);
    if (incoming.headers.authorization !== `Bearer ${token}`) {
      outgoing.writeHead(401, { 'content-type': 'application/json' }).end('{"error":"unauthorized"}');
      return;
    }
    const forwarded = request(
      {
        host: target.hostname,
        port: target.port,
        path: incoming.url,
        method: incoming.method,
        headers: incoming.headers,
      },
      (answer) => {
        outgoing.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(outgoing);
      },
    );
    forwarded.on('error', () => outgoing.destroy());
    incoming.pipe(forwarded);
  });
  const port = await listenOnFreePort(server);
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    seen,
    stop: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
