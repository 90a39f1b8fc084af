import type { CorePolicyConfig, EvmPolicyConfig } from '../config/config-file.js';
import type { Chain } from '../config/networks.js';
import { formatDash } from '../core/amount.js';
import { WalletError } from '../errors.js';
import { checksumEvmAddress } from '../evm/address.js';
import { weiToEther } from '../evm/amount.js';
import { SpendLedger, totalOf, type LedgerEntry } from './spend-ledger.js';

/** The base unit a network's amounts are counted in. */
export type PolicyUnit = 'duffs' | 'wei';

/**
 * The spending rules the config file sets for one network (`<chain>.networks.<network>.policy`);
 * a rule left out is `null` and does not apply. See docs/POLICY.md.
 */
export type SpendingPolicy = {
  chain: Chain;
  network: string;
  unit: PolicyUnit;
  maxPerTx: bigint | null;
  maxPer24h: bigint | null;
  /** Dash addresses as written; EVM addresses checksummed. */
  allowedRecipients: ReadonlySet<string> | null;
  maxFee: bigint | null;
};

export type PolicyRule = 'max_per_tx' | 'max_per_24h' | 'allowed_recipients' | 'max_fee';

/**
 * Where a payment goes: an address, or null where it has none to check (a deployment, an odd
 * script); `what` says which part of the transaction it is, for the refusal.
 */
export type Recipient = { address: string | null; what: string };

/** What a transaction spends, as the policy counts it (change and the keystore's own addresses left out). */
export type CountedSpend = { amount: bigint; recipients: Recipient[] };

const REFUSED_TAIL = 'Nothing was signed or sent.';

/** The rules of `core.networks.<network>.policy`; null when the config sets none. */
export function corePolicy(network: string, config: CorePolicyConfig | undefined): SpendingPolicy | null {
  if (!config) return null;
  return {
    chain: 'core',
    network,
    unit: 'duffs',
    maxPerTx: optionalAmount(config.max_per_tx_duffs),
    maxPer24h: optionalAmount(config.max_per_24h_duffs),
    allowedRecipients: config.allowed_recipients ? new Set(config.allowed_recipients) : null,
    maxFee: optionalAmount(config.max_fee_duffs),
  };
}

/** The rules of `evm.networks.<network>.policy`, addresses checksummed; null when the config sets none. */
export function evmPolicy(network: string, config: EvmPolicyConfig | undefined): SpendingPolicy | null {
  if (!config) return null;
  return {
    chain: 'evm',
    network,
    unit: 'wei',
    maxPerTx: optionalAmount(config.max_per_tx_wei),
    maxPer24h: optionalAmount(config.max_per_24h_wei),
    allowedRecipients: config.allowed_recipients
      ? new Set(config.allowed_recipients.map((address) => checksumEvmAddress(address)))
      : null,
    maxFee: optionalAmount(config.max_fee_wei),
  };
}

/**
 * A rule's config path, the name a refusal gives it.
 *
 * @example
 * ruleName(policy, 'max_per_24h') // 'evm.networks.local.policy.max_per_24h_wei'
 */
export function ruleName(policy: SpendingPolicy, rule: PolicyRule): string {
  const field = rule === 'allowed_recipients' ? rule : `${rule}_${policy.unit}`;
  return `${policy.chain}.networks.${policy.network}.policy.${field}`;
}

/**
 * Refuses a spend that breaks the rules needing no history: every recipient must be allowed (when
 * the policy lists them) and the amount at most the per-transaction cap.
 */
export function checkSpend(policy: SpendingPolicy | null, spend: CountedSpend): void {
  if (!policy) return;
  const allowed = policy.allowedRecipients;
  if (allowed) {
    for (const recipient of spend.recipients) {
      if (recipient.address === null) {
        throw refusal(
          policy,
          'allowed_recipients',
          `${recipient.what} has no address to check against the allowed recipients.`,
          'With allowed_recipients set, only payments to listed addresses are signed.',
        );
      }
      if (!allowed.has(recipient.address)) {
        throw refusal(
          policy,
          'allowed_recipients',
          `${recipient.address} (${recipient.what}) is not an allowed recipient.`,
          'Pay a listed address, or add this one to allowed_recipients in the config file if you trust it.',
        );
      }
    }
  }
  if (policy.maxPerTx !== null && spend.amount > policy.maxPerTx) {
    throw refusal(
      policy,
      'max_per_tx',
      `this payment of ${shown(policy, spend.amount)} is above the cap of ${shown(policy, policy.maxPerTx)}.`,
      'Pay less, in several transactions if the 24-hour cap allows it.',
    );
  }
}

/**
 * The policy's refusal of a fee, when its `max_fee` is stricter than the caller's cap (the call's
 * `max_fee_duffs` / `max_fee_wei`, or its default) and the fee is above it; undefined otherwise,
 * leaving the caller's own cap to decide. So the lower cap binds and the refusal names it.
 *
 * @example
 * const refused = policyFeeRefusal(policy, fee, callCap, 'is');
 * if (refused) throw refused;
 * if (fee > callCap) throw …; // the caller's own refusal
 */
export function policyFeeRefusal(
  policy: SpendingPolicy | null,
  fee: bigint,
  callCap: bigint,
  what: string,
): WalletError | undefined {
  if (!policy || policy.maxFee === null || policy.maxFee >= callCap || fee <= policy.maxFee) return undefined;
  return refusal(
    policy,
    'max_fee',
    `the fee ${what} ${shown(policy, fee)}, above the cap of ${shown(policy, policy.maxFee)}.`,
    'Use a lower fee rate, or wait for lower fees.',
  );
}

