import { inputResponse, type InputRequiredResult, type ServerContext } from '@modelcontextprotocol/server';
import { WalletError } from '../domain/errors.js';
import type { ApprovalStore } from '../domain/policy/approvals.js';
import { type Approval, type ApprovalSummary } from '../domain/policy/approvals.js';
import type { AuditFields } from '../domain/policy/audit-log.js';
import { PLANNING, type ApprovedPlan, type Authority } from '../domain/policy/authority.js';
import { collectPlannedSpends, type PlannedSpend } from '../domain/policy/planning.js';
import { decideForAgent, type AgentDecision } from '../domain/policy/spending-policy.js';
import type { AnyTool, ToolContext } from '../tools/index.js';
import { asDryRun, auditFields, auditStoppedCall, invokeValidated, type ToolInput } from '../tools/invoke.js';
import {
  amountText,
  askToOpenPage,
  callDigest,
  confirmationMessage,
  PAGE_KEY,
  plannedFee,
  type Confirmations,
} from './confirmation.js';
import type { ApprovalPageHost } from './page/host.js';
import type { ApprovalTasks } from './tasks.js';

/**
 * What `wallet serve` decided a call that needs consent on: the policy's answer for an agent
 * alone, or, for a tool with no plan to decide on (no dry run), that the signing path decides.
 */
type CallDecision = AgentDecision | { kind: 'at-signing' };

/** Why the owner is needed, when `error` is the signing path's refusal of an agent alone. */
function ownerNeeded(error: unknown): string | undefined {
  if (!(error instanceof WalletError) || error.code !== 'APPROVAL_REQUIRED') return undefined;
  return typeof error.details?.['reason'] === 'string' ? error.details['reason'] : error.message;
}

/** What a call that needs consent came to: its result, or a question for the client to ask. */
export type ConsentOutcome =
  | { kind: 'done'; output: Record<string, unknown> }
  | { kind: 'ask'; result: InputRequiredResult }
  /** A task handle (the client declared MCP tasks): the call runs when the owner says yes. */
  | { kind: 'task'; result: Record<string, unknown> };

export type ConsentCall = {
  tool: AnyTool;
  /** The arguments as the server validated them, with defaults: what the digest binds. */
  validated: ToolInput;
  context: ServerContext;
  toolContext: Omit<ToolContext, 'authority'>;
  /** The client can ask its user (form elicitation). */
  canAsk: boolean;
  /** The client can send its user to a URL (URL-mode elicitation): the approval page, where one is served. */
  canOpenUrl: boolean;
  /**
   * The client says its user is a person who answers each question (its capability
   * `experimental["wallet/consent"]`: the wallet CLI on a terminal, which then asks nothing
   * itself): every call is asked, the policy's autonomy (for unattended agents) aside.
   */
  askEveryCall: boolean;
  /** The client declared MCP tasks: a call that waits for the owner is a task, not an error. */
  canTask: boolean;
  /** The session the call came from (see sessionOf): a task is bound to it. */
  session: string;
};

/**
 * The human in the loop of `wallet serve`: a call that signs or deletes (a tool with `consent`)
 * runs only with a human yes or within the autonomy the owner's policy grants. In order:
 * 1. the user's yes to our elicitation question about this exact call;
 * 2. the owner's out-of-band approval of this exact call (`wallet approvals approve`, or the
 *    approval page), used once, run with the authority of where it was given;
 * 3. the policy, decided once on one plan (the dry run) as data: an autonomous call runs as the
 *    agent's (the signing path checks again); a tool with no dry run is decided where it signs;
 * 4. otherwise a question: through elicitation where the client offers it, else an approval
 *    request: a task for a client that declared MCP tasks (it runs the call once the owner says
 *    yes), a URL-mode elicitation of the approval page for a client that can open one, or the
 *    call ends with `APPROVAL_REQUIRED` (its id and what it would sign).
 * A denied, expired or declined one is `POLICY_VIOLATION`. Nothing is signed on the way.
 */
export class ConsentGate {
  constructor(
    private readonly confirmations: Confirmations,
    private readonly approvals: ApprovalStore,
    /** The owner's approval page, where `wallet serve` serves one: its address goes with each request. */
    private readonly page?: ApprovalPageHost,
    /** The process's calls that wait for the owner as MCP tasks. */
    private readonly tasks?: ApprovalTasks,
  ) {}

