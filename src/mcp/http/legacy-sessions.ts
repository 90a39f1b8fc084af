import { randomUUID } from 'node:crypto';
import {
  isInitializeRequest,
  WebStandardStreamableHTTPServerTransport,
  type Server,
} from '@modelcontextprotocol/server';
import type { Logger } from '../logger.js';
import { MAX_BODY_BYTES } from './limits.js';
import { jsonRpcError } from './responses.js';

export type LegacySessionsOptions = {
  /** A fresh server for one session. */
  createServer: () => Server;
  logger: Logger;
  /** Sessions idle this long are closed. */
  idleMs?: number;
  /** New sessions beyond this many are refused with 503 until one ends. */
  maxSessions?: number;
};

type Session = { transport: WebStandardStreamableHTTPServerTransport; server: Server; lastUsed: number };

const DEFAULT_IDLE_MS = 30 * 60_000;
const DEFAULT_MAX_SESSIONS = 64;

/**
 * 2025-era Streamable HTTP: an `initialize` POST opens a session (its id in `Mcp-Session-Id`),
 * later POSTs, the GET stream and DELETE name it. Each session has its own server instance, so a
 * server→client request (elicitation) and its answer meet in the same place. Idle sessions end.
 */
export class LegacySessions {
  private readonly sessions = new Map<string, Session>();
  private readonly idleMs: number;
  private readonly maxSessions: number;
  private readonly sweeper: NodeJS.Timeout;

  constructor(private readonly options: LegacySessionsOptions) {
    this.idleMs = options.idleMs ?? DEFAULT_IDLE_MS;
    this.maxSessions = options.maxSessions ?? DEFAULT_MAX_SESSIONS;
    this.sweeper = setInterval(() => this.sweep(), Math.min(this.idleMs, 60_000));
    this.sweeper.unref();
  }

  get size(): number {
    return this.sessions.size;
  }

  async handle(request: Request): Promise<Response> {
    const id = request.headers.get('mcp-session-id');
    if (id !== null) {
      const session = this.sessions.get(id);
      if (!session) return jsonRpcError(404, -32001, 'Session not found: it ended or never existed. Initialize again.');
      session.lastUsed = Date.now();
      return session.transport.handleRequest(request);
    }
    const body: unknown =
      request.method === 'POST'
        ? await request
            .clone()
            .json()
            .catch(() => undefined)
        : undefined;
    if (!isInitializeRequest(body)) {
      return jsonRpcError(400, -32000, 'Bad Request: no Mcp-Session-Id; a session starts with an initialize request.');
    }
    if (this.sessions.size >= this.maxSessions) {
      return jsonRpcError(
        503,
        -32000,
        `Too many open sessions (${this.maxSessions}); close one (DELETE) or retry later.`,
      );
    }
    return this.open(request);
  }

  private async open(request: Request): Promise<Response> {
    const server = this.options.createServer();
    const transport: WebStandardStreamableHTTPServerTransport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: randomUUID,
      maxRequestBodySize: MAX_BODY_BYTES,
      onsessioninitialized: (id) => {
        this.sessions.set(id, { transport, server, lastUsed: Date.now() });
        this.options.logger.debug('session-opened', { sessions: this.sessions.size });
      },
      onsessionclosed: (id) => this.forget(id),
    });
    transport.onclose = () => {
      if (transport.sessionId !== undefined) this.forget(transport.sessionId);
    };
    await server.connect(transport);
    return transport.handleRequest(request);
  }

  private forget(id: string): void {
    const session = this.sessions.get(id);
    if (!session) return;
    this.sessions.delete(id);
    this.options.logger.debug('session-closed', { sessions: this.sessions.size });
    void session.server.close().catch(() => undefined);
  }

  private sweep(): void {
    const cutoff = Date.now() - this.idleMs;
    for (const [id, session] of this.sessions) {
      if (session.lastUsed < cutoff) this.forget(id);
    }
  }

  async close(): Promise<void> {
    clearInterval(this.sweeper);
    const sessions = [...this.sessions.values()];
    this.sessions.clear();
    await Promise.all(sessions.map((session) => session.server.close().catch(() => undefined)));
  }
}
