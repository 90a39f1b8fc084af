/**
 * What a server speaking JSON-RPC 2.0 (https://www.jsonrpc.org/specification) as MCP narrows it
 * (modelcontextprotocol.io/specification/2025-11-25/basic) owes one line it receives on stdio,
 * written from the two specifications, not from our implementation:
 *
 * - a line that is not JSON: -32700 Parse error, id null;
 * - JSON that is not a Request object: -32600 Invalid Request, with the request's id when it can be
 *   read, else null; an array (a batch) too: MCP has had no batches since 2025-06-18;
 * - an MCP id is a string or an integer, never null ("Requests MUST include a string or integer
 *   ID"); a request with another id is invalid, answered with id null (or, for a number JSON-RPC
 *   allows but MCP does not, the number itself);
 * - params, when present, MUST be a structured value (JSON-RPC); MCP's are an object;
 * - a notification (no id) is never answered, nor is a response; a request always is:
 *   -32601 for a method the server does not have, -32602 for invalid params (an unknown tool,
 *   a tools/call whose name or arguments have the wrong type, a tools/list cursor that is not a
 *   string, MCP's "Invalid cursors SHOULD result in -32602"), else the method's result; the tasks
 *   extension's tasks/get, update and cancel: -32602 without a task id, else -32021 (extension not
 *   declared) or -32602 (no such task of this connection);
 * - argument problems of a known tool are tool execution errors (isError), not -32602 (SEP-1303).
 *
 * Where the specifications leave a choice (extra members, an ambiguous object that is neither a
 * request nor a response), every reading they allow is accepted and the choice is named in `note`.
 */
import { ERROR_CODES } from '../../src/domain/errors.js';
import { isMcpId, isRecord, sameId, type Reply, type RequestId } from './raw-stdio.js';

export const PARSE_ERROR = -32700;
export const INVALID_REQUEST = -32600;
export const METHOD_NOT_FOUND = -32601;
export const INVALID_PARAMS = -32602;
/** A request of an extension the client did not declare (the tasks extension's methods). */
const MISSING_CLIENT_CAPABILITY = -32021;

/** The WalletError codes a tool result may carry, INTERNAL excluded: that one is a bug. */
export const TYPED_TOOL_ERROR_CODES: readonly string[] = ERROR_CODES.filter((code) => code !== 'INTERNAL');

export type Expectation = {
  /** The rule that decided, for failure messages. */
  note: string;
  /** `none`: no reply may come; `required`: exactly one; `optional`: at most one. */
  reply: 'none' | 'required' | 'optional';
  /** The ids a reply may carry. */
  ids: readonly (RequestId | null)[];
  /** Why a reply is wrong, or undefined when it is right. */
  accept: (reply: Reply) => string | undefined;
};

export type OracleContext = {
  /** The tools the server lists. */
  tools: ReadonlySet<string>;
  /** Judges a tools/call result of a known tool; undefined when it is right. */
  toolResult: (name: string, result: Record<string, unknown>) => string | undefined;
};

const none = (note: string): Expectation => ({ note, reply: 'none', ids: [], accept: () => 'no reply was due' });

function errorWith(
  note: string,
  ids: readonly (RequestId | null)[],
  codes: readonly number[],
  reply: 'required' | 'optional' = 'required',
): Expectation {
  return {
    note,
    reply,
    ids,
    accept: (answer) =>
      answer.error && codes.includes(answer.error.code)
        ? undefined
        : `expected an error ${codes.join(' or ')}, got ${JSON.stringify(answer).slice(0, 300)}`,
  };
}

/** The ids an error about this (possibly broken) request may carry. */
function echo(value: Record<string, unknown>): (RequestId | null)[] {
  const id = value['id'];
  if (isMcpId(id)) return [id];
  if (typeof id === 'number' && Number.isFinite(id)) return [id, null];
  return [null];
}

const STANDARD_MEMBERS = new Set(['jsonrpc', 'id', 'method', 'params']);