  /**
   * Runs a call the owner approved out of band (`approval`, already spent): with the authority of
   * where the yes was given, bound to the plan the owner was shown.
   */
  static runApproved(
    validated: ToolInput,
    approval: Approval,
    toolContext: Omit<ToolContext, 'authority'>,
  ): Promise<Record<string, unknown>> {
    // Approvals filed before the page existed were all approved at a terminal.
    const authority = approval.approved_by ?? 'terminal';
    return invokeValidated(
      { ok: true, input: withApprovedFee(validated, approval.summary) },
      { ...toolContext, authority, approvedPlan: planOf(approval.summary) },
      { approval: approval.id },
    );
  }

  async call({
    tool,
    validated,
    context,
    toolContext,
    canAsk,
    canOpenUrl,
    askEveryCall,
    canTask,
    session,
  }: ConsentCall): Promise<ConsentOutcome> {
    const input = validated.data;
    const run = async (authority: Authority, approvedPlan?: ApprovedPlan): Promise<ConsentOutcome> => ({
      kind: 'done',
      output: await invokeValidated(
        { ok: true, input: approvedPlan ? withApprovedFee(validated, approvedPlan) : validated },
        { ...toolContext, authority, ...(approvedPlan ? { approvedPlan } : {}) },
      ),
    });
    // The audit lines and the dry run of a call stopped here: nothing signs under this context.
    const owner = { ...toolContext, authority: PLANNING };
    const digest = callDigest(tool.name, input);
    // An answer counts only from a client this server may ask (trusted, with form elicitation).
    const answer = canAsk ? await this.confirmations.answer(tool, digest, context) : { kind: 'none' as const };
    if (answer.kind === 'yes') return run('client', answer.plan);
    if (answer.kind === 'declined') {
      await auditStoppedCall(tool, input, owner, { error: answer.error });
      throw answer.error;
    }
    // The approvals failing (the state store down: BUSY) stop the call, audited as any stop is.
    const audited = <T>(step: Promise<T>): Promise<T> =>
      step.catch(async (error: unknown) => {
        if (error instanceof WalletError) await auditStoppedCall(tool, input, owner, { error });
        throw error;
      });
    const lookup = await audited(this.approvals.take(digest));
    if (lookup.kind === 'approved') {
      return { kind: 'done', output: await ConsentGate.runApproved(validated, lookup.approval, toolContext) };
    }
    if (lookup.kind === 'refused') {
      await auditStoppedCall(tool, input, owner, { error: lookup.error });
      throw lookup.error;
    }
    // Still waiting for the owner: the same request again, unless this client can ask its user now.
    if (lookup.kind === 'pending' && !canAsk) {
      await auditStoppedCall(tool, input, owner, { asked: undefined, approval: lookup.approval.id });
      return this.waitForOwner(lookup.approval, { canOpenUrl, canTask, validated, session }, context);
    }
    // One plan, one decision: the policy's answer is data, and only then does anything sign.
    const { planned, decision } = await this.decide(tool, validated, owner, askEveryCall);
    let why: string;
    if (decision.kind === 'needs-owner') why = decision.why;
    else {
      try {
        return await run('agent');
      } catch (error) {
        // The signing path checks the policy again: where the plan could not see everything (a
        // tool with no dry run, a fee that rose since), its refusal asks the owner like a decision.
        const reason = ownerNeeded(error);
        if (reason === undefined) throw error;
        why = reason;
      }
    }
    const text = await confirmationMessage(tool, input, planned);
    const fields = await auditFields(tool, input, planned);
    if (canAsk) {
      await auditStoppedCall(tool, input, owner, { asked: planned });
      const plan = planOf(fields, feeOf(tool, fields, planned));
      return { kind: 'ask', result: await this.confirmations.ask(digest, text, plan) };
    }
    const approval = await audited(
      this.approvals.request(digest, approvalSummary(tool, fields, feeOf(tool, fields, planned), text, why)),
    );
    await auditStoppedCall(tool, input, owner, { asked: planned, approval: approval.id });
    return this.waitForOwner(approval, { canOpenUrl, canTask, validated, session }, context);
  }

