import type { CoreNetwork } from '../config/networks.js';
import { WalletError } from '../errors.js';
import {
  checkBeforeSigning,
  policyFeeRefusal,
  type CountedSpend,
  type LedgerSpend,
  type SpendingPolicy,
} from '../policy/spending-policy.js';
import { isOwners, type Authority } from '../policy/authority.js';
import { notePlannedSpend } from '../policy/planning.js';
import type { WalletServices } from '../services.js';
import { confirmOwned, issuedAddresses } from './addresses.js';
import { formatDash } from '../../shared/amounts.js';
import { DEFAULT_MAX_FEE_DUFFS } from './amount.js';

/**
 * Refuses a fee above the binding cap: the call's `max_fee_duffs` (0.01 DASH by default) or the
 * network policy's `max_fee_duffs`, whichever is lower; the refusal names the one that bound.
 */
export function checkFee(fee: bigint, maxFee: bigint | undefined, what: string, policy: SpendingPolicy | null): void {
  const cap = maxFee ?? DEFAULT_MAX_FEE_DUFFS;
  const refused = policyFeeRefusal(policy, fee, cap, what);
  if (refused) throw refused;
  if (fee <= cap) return;
  throw new WalletError(
    'POLICY_VIOLATION',
    `The fee ${what} ${fee} duffs (${formatDash(fee)} DASH), above max_fee_duffs ${cap}; nothing was signed or sent.`,
    {
      hint: 'Lower fee_rate_duffs_per_kb, spend fewer coins, or raise max_fee_duffs if this fee is intended.',
    },
  );
}

/**
 * Which of `candidates` the keystore's wallets of `network` have handed out: paying one is not
 * spending. Each one found is derived again from its wallet's xpub (the list comes from the cache).
 */
export async function keystoreAddresses(
  services: WalletServices,
  network: CoreNetwork,
  candidates: ReadonlyArray<string | undefined>,
): Promise<Set<string>> {
  const wanted = new Set(candidates.filter((address) => address !== undefined));
  const own = new Set<string>();
  if (wanted.size === 0) return own;
  const { entries } = await services.keystore.list();
  for (const entry of entries.filter((candidate) => candidate.network === network)) {
    for (const owned of await issuedAddresses(services, entry)) {
      if (!wanted.has(owned.address) || own.has(owned.address)) continue;
      await confirmOwned(services, entry, owned);
      own.add(owned.address);
    }
  }
  return own;
}

/**
 * What a transaction spends as the policy counts it: the outputs that pay neither change nor an
 * address the keystore has handed out on that network. An output without an address (a
 * non-standard script) counts too; one of 0 duffs carries data and pays nobody.
 */
export function countedSpend(
  outputs: ReadonlyArray<{ address: string | undefined; amount: bigint; change?: boolean }>,
  own: ReadonlySet<string>,
): CountedSpend {
  const spend: CountedSpend = { amount: 0n, recipients: [] };
  for (const output of outputs) {
    if (output.change === true || (output.address !== undefined && own.has(output.address))) continue;
    if (output.address === undefined && output.amount === 0n) continue;
    spend.amount += output.amount;
    spend.recipients.push(
      output.address === undefined
        ? { address: null, what: 'an output to a non-standard script' }
        : { address: output.address, what: 'an output' },
    );
  }
  return spend;
}

/**
 * The policy's counted spend, after the refusals that need no lock: allowed recipients, the
 * per-transaction cap, and the 24-hour cap as the ledger stands (checked again under its lock
 * when the spend is recorded). Nothing to count without a policy.
 */
export async function checkPolicy(
  services: WalletServices,
  policy: SpendingPolicy | null,
  network: CoreNetwork,
  outputs: ReadonlyArray<{ address: string | undefined; amount: bigint; change?: boolean }>,
  authority: Authority,
  key?: string,
): Promise<LedgerSpend> {
  if (!policy && isOwners(authority)) {
    // No rules to check, but a plan still spends: with no policy, an agent may do nothing alone.
    const spend: LedgerSpend = { amount: 0n, recipients: [], authority, key };
    notePlannedSpend(services.ledgers, null, spend);
    return spend;
  }
  const own = await keystoreAddresses(
    services,
    network,
    outputs.map((output) => output.address),
  );
  const spend = { ...countedSpend(outputs, own), authority, key };
  await checkBeforeSigning(services.ledgers, policy, spend);
  return spend;
}
