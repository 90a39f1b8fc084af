import { createHash, randomBytes } from 'node:crypto';
import {
  CLIENT_CAPABILITIES_META_KEY,
  createRequestStateCodec,
  inputRequired,
  inputResponse,
  type ClientCapabilities,
  type InputRequiredResult,
  type ServerContext,
} from '@modelcontextprotocol/server';
import { WalletError } from '../domain/errors.js';
import { showAmount } from '../domain/policy/spending-policy.js';
import type { AnyTool } from '../tools/index.js';
import { auditFields } from '../tools/invoke.js';

/** The key of the confirmation in `inputRequests` / `inputResponses`. */
export const CONFIRM_KEY = 'wallet_confirm';

/** How long a client has to answer a confirmation before the call ends with nothing sent. */
export const DEFAULT_CONFIRM_TIMEOUT_MS = 5 * 60_000;

/** What the server does with a destructive call. */
export type ConfirmationStep =
  | { kind: 'proceed' }
  /** Return `result` to the client; `planned` is the dry run the question showed. */
  | { kind: 'ask'; result: InputRequiredResult; planned: Record<string, unknown> | undefined }
  /** The dry run failed (a policy refusal, too little money): nothing to ask about. */
  | { kind: 'refused'; error: unknown }
  /** The user said no, cancelled, or answered something other than yes. */
  | { kind: 'declined'; error: WalletError };

/** The call a question was about, and the question's own id (an answer is good for one call). */
type ConfirmState = { call: string; id: string };

const STATE_TTL_SECONDS = 600;

/**
 * Asks the user, through the client's elicitation (form mode), to confirm a destructive call before
 * anything is signed, written in the multi-round-trip form (`inputRequired`) that serves both eras:
 * a 2026-07-28 client answers and retries the call; on a 2025 connection the SDK sends
 * `elicitation/create` itself and re-enters the handler. The question shows amount, recipient,
 * network and fee (from a dry run where the tool has one) and asks only for a yes/no: never a
 * secret. The answer counts only for the exact call it was asked about: `requestState` carries an
 * HMAC of the tool and its arguments, checked on the retry. One per process, so that a stateless
 * HTTP retry served by another server instance still verifies.
 */
export class Confirmations {
  private readonly codec = createRequestStateCodec<ConfirmState>({
    key: randomBytes(32),
    ttlSeconds: STATE_TTL_SECONDS,
  });
  /** Question ids already answered with a yes, until their state expires: a yes is not replayable. */
  private readonly spent = new Map<string, number>();

  /** For `ServerOptions.requestState.verify`: a forged or stale state is refused by the SDK (-32602). */
  readonly verify = (state: string, context: ServerContext): Promise<ConfirmState> => this.codec.verify(state, context);

  /**
   * Decides a call of `tool` with `args` as sent (`input`: the same, validated, with defaults).
   * `preview` runs the tool's dry run (undefined when it has none); its failure (a policy refusal,
   * too little money) ends the call before anyone is asked.
   */
  async step(
    tool: AnyTool,
    call: { args: Record<string, unknown>; input: Record<string, unknown> },
    context: ServerContext,
    clientCapabilities: ClientCapabilities | undefined,
    preview: () => Promise<Record<string, unknown> | undefined>,
  ): Promise<ConfirmationStep> {
    const dryRun = tool.dryRunField !== undefined && call.input[tool.dryRunField] === true;
    if (!tool.annotations.destructiveHint || dryRun || !canAskForm(clientCapabilities)) {
      return { kind: 'proceed' };
    }
    const digest = callDigest(tool.name, call.args);
    const answer = inputResponse(context.mcpReq.inputResponses, CONFIRM_KEY);
    const state = context.mcpReq.requestState<ConfirmState>();
    if (answer.kind === 'elicit' && typeof state === 'object' && state?.call === digest && this.unspent(state.id)) {
      if (answer.action === 'accept' && answer.content?.['confirm'] === true) {
        this.spend(state.id);
        return { kind: 'proceed' };
      }
      return {
        kind: 'declined',
        // Not a new error code: the design's list is fixed, and a refusal by the user is a refusal.
        error: new WalletError(
          'POLICY_VIOLATION',
          `Not confirmed: the user declined ${tool.name}; nothing was signed or sent.`,
          { hint: 'Ask the user again only if they want it; a dry run shows the plan without asking.' },
        ),
      };
    }
    let planned: Record<string, unknown> | undefined;
    try {
      planned = await preview();
    } catch (error) {
      return { kind: 'refused', error };
    }
    return {
      kind: 'ask',
      planned,
      result: inputRequired({
        inputRequests: {
          [CONFIRM_KEY]: inputRequired.elicit({
            mode: 'form',
            message: await confirmationMessage(tool, call.input, planned),
            requestedSchema: {
              type: 'object',
              properties: {
                confirm: {
                  type: 'boolean',
                  title: 'Confirm',
                  description: 'Yes to sign and send; anything else sends nothing.',
                  default: false,
                },
              },
              required: ['confirm'],
            },
          }),
        },
        requestState: await this.codec.mint({ call: digest, id: randomBytes(16).toString('base64url') }),
      }),
    };
  }

