import { nodeCrypto } from '../../shared/node-crypto.js';
import { WalletError } from '../errors.js';
import { fileApprovals } from '../state/files/approvals.js';
import { sharedStateOf } from '../state/shared.js';
import type { StateStore } from '../state/store.js';
import {
  ApprovalSummarySchema,
  forgottenApproval,
  type Approval,
  type ApprovalRecords,
  type ApprovalSummary,
  type Approver,
} from './approval-record.js';

export type { Approval, ApprovalSummary, Approver } from './approval-record.js';

/** How long a request waits for the owner, and how long a yes waits for the agent's retry. */
const APPROVAL_TTL_MS = 15 * 60_000;
/** Requests waiting at once, at most: an agent cannot bury the owner (or the disk) in them. */
const MAX_PENDING = 50;

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
 * another terminal share it and it survives a restart; or, while this process has a PostgreSQL
 * state store open for `dataDir` (src/domain/state/shared.ts), its `wallet_approvals`, so that
 * every replica sees the same approvals and a yes is used once across them. Each approval is bound
 * to one call (a digest of tool and arguments), used once, and expires.
 */
export class ApprovalStore {
  /** The data directory's file (the store's table is named in its messages). */
  readonly path: string;
  private readonly files: ApprovalRecords;

  private readonly ttlMs: number;
  private readonly state: (() => Promise<StateStore>) | undefined;

  /**
   * `state` opens the state store of a server (`WalletServices.stateStore`): its approvals are
   * used, the store's even when a call comes before the server's start has opened it; without
   * it, the store this process opened for `dataDir`, if any, else the file.
   */
  constructor(
    private readonly dataDir: string,
    options: { ttlMs?: number; state?: () => Promise<StateStore> } = {},
  ) {
    this.ttlMs = options.ttlMs ?? APPROVAL_TTL_MS;
    this.state = options.state;
    this.files = fileApprovals(dataDir);
    this.path = this.files.path;
  }

  /** Where the approvals are: the server's state store, or the store open for the data directory, else its file. */
  private async records(): Promise<ApprovalRecords> {
    if (this.state) return (await this.state()).approvals;
    return sharedStateOf(this.dataDir)?.approvals ?? this.files;
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
    const records = await this.records();
    // Read now, not a replica's cached read: a yes without a passkey is used only while none is enrolled.
    const passkeyEnrolled = await records.passkeyEnrolled();
    return records.change<ApprovalLookup>((approvals, now) => {
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
      if (latest.approved_by !== 'passkey' && (passkeyEnrolled || records.passkeyEnrolledCached())) {
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
    const { approvals: all, now } = await (await this.records()).read();
    const approvals = all.filter((approval) => !forgottenApproval(approval, now));
    const order = { pending: 0, approved: 1, denied: 2, used: 3 };
    return approvals.sort((a, b) => order[a.status] - order[b.status] || a.requested.localeCompare(b.requested));
  }

  /** The pending approval `id` (`WALLET_NOT_FOUND`-like `INVALID_PARAM` when there is none to decide). */
  async pending(id: string): Promise<Approval> {
    const { approvals, now } = await (await this.records()).read();
    return this.checkDecidable(
      approvals.find((each) => each.id === id),
      id,
      now,
    );
  }

  /**
   * The owner's answer, given `by` a terminal, the page or a passkey: `approved` lets the same call
   * through once, until it expires (run with that authority); `denied` refuses it. Once a passkey is
   * enrolled, a yes is a passkey's or nothing: any other is refused here, whoever asks.
   */
  async decide(id: string, answer: 'approved' | 'denied', by: Approver): Promise<Approval> {
    const records = await this.records();
    // Read now (a state store's every replica shares), not a replica's cached read.
    if (answer === 'approved' && by !== 'passkey' && (await records.passkeyEnrolled())) {
      throw passkeyNeeded(id);
    }
    return records.change((approvals, now) => {
      const approval = this.checkDecidable(
        approvals.find((each) => each.id === id),
        id,
        now,
      );
      // Again under the lock: a passkey enrolled while this yes was on its way.
      if (answer === 'approved' && by !== 'passkey' && records.passkeyEnrolledCached()) {
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
    return (await this.records()).change(update);
  }
}

function expired(approval: Approval, now: number): boolean {
  return Date.parse(approval.expires) <= now;
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
