import { createServer } from 'node:http';
import { toNodeHandler, type NodeIncomingMessageLike } from '@modelcontextprotocol/node';
import { ApprovalStore } from '../../domain/policy/approvals.js';
import { UsageError } from '../../shared/usage-error.js';
import { isValidHostHeader } from '../http/guards.js';
import { authorityOf, isLoopbackHost, type ListenAddress } from '../http/listen-address.js';
import { createApprovalPage, type ApprovalPage, type ApprovalPageOptions } from './page.js';

/** The page on a port of its own, and how to stop it. */
export type ServedPage = ApprovalPage & { closed: Promise<void>; close(): Promise<void> };

/**
 * Serves the approval page of `dataDir` on a loopback port of its own (port 0: a free one), for
 * `wallet serve` on stdio and `wallet approvals open`. Anything but a loopback address is refused:
 * the page is for a browser on this machine. `background`: the server does not keep the process
 * alive (`wallet serve` exits when its client goes).
 */
export async function serveApprovalPage(options: {
  dataDir: string;
  listen: ListenAddress;
  background: boolean;
  /** A passkey's enrolment (only `wallet approvals passkey add`, after the keystore passphrase). */
  enrolment?: ApprovalPageOptions['enrolment'];
}): Promise<ServedPage> {
  const { listen } = options;
  if (!isLoopbackHost(listen.host)) {
    throw new UsageError(`The approval page listens on loopback only, not ${listen.host}.`, 'Use 127.0.0.1:<port>.');
  }
  // Made once listening: its origin has the port actually bound.
  const served: { page?: ApprovalPage } = {};
  const handler = toNodeHandler(
    {
      fetch: (request) =>
        served.page ? served.page.fetch(request) : Promise.resolve(new Response(null, { status: 503 })),
    },
    { maxRequestBodySize: 16_384 },
  );
  const server = createServer({ headersTimeout: 10_000, requestTimeout: 30_000 }, (request, response) => {
    if (!isValidHostHeader(request.headers.host)) {
      response.writeHead(400, { Connection: 'close' }).end();
      return;
    }
    void handler(request as NodeIncomingMessageLike, response);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(listen.port, listen.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  if (options.background) server.unref();
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : listen.port;
  const page = createApprovalPage({
    store: new ApprovalStore(options.dataDir),
    origin: `http://${authorityOf({ host: listen.host, port })}`,
    dataDir: options.dataDir,
    ...(options.enrolment ? { enrolment: options.enrolment } : {}),
  });
  served.page = page;
  const closed = new Promise<void>((resolve) => server.once('close', resolve));
  return {
    ...page,
    closed,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
