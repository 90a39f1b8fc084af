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
  /**
   * At most this many sessions are open: a new one ends the least recently used idle session
   * (clients that never DELETE leave theirs behind); only when every session has a call in
   * flight is it refused with 503.
   */
  maxSessions?: number;
};

type Session = {
  transport: WebStandardStreamableHTTPServerTransport;
  server: Server;
  lastUsed: number;
  /** Requests of the client not yet answered: such a session is never evicted. */
  inFlight: Set<string | number>;
};

const DEFAULT_IDLE_MS = 30 * 60_000;
const DEFAULT_MAX_SESSIONS = 64;

/**
 * 2025-era Streamable HTTP: an `initialize` POST opens a session (its id in `Mcp-Session-Id`),
 * later POSTs, the GET stream and DELETE name it. Each session has its own server instance, so a
 * server→client request (elicitation) and its answer meet in the same place. Idle sessions end,
 * and when the cap is reached the least recently used idle one makes room for a new client.
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

  /** `parsedBody`: the POST body already parsed (undefined: none, or not JSON). */
  async handle(request: Request, parsedBody?: unknown): Promise<Response> {
    const options = parsedBody === undefined ? undefined : { parsedBody };
    const id = request.headers.get('mcp-session-id');
    if (id !== null) {
      const session = this.sessions.get(id);
      if (!session) return jsonRpcError(404, -32001, 'Session not found: it ended or never existed. Initialize again.');
      this.touch(id, session);
      return session.transport.handleRequest(request, options);
    }
    if (!isInitializeRequest(parsedBody)) {
      return jsonRpcError(400, -32000, 'Bad Request: no Mcp-Session-Id; a session starts with an initialize request.');
    }
    if (this.sessions.size >= this.maxSessions && !this.evictIdle()) {
      return jsonRpcError(
        503,
        -32000,
        `Too many sessions with calls in flight (${this.maxSessions}); retry when one has finished.`,
      );
    }
    return this.open(request, options);
  }

  /** Marks a session used: the Map's order is least recently used first. */
  private touch(id: string, session: Session): void {
    session.lastUsed = Date.now();
    this.sessions.delete(id);
    this.sessions.set(id, session);
  }

  /** Ends the least recently used session without a call in flight; false when there is none. */
  private evictIdle(): boolean {
    for (const [id, session] of this.sessions) {
      if (session.inFlight.size > 0) continue;
      this.options.logger.debug('session-evicted', { idleMs: Date.now() - session.lastUsed });
      this.forget(id);
      return true;
    }
    return false;
  }

  private async open(request: Request, options: { parsedBody: unknown } | undefined): Promise<Response> {
    const server = this.options.createServer();
    const transport: WebStandardStreamableHTTPServerTransport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: randomUUID,
      maxRequestBodySize: MAX_BODY_BYTES,
      onsessioninitialized: (id) => {
        this.sessions.set(id, session);
        this.options.logger.debug('session-opened', { sessions: this.sessions.size });
      },
      onsessionclosed: (id) => this.forget(id),
    });
    const session: Session = { transport, server, lastUsed: Date.now(), inFlight: new Set() };
    transport.onclose = () => {
      if (transport.sessionId !== undefined) this.forget(transport.sessionId);
    };
    await server.connect(transport);
    trackInFlight(transport, session.inFlight);
    return transport.handleRequest(request, options);
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

/**
 * Keeps `inFlight` to the ids of the client's requests the server has not answered yet, by
 * wrapping the handlers `server.connect` installed (a cancelled request is never answered).
 */
function trackInFlight(transport: WebStandardStreamableHTTPServerTransport, inFlight: Set<string | number>): void {
  const receive = transport.onmessage;
  transport.onmessage = (message, extra) => {
    if ('method' in message) {
      if ('id' in message) inFlight.add(message.id);
      else if (message.method === 'notifications/cancelled') {
        const requestId = message.params?.['requestId'];
        if (typeof requestId === 'string' || typeof requestId === 'number') inFlight.delete(requestId);
      }
    }
    receive?.call(transport, message, extra);
  };
  const send = transport.send.bind(transport);
  transport.send = (message, options) => {
    if (!('method' in message) && message.id !== undefined) inFlight.delete(message.id);
    return send(message, options);
  };
}
