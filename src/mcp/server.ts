import type { ProgressReporter } from '../domain/net/chain-backend.js';
import { ProtocolError, ProtocolErrorCode, Server, type CallToolResult, type Tool } from '@modelcontextprotocol/server';
import { causeChain, WalletError } from '../domain/errors.js';
import type { WalletServices } from '../domain/services.js';
import {
  DEFINITIONS_DIGEST_META_KEY,
  DESCRIBE_ALL_META_KEY,
  CHECK_FIELD_META_KEY,
  DRY_RUN_META_KEY,
  FULL_DESCRIPTION_META_KEY,
  RECEIVE_ADDRESS_META_KEY,
} from '../shared/protocol-meta.js';
import { ApprovalStore } from '../domain/policy/approvals.js';
import type { Authority } from '../domain/policy/authority.js';
import { clipForDisplay } from '../shared/text.js';
import { packageInfo } from '../shared/package-info.js';
import { CONSENT_CAPABILITY, declaresConsent } from '../shared/protocol-meta.js';
import {
  ACTION_ARGUMENT,
  COMPACT_META_TOOL,
  compactProblems,
  compactTools,
  definitionsDigest,
  describeTool,
  leanInputSchema,
  routeCompactCall,
  type AnyTool,
  type CompactTool,
  type ToolCatalogue,
} from '../tools/index.js';
import { invokeValidated, validateInput } from '../tools/invoke.js';
import { errorResult, successResult } from './results.js';
import {
  canAskForm,
  canOpenUrl,
  Confirmations,
  DEFAULT_CONFIRM_TIMEOUT_MS,
  requestClientCapabilities,
} from './confirmation.js';
import { ConsentGate } from './consent.js';
import { ApprovalTasks, approvalTasksFor, canTask, sessionOf, TASKS_EXTENSION } from './tasks.js';
import type { ApprovalPageHost } from './page/host.js';
import { createLogger, type Logger } from './logger.js';

export type WalletServerOptions = {
  /** The tools to serve. */
  catalogue: ToolCatalogue;
  /** Shared by every call; one per process. */
  services: WalletServices;
  logger?: Logger;
  /** Shared by every server instance of the process, so that a confirmation outlives one instance. */
  confirmations?: Confirmations;
  /** How long a 2025-era client has to answer a confirmation (default five minutes). */
  confirmTimeoutMs?: number;
  /**
   * Who calls the tools. `agent` (the default: `wallet serve`): every call that signs or deletes
   * needs a human yes (elicitation, or an approval out of band) unless the policy's autonomy covers
   * it. `terminal`: a person runs the calls (the local CLI, which asks on its own terminal first).
   */
  caller?: Authority;
  /**
   * How the agent reaches this server: a form-elicitation yes counts as the owner's only where
   * config `approvals.trust_elicitation` trusts this transport (by default stdio only: over HTTP,
   * an agent holding the bearer token could answer its own question). In memory counts as stdio.
   */
  transport?: 'stdio' | 'http';
  /** The owner's approval page this process serves, if any: an approval request names its address. */
  approvalPage?: ApprovalPageHost | undefined;
};

const INSTRUCTIONS = [
  'A Dash Core and Ethereum wallet. Tool names are domain_object_action (core_*, evm_*).',
  'tools/list keeps descriptions and schemas short: call tool_describe for the full text of a tool.',
  'Tools that spend funds or delete data require an explicit network.',
].join(' ');

const COMPACT_INSTRUCTIONS = [
  'A Dash Core and Ethereum wallet. Each tool (core_*, evm_*) groups the actions on one object:',
  `pass "${ACTION_ARGUMENT}" and that action's arguments side by side.`,
  `${COMPACT_META_TOOL} with ${ACTION_ARGUMENT} tool_describe and a tool's name describes each action and its arguments.`,
  'Actions that spend funds or delete data require an explicit network.',
].join(' ');

/**
 * tools/list is fixed for the life of a process (no list_changed) and the same for every caller
 * of one server: a client on 2026-07-28 may keep it for an hour, in a shared cache too.
 */
const LIST_CACHE_TTL_MS = 60 * 60 * 1000;

/**
 * An MCP server for the given tools: tools/list from their definitions, tools/call through
 * {@link validateInput} and {@link invokeValidated}. The low-level SDK `Server` is used so that
 * listing and error mapping stay in our hands; the SDK still owns the protocol (handshake, both
 * eras, JSON-RPC errors).
 */
