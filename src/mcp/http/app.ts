import { createMcpHandler, isLegacyRequest, type Server } from '@modelcontextprotocol/server';
import { packageInfo } from '../../shared/package-info.js';
import type { Logger } from '../logger.js';
import type { ApprovalPageHost } from '../page/host.js';
import { bearerGate, rebindingResponse } from './guards.js';
import { LegacySessions } from './legacy-sessions.js';
import { jsonRpcError } from './responses.js';
import { MAX_BODY_BYTES } from './limits.js';

export const MCP_PATH = '/mcp';

const HEALTH_PATH = '/health';

export type HttpAppOptions = {
  /** A fresh server instance: one per legacy session, one per modern request. */
  createServer: () => Server;
  logger: Logger;
  /** Host names allowed in `Host` and `Origin` (see {@link allowedHostnames}). */
  hostnames: string[];
  /** The bearer token `/mcp` requires; undefined only for `--read-only --no-auth` on loopback. */
  apiKey: string | undefined;
  /** The owner's approval page, mounted at `/approvals` (loopback only); undefined: not served here. */
  approvalPage?: () => ApprovalPageHost | undefined;
};

const PAGE_PATH = '/approvals';

export type HttpApp = { fetch: (request: Request) => Promise<Response>; close: () => Promise<void> };

/**
 * The HTTP face of `wallet serve --http`, web-standard `Request` in, `Response` out:
 * `GET /health` (no token), the owner's approval page at `/approvals`, and `/mcp` behind the Host/Origin check and the bearer token, where
 * 2025-era traffic (an `initialize` handshake and its session) goes to {@link LegacySessions}
 * and 2026-07-28 per-request traffic to the SDK's stateless handler.
 */
export function createHttpApp(options: HttpAppOptions): HttpApp {
  const { logger, hostnames } = options;
  const authorize = options.apiKey === undefined ? () => undefined : bearerGate(options.apiKey);
  const legacy = new LegacySessions({ createServer: options.createServer, logger });
  const modern = createMcpHandler(() => options.createServer(), {
    legacy: 'reject',
    maxRequestBodySize: MAX_BODY_BYTES,
    onerror: (error) => logger.debug('http-rejected', { error: error.name }),
  });

  async function route(request: Request, path: string): Promise<Response> {
    const rejected = rebindingResponse(request, hostnames);
    if (rejected) return rejected;
    if (path === HEALTH_PATH) {
      if (request.method !== 'GET' && request.method !== 'HEAD') return methodNotAllowed('GET, HEAD');
      const { name, version } = packageInfo();
      return Response.json({ status: 'ok', name, version });
    }
    if (path === PAGE_PATH || path.startsWith(`${PAGE_PATH}/`)) {
      // The page has its own checks (exact loopback Host, Origin, session, CSRF); no bearer token.
      const page = await options.approvalPage?.()?.page();
      if (page) return page.fetch(request);
    }
    if (path !== MCP_PATH) return jsonRpcError(404, -32000, `Not found: the MCP endpoint is ${MCP_PATH}.`);
    const unauthorized = authorize(request);
    if (unauthorized) return unauthorized;
    // The body is read and parsed once, here, and handed on: otherwise the era check and the
    // session lookup each clone the request (a stream tee) and parse it again.
    const { request: forward, parsedBody } = await readJsonBody(request);
    return (await isLegacyRequest(forward, parsedBody))
      ? legacy.handle(forward, parsedBody)
      : modern.fetch(forward, parsedBody === undefined ? undefined : { parsedBody });
  }

  return {
    fetch: async (request) => {
      const started = performance.now();
      const path = new URL(request.url).pathname;
      const response = await route(request, path);
      logger.info('http', {
        method: request.method,
        path: path.length > 64 ? `${path.slice(0, 64)}…` : path,
        status: response.status,
        ms: Math.round(performance.now() - started),
      });
      return response;
    },
    close: async () => {
      await Promise.all([legacy.close(), modern.close()]);
    },
  };
}

/**
 * A POST's JSON body, parsed; undefined for another method, or a body that is not JSON (then the
 * request is rebuilt with its text so the SDK answers it as it would have).
 */
async function readJsonBody(request: Request): Promise<{ request: Request; parsedBody: unknown }> {
  if (request.method !== 'POST' || request.body === null) return { request, parsedBody: undefined };
  const text = await request.text();
  try {
    return { request, parsedBody: JSON.parse(text) as unknown };
  } catch {
    return { request: new Request(request, { body: text }), parsedBody: undefined };
  }
}

function methodNotAllowed(allow: string): Response {
  return new Response(null, { status: 405, headers: { Allow: allow } });
}