  private unspent(id: string): boolean {
    const now = Date.now();
    for (const [spentId, expires] of this.spent) if (expires < now) this.spent.delete(spentId);
    return !this.spent.has(id);
  }

  private spend(id: string): void {
    // Kept a little longer than the state lives, so it cannot come back after being forgotten.
    this.spent.set(id, Date.now() + (STATE_TTL_SECONDS + 60) * 1000);
  }
}

/** The client capabilities of this request: its own envelope (2026-07-28) or the initialize ones. */
export function requestClientCapabilities(
  context: ServerContext,
  initialized: ClientCapabilities | undefined,
): ClientCapabilities | undefined {
  const envelope = context.mcpReq.envelope as Record<string, unknown> | undefined;
  return (envelope?.[CLIENT_CAPABILITIES_META_KEY] as ClientCapabilities | undefined) ?? initialized;
}

/** Form-mode elicitation: declared as `elicitation: {}` (2025-06-18) or with a `form` member. */
function canAskForm(capabilities: ClientCapabilities | undefined): boolean {
  const elicitation = capabilities?.elicitation as Record<string, unknown> | undefined;
  if (!elicitation) return false;
  return elicitation['form'] !== undefined || elicitation['url'] === undefined;
}

/** The tool and its arguments, key order aside, as one hash. */
function callDigest(tool: string, args: Record<string, unknown>): string {
  return createHash('sha256')
    .update(`${tool}\0${canonical(args)}`)
    .digest('base64url');
}

function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([key, item]) => `${JSON.stringify(key)}:${canonical(item)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/** The fee fields of a dry run, most telling first. */
const FEE_FIELDS: readonly [string, 'duffs' | 'wei', string][] = [
  ['fee_duffs', 'duffs', 'fee'],
  ['max_fee_wei', 'wei', 'fee at most'],
  ['fee_wei', 'wei', 'fee'],
];

/**
 * "Send ether on local: 1 ether (1000000000000000000 wei) to 0x90F7…, fee at most …". Built from
 * the tool's audit fields (never a secret) over the arguments and the dry run's plan.
 */
export async function confirmationMessage(
  tool: AnyTool,
  args: Record<string, unknown>,
  planned: Record<string, unknown> | undefined,
): Promise<string> {
  const fields = await auditFields(tool, args, planned);
  const lines = [`${tool.title} (${tool.name})${fields.network ? ` on ${fields.network}` : ''}:`];
  if (fields.amount !== undefined && fields.unit) lines.push(`  amount: ${amount(fields.amount, fields.unit)}`);
  const recipients = [fields.recipient ?? []].flat();
  if (recipients.length > 0) lines.push(`  to: ${recipients.join(', ')}`);
  const fee = FEE_FIELDS.find(([field]) => typeof planned?.[field] === 'string');
  if (fee) lines.push(`  ${fee[2]}: ${amount(String(planned?.[fee[0]]), fee[1])}`);
  else if (fields.fee !== undefined && fields.unit) lines.push(`  fee at most: ${amount(fields.fee, fields.unit)}`);
  if (fields.wallet_id) lines.push(`  wallet: ${fields.wallet_id}`);
  if (fields.from) lines.push(`  from: ${fields.from}`);
  lines.push(
    planned ? 'Confirm to sign and send it. Declining sends nothing.' : 'Confirm to go ahead. Declining does nothing.',
  );
  return lines.join('\n');
}

function amount(base: string, unit: 'duffs' | 'wei'): string {
  return /^\d+$/.test(base) ? showAmount(BigInt(base), unit) : `${base} ${unit}`;
}
