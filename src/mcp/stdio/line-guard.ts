import {
  parseJSONRPCMessage,
  specTypeSchemas,
  type JSONRPCErrorResponse,
  type JSONRPCMessage,
} from '@modelcontextprotocol/server';

/** The largest line accepted; a longer one is dropped whole and answered with Invalid Request. */
export const MAX_LINE_BYTES = 4 * 1024 * 1024;

const PARSE_ERROR = -32700;
const INVALID_REQUEST = -32600;
const INVALID_PARAMS = -32602;
const NEWLINE = 0x0a;

type RequestId = string | number;
export type Verdict =
  { pass: true; message: JSONRPCMessage } | { pass: false; reply: JSONRPCErrorResponse | undefined; reason: string };

/**
 * Spec methods whose params the SDK checks only inside its handler wrapper, where a mismatch
 * becomes -32603 with a schema dump; checked here first so they are -32602 as JSON-RPC says.
 */
const CHECKED_PARAMS = {
  initialize: 'InitializeRequest',
  ping: 'PingRequest',
  'tools/list': 'ListToolsRequest',
} as const;

/**
 * Cuts a byte stream into lines (LF; a CR before it is JSON whitespace), never holding more than
 * `maxLineBytes` of one line: a longer line is dropped whole and reported once at its end.
 */
export class LineSplitter {
  private pending: Buffer[] = [];
  private pendingBytes = 0;
  private discarding = false;

  constructor(
    private readonly onLine: (line: Buffer) => void,
    private readonly onTooLarge: () => void,
    private readonly maxLineBytes = MAX_LINE_BYTES,
  ) {}

  push(chunk: Buffer): void {
    let start = 0;
    for (let end = chunk.indexOf(NEWLINE); end !== -1; end = chunk.indexOf(NEWLINE, start)) {
      this.append(chunk.subarray(start, end));
      this.endLine();
      start = end + 1;
    }
    this.append(chunk.subarray(start));
  }

  /** The input ended: a last line without a newline still counts. */
  end(): void {
    this.endLine();
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
      this.onTooLarge();
      return;
    }
    if (this.pendingBytes === 0) return;
    const [first] = this.pending;
    const line = this.pending.length === 1 && first ? first : Buffer.concat(this.pending, this.pendingBytes);
    this.pending = [];
    this.pendingBytes = 0;
    this.onLine(line);
  }
}

/** The reply owed to a line over the size limit. */
export const tooLargeReply = (): JSONRPCErrorResponse =>
  errorReply(null, INVALID_REQUEST, 'Invalid Request: message too large');

/**
 * One line judged as MCP's JSON-RPC allows it (no batches): the message, parsed once, or the reply
 * it is owed: -32700 for bad JSON, -32600 for JSON that is no valid message, -32602 for a spec
 * method's invalid params; nothing for a malformed response or notification (JSON-RPC never
 * answers those).
 */
export function judgeLine(line: string): Verdict {
  if (line.trim() === '') return drop('blank');
  const parsed = parseLine(line);
  return 'reply' in parsed ? parsed : judgeValue(parsed.value);
}

/** The line's JSON, or the -32700 it is owed. */
export function parseLine(
  line: string,
): { value: unknown } | { pass: false; reply: JSONRPCErrorResponse; reason: string } {
  try {
    return { value: JSON.parse(line) as unknown };
  } catch {
    return { pass: false, reply: errorReply(null, PARSE_ERROR, 'Parse error'), reason: 'parse-error' };
  }
}

/** The empty batch JSON-RPC answers with one Invalid Request (not an empty array). */
export const emptyBatchReply = (): JSONRPCErrorResponse => errorReply(null, INVALID_REQUEST, 'Invalid Request');

/** One parsed JSON value judged as {@link judgeLine} judges a line (an array is no message). */
export function judgeValue(value: unknown): Verdict {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return invalid(null, 'not-an-object');
  }
  const record = value as Record<string, unknown>;
  const id = isRequestId(record['id']) ? record['id'] : null;
  const responseLike = !('method' in record) && ('result' in record || 'error' in record);
  // JSON-RPC never answers a response, even one of another version.
  if (record['jsonrpc'] !== '2.0') return responseLike ? drop('bad-response') : invalid(id, 'bad-version');
  if (!('method' in record)) {
    // Neither a method nor a result or error: a request that lost its method, owed an answer.
    if (!('result' in record) && !('error' in record)) return invalid(id, 'no-method');
    const isResponse = (id !== null || record['id'] === null) && 'result' in record !== 'error' in record;
    const message = isResponse ? sdkMessage(record) : undefined;
    return message ? { pass: true, message } : drop('bad-response');
  }
  const isRequest = 'id' in record;
  if (typeof record['method'] !== 'string' || record['method'] === '') return invalid(id, 'bad-method');
  if (isRequest && id === null) return invalid(null, 'bad-id');
  const params = record['params'];
  if (params !== undefined && (typeof params !== 'object' || params === null || Array.isArray(params))) {
    return invalid(id, 'bad-params');
  }
  // The SDK's own message schema is stricter (no extra members, a well-formed _meta) and drops what
  // it refuses unanswered: such a request is answered here, such a notification dropped.
  const message = sdkMessage(record);
  if (!message) {
    if (!isRequest) return drop('not-mcp');
    // Well-formed but for its params (a bad _meta, say): invalid params, not an invalid request.
    if (params !== undefined && sdkMessage({ ...record, params: {} })) {
      return {
        pass: false,
        reply: errorReply(id, INVALID_PARAMS, 'Invalid params: params._meta is not valid'),
        reason: 'bad-meta',
      };
    }
    return invalid(id, 'not-mcp');
  }
  if (isRequest && id !== null) {
    const problem = paramsProblem(record['method'], record);
    if (problem !== undefined) {
      return { pass: false, reply: errorReply(id, INVALID_PARAMS, `Invalid params: ${problem}`), reason: 'bad-params' };
    }
  }
  return { pass: true, message };
}

function sdkMessage(record: Record<string, unknown>): JSONRPCMessage | undefined {
  try {
    return parseJSONRPCMessage(record);
  } catch {
    return undefined;
  }
}

/** Where a spec method's params are wrong (`params.cursor`), or undefined when they are right or unchecked. */
function paramsProblem(method: string, request: Record<string, unknown>): string | undefined {
  if (!Object.hasOwn(CHECKED_PARAMS, method)) return undefined;
  const type = CHECKED_PARAMS[method as keyof typeof CHECKED_PARAMS];
  const issue = specTypeSchemas[type]['~standard'].validate(request).issues?.[0];
  if (issue === undefined) return undefined;
  const path = issue.path?.map((part) => String(typeof part === 'object' ? part.key : part)).join('.');
  return path ? `${path} is not valid for ${method}` : `not valid for ${method}`;
}

function drop(reason: string): Verdict {
  return { pass: false, reply: undefined, reason };
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
