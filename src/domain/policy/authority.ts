import { WalletError } from '../errors.js';

/**
 * Who stands behind a call that signs or deletes, as the audit log names it:
 * - `terminal`: the owner said yes at a terminal: the local CLI (its prompt or `--yes`), or
 *   `wallet approvals approve` for a call of `wallet serve`;
 * - `page`: the owner said yes on the local approval page (`wallet serve`'s or `wallet approvals
 *   open`'s), in a browser session opened with a single-use link from their terminal;
 * - `passkey`: the owner said yes on the page with an enrolled passkey (a WebAuthn assertion, user
 *   verified, whose challenge binds the approval and the call): once one is enrolled, the only yes;
 * - `client`: the user of an MCP client said yes to the server's question (elicitation), from a
 *   client the owner's `approvals.trust_elicitation` trusts;
 * - `agent`: an agent acting alone (`wallet serve` before anyone was asked). It may only do what
 *   the owner's policy grants it (`autonomous` caps); everything else needs a human yes first.
 */
export const AUTHORITIES = ['terminal', 'page', 'passkey', 'client', 'agent'] as const;
export type Authority = (typeof AUTHORITIES)[number];

/** Whether a person said yes (any authority but an agent's own). */
export function isOwners(authority: Authority): boolean {
  return authority !== 'agent';
}

/**
 * The authority a plan is made under (a dry run signs nothing): the owner's, so that the policy's
 * hard rules still refuse what no yes could pass, and the autonomy caps do not.
 */
export const PLANNING: Authority = 'terminal';

/**
 * What a human saw and said yes to, where a call's arguments do not fix it (an x402 payment: the
 * server names payee and price on each request). A tool whose plan comes from elsewhere refuses to
 * sign anything but this plan when a yes came with one.
 */
export type ApprovedPlan = {
  recipient?: string;
  amount?: string;
  token?: string;
  /** The most fee the human was shown, in `fee_unit`: the approved call signs with no more. */
  fee?: string;
  fee_unit?: string;
};

/**
 * The refusal of an agent's call that needs a human yes. `wallet serve` turns it into an
 * approval request (or an elicitation); nothing was signed when it is thrown.
 *
 * @example
 * if (authority === 'agent') throw needsHuman('deleting a wallet is never autonomous');
 */
export function needsHuman(why: string): WalletError {
  return new WalletError('APPROVAL_REQUIRED', `This needs the owner's approval: ${why}. Nothing was signed or sent.`, {
    hint: 'The owner approves it with wallet approvals; then repeat the same call.',
    details: { reason: why },
  });
}