/** What a line that parsed as `value` is owed. */
export function expectFor(value: unknown, context: OracleContext): Expectation {
  if (!isRecord(value)) {
    return errorWith(
      Array.isArray(value) ? 'a batch (MCP has none) or an array' : 'JSON that is not an object',
      [null],
      [INVALID_REQUEST],
    );
  }
  if (value['jsonrpc'] !== '2.0') return errorWith('jsonrpc is not "2.0"', echo(value), [INVALID_REQUEST]);
  if (!('method' in value)) return expectForNonRequest(value);
  const method = value['method'];
  const hasId = 'id' in value;
  const id = value['id'];
  if (typeof method !== 'string') return errorWith('method is not a string', echo(value), [INVALID_REQUEST]);
  if (hasId && !isMcpId(id)) return errorWith('an id MCP does not allow', echo(value), [INVALID_REQUEST]);
  if ('params' in value) {
    const params = value['params'];
    if (Array.isArray(params)) {
      return hasId
        ? errorWith('params by position (MCP params are an object)', echo(value), [INVALID_REQUEST, INVALID_PARAMS])
        : errorWith('a notification with params by position', [null], [INVALID_REQUEST], 'optional');
    }
    if (!isRecord(params)) return errorWith('params is not a structured value', echo(value), [INVALID_REQUEST]);
  }
  const requestId = hasId && isMcpId(id) ? id : undefined;
  const extra = Object.keys(value).filter((key) => !STANDARD_MEMBERS.has(key));
  if (extra.length > 0) {
    // JSON-RPC defines no other members; MCP's schema has none. Invalid Request, or served as usual.
    if (requestId === undefined)
      return errorWith(`a notification with ${extra.join(',')}`, [null], [INVALID_REQUEST], 'optional');
    const served = expectForRequest(method, requestId, value['params'], context);
    return {
      note: `a request with extra members ${extra.join(',')}`,
      reply: 'required',
      ids: [requestId],
      accept: (answer) => (answer.error?.code === INVALID_REQUEST ? undefined : served.accept(answer)),
    };
  }
  if (method === '') {
    // A string, so JSON-RPC-valid, but it names nothing: Method not found, or read as Invalid Request.
    return requestId === undefined
      ? errorWith('a notification with an empty method name', [null], [INVALID_REQUEST], 'optional')
      : errorWith('an empty method name', [requestId], [METHOD_NOT_FOUND, INVALID_REQUEST]);
  }
  const params = isRecord(value['params']) ? value['params'] : undefined;
  const metaProblem = params && '_meta' in params ? badMeta(params['_meta']) : undefined;
  if (requestId === undefined) {
    return none(metaProblem ? `a notification (${metaProblem}) is never answered` : 'a notification');
  }
  if (metaProblem) return errorWith(`params._meta: ${metaProblem}`, [requestId], [INVALID_PARAMS, INVALID_REQUEST]);
  return expectForRequest(method, requestId, params, context);
}

function expectForNonRequest(value: Record<string, unknown>): Expectation {
  const id = value['id'];
  const isResponse =
    'id' in value &&
    (id === null || isMcpId(id)) &&
    'result' in value !== 'error' in value &&
    Object.keys(value).every((key) => ['jsonrpc', 'id', 'result', 'error'].includes(key));
  if (isResponse) return none('a response (to no request of the server) is never answered');
  // Neither a request (no method) nor a well-formed response: JSON-RPC never answers a response,
  // and this may be a broken one; it may also be read as an Invalid Request.
  return errorWith('an object that is neither request nor response', echo(value), [INVALID_REQUEST], 'optional');
}

function badMeta(meta: unknown): string | undefined {
  if (!isRecord(meta)) return '_meta is not an object';
  if ('progressToken' in meta && !isMcpId(meta['progressToken'])) {
    return 'progressToken is not a string or integer';
  }
  return undefined;
}

function expectForRequest(method: string, id: RequestId, params: unknown, context: OracleContext): Expectation {
  const args = isRecord(params) ? params : {};
  const answer = (note: string, check: (result: Record<string, unknown>) => string | undefined): Expectation => ({
    note,
    reply: 'required',
    ids: [id],
    accept: (reply) =>
      reply.result ? check(reply.result) : `expected a result, got ${JSON.stringify(reply).slice(0, 300)}`,
  });
  switch (method) {
    case 'ping':
      return answer('ping', (result) =>
        Object.keys(result).every((key) => key === '_meta') ? undefined : 'ping must answer an empty result',
      );
    case 'tools/list': {
      if ('cursor' in args && typeof args['cursor'] !== 'string') {
        return errorWith('tools/list with a cursor that is not a string', [id], [INVALID_PARAMS]);
      }
      const listed = answer('tools/list', (result) => {
        const tools = result['tools'];
        if (!Array.isArray(tools)) return 'tools/list without tools';
        const names = tools.map((tool) => (isRecord(tool) ? tool['name'] : undefined));
        return names.length === context.tools.size &&
          names.every((name) => typeof name === 'string' && context.tools.has(name))
          ? undefined
          : `tools/list listed ${JSON.stringify(names)}`;
      });
      if (!('cursor' in args)) return listed;
      // A cursor this server never handed out (it lists every tool in one page): MCP says -32602.
      return errorWith('tools/list with a cursor never handed out', [id], [INVALID_PARAMS]);
    }
    case 'tools/call': {
      if (!isRecord(params)) return errorWith('tools/call without params', [id], [INVALID_PARAMS]);
      const name = params['name'];
      if (typeof name !== 'string') return errorWith('tools/call whose name is not a string', [id], [INVALID_PARAMS]);
      if ('arguments' in params && !isRecord(params['arguments'])) {
        return errorWith('tools/call whose arguments are not an object', [id], [INVALID_PARAMS]);
      }
      if (!context.tools.has(name)) return errorWith('tools/call of an unknown tool', [id], [INVALID_PARAMS]);
      return answer(`tools/call ${name}`, (result) => context.toolResult(name, result));
    }
    case 'tasks/get':
    case 'tasks/update':
    case 'tasks/cancel': {
      // Methods of the tasks extension (a task of a call that waits for the owner): without a
      // task id of at most 64 characters, invalid params; with one, this fuzzer's connection owns
      // no task, so: the extension not declared (-32021), or no such task (-32602).
      const taskId = isRecord(params) ? params['taskId'] : undefined;
      if (typeof taskId !== 'string' || taskId.length > 64) {
        return errorWith(`${method} without a task id`, [id], [INVALID_PARAMS]);
      }
      return errorWith(
        `${method} of a task this connection does not have`,
        [id],
        [MISSING_CLIENT_CAPABILITY, INVALID_PARAMS],
      );
    }
    case 'initialize':
      // Only ever sent here with params that are not InitializeRequestParams.
      return errorWith('initialize with invalid params', [id], [INVALID_PARAMS]);
    default:
      return errorWith(`a method this server does not have (${method.slice(0, 40)})`, [id], [METHOD_NOT_FOUND]);
  }
}