  /**
   * Plans the call once and decides it once. A call bound to fail (no such wallet, a confirmation
   * that does not match, a payment the policy refuses whoever says yes) ends here, audited, before
   * anyone is asked. The plan is the tool's dry run, run as the owner's (it signs nothing, and so
   * that only the rules no yes passes can refuse it); the spends the policy checked on its way,
   * with the planned fee, are what the policy then decides for an agent acting alone.
   */
  private async decide(
    tool: AnyTool,
    validated: ToolInput,
    owner: ToolContext,
    askEveryCall: boolean,
  ): Promise<{ planned: Record<string, unknown> | undefined; decision: CallDecision }> {
    let planned: Record<string, unknown> | undefined;
    let spends: PlannedSpend[] = [];
    try {
      // A tool without a dry run says what it would refuse in its precheck.
      await tool.precheck?.(validated.data, owner);
      if (tool.dryRunField) {
        ({ value: planned, spends } = await collectPlannedSpends(() =>
          invokeValidated({ ok: true, input: asDryRun(validated) }, owner, { audited: false }),
        ));
      }
    } catch (error) {
      // Refused before anyone was asked: the audit log still has the attempt (a fingerprint guessed).
      if (error instanceof WalletError) await auditStoppedCall(tool, validated.data, owner, { error });
      throw error;
    }
    // A client whose user answers every question (the wallet CLI on a terminal) is never run as
    // an agent alone, asked or not: untrusted, it waits for the owner like any other.
    if (tool.consent !== 'policy' || askEveryCall) {
      return { planned, decision: { kind: 'needs-owner', why: `${tool.name} always needs a human yes` } };
    }
    if (!tool.dryRunField) return { planned, decision: { kind: 'at-signing' } };
    const fee = plannedFee(tool, planned);
    for (const [index, { place, policy, spend }] of spends.entries()) {
      // The planned fee is the first spend's: an agent alone spends it too.
      const withFee =
        index === 0 && fee && policy?.unit === fee.unit && spend.fee === undefined
          ? { ...spend, fee: BigInt(fee.units) }
          : spend;
      const decision = await decideForAgent(place, policy, withFee);
      if (decision.kind === 'needs-owner') return { planned, decision };
    }
    return { planned, decision: { kind: 'autonomous' } };
  }

  /**
   * A call that waits for the owner: a client that declared MCP tasks gets a task that runs the
   * call once the owner says yes; a client that can open a URL is sent to the page of its approval
   * (once: its retry, the user back from the page, finds the answer in the store or ends here);
   * any other gets `APPROVAL_REQUIRED`, which names the page where one is served.
   */
  private async waitForOwner(
    approval: Approval,
    client: { canOpenUrl: boolean; canTask: boolean; validated: ToolInput; session: string },
    context: ServerContext,
  ): Promise<ConsentOutcome> {
    const url = await this.page?.urlFor(approval.id);
    const waiting = approvalRequired(approval, url);
    if (client.canTask && this.tasks) {
      const message = `Waiting for the owner's approval ${approval.id}. ${waiting.hint ?? ''}`.replace(
        /, then repeat this exact call \(same arguments\)/,
        '; this task then runs the call',
      );
      return {
        kind: 'task',
        result: await this.tasks.start({ input: client.validated, approval, message, session: client.session }),
      };
    }
    const back = inputResponse(context.mcpReq.inputResponses, PAGE_KEY).kind !== 'missing';
    if (url && client.canOpenUrl && !back) {
      const message = `${waiting.message} The owner approves or denies it on the wallet's approval page.`;
      return { kind: 'ask', result: askToOpenPage(url, message) };
    }
    throw waiting;
  }
}

/**
 * The call as approved, its fee bound to the one the owner was shown: a tool whose plan names the
 * most its fee can be (`feeField` with `atMost`, an input of that name: max_fee_wei), or names its
 * fee and the input that caps it (`feeField.cap`: max_fee_duffs), runs with that cap lowered to
 * the approval's fee, so fees that rose between the yes and the run refuse the call unsigned
 * instead of signing a fee nobody saw. The digest was checked on the arguments as given.
 */
function withApprovedFee(
  validated: ToolInput,
  summary: { fee?: string | undefined; fee_unit?: string | undefined },
): ToolInput {
  const declared = validated.tool.feeField;
  const field = declared?.cap ?? (declared?.atMost ? declared.field : undefined);
  const shown = summary.fee;
  if (field === undefined || shown === undefined || !/^\d+$/.test(shown)) return validated;
  // The cap is an input in the fee's own unit (max_fee_wei for a fee in wei).
  if (summary.fee_unit === undefined || !field.endsWith(`_${summary.fee_unit}`)) return validated;
  if (!(field in validated.tool.input.shape)) return validated;
  const given = validated.data[field];
  if (typeof given === 'string' && /^\d+$/.test(given) && BigInt(given) <= BigInt(shown)) return validated;
  return { ...validated, data: { ...validated.data, [field]: shown } };
}

/**
 * The fee an approval names, with its own unit: the dry run's declared fee field first; else the
 * audit's fee when the amount is in the chain's coin (a token amount's unit is not the fee's).
 */
