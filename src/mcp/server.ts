import type { ProgressReporter } from '../domain/net/chain-backend.js';
import { ProtocolError, ProtocolErrorCode, Server, type Tool } from '@modelcontextprotocol/server';
import { WalletError } from '../domain/errors.js';
import type { WalletServices } from '../domain/services.js';
import { DRY_RUN_META_KEY, FULL_DESCRIPTION_META_KEY, RECEIVE_ADDRESS_META_KEY } from '../shared/protocol-meta.js';
import { clipForDisplay } from '../shared/text.js';
import { packageInfo } from '../shared/package-info.js';
import { describeTool, type AnyTool, type ToolCatalogue } from '../tools/index.js';
import { ApprovalStore } from '../domain/policy/approvals.js';
import type { Authority } from '../domain/policy/authority.js';
import { invokeTool } from '../tools/invoke.js';
import { errorResult, successResult } from './results.js';
import { canAskForm, Confirmations, DEFAULT_CONFIRM_TIMEOUT_MS, requestClientCapabilities } from './confirmation.js';
import { ConsentGate } from './consent.js';
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
   * it. `owner`: a person runs the calls (the local CLI, which asks on its own terminal first).
   */
  caller?: Authority;
};

const INSTRUCTIONS = [
  'A Dash Core and Ethereum wallet. Tool names are domain_object_action (core_*, evm_*).',
  'tools/list keeps descriptions short: call tool_describe for the full text of a tool.',
  'Tools that spend funds or delete data require an explicit network.',
].join(' ');

/**
 * An MCP server for the given tools: tools/list from their definitions, tools/call through
 * {@link invokeTool}. The low-level SDK `Server` is used so that listing and error mapping stay in
 * our hands; the SDK still owns the protocol (handshake, both eras, JSON-RPC errors).
 */
export function createWalletServer({
  catalogue,
  services,
  logger = createLogger('off'),
  confirmations = new Confirmations(),
  confirmTimeoutMs = DEFAULT_CONFIRM_TIMEOUT_MS,
  caller = 'agent',
}: WalletServerOptions): Server {
  const gate = new ConsentGate(confirmations, new ApprovalStore(services.dataDir));
  const { name, version } = packageInfo();
  const server = new Server(
    { name, version, title: 'wallet' },
    {
      capabilities: { tools: { listChanged: false } },
      instructions: INSTRUCTIONS,
      requestState: { verify: confirmations.verify },
      inputRequired: { roundTimeoutMs: confirmTimeoutMs, maxRounds: 3 },
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
    return { tools: catalogue.list().map(toMcpTool) };
  });
  server.setRequestHandler('tools/call', async (request, context) => {
    const tool = catalogue.get(request.params.name);
    if (!tool) {
      throw new ProtocolError(
        ProtocolErrorCode.InvalidParams,
        `Unknown tool: ${clipForDisplay(request.params.name)}. Call tools/list for the tools of this server.`,
      );
    }
    const progress = progressReporter(context.mcpReq._meta?.progressToken, context.mcpReq.notify);
    const toolContext = { services, catalogue, signal: context.mcpReq.signal, progress: progress.report };
    const args = request.params.arguments ?? {};
    try {
      // An agent's call that signs or deletes goes through the consent gate; a dry run signs
      // nothing. The rest, and invalid arguments, go straight to invokeTool, which parses (and
      // refuses) them. The owner (the local CLI) has asked on its terminal already.
      const input = caller === 'agent' && tool.consent !== undefined ? tool.input.safeParse(args) : undefined;
      const dryRun = tool.dryRunField !== undefined && input?.success === true && input.data[tool.dryRunField] === true;
      if (input?.success && !dryRun) {
        const outcome = await gate.call({
          tool,
          args,
          input: input.data,
          context,
          toolContext,
          canAsk: canAskForm(requestClientCapabilities(context, server.getClientCapabilities())),
        });
        return outcome.kind === 'ask' ? outcome.result : successResult(outcome.output);
      }
      return successResult(await invokeTool(tool, args, { ...toolContext, authority: caller }));
    } catch (error) {
      logger.debug('tool-failure', { tool: tool.name, error: describeFailure(error) });
      return errorResult(error);
    } finally {
      // A notification still on its way when the result goes out would reach a client that has
      // stopped listening for it: the result waits for them.
      await progress.flushed();
    }
  });
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

const mcpTools = new WeakMap<AnyTool, Tool>();

/** A tool as tools/list carries it: the summary is the description, the full text rides in `_meta`. */
function toMcpTool(tool: AnyTool): Tool {
  let listed = mcpTools.get(tool);
  if (!listed) {
    const described = describeTool(tool);
    listed = {
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
      },
    };
    mcpTools.set(tool, listed);
  }
  return listed;
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