export function createWalletServer({
  catalogue,
  services,
  logger = createLogger('off'),
  confirmations = new Confirmations(),
  confirmTimeoutMs = DEFAULT_CONFIRM_TIMEOUT_MS,
  caller = 'agent',
  transport = 'stdio',
  approvalPage,
}: WalletServerOptions): Server {
  // The server's state store (opened at its start; a first call may come before): its approvals.
  const approvals = new ApprovalStore(services.dataDir, { state: () => services.stateStore() });
  // Calls that wait for the owner as MCP tasks: one set for the process, whichever instance asks.
  const tasks =
    caller === 'agent'
      ? approvalTasksFor(
          services,
          () =>
            new ApprovalTasks(
              services,
              approvals,
              (input, approval) =>
                ConsentGate.runApproved(input, approval, {
                  services,
                  catalogue,
                  signal: new AbortController().signal,
                  progress: () => undefined,
                }),
              (name) => catalogue.get(name),
            ),
        )
      : undefined;
  const gate = new ConsentGate(confirmations, approvals, approvalPage, tasks);
  // Who a task is bound to: the bearer token's holder over HTTP, the owner's agent host over
  // stdio; a restarted serve knows both again.
  const sessionFor = (): string => sessionOf(transport);
  const { name, version } = packageInfo();
  const listing = toolListing(catalogue);
  const server = new Server(
    { name, version, title: 'wallet' },
    {
      // As an agent's server, every destructive call gets its human yes here (ConsentGate): a
      // client that knows the marker (our CLI) does not ask its user a second time.
      capabilities: {
        tools: { listChanged: false },
        ...(caller === 'agent'
          ? { experimental: { [CONSENT_CAPABILITY]: {} }, extensions: { [TASKS_EXTENSION]: {} } }
          : {}),
      },
      instructions: catalogue.profile === 'compact' ? COMPACT_INSTRUCTIONS : INSTRUCTIONS,
      requestState: { verify: confirmations.verify },
      inputRequired: { roundTimeoutMs: confirmTimeoutMs, maxRounds: 3 },
      cacheHints: { 'tools/list': { ttlMs: LIST_CACHE_TTL_MS, cacheScope: 'public' } },
    },
  );
  server.setRequestHandler('tools/list', (request) => {
    // One page holds every tool, so no cursor was ever handed out (MCP: an invalid cursor is -32602).
    if (request.params?.cursor !== undefined) {
      throw new ProtocolError(
        ProtocolErrorCode.InvalidParams,
        'Invalid cursor: this server lists every tool in one page; call tools/list without a cursor.',
      );
    }
    return { tools: listing.tools() };
  });
  server.setRequestHandler('tools/call', async (request, context) => {
    const called = listing.find(request.params.name);
    if (!called) {
      throw new ProtocolError(
        ProtocolErrorCode.InvalidParams,
        `Unknown tool: ${clipForDisplay(request.params.name)}. Call tools/list for the tools of this server.`,
      );
    }
    const progress = progressReporter(context.mcpReq._meta?.progressToken, context.mcpReq.notify);
    const toolContext = { services, catalogue, signal: context.mcpReq.signal, progress: progress.report };
    const failed = (tool: string, error: unknown) => {
      const causes = causeChain(error);
      logger.debug('tool-failure', { tool, error: describeFailure(error), ...(causes ? { cause: causes } : {}) });
      return errorResult(error);
    };
    let tool: AnyTool;
    let args = request.params.arguments ?? {};
    try {
      // A compact tool's action picks the tool; from here on the call is that tool's, exactly as
      // the other profiles run it (confirmation, policy, audit).
      ({ tool, args } = 'compact' in called ? routeCompactCall(called.compact, args) : { tool: called.tool, args });
    } catch (error) {
      return failed(request.params.name, error);
    }
    try {
      // The arguments are checked here, once, against the tool's input schema: the consent gate
      // and the handler get the typed input, and invalid arguments are refused (and logged) by
      // invokeValidated as they always were. An agent's call that signs or deletes goes through
      // the consent gate; a dry run signs nothing. The owner (the local CLI) has asked on its
      // terminal already.
      const validation = validateInput(tool, args);
      const input = caller === 'agent' && tool.consent !== undefined && validation.ok ? validation.input : undefined;
      const dryRun = tool.dryRunField !== undefined && input?.data[tool.dryRunField] === true;
      if (input && !dryRun) {
        const client = requestClientCapabilities(context, server.getClientCapabilities());
        const outcome = await gate.call({
          tool,
          validated: input,
          context,
          toolContext,
          canAsk: canAskForm(client) && (await services.trustsElicitation(transport)),
          canOpenUrl: canOpenUrl(client),
          askEveryCall: declaresConsent(client),
          canTask: canTask(client),
          session: sessionFor(),
        });
        if (outcome.kind === 'task') return outcome.result as CallToolResult;
        return outcome.kind === 'ask' ? outcome.result : successResult(outcome.output);
      }
      return successResult(await invokeValidated(validation, { ...toolContext, authority: caller }));
    } catch (error) {
      return failed(tool.name, error);
    } finally {
      // A notification still on its way when the result goes out would reach a client that has
      // stopped listening for it: the result waits for them.
      await progress.flushed();
    }
  });
  tasks?.register(server, sessionFor);
  return server;
}

/**
 * Progress notifications for a call whose request carried a progress token; a no-op otherwise.
 * The progress value counts notifications, so it always increases as the spec requires.
 */