/** The ledger of a network whose policy has a 24-hour cap; null otherwise (nothing to count). */
function ledgerOf(dataDir: string, policy: SpendingPolicy | null): SpendLedger | null {
  if (!policy || policy.maxPer24h === null) return null;
  return new SpendLedger(dataDir, policy.chain, policy.network);
}

/**
 * Refuses a spend that would take the last 24 hours past the cap, reading the ledger without
 * reserving anything: what a dry run does, so it is refused as the payment would be. A spend
 * already recorded under `key` passes.
 */
/**
 * The refusals that need no lock, before anything is signed: allowed recipients, the
 * per-transaction cap, and the 24-hour cap as the ledger stands (checked again under its lock
 * when the spend is recorded).
 */
export async function checkBeforeSigning(
  dataDir: string,
  policy: SpendingPolicy | null,
  spend: CountedSpend,
  key: string | undefined,
): Promise<void> {
  checkSpend(policy, spend);
  await checkDailyCap(dataDir, policy, { key, amount: spend.amount });
}

export async function checkDailyCap(
  dataDir: string,
  policy: SpendingPolicy | null,
  spend: { key?: string | undefined; amount: bigint },
): Promise<void> {
  const ledger = ledgerOf(dataDir, policy);
  if (!ledger || !policy || spend.amount === 0n) return;
  const recent = await ledger.recent();
  if (spend.key !== undefined && recent.some((entry) => entry.key === spend.key)) return;
  checkRoom(policy, ledger, recent, spend.amount);
}

/** A spend recorded in the ledger: `release` forgets it again, for a broadcast that definitely failed. */
export type Reservation<T> = { value: T; release: () => Promise<void> };

/**
 * Signs as a counted spend. Under the ledger's lock (across processes): a spend already recorded
 * under `key` (the same transaction signed before) passes as it is; otherwise the cap is checked,
 * then `sign` runs and the spend is recorded before the lock is released, so two processes can
 * never both fit into the same room. Without a 24-hour cap this only signs.
 *
 * The key is the transaction without its signatures, so signing and later sending one transaction
 * counts it once. A payment built inside `sign` (a one-step send) has no key before: `sign`
 * returns it. A transaction signed and never sent still counts: nothing tells the wallet it will
 * not be sent.
 */
export async function reserveSpend<T>(
  dataDir: string,
  policy: SpendingPolicy | null,
  spend: { key?: string; amount: bigint },
  sign: () => Promise<{ value: T; txid: string; key?: string }>,
): Promise<Reservation<T>> {
  const ledger = ledgerOf(dataDir, policy);
  if (!ledger || !policy || spend.amount === 0n) return { value: (await sign()).value, release: forgetNothing };
  return ledger.update(async (recent, now) => {
    if (spend.key !== undefined && recent.some((entry) => entry.key === spend.key)) {
      return { entries: recent, result: { value: (await sign()).value, release: forgetNothing } };
    }
    checkRoom(policy, ledger, recent, spend.amount);
    const signed = await sign();
    const key = spend.key ?? signed.key ?? signed.txid;
    const entry: LedgerEntry = { key, txid: signed.txid, amount: spend.amount, time: now };
    return { entries: [...recent, entry], result: { value: signed.value, release: () => ledger.remove(key) } };
  });
}

/**
 * Broadcasts a reserved spend. When the node definitely refused it (it answered, and said no) the
 * reservation is dropped; when the outcome is unknown (no answer: it may have been sent) it stays.
 */
export async function broadcastReserved<R>(reservation: Reservation<unknown>, broadcast: () => Promise<R>): Promise<R> {
  try {
    return await broadcast();
  } catch (error) {
    if (definitelyRefused(error)) await reservation.release().catch(() => undefined);
    throw error;
  }
}

function definitelyRefused(error: unknown): boolean {
  return error instanceof WalletError && (error.code === 'INVALID_PARAM' || error.code === 'INSUFFICIENT_FUNDS');
}

function checkRoom(policy: SpendingPolicy, ledger: SpendLedger, recent: readonly LedgerEntry[], amount: bigint): void {
  const cap = policy.maxPer24h;
  if (cap === null) return;
  const total = totalOf(recent) + amount;
  if (total > cap) {
    throw refusal(
      policy,
      'max_per_24h',
      `this payment of ${shown(policy, amount)} would bring the last 24 hours to ${shown(policy, total)}, above the cap of ${shown(policy, cap)}.`,
      `Spends signed in the last 24 hours are counted in ${ledger.path}; wait until older ones leave the window, or pay less.`,
    );
  }
}

function refusal(policy: SpendingPolicy, rule: PolicyRule, why: string, hint: string): WalletError {
  return new WalletError('POLICY_VIOLATION', `Refused by policy ${ruleName(policy, rule)}: ${why} ${REFUSED_TAIL}`, {
    hint,
  });
}

function shown(policy: SpendingPolicy, amount: bigint): string {
  return showAmount(amount, policy.unit);
}

/** An amount as people read it, with its base units: "1.5 ether (1500000000000000000 wei)". */
export function showAmount(amount: bigint, unit: PolicyUnit): string {
  return unit === 'duffs'
    ? `${formatDash(amount)} DASH (${amount} duffs)`
    : `${weiToEther(amount)} ether (${amount} wei)`;
}

function optionalAmount(text: string | undefined): bigint | null {
  return text === undefined ? null : BigInt(text);
}

const forgetNothing = (): Promise<void> => Promise.resolve();