function feeOf(
  tool: AnyTool,
  fields: AuditFields,
  planned: Record<string, unknown> | undefined,
): { fee: string; fee_unit: string } | undefined {
  const declared = plannedFee(tool, planned);
  if (declared) return { fee: declared.units, fee_unit: declared.unit };
  if (fields.fee === undefined || (fields.unit !== 'duffs' && fields.unit !== 'wei')) return undefined;
  return { fee: fields.fee, fee_unit: fields.unit };
}

/** What the owner is asked to approve: the audit fields (validated values only) and the question. */
function approvalSummary(
  tool: AnyTool,
  fields: AuditFields,
  fee: { fee: string; fee_unit: string } | undefined,
  text: string,
  reason: string,
): ApprovalSummary {
  const recipient = fields.recipient === null || fields.recipient === undefined ? undefined : fields.recipient;
  return {
    tool: tool.name,
    ...(fields.network ? { network: fields.network } : {}),
    ...(fields.wallet_id ? { wallet_id: fields.wallet_id } : {}),
    ...(fields.from ? { from: fields.from } : {}),
    ...(fields.amount !== undefined ? { amount: fields.amount } : {}),
    ...(fields.unit ? { unit: fields.unit } : {}),
    ...(fields.token ? { token: fields.token } : {}),
    ...(recipient === undefined
      ? {}
      : { recipient: typeof recipient === 'string' ? recipient : clipped([...recipient]) }),
    ...fee,
    text: text.length > MAX_TEXT ? `${text.slice(0, MAX_TEXT - 1)}…` : text,
    reason: reason.slice(0, 500),
  };
}

/**
 * The plan a human is shown, as the tool's audit fields name it: one recipient, the amount and the
 * token, and the most fee shown (see withApprovedFee). The approved call of a tool whose payee and price come from a server keeps to it.
 */
function planOf(
  fields: { recipient?: unknown; amount?: unknown; token?: unknown },
  fee?: { fee?: string | undefined; fee_unit?: string | undefined },
): ApprovedPlan {
  return {
    ...(typeof fields.recipient === 'string' ? { recipient: fields.recipient } : {}),
    ...(typeof fields.amount === 'string' ? { amount: fields.amount } : {}),
    ...(typeof fields.token === 'string' ? { token: fields.token } : {}),
    ...(fee?.fee !== undefined && fee.fee_unit !== undefined ? { fee: fee.fee, fee_unit: fee.fee_unit } : {}),
  };
}

/** The most recipients an approval lists, and the longest question it keeps. */
const MAX_RECIPIENTS = 64;
const MAX_TEXT = 4000;

/** At most MAX_RECIPIENTS addresses, the last place saying how many more there are. */
function clipped(recipients: string[]): string[] {
  if (recipients.length <= MAX_RECIPIENTS) return recipients;
  return [...recipients.slice(0, MAX_RECIPIENTS - 1), `(and ${recipients.length - MAX_RECIPIENTS + 1} more)`];
}

/** The command the owner types to approve `id`. */
function approveCommand(id: string): string {
  return `wallet approvals approve ${id}`;
}

/**
 * The tool error an agent gets while its call waits for the owner: the approval's id, what it
 * would sign, the command to approve it and, where a page is served, the page's address of it
 * (`url`: it opens only in the owner's browser session); `details` carries the same as data.
 */
function approvalRequired(approval: Approval, url: string | undefined): WalletError {
  const { summary } = approval;
  // What it would sign, as data: the summary less the question's prose.
  const { text: _text, ...facts } = summary;
  const gist = [
    summary.network ? `on ${summary.network}` : undefined,
    summary.amount !== undefined && summary.unit ? amountText(summary.amount, summary.unit, summary.token) : undefined,
    summary.recipient !== undefined ? `to ${[summary.recipient].flat().join(', ')}` : undefined,
    summary.fee !== undefined && summary.fee_unit
      ? `fee up to ${amountText(summary.fee, summary.fee_unit)}`
      : undefined,
  ]
    .filter((part) => part !== undefined)
    .join(', ');
  return new WalletError(
    'APPROVAL_REQUIRED',
    `${summary.tool}${gist ? ` (${gist})` : ''} waits for the owner's approval ${approval.id}: ${summary.reason}. Nothing was signed or sent.`,
    {
      hint: `Ask the owner to ${url ? `approve it on the approval page (${url}) or to ` : ''}run "${approveCommand(approval.id)}" in a terminal that uses this server's wallet data (this machine, or any machine with its state store URL), then repeat this exact call (same arguments) before ${approval.expires}.`,
      details: {
        approval_id: approval.id,
        ...(url ? { url } : {}),
        status: approval.status,
        expires: approval.expires,
        command: approveCommand(approval.id),
        ...facts,
      },
    },
  );
}
