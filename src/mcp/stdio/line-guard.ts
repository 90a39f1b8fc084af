import { Transform, type TransformCallback } from 'node:stream';
import type { JSONRPCErrorResponse } from '@modelcontextprotocol/server';

/** The largest line accepted; a longer one is dropped whole and answered with Invalid Request. */
export const MAX_LINE_BYTES = 4 * 1024 * 1024;

const PARSE_ERROR = -32700;
const INVALID_REQUEST = -32600;
const NEWLINE = 0x0a;

type RequestId = string | number;
type Verdict = { pass: true } | { pass: false; reply: JSONRPCErrorResponse | undefined; reason: string };

/**
 * Sits between stdin and the SDK's stdio transport. Lines that are JSON-RPC messages pass through
 * untouched; for the rest the SDK would only raise an out-of-band error and answer nothing, so
 * this answers them as JSON-RPC says: -32700 for bad JSON, -32600 for JSON that is no valid
 * message. It never writes itself: `reject` sends the reply through the transport, so stdout has
 * one writer.
 */
export class JsonRpcLineGuard extends Transform {
  private pending: Buffer[] = [];
  private pendingBytes = 0;
  private discarding = false;

  constructor(
    private readonly reject: (reply: JSONRPCErrorResponse | undefined, reason: string) => void,
    private readonly maxLineBytes = MAX_LINE_BYTES,
  ) {
    super();
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, done: TransformCallback): void {
    let start = 0;
    for (let end = chunk.indexOf(NEWLINE); end !== -1; end = chunk.indexOf(NEWLINE, start)) {
      this.append(chunk.subarray(start, end));
      this.endLine();
      start = end + 1;
    }
    this.append(chunk.subarray(start));
    done();
  }

  override _flush(done: TransformCallback): void {
    this.endLine();
    done();
  }

  private append(part: Buffer): void {
    if (this.discarding || part.length === 0) return;
    if (this.pendingBytes + part.length > this.maxLineBytes) {
      this.discarding = true;
      this.pending = [];
      this.pendingBytes = 0;
      return;
    }
    this.pending.push(part);
    this.pendingBytes += part.length;
  }

  private endLine(): void {
    if (this.discarding) {
      this.discarding = false;
      this.reject(errorReply(null, INVALID_REQUEST, 'Invalid Request: message too large'), 'too-large');
      return;
    }
    if (this.pendingBytes === 0) return;
    const line = Buffer.concat(this.pending, this.pendingBytes);
    this.pending = [];
    this.pendingBytes = 0;
    const verdict = judgeLine(line.toString('utf8'));
    if (verdict.pass) this.push(Buffer.concat([line, Buffer.from('\n')]));
    else this.reject(verdict.reply, verdict.reason);
  }
}

/** Whether one line is a JSON-RPC 2.0 message as MCP allows it (no batches), and if not, the reply it is owed. */
export function judgeLine(line: string): Verdict {
  if (line.trim() === '') return { pass: false, reply: undefined, reason: 'blank' };
  let message: unknown;
  try {
    message = JSON.parse(line);
  } catch {
    return { pass: false, reply: errorReply(null, PARSE_ERROR, 'Parse error'), reason: 'parse-error' };
  }
  if (typeof message !== 'object' || message === null || Array.isArray(message)) {
    return invalid(null, 'not-an-object');
  }
  const record = message as Record<string, unknown>;
  const id = isRequestId(record['id']) ? record['id'] : null;
  if (record['jsonrpc'] !== '2.0') return invalid(id, 'bad-version');
  if ('method' in record) {
    if (typeof record['method'] !== 'string' || record['method'] === '') return invalid(id, 'bad-method');
    if ('id' in record && !isRequestId(record['id'])) return invalid(null, 'bad-id');
    const params = record['params'];
    if (params !== undefined && (typeof params !== 'object' || params === null || Array.isArray(params))) {
      return invalid(id, 'bad-params');
    }
    return { pass: true };
  }
  const isResponse = (isRequestId(record['id']) || record['id'] === null) && 'result' in record !== 'error' in record;
  // A malformed response is dropped unanswered: JSON-RPC never replies to a response.
  return isResponse ? { pass: true } : { pass: false, reply: undefined, reason: 'bad-response' };
}

function invalid(id: RequestId | null, reason: string): Verdict {
  return { pass: false, reply: errorReply(id, INVALID_REQUEST, 'Invalid Request'), reason };
}

/** MCP ids are strings or integers; JSON numbers beyond 2^53 are no longer exact, so not ids. */
function isRequestId(value: unknown): value is RequestId {
  return typeof value === 'string' || (typeof value === 'number' && Number.isSafeInteger(value));
}

function errorReply(id: RequestId | null, code: number, message: string): JSONRPCErrorResponse {
  // JSON-RPC 2.0 answers an unidentifiable request with id null; the SDK's type only allows ids.
  return { jsonrpc: '2.0', id: id as RequestId, error: { code, message } };
}
