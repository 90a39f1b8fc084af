import { nodeCrypto } from '../shared/node-crypto.js';
import {
  CLIENT_CAPABILITIES_META_KEY,
  createRequestStateCodec,
  inputRequired,
  inputResponse,
  type ClientCapabilities,
  type InputRequiredResult,
  type RequestStateCodec,
  type ServerContext,
} from '@modelcontextprotocol/server';
import { WalletError } from '../domain/errors.js';
import type { ApprovedPlan } from '../domain/policy/authority.js';
import type { SharedQuestions } from '../domain/state/store.js';
import { formatUnits, isBaseUnitName, showAmount, type BaseUnitName } from '../shared/amounts.js';
import { declaredUnitOf, schemaProperties } from '../shared/json-schema.js';
import { describeTool } from '../tools/index.js';
import type { AnyTool } from '../tools/index.js';
import { auditFields } from '../tools/invoke.js';

/** The key of the confirmation in `inputRequests` / `inputResponses`. */
export const CONFIRM_KEY = 'wallet_confirm';

/** How long a client has to answer a confirmation before the call ends with nothing sent. */
export const DEFAULT_CONFIRM_TIMEOUT_MS = 5 * 60_000;

/** What a client's answer to one of our questions says about this call. */
export type ConfirmationAnswer =
  /** The user said yes to exactly this call (the question is spent: a yes counts once). */
  | { kind: 'yes'; plan?: ApprovedPlan }
  /** The user said no, cancelled, or answered something other than yes. */
  | { kind: 'declined'; error: WalletError }
  /** No answer of ours rides on this request. */
  | { kind: 'none' };

/** The call a question was about, and the question's own id (an answer is good for one call). */
type ConfirmState = { call: string; id: string; plan?: ApprovedPlan };

const STATE_TTL_SECONDS = 600;

/**
 * Asks the user, through the client's elicitation (form mode), to confirm a call before anything
 * is signed, written in the multi-round-trip form (`inputRequired`) that serves both eras: a
 * 2026-07-28 client answers and retries the call; on a 2025 connection the SDK sends
 * `elicitation/create` itself and re-enters the handler. The question shows amount, recipient,
 * network and fee (from a dry run where the tool has one) and asks only for a yes/no: never a
 * secret. The answer counts only for the exact call it was asked about: `requestState` carries an
 * HMAC of the call's digest, checked on the retry. One per process, so that a stateless HTTP retry
 * served by another server instance still verifies; with a PostgreSQL state store, its key and the
 * questions spent are the store's (`shared`), so that a retry reaching another replica verifies
 * too, and a yes replayed there is refused (docs/REPLICAS.md).
 */
export class Confirmations {
  #codec: Promise<RequestStateCodec<ConfirmState>> | undefined;
  #shared: Promise<SharedQuestions | undefined> | undefined;

  /** `shared`: what the replicas share of the questions, if they share anything (asked when first needed). */
  constructor(private readonly shared?: () => Promise<SharedQuestions | undefined>) {}

  /**
   * Made when a question is first asked or answered: its key (a random one of this process, or the
   * store's), and the Web Crypto it signs with, cost a start that asks nothing (every CLI call of
   * the built-in server) ~2.5 ms to load, and the store's a round trip. A failure (the store
   * unreachable) is tried again at the next question.
   */
  private codec(): Promise<RequestStateCodec<ConfirmState>> {
    this.#codec ??= this.sharedQuestions()
      .then(async (shared) =>
        createRequestStateCodec<ConfirmState>({
          key: shared ? await shared.key() : nodeCrypto().randomBytes(32),
          ttlSeconds: STATE_TTL_SECONDS,
        }),
      )
      .catch((error: unknown) => {
        this.#codec = undefined;
        throw error;
      });
    return this.#codec;
  }

