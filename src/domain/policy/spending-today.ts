import { showAmount } from '../../shared/amounts.js';
import type { ResolvedNetwork } from '../config/endpoints.js';
import type { CapLedger, LedgerSource } from '../state/store.js';
import { totalOf } from './spend-ledger.js';

/** What one 24-hour cap has counted so far: the chain's coin on one ledger, or one token. */
export type CapStanding = {
  /** The networks that count in this ledger (two EVM names of one chain id share one). */
  networks: string[];
  chain: 'core' | 'evm';
  /** `DASH`, `ether`, or the token's checksummed address. */
  asset: string;
  /** Spent in the last 24 hours, by anyone, and by agents alone; as people read it. */
  spent: string;
  spentByAgents: string;
  /** The caps, as people read them, or undefined where the policy sets none. */
  capPer24h?: string | undefined;
  capPerTx?: string | undefined;
  agentCapPer24h?: string | undefined;
  agentCapPerTx?: string | undefined;
  /** Whether the caps' ledger could be read; a damaged one blocks every spend of it. */
  problem?: string | undefined;
};

/**
 * Today's standing of every 24-hour cap the owner's policies set: per chain ledger and per token,
 * what the ledgers count for the last 24 hours against the caps, from where the policy counts
 * them (`ledgers`: the data directory's files, or the PostgreSQL state store), read without a lock
 * and without changing anything. Networks without a policy have no caps and no rows.
 */
export async function spendingToday(
  ledgers: LedgerSource,
  networks: readonly ResolvedNetwork[],
): Promise<CapStanding[]> {
  const byLedger = new Map<string, CapStanding[]>();
  const rows: CapStanding[] = [];
  for (const network of networks) {
    const policy = network.policy;
    if (!policy) continue;
    const key = `${policy.chain}-${policy.ledger}`;
    const seen = byLedger.get(key);
    if (seen) {
      for (const row of seen) row.networks.push(network.network);
      continue;
    }
    const show = (amount: bigint | null | undefined): string | undefined =>
      amount === null || amount === undefined ? undefined : showAmount(amount, policy.unit);
    const standings: CapStanding[] = [];
    standings.push({
      networks: [network.network],
      chain: policy.chain,
      asset: policy.unit === 'duffs' ? 'DASH' : 'ether',
      ...(await counted(() => ledgers.ledger(policy.chain, policy.ledger), show)),
      capPer24h: show(policy.maxPer24h),
      capPerTx: show(policy.maxPerTx),
      agentCapPer24h: show(policy.autonomy?.maxPer24h),
      agentCapPerTx: show(policy.autonomy?.maxPerTx),
    });
    for (const [token, rules] of policy.tokens) {
      const units = (amount: bigint | null | undefined): string | undefined =>
        amount === null || amount === undefined ? undefined : `${amount} base units`;
      standings.push({
        networks: [network.network],
        chain: policy.chain,
        asset: token,
        ...(await counted(() => ledgers.ledger(policy.chain, `${policy.ledger}-${token.toLowerCase()}`), units)),
        capPer24h: units(rules.maxPer24h),
        capPerTx: units(rules.maxPerTx),
        agentCapPer24h: units(rules.autonomy?.maxPer24h),
        agentCapPerTx: units(rules.autonomy?.maxPerTx),
      });
    }
    byLedger.set(key, standings);
    rows.push(...standings);
  }
  return rows;
}

async function counted(
  ledger: () => Promise<CapLedger>,
  show: (amount: bigint) => string | undefined,
): Promise<{ spent: string; spentByAgents: string; problem?: string }> {
  try {
    const recent = await (await ledger()).recent();
    return {
      spent: show(totalOf(recent)) ?? '',
      spentByAgents: show(totalOf(recent.filter((entry) => entry.by === 'agent'))) ?? '',
    };
  } catch (error) {
    return {
      spent: 'unknown',
      spentByAgents: 'unknown',
      problem: error instanceof Error ? error.message : 'the ledger cannot be read',
    };
  }
}
