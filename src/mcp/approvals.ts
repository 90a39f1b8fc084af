import { WalletError } from '../domain/errors.js';
import { ApprovalStore, type Approval } from '../domain/policy/approvals.js';
import { UsageError } from '../shared/usage-error.js';

export type { Approval };

/**
 * The owner's side of out-of-band approvals, for the CLI's `wallet approvals`: the same store
 * `wallet serve` writes its requests to (the CLI reaches the domain only through mcp/). A refusal
 * (no such approval, already decided, expired, a damaged file) is a UsageError (exit 2) with its hint.
 */
export class OwnerApprovals {
  private readonly store: ApprovalStore;

  constructor(dataDir: string) {
    this.store = new ApprovalStore(dataDir);
  }

  list(): Promise<Approval[]> {
    return explained(() => this.store.list());
  }

  pending(id: string): Promise<Approval> {
    return explained(() => this.store.pending(id));
  }

  decide(id: string, answer: 'approved' | 'denied'): Promise<Approval> {
    return explained(() => this.store.decide(id, answer));
  }
}

async function explained<T>(task: () => Promise<T>): Promise<T> {
  try {
    return await task();
  } catch (error) {
    if (error instanceof WalletError) throw new UsageError(`${error.code}: ${error.message}`, error.hint);
    throw error;
  }
}
