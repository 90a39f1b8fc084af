import { join } from 'node:path';
import { nodeCrypto } from '../../shared/node-crypto.js';
import { z } from 'zod';
import { ensurePrivateDir, writeFileAtomic } from '../../shared/private-files.js';
import { WalletError } from '../errors.js';
import { withNamedLock } from '../keystore/lock.js';
import { PasskeyStore } from './passkeys.js';
import { readStateFile } from './state-file.js';

const APPROVALS_FILE_NAME = 'approvals.json';
/** How long a request waits for the owner, and how long a yes waits for the agent's retry. */
const APPROVAL_TTL_MS = 15 * 60_000;
/** Requests waiting at once, at most: an agent cannot bury the owner (or the disk) in them. */
const MAX_PENDING = 50;
/** Decided and used records are kept this long, for `wallet approvals` to show, then dropped. */
const KEEP_DECIDED_MS = 24 * 60 * 60_000;

const FORMAT = 'wallet-approvals';
/** Where an owner's yes to an approval can come from (an audit `authority` each). */
const APPROVERS = ['terminal', 'page', 'passkey'] as const;
export type Approver = (typeof APPROVERS)[number];

const VERSION = 1;

/** What an approval would let happen, as the owner reads it: only fields that validated. */
const ApprovalSummarySchema = z.strictObject({
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

const ApprovalSchema = z.strictObject({
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

const ApprovalsFileSchema = z.strictObject({
  format: z.literal(FORMAT),
  version: z.literal(VERSION),
  approvals: z.array(ApprovalSchema),
});

/** What the store says of a call an agent repeats. */
export type ApprovalLookup =
  | { kind: 'approved'; approval: Approval }
  | { kind: 'pending'; approval: Approval }
  | { kind: 'refused'; error: WalletError }
  /** The approval asked for by id was spent already: by another call of the same digest. */
  | { kind: 'used'; approval: Approval }
  | { kind: 'none' };

/**
 * The owner's out-of-band answers to agents' calls: `<dataDir>/approvals.json` (0600, replaced
 * atomically, changed under a cross-process lock), so `wallet serve` and `wallet approvals` in
 * another terminal share it and it survives a restart. Each approval is bound to one call (a
 * digest of tool and arguments), used once, and expires.
 */
export class ApprovalStore {
  readonly path: string;

  constructor(
    private readonly dataDir: string,
    private readonly ttlMs = APPROVAL_TTL_MS,
  ) {
    this.path = join(dataDir, APPROVALS_FILE_NAME);
  }

  /**
   * The pending request for this call, made now if there is none (the same request while it waits:
   * an agent asking twice does not ask the owner twice).
   */
  async request(digest: string, summary: ApprovalSummary): Promise<Approval> {
    return this.change((approvals, now) => {
      const waiting = approvals.find(
        (approval) => approval.digest === digest && approval.status === 'pending' && !expired(approval, now),
      );
      if (waiting) return { approvals, result: waiting };
      const pending = approvals.filter((approval) => approval.status === 'pending' && !expired(approval, now));
      if (pending.length >= MAX_PENDING) {
        throw new WalletError('POLICY_VIOLATION', `${pending.length} approvals are already waiting for the owner.`, {
          hint: 'The owner answers or denies them with wallet approvals; they also expire after 15 minutes.',
        });
      }
      const approval: Approval = {
        id: newId(),
        digest,
        status: 'pending',
        requested: new Date(now).toISOString(),
        expires: new Date(now + this.ttlMs).toISOString(),
        summary: ApprovalSummarySchema.parse(summary),
      };
      return { approvals: [...approvals, approval], result: approval };
    });
  }

  /**
   * Looks up a call an agent repeats: an approved one is spent here (used once, under the lock,
   * so two processes cannot both take it); a denied or expired one refuses the call. With `id`
   * (an MCP task waits for that approval) only that approval is looked at: another of the same
   * call is not this task's, and one already spent is `used` (by another call), not `none`.
   */
  async take(digest: string, id?: string): Promise<ApprovalLookup> {
    // Read now, not a replica's cached read: a yes without a passkey is used only while none is enrolled.
    const passkeyEnrolled = await new PasskeyStore(this.dataDir).enrolledNow();
    return this.change<ApprovalLookup>((approvals, now) => {
      const open = approvals.filter(
        (approval) => approval.digest === digest && (id === undefined || approval.id === id),
      );
      const spent = open.at(-1);
      if (id !== undefined && spent?.status === 'used') return { approvals, result: { kind: 'used', approval: spent } };
      const latest = open.filter((approval) => approval.status !== 'used').at(-1);
      if (!latest) return { approvals, result: { kind: 'none' } };
      if (expired(latest, now)) {
        // Reported once; the next call asks again.
        const left = approvals.filter((approval) => approval !== latest);
        const what = latest.status === 'approved' ? 'was approved, but' : `was ${latest.status} and`;
        return {
          approvals: left,
          result: {
            kind: 'refused',
            error: new WalletError(
              'POLICY_VIOLATION',
              `Approval ${latest.id} ${what} has expired; nothing was signed.`,
              {
                hint: 'Call again to ask the owner for a new approval.',
              },
            ),
          },
        };
      }
      if (latest.status === 'denied') {
        return {
          approvals,
          result: {
            kind: 'refused',
            error: new WalletError('POLICY_VIOLATION', `The owner denied approval ${latest.id}; nothing was signed.`, {
              hint: `The same call is refused until ${latest.expires}; do not retry it unless the owner asks you to.`,
            }),
          },
        };
      }
      if (latest.status === 'pending') return { approvals, result: { kind: 'pending', approval: latest } };
      if (latest.approved_by !== 'passkey' && (passkeyEnrolled || new PasskeyStore(this.dataDir).enrolled())) {
        // A yes given before a passkey was enrolled (or racing its enrolment) is not the owner's
        // passkey: it is dropped, and the call asks again.
        return {
          approvals: approvals.filter((approval) => approval !== latest),
          result: {
            kind: 'refused',
            error: new WalletError(
              'POLICY_VIOLATION',
              `Approval ${latest.id} was given without a passkey, and one is enrolled now; nothing was signed.`,
              { hint: 'Call again to ask the owner, who approves it with the passkey on the approval page.' },
            ),
          },
        };
      }
      const used: Approval = { ...latest, status: 'used' };
      return {
        approvals: approvals.map((approval) => (approval === latest ? used : approval)),
        result: { kind: 'approved', approval: used },
      };
    });
  }

  /** Every approval still of interest: pending ones first, then the recent decisions. */
  async list(): Promise<Approval[]> {
    const now = Date.now();
    const approvals = (await this.read()).filter((approval) => !forgotten(approval, now));
    const order = { pending: 0, approved: 1, denied: 2, used: 3 };
    return approvals.sort((a, b) => order[a.status] - order[b.status] || a.requested.localeCompare(b.requested));
  }

  /** The pending approval `id` (`WALLET_NOT_FOUND`-like `INVALID_PARAM` when there is none to decide). */
  async pending(id: string): Promise<Approval> {
    const approval = (await this.read()).find((each) => each.id === id);
    return this.checkDecidable(approval, id, Date.now());
  }

  /**
   * The owner's answer, given `by` a terminal, the page or a passkey: `approved` lets the same call
   * through once, until it expires (run with that authority); `denied` refuses it. Once a passkey is
   * enrolled, a yes is a passkey's or nothing: any other is refused here, whoever asks.
   */
  async decide(id: string, answer: 'approved' | 'denied', by: Approver): Promise<Approval> {
    // Read now (a state store's every replica shares), not a replica's cached read.
    if (answer === 'approved' && by !== 'passkey' && (await new PasskeyStore(this.dataDir).enrolledNow())) {
      throw passkeyNeeded(id);
    }
    return this.change((approvals, now) => {
      const approval = this.checkDecidable(
        approvals.find((each) => each.id === id),
        id,
        now,
      );
      // Again under the lock: a passkey enrolled while this yes was on its way.
      if (answer === 'approved' && by !== 'passkey' && new PasskeyStore(this.dataDir).enrolled()) {
        throw passkeyNeeded(id);
      }
      const decided: Approval = {
        ...approval,
        status: answer,
        decided: new Date(now).toISOString(),
        ...(answer === 'approved' ? { approved_by: by } : {}),
        // The agent gets the full time to come back after a yes.
        expires: new Date(now + this.ttlMs).toISOString(),
      };
      return { approvals: approvals.map((each) => (each === approval ? decided : each)), result: decided };
    });
  }

  /**
   * Withdraws the request `id` while it still waits (its agent no longer wants it: an MCP task
   * cancelled), or a yes not yet used: the call it was for is not run on it. Returns the one
   * withdrawn, if there was one.
   */
  async withdraw(id: string): Promise<Approval | undefined> {
    return this.change((approvals) => {
      const open = approvals.find(
        (approval) => approval.id === id && (approval.status === 'pending' || approval.status === 'approved'),
      );
      if (!open) return { approvals, result: undefined };
      return { approvals: approvals.filter((approval) => approval !== open), result: open };
    });
  }

  private checkDecidable(approval: Approval | undefined, id: string, now: number): Approval {
    if (!approval) {
      throw new WalletError('INVALID_PARAM', `No approval '${id.slice(0, 32)}'.`, {
        hint: 'wallet approvals lists the pending ones.',
      });
    }
    if (approval.status !== 'pending') {
      throw new WalletError('INVALID_PARAM', `Approval ${approval.id} is already ${approval.status}.`);
    }
    if (expired(approval, now)) {
      throw new WalletError('INVALID_PARAM', `Approval ${approval.id} has expired.`, {
        hint: 'The agent asks again by repeating its call.',
      });
    }
    return approval;
  }

  private async change<T>(
    update: (approvals: Approval[], now: number) => { approvals: Approval[]; result: T },
  ): Promise<T> {
    ensurePrivateDir(this.dataDir);
    return withNamedLock(this.dataDir, 'approvals', async () => {
      const now = Date.now();
      const all = await this.read();
      const kept = all.filter((approval) => !forgotten(approval, now));
      const { approvals, result } = update(kept, now);
      if (approvals !== kept || kept.length !== all.length) writeFileAtomic(this.path, serialize(approvals));
      return result;
    });
  }

  private async read(): Promise<Approval[]> {
    const what = `a ${FORMAT} file of version ${VERSION}`;
    const file = await readStateFile(this.path, ApprovalsFileSchema, what, (reason, cause) =>
      this.damaged(reason, cause),
    );
    return file?.approvals ?? [];
  }

  /** A damaged file approves nothing: every call that needs an approval is refused until it is fixed. */
  private damaged(reason: string, cause: unknown): WalletError {
    return new WalletError('POLICY_VIOLATION', `The approvals file ${this.path} is damaged (${reason}).`, {
      hint: 'Delete it: pending approvals are then asked again; nothing approved is lost but unused yeses.',
      cause,
    });
  }
}

function serialize(approvals: readonly Approval[]): string {
  return `${JSON.stringify({ format: FORMAT, version: VERSION, approvals }, null, 2)}\n`;
}

function expired(approval: Approval, now: number): boolean {
  return Date.parse(approval.expires) <= now;
}

/** Gone from the file: an approval decided or expired more than a day ago. */
function forgotten(approval: Approval, now: number): boolean {
  return Date.parse(approval.expires) + KEEP_DECIDED_MS <= now;
}

/** `ap-` and ten base32 letters (50 bits): short enough to type, unguessable by an agent. */
function newId(): string {
  const alphabet = 'abcdefghijklmnopqrstuvwxyz234567';
  const bytes = nodeCrypto().randomBytes(10);
  return `ap-${[...bytes].map((byte) => alphabet[byte & 31]).join('')}`;
}

/** The refusal of a yes that is not a passkey's, once one is enrolled. */
function passkeyNeeded(id: string): WalletError {
  return new WalletError('POLICY_VIOLATION', `A passkey is enrolled: approval ${id.slice(0, 32)} takes one.`, {
    hint: `Approve it on the approval page with your passkey (wallet approvals open ${id.slice(0, 32)}).`,
  });
}