  private sharedQuestions(): Promise<SharedQuestions | undefined> {
    this.#shared ??= (this.shared?.() ?? Promise.resolve(undefined)).catch((error: unknown) => {
      this.#shared = undefined;
      throw error;
    });
    return this.#shared;
  }

  /** Question ids already answered with a yes, until their state expires: a yes is not replayable. */
  private readonly spent = new Map<string, number>();

  /** For `ServerOptions.requestState.verify`: a forged or stale state is refused by the SDK (-32602). */
  readonly verify = async (state: string, context: ServerContext): Promise<ConfirmState> =>
    (await this.codec()).verify(state, context);

  /** The user's answer to our question about the call `digest`, if this request carries one. */
  async answer(tool: AnyTool, digest: string, context: ServerContext): Promise<ConfirmationAnswer> {
    const answer = inputResponse(context.mcpReq.inputResponses, CONFIRM_KEY);
    const state = context.mcpReq.requestState<ConfirmState>();
    if (answer.kind !== 'elicit' || typeof state !== 'object' || state?.call !== digest) return { kind: 'none' };
    if (answer.action === 'accept' && answer.content?.['confirm'] === true) {
      // Spent here, once: a replay (to this replica or another) finds it spent.
      if (!(await this.spend(state.id))) return { kind: 'none' };
      return state.plan ? { kind: 'yes', plan: state.plan } : { kind: 'yes' };
    }
    if (await this.isSpent(state.id)) return { kind: 'none' };
    return {
      kind: 'declined',
      error: new WalletError(
        'POLICY_VIOLATION',
        `Not confirmed: the user declined ${tool.name}; nothing was signed or sent.`,
        {
          hint: 'Ask the user again only if they want it; a dry run shows the plan without asking.',
        },
      ),
    };
  }

  /** The question about the call `digest`, showing `message`: the client asks its user and retries. */
  async ask(digest: string, message: string, plan?: ApprovedPlan): Promise<InputRequiredResult> {
    return inputRequired({
      inputRequests: {
        [CONFIRM_KEY]: inputRequired.elicit({
          mode: 'form',
          message,
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
      requestState: await (
        await this.codec()
      ).mint({
        call: digest,
        id: nodeCrypto().randomBytes(16).toString('base64url'),
        ...(plan ? { plan } : {}),
      }),
    });
  }

  private async isSpent(id: string): Promise<boolean> {
    const shared = await this.sharedQuestions();
    return shared ? shared.spent(id) : this.spentHere(id);
  }

  /** Records a yes to question `id`; false when it was spent already. */
  private async spend(id: string): Promise<boolean> {
    // Kept a little longer than the state lives, so it cannot come back after being forgotten.
    const keep = STATE_TTL_SECONDS + 60;
    const shared = await this.sharedQuestions();
    if (shared) return shared.spend(id, keep);
    // Checked and recorded in one turn: two answers at once cannot both find it unspent.
    if (this.spentHere(id)) return false;
    this.spent.set(id, Date.now() + keep * 1000);
    return true;
  }

  private spentHere(id: string): boolean {
    const now = Date.now();
    for (const [spentId, expires] of this.spent) if (expires < now) this.spent.delete(spentId);
    return this.spent.has(id);
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
export function canAskForm(capabilities: ClientCapabilities | undefined): boolean {
  const elicitation = capabilities?.elicitation as Record<string, unknown> | undefined;
  if (!elicitation) return false;
  return elicitation['form'] !== undefined || elicitation['url'] === undefined;
}

/** URL-mode elicitation (2025-11-25 on): declared with a `url` member. */
export function canOpenUrl(capabilities: ClientCapabilities | undefined): boolean {
  const elicitation = capabilities?.elicitation as Record<string, unknown> | undefined;
  return elicitation?.['url'] !== undefined;
}

/** The key of the URL-mode elicitation that sends a client's user to the approval page. */
export const PAGE_KEY = 'wallet_approval_page';

/**
 * Sends the client's user to the approval page of the call (URL-mode elicitation): the client
 * opens `url` and retries when the user is done; the retry finds the owner's answer in the store.
 */
export function askToOpenPage(url: string, message: string): InputRequiredResult {
  return inputRequired({ inputRequests: { [PAGE_KEY]: inputRequired.elicitUrl({ message, url }) } });
}

/** The tool and its arguments, key order aside, as one hash. */
export function callDigest(tool: string, args: Record<string, unknown>): string {
  return nodeCrypto()
    .createHash('sha256')
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

/** The arguments whose content a question must show: what is signed is more than an amount. */
const PAYLOAD_ARGUMENTS = ['data', 'unsigned_tx', 'signed_tx', 'typed_data', 'message'];

/** A planned fee: its base units (digits), their unit, and whether it is a bound rather than the fee. */
export type PlannedFee = { units: string; unit: BaseUnitName; atMost: boolean };

/** The fee a dry run planned, from the field the tool declares (`feeField`, in its declared unit). */
export function plannedFee(tool: AnyTool, planned: Record<string, unknown> | undefined): PlannedFee | undefined {
  const declared = tool.feeField;
  const units = declared ? planned?.[declared.field] : undefined;
  if (!declared || typeof units !== 'string' || !/^\d+$/.test(units)) return undefined;
  const property = schemaProperties(describeTool(tool).outputSchema).find(([name]) => name === declared.field)?.[1];
  const unit = declaredUnitOf(property);
  if (unit?.kind !== 'base' || !isBaseUnitName(unit.unit)) return undefined;
  return { units, unit: unit.unit, atMost: declared.atMost === true };
}

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
  if (fields.amount !== undefined && fields.unit) {
    lines.push(`  amount: ${amountText(fields.amount, fields.unit, fields.token, planned)}`);
  }
  const recipients = [fields.recipient ?? []].flat();
  if (recipients.length > 0) lines.push(`  to: ${recipients.join(', ')}`);
  const fee = plannedFee(tool, planned);
  if (fee) lines.push(`  ${fee.atMost ? 'fee at most' : 'fee'}: ${amountText(fee.units, fee.unit)}`);
  else if (fields.fee !== undefined && fields.unit && fields.unit !== 'token') {
    lines.push(`  fee at most: ${amountText(fields.fee, fields.unit)}`);
  }
  if (fields.wallet_id) lines.push(`  wallet: ${fields.wallet_id}`);
  if (fields.from) lines.push(`  from: ${fields.from}`);
  if (PAYLOAD_ARGUMENTS.some((name) => name in args)) {
    // What calldata, typed data or a message would do: loaded (with viem) only for such a call.
    const { payloadLines } = await import('../domain/evm/payload.js');
    lines.push(...payloadLines(args));
  }
  // What a simulation of the call shows it would do to balances and allowances (issue 36), where
  // the plan has one: loaded only then.
  if (planned?.['asset_changes'] !== undefined) {
    const { assetChangeLines } = await import('../tools/evm/asset-changes.js');
    lines.push(...assetChangeLines(planned));
  }
  lines.push(
    planned ? 'Confirm to sign and send it. Declining sends nothing.' : 'Confirm to go ahead. Declining does nothing.',
  );
  return lines.join('\n');
}

/**
 * An amount in base units as a question shows it: "1 ether (1000000000000000000 wei)", or for a
 * token "2.5 USDC (2500000 base units of token 0xA0b8…)" (the symbol where a dry run tells it).
 */
export function amountText(base: string, unit: string, token?: string, planned?: Record<string, unknown>): string {
  if (unit === 'token') return tokenAmount(base, token, planned);
  return /^\d+$/.test(base) && (unit === 'duffs' || unit === 'wei')
    ? showAmount(BigInt(base), unit)
    : `${base} ${unit}`;
}

/** "2.5 USDC (2500000 base units of 0xA0b8…)": the dry run tells the symbol and decimals where it has them. */
function tokenAmount(base: string, token: string | undefined, planned: Record<string, unknown> | undefined): string {
  const symbol = planned?.['token_symbol'];
  const decimals = planned?.['token_decimals'];
  const units = `${base} base units of token ${token ?? '(unknown)'}`;
  if (typeof decimals !== 'number' || !/^\d+$/.test(base)) return units;
  return `${formatUnits(BigInt(base), decimals)} ${typeof symbol === 'string' ? symbol : 'tokens'} (${units})`;
}
