import type { JSONRPCMessage, MessageExtraInfo, Transport, TransportSendOptions } from '@modelcontextprotocol/server';
import { readToolErrorMeta } from '../../shared/protocol-meta.js';
import { clipForDisplay } from '../../shared/text.js';
import type { Logger } from '../logger.js';

type Pending = { method: string; tool: string | undefined; started: number };

/**
 * Wraps the transport `serveStdio` owns, to learn when the connection ends and to log each
 * request: method, tool name, id, outcome and duration. Never arguments, results or error texts.
 */
export class ServedTransport implements Transport {
  onclose?: (() => void) | undefined;
  onerror?: ((error: Error) => void) | undefined;
  onmessage?: (<T extends JSONRPCMessage>(message: T, extra?: MessageExtraInfo) => void) | undefined;
  readonly closed: Promise<void>;
  private readonly pending = new Map<string | number, Pending>();

  constructor(
    private readonly inner: Transport,
    private readonly logger: Logger,
  ) {
    let markClosed: () => void = () => undefined;
    this.closed = new Promise((resolve) => (markClosed = resolve));
    inner.onmessage = (message, extra) => {
      this.observeIncoming(message);
      this.onmessage?.(message, extra);
    };
    inner.onerror = (error) => {
      this.logger.warn('transport-error', { error: error.name });
      this.onerror?.(error);
    };
    inner.onclose = () => {
      this.logger.debug('connection-closed', { unanswered: this.pending.size });
      this.onclose?.();
      markClosed();
    };
  }

  get sessionId(): string | undefined {
    return this.inner.sessionId;
  }

  setProtocolVersion(version: string): void {
    this.inner.setProtocolVersion?.(version);
  }

  start(): Promise<void> {
    return this.inner.start();
  }

  async send(message: JSONRPCMessage, options?: TransportSendOptions): Promise<void> {
    this.observeOutgoing(message);
    await this.inner.send(message, options);
  }

  close(): Promise<void> {
    return this.inner.close();
  }

  private observeIncoming(message: JSONRPCMessage): void {
    if (!('method' in message)) return;
    if (!('id' in message)) {
      this.logger.debug('notification', { method: message.method });
      return;
    }
    const params: Record<string, unknown> = message.params ?? {};
    const tool =
      message.method === 'tools/call' && typeof params['name'] === 'string'
        ? clipForDisplay(params['name'])
        : undefined;
    this.pending.set(message.id, { method: message.method, tool, started: performance.now() });
  }

  private observeOutgoing(message: JSONRPCMessage): void {
    if ('method' in message || message.id === undefined) return;
    const request = this.pending.get(message.id);
    this.pending.delete(message.id);
    const fields = {
      method: request?.method ?? 'unknown',
      tool: request?.tool,
      id: message.id,
      outcome: outcomeOf(message),
      ms: request ? Math.round(performance.now() - request.started) : undefined,
    };
    this.logger.debug('request', fields);
  }
}

/** ok, `error:<JSON-RPC code>`, or `tool-error:<WalletError code>`. */
function outcomeOf(message: JSONRPCMessage): string {
  if ('error' in message) return `error:${message.error.code}`;
  if (!('result' in message)) return 'unknown';
  const result: Record<string, unknown> = message.result;
  if (result['isError'] !== true) return 'ok';
  return `tool-error:${readToolErrorMeta(result['_meta'])?.code ?? 'unknown'}`;
}
