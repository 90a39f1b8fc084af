import { createServer, type Server } from 'node:net';

/**
 * A loopback TCP port that was free a moment ago: for a URL nothing should answer at. Another
 * process may take it before it is used: a server of ours listens with {@link listenOnFreePort},
 * a daemon that must be told its port starts through {@link withFreshPorts}.
 */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

/** Listens on a port the system picks (port 0) and returns it: nothing can take it first. */
export async function listenOnFreePort(server: Pick<Server, 'listen' | 'address' | 'once'>): Promise<number> {
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const address = server.address();
  if (typeof address !== 'object' || address === null) throw new Error('the server has no TCP address');
  return address.port;
}

/**
 * Starts a daemon that must be told its ports ahead (it cannot report a port 0 it bound): fresh
 * free ports for each attempt, and another attempt when a start fails, as it does when another
 * process took a port between our check and the daemon's bind (EADDRINUSE).
 */
export async function withFreshPorts<T>(
  count: number,
  start: (ports: number[]) => Promise<T>,
  attempts = 3,
): Promise<T> {
  let lastError: unknown;
  for (let attempt = 1; attempt <= attempts; attempt++) {
    const ports = await Promise.all(Array.from({ length: count }, () => freePort()));
    try {
      return await start(ports);
    } catch (error) {
      lastError = error;
    }
  }
  throw lastError;
}