function progressReporter(
  token: string | number | undefined,
  notify: (notification: { method: 'notifications/progress'; params: Record<string, unknown> }) => Promise<void>,
): { report: ProgressReporter; flushed: () => Promise<void> } {
  if (token === undefined) return { report: () => undefined, flushed: () => Promise.resolve() };
  let sent = 0;
  let pending: Promise<void> = Promise.resolve();
  return {
    report: (_done, total, message) => {
      sent += 1;
      const notification = notify({
        method: 'notifications/progress',
        params: { progressToken: token, progress: sent, ...(total === undefined ? {} : { total }), message },
      }).catch(() => undefined);
      pending = pending.then(() => notification);
    },
    flushed: () => pending,
  };
}

/** What one server lists, and how a called name maps back to a tool, for its catalogue's profile. */
type ToolListing = {
  tools: () => Tool[];
  find: (name: string) => { tool: AnyTool } | { compact: CompactTool } | undefined;
};

function toolListing(catalogue: ToolCatalogue): ToolListing {
  if (catalogue.profile === 'compact') {
    let compact: CompactTool[] | undefined;
    const tools = (): CompactTool[] => {
      if (!compact) {
        compact = compactTools(catalogue.list());
        const problems = compactProblems(compact);
        if (problems.length > 0) throw new Error(`Invalid compact profile:\n  ${problems.join('\n  ')}`);
      }
      return compact;
    };
    let listed: Tool[] | undefined;
    return {
      tools: () => (listed ??= tools().map(toCompactMcpTool)),
      find: (name) => {
        const found = tools().find((candidate) => candidate.name === name);
        return found && { compact: found };
      },
    };
  }
  const toMcp = catalogue.profile === 'full' ? toFullMcpTool : toLeanMcpTool;
  let listed: Tool[] | undefined;
  return {
    tools: () => (listed ??= catalogue.list().map(toMcp)),
    find: (name) => {
      const tool = catalogue.get(name);
      return tool && { tool };
    },
  };
}

/** `--profile full`: everything, the full description in `_meta`, exact input and output schemas. */
function toFullMcpTool(tool: AnyTool): Tool {
  const described = describeTool(tool);
  return {
    name: described.name,
    title: described.title,
    description: described.summary,
    inputSchema: described.inputSchema as Tool['inputSchema'],
    outputSchema: described.outputSchema as Tool['outputSchema'],
    annotations: { title: described.title, ...described.annotations },
    _meta: {
      [FULL_DESCRIPTION_META_KEY]: described.description,
      ...(described.receiveAddressField ? { [RECEIVE_ADDRESS_META_KEY]: described.receiveAddressField } : {}),
      ...(described.dryRunField ? { [DRY_RUN_META_KEY]: described.dryRunField } : {}),
      ...(described.checkField ? { [CHECK_FIELD_META_KEY]: described.checkField } : {}),
    },
  };
}

/**
 * The default profile: the summary and the lean input schema, the four hints. The full text, the
 * exact schemas and the output schema come from `tool_describe` (declared on its entry, for clients
 * like our CLI that fetch them once), so no entry repeats them.
 */
function toLeanMcpTool(tool: AnyTool): Tool {
  const meta = {
    ...(tool.receiveAddressField ? { [RECEIVE_ADDRESS_META_KEY]: tool.receiveAddressField } : {}),
    ...(tool.dryRunField ? { [DRY_RUN_META_KEY]: tool.dryRunField } : {}),
    ...(tool.checkField ? { [CHECK_FIELD_META_KEY]: tool.checkField } : {}),
    ...describeAllMeta(tool.name === 'tool_describe' ? {} : undefined),
  };
  return {
    name: tool.name,
    title: tool.title,
    description: tool.summary,
    inputSchema: leanInputSchema(tool) as Tool['inputSchema'],
    annotations: { ...tool.annotations },
    ...(Object.keys(meta).length > 0 ? { _meta: meta } : {}),
  };
}

/** `--profile compact`: one tool per domain and object, an `action` argument, the strongest hints. */
function toCompactMcpTool(compact: CompactTool): Tool {
  const describes = compact.actions.some(({ tool }) => tool.name === 'tool_describe');
  return {
    name: compact.name,
    description: compact.summary,
    inputSchema: compact.inputSchema as Tool['inputSchema'],
    annotations: compact.annotations,
    ...(describes ? { _meta: describeAllMeta({ [ACTION_ARGUMENT]: 'tool_describe' }) } : {}),
  };
}

/**
 * On the tool that describes every tool when called with these arguments (see
 * DESCRIBE_ALL_META_KEY), with the digest of those descriptions when the build recorded one.
 */
function describeAllMeta(args: Record<string, unknown> | undefined): Record<string, unknown> {
  if (!args) return {};
  return {
    [DESCRIBE_ALL_META_KEY]: args,
    ...(definitionsDigest ? { [DEFINITIONS_DIGEST_META_KEY]: definitionsDigest } : {}),
  };
}

/**
 * For the debug log only: a WalletError's code, or an unexpected error's class and stack frames.
 * Never the message of an unexpected error: a library may have quoted its input, which can be a secret.
 */
function describeFailure(error: unknown): string {
  if (error instanceof WalletError) return error.code;
  if (!(error instanceof Error)) return typeof error;
  const frames = (error.stack ?? '').split('\n').filter((line) => line.startsWith('    at '));
  return [error.name, ...frames.map((line) => line.trim())].join(' | ');
}
