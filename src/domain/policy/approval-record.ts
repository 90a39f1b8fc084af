import { z } from 'zod';

/** Decided and used records are kept this long, for `wallet approvals` to show, then dropped. */
const KEEP_DECIDED_MS = 24 * 60 * 60_000;

/** Where an owner's yes to an approval can come from (an audit `authority` each). */
const APPROVERS = ['terminal', 'page', 'passkey'] as const;
export type Approver = (typeof APPROVERS)[number];

/** What an approval would let happen, as the owner reads it: only fields that validated. */
export const ApprovalSummarySchema = z.strictObject({
  tool: z.string().max(64),
  network: z.string().max(64).optional(),
  wallet_id: z.string().max(64).optional(),
  from: z.string().max(64).optional(),
  amount: z.string().max(80).optional(),
  unit: z.string().max(16).optional(),
  token: z.string().max(64).optional(),
  recipient: z.union([z.string().max(64), z.array(z.string().max(64)).max(64)]).optional(),
  fee: z.string().max(80).optional(),
  /** The fee's own unit (`duffs`, `wei`): a token payment's `unit` is the token's. */
  fee_unit: z.string().max(16).optional(),
  /** The question as the owner reads it, several lines (the same text an elicitation shows). */
  text: z.string().max(4000),
  /** Why the agent could not do it alone. */
  reason: z.string().max(500),
});

export type ApprovalSummary = z.infer<typeof ApprovalSummarySchema>;

export const ApprovalSchema = z.strictObject({
  id: z.string().regex(/^ap-[a-z2-7]{10}$/),
  /** A hash of the tool and its exact arguments: the approval is good for that call only. */
  digest: z.string().min(16).max(128),
  status: z.enum(['pending', 'approved', 'denied', 'used']),
  requested: z.iso.datetime(),
  expires: z.iso.datetime(),
  decided: z.iso.datetime().optional(),
  /**
   * Where the owner said yes: at a terminal (`wallet approvals approve`), on the approval page, or
   * on the page with a passkey (the only yes once one is enrolled).
   */
  approved_by: z.enum(APPROVERS).optional(),
  summary: ApprovalSummarySchema,
});

export type Approval = z.infer<typeof ApprovalSchema>;

/**
 * Where the approvals live: the data directory's `approvals.json`
 * (src/domain/state/files/approvals.ts) or the state store's `wallet_approvals`
 * (src/domain/state/pg/approvals.ts). The rules (one request per call, used once, expiry, the
 * passkey) are {@link ApprovalStore}'s, the same for both: `change` runs its update holding every
 * approval alone (a file lock, a transaction's lock), with the time by the records' clock (this
 * machine's, or the store's), those forgotten left out, and keeps what it returns.
 */
export type ApprovalRecords = {
  /** Where they are, for messages. */
  readonly path: string;
  /** Every approval kept (some may be forgotten already), and the time by the records' clock. */
  read(): Promise<{ approvals: Approval[]; now: number }>;
  change<T>(update: (approvals: Approval[], now: number) => { approvals: Approval[]; result: T }): Promise<T>;
  /**
   * Whether a passkey is enrolled where these approvals are (a yes then takes one), read now (with
   * a state store, not a replica's cached read, which may be a second old). Unreadable: the files
   * say enrolled (a damaged file); a state store throws (BUSY: its read may work a moment later).
   */
  passkeyEnrolled(): Promise<boolean>;
  /**
   * The same, for the check under the lock: the files read now; a state store, inside `change`,
   * its read in that transaction (elsewhere, its read of the last second).
   */
  passkeyEnrolledCached(): boolean;
};

/** Gone from the records: an approval decided or expired more than a day ago. */
export function forgottenApproval(approval: Approval, now: number): boolean {
  return Date.parse(approval.expires) + KEEP_DECIDED_MS <= now;
}