/** What a tools/call result must look like: content, and for a failure a typed code that is not INTERNAL. */
export function toolResultProblem(result: Record<string, unknown>): string | undefined {
  const content = result['content'];
  if (!Array.isArray(content) || content.length === 0) return 'a tool result without content';
  if (result['isError'] !== true) {
    const structured = result['structuredContent'];
    if (!isRecord(structured)) return 'a successful tool result without structuredContent';
    return undefined;
  }
  const meta = isRecord(result['_meta']) ? result['_meta']['wallet/error'] : undefined;
  const code = isRecord(meta) ? meta['code'] : undefined;
  if (typeof code !== 'string' || !TYPED_TOOL_ERROR_CODES.includes(code)) {
    return `a tool error whose code is ${JSON.stringify(code)} (expected a typed WalletError code, not INTERNAL)`;
  }
  return undefined;
}

/**
 * Pairs the replies a server wrote with what was owed, and lists every mismatch: a required reply
 * missing, a reply that is wrong, a reply nobody was owed. Replies with an id go to the
 * expectation naming that id; id-null replies to those that allow null, best-fitting first.
 */
export function matchReplies(
  replies: readonly Reply[],
  expectations: readonly { expectation: Expectation; label: string }[],
): string[] {
  const problems: string[] = [];
  const unused = [...replies];
  const take = (fits: (reply: Reply) => boolean): Reply | undefined => {
    const index = unused.findIndex(fits);
    return index === -1 ? undefined : unused.splice(index, 1)[0];
  };
  const pending: { expectation: Expectation; label: string }[] = [];
  for (const entry of expectations) {
    const ids = entry.expectation.ids.filter((id) => id !== null);
    const reply = ids.length === 0 ? undefined : take((candidate) => ids.some((id) => sameId(id, candidate.id)));
    if (!reply) {
      pending.push(entry);
      continue;
    }
    const problem = entry.expectation.accept(reply);
    if (problem) problems.push(`${entry.label} (${entry.expectation.note}): ${problem}`);
  }
  const allowsNull = pending.filter((entry) => entry.expectation.ids.includes(null));
  const byNeed = [
    ...allowsNull.filter((entry) => entry.expectation.reply === 'required'),
    ...allowsNull.filter((entry) => entry.expectation.reply === 'optional'),
  ];
  const unmatched = new Set(pending.filter((entry) => entry.expectation.reply === 'required'));
  for (const entry of byNeed) {
    const reply =
      take((candidate) => candidate.id === null && entry.expectation.accept(candidate) === undefined) ??
      (entry.expectation.reply === 'required' ? take((candidate) => candidate.id === null) : undefined);
    if (!reply) continue;
    unmatched.delete(entry);
    const problem = entry.expectation.accept(reply);
    if (problem) problems.push(`${entry.label} (${entry.expectation.note}): ${problem}`);
  }
  for (const entry of unmatched) problems.push(`${entry.label} (${entry.expectation.note}): no reply came`);
  for (const reply of unused) problems.push(`a reply nobody was owed: ${JSON.stringify(reply).slice(0, 300)}`);
  return problems;
}
