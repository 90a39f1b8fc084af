import type { CorePolicyConfig, EvmPolicyConfig } from '../config/config-file.js';
import { showAmount } from '../../shared/amounts.js';
import type { Chain } from '../config/networks.js';
import { WalletError } from '../errors.js';
import { checksumEvmAddress } from '../evm/address.js';
import { isOwners, needsHuman, type Authority } from './authority.js';
import type { CapLedger, LedgerSource } from '../state/store.js';
import { notePlannedSpend } from './planning.js';
import { SpendLedger, totalOf, type LedgerEntry } from './spend-ledger.js';

/** The base unit a network's amounts are counted in. */
type PolicyUnit = 'duffs' | 'wei';

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
  /** What an agent may do with no human asked (`autonomous`); null: nothing. */
  autonomy: Autonomy | null;
  /** Per-token rules (EVM), by checksummed token address. */
  tokens: ReadonlyMap<string, TokenPolicy>;
  /** The hosts `evm_x402_fetch` may request (lower case), or null: any public host. */
  allowedHosts: ReadonlySet<string> | null;
  /**
   * The name of the ledger the 24-hour caps count in: one per chain, not per network name (two EVM
   * network names on one chain id share it, and their policy).
   */
  ledger: string;
};

/** An agent's room to act alone: a spend within both caps needs no human yes. */
type Autonomy = { maxPerTx: bigint; maxPer24h: bigint };

/** The rules of one ERC-20 token, amounts in its base units. */
type TokenPolicy = {
  token: string;
  maxPerTx: bigint | null;
  maxPer24h: bigint | null;
  autonomy: { maxPerTx: bigint; maxPer24h: bigint } | null;
  /** Spenders an unlimited approval or permit may name (else such an approval is refused). */
  unlimitedSpenders: ReadonlySet<string>;
};

type PolicyRule = 'max_per_tx' | 'max_per_24h' | 'allowed_recipients' | 'max_fee';

/**
 * A token that a transaction or a signature moves or lets someone move: an ERC-20 `transfer`,
 * `transferFrom`, `approve`, `increaseAllowance`, a permit, a transfer authorization.
 */
type TokenSpend = {
  kind: string;
  /** Checksummed. */
  token: string;
  /** Who receives, or who may spend. Checksummed. */
  counterparty: string;
  role: 'recipient' | 'spender';
  amount: bigint;
  unlimited: boolean;
};

/**
 * Where a payment goes: an address, or null where it has none to check (a deployment, an odd
 * script); `what` says which part of the transaction it is, for the refusal.
 */
export type Recipient = { address: string | null; what: string };

/** What a transaction spends, as the policy counts it (change and the keystore's own addresses left out). */
export type CountedSpend = {
  amount: bigint;
  recipients: Recipient[];
  /** The tokens it moves (EVM calldata, permits). */
  tokens?: readonly TokenSpend[] | undefined;
  /**
   * Why the wallet cannot tell all it does (calldata it cannot read), or undefined: such a spend
   * is never autonomous.
   */
  unreadable?: string | undefined;
  /**
   * The most its fee can be, in the chain's unit, once known: an agent alone spends it too, so its
   * autonomous caps count amount and fee together (a zero-value transaction with a huge fee is a
   * spend).
   */
  fee?: bigint | undefined;
};

const REFUSED_TAIL = 'Nothing was signed or sent.';

/** The rules of `core.networks.<network>.policy`; null when the config sets none. */
export function corePolicy(network: string, config: CorePolicyConfig | undefined): SpendingPolicy | null {
  if (!config) return null;
  const autonomous = config.autonomous;
  return {
    chain: 'core',
    network,
    unit: 'duffs',
    maxPerTx: optionalAmount(config.max_per_tx_duffs),
    maxPer24h: optionalAmount(config.max_per_24h_duffs),
    allowedRecipients: config.allowed_recipients ? new Set(config.allowed_recipients) : null,
    maxFee: optionalAmount(config.max_fee_duffs),
    autonomy: autonomous
      ? {
          maxPerTx: BigInt(autonomous.max_per_tx_duffs),
          maxPer24h: BigInt(autonomous.max_per_24h_duffs),
        }
      : null,
    tokens: new Map(),
    allowedHosts: null,
    ledger: network,
  };
}

/** The rules of `evm.networks.<network>.policy`, addresses checksummed; null when the config sets none. */
export function evmPolicy(
  network: string,
  chainId: number,
  config: EvmPolicyConfig | undefined,
): SpendingPolicy | null {
  if (!config) return null;
  const autonomous = config.autonomous;
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
    autonomy: autonomous
      ? {
          maxPerTx: BigInt(autonomous.max_per_tx_wei),
          maxPer24h: BigInt(autonomous.max_per_24h_wei),
        }
      : null,
    tokens: new Map(
      Object.entries(config.tokens ?? {}).map(([address, rules]) => {
        const token = checksumEvmAddress(address);
        const policy: TokenPolicy = {
          token,
          maxPerTx: optionalAmount(rules.max_per_tx),
          maxPer24h: optionalAmount(rules.max_per_24h),
          autonomy: rules.autonomous
            ? { maxPerTx: BigInt(rules.autonomous.max_per_tx), maxPer24h: BigInt(rules.autonomous.max_per_24h) }
            : null,
          unlimitedSpenders: new Set((rules.unlimited_spenders ?? []).map((spender) => checksumEvmAddress(spender))),
        };
        return [token, policy];
      }),
    ),
    // Host names are case-insensitive; a saved server's name (`stdio:<name>`) is not (servers.json
    // may hold `paid` and `Paid`, two commands): kept as written, matched exactly.
    allowedHosts: config.allowed_hosts
      ? new Set(config.allowed_hosts.map((host) => (host.startsWith('stdio:') ? host : host.toLowerCase())))
      : null,
    ledger: `chain-${chainId}`,
  };
}

/**
 * A rule's config path, the name a refusal gives it.
 *
 * @example
 * ruleName(policy, 'max_per_24h') // 'evm.networks.local.policy.max_per_24h_wei'
 */
function ruleName(policy: SpendingPolicy, rule: PolicyRule, autonomous = false): string {
  const field = rule === 'allowed_recipients' ? rule : `${rule}_${policy.unit}`;
  return `${policy.chain}.networks.${policy.network}.policy.${autonomous ? 'autonomous.' : ''}${field}`;
}

/**
 * Refuses a spend that breaks the rules needing no history: every recipient (and every token
 * recipient or spender) must be allowed when the policy lists them, the amount at most the
 * per-transaction cap, a token amount at most that token's cap, and an unlimited token approval
 * or permit names a spender the policy allows for it. Unlimited approvals are refused even with
 * no policy: they hand a third party everything the account will ever hold of that token.
 */
export function checkSpend(policy: SpendingPolicy | null, spend: CountedSpend): void {
  for (const move of spend.tokens ?? []) {
    if (move.unlimited && !policy?.tokens.get(move.token)?.unlimitedSpenders.has(move.counterparty)) {
      throw new WalletError(
        'POLICY_VIOLATION',
        `Refused: an unlimited ${move.kind} of token ${move.token} to ${move.counterparty}; unlimited approvals are refused unless the policy allows that spender. ${REFUSED_TAIL}`,
        {
          hint: `Approve the amount needed, or list the spender in ${policy ? `${policy.chain}.networks.${policy.network}` : 'evm.networks.<network>'}.policy.tokens.<token>.unlimited_spenders.`,
        },
      );
    }
  }
  if (!policy) return;
  const allowed = policy.allowedRecipients;
  if (allowed) {
    const tokenParties = (spend.tokens ?? []).map((move) => ({
      address: move.counterparty,
      what: `the ${move.role} of a token ${move.kind}`,
    }));
    for (const recipient of [...spend.recipients, ...tokenParties]) {
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
  // A token with caps gets no call the wallet cannot read: DAI's push, LINK's transferAndCall or
  // a call of its own could move it, and no cap would see how much (no yes passes a hard cap).
  const cappedToken =
    spend.unreadable === undefined
      ? undefined
      : spend.recipients.find((recipient) => recipient.address !== null && policy.tokens.has(recipient.address));
  if (cappedToken?.address) {
    throw new WalletError(
      'POLICY_VIOLATION',
      `Refused by policy ${policy.chain}.networks.${policy.network}.policy.tokens.${cappedToken.address}: ${spend.unreadable}, to a token with caps, which could move it uncounted. ${REFUSED_TAIL}`,
      {
        hint: 'Move the token with evm_token_transfer (or an ERC-20 transfer or approve the wallet reads); a call of another kind to it is refused while the policy caps it.',
      },
    );
  }
  if (policy.maxPerTx !== null && spend.amount > policy.maxPerTx) {
    throw refusal(
      policy,
      'max_per_tx',
      `this payment of ${shown(policy, spend.amount)} is above the cap of ${shown(policy, policy.maxPerTx)}.`,
      'Pay less, in several transactions if the 24-hour cap allows it.',
    );
  }
  for (const [token, amount] of tokenTotals(spend, policy)) {
    const rules = policy.tokens.get(token);
    if (rules?.maxPerTx != null && amount > rules.maxPerTx) {
      throw new WalletError(
        'POLICY_VIOLATION',
        `Refused by policy ${tokenRuleName(policy, token, 'max_per_tx')}: ${amount} base units of token ${token} is above the cap of ${rules.maxPerTx}. ${REFUSED_TAIL}`,
        { hint: 'Move less of the token, in several steps if the 24-hour cap allows it.' },
      );
    }
  }
}

/**
 * What the policy answers for an agent acting alone, as data: `autonomous` (within what the owner
 * granted it), or `needs-owner` with why. Refusals that no yes passes are not decided here: they
 * are the plan's (checkSpend, the 24-hour caps), and end the call.
 */
export type AgentDecision = { kind: 'autonomous' } | { kind: 'needs-owner'; why: string };

const AUTONOMOUS: AgentDecision = { kind: 'autonomous' };
const needsOwner = (why: string): AgentDecision => ({ kind: 'needs-owner', why });

/**
 * Whether an agent acting alone may make this spend, without the per-day history: not without an
 * `autonomous` block, an amount above its per-transaction cap, a token without autonomous caps or
 * above them, an unlimited approval, a payment with no address to check, or a transaction the
 * wallet cannot read.
 */
function autonomyOf(policy: SpendingPolicy | null, spend: CountedSpend): AgentDecision {
  if (!policy?.autonomy) {
    return needsOwner(
      `${policy ? `${policy.chain}.networks.${policy.network}.policy` : 'this network'} grants an agent no autonomy (no autonomous caps)`,
    );
  }
  if (spend.unreadable !== undefined) return needsOwner(spend.unreadable);
  const blind = spend.recipients.find((recipient) => recipient.address === null);
  if (blind) return needsOwner(`${blind.what} has no address the policy can check`);
  const cost = spend.amount + (spend.fee ?? 0n);
  if (cost > policy.autonomy.maxPerTx) {
    return needsOwner(
      `${shown(policy, cost)}${spend.fee ? ' (fee included)' : ''} is above what an agent may spend alone in one transaction (${ruleName(policy, 'max_per_tx', true)} ${shown(policy, policy.autonomy.maxPerTx)})`,
    );
  }
  for (const move of spend.tokens ?? []) {
    if (move.unlimited) return needsOwner(`an unlimited ${move.kind} of token ${move.token} is never autonomous`);
  }
  for (const [token, amount] of tokenTotals(spend, policy)) {
    const autonomy = policy.tokens.get(token)?.autonomy;
    if (!autonomy) return needsOwner(`token ${token} has no autonomous caps in the policy`);
    if (amount > autonomy.maxPerTx) {
      return needsOwner(
        `${amount} base units of token ${token} is above what an agent may move alone in one transaction (${tokenRuleName(policy, token, 'max_per_tx', true)} ${autonomy.maxPerTx})`,
      );
    }
  }
  return AUTONOMOUS;
}

/**
 * The policy's whole answer for an agent acting alone ({@link autonomyOf}, then its 24-hour
 * autonomous caps as the ledgers stand), read without reserving anything: what `wallet serve`
 * decides a planned call on, before anyone is asked and before anything is signed.
 */
export async function decideForAgent(
  place: LedgerPlace,
  policy: SpendingPolicy | null,
  spend: CountedSpend,
): Promise<AgentDecision> {
  const alone = autonomyOf(policy, spend);
  if (alone.kind === 'needs-owner') return alone;
  for (const counter of await countersOf(place, policy, { ...spend, authority: 'agent' })) {
    const short = agentShortfall(counter, await counter.ledger.recent());
    if (short !== undefined) return needsOwner(short);
  }
  return AUTONOMOUS;
}

/**
 * Refuses, for an agent acting alone, what {@link autonomyOf} does not grant it (`APPROVAL_REQUIRED`,
 * nothing signed): the signing path's own check, after `wallet serve` decided. The owner passes.
 */
export function checkAutonomy(policy: SpendingPolicy | null, spend: CountedSpend, authority: Authority): void {
  if (isOwners(authority)) return;
  const decision = autonomyOf(policy, spend);
  if (decision.kind === 'needs-owner') throw needsHuman(decision.why);
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

/** A spend as the ledgers count it: who asked, and its key (the unsigned transaction) when known. */
export type LedgerSpend = CountedSpend & { key?: string | undefined; authority: Authority };

/**
 * One rolling 24-hour count a spend adds to: the chain's (in wei or duffs) or a token's (in its
 * base units), with the cap for everyone and, for an agent acting alone, its autonomous cap.
 */
type Counter = {
  ledger: CapLedger;
  amount: bigint;
  cap: bigint | null;
  capName: string;
  agentCap: bigint | null;
  agentCapName: string;
  show: (amount: bigint) => string;
};

/**
 * Where the 24-hour counts live: a data directory (its ledger files), or the state store's ledgers
 * (`WalletServices.ledgers`: the files, or PostgreSQL shared by replicas).
 */
export type LedgerPlace = string | LedgerSource;

function ledgerAt(place: LedgerPlace, chain: Chain, name: string): Promise<CapLedger> {
  return typeof place === 'string' ? Promise.resolve(new SpendLedger(place, chain, name)) : place.ledger(chain, name);
}

/** The counts a spend adds to; none without a policy or without 24-hour caps (nothing to count). */
async function countersOf(place: LedgerPlace, policy: SpendingPolicy | null, spend: LedgerSpend): Promise<Counter[]> {
  if (!policy) return [];
  const agent = spend.authority === 'agent';
  const counters: Counter[] = [];
  // An agent's spend counts its fee too (see CountedSpend.fee); the owner's, its amount.
  const counted = agent ? spend.amount + (spend.fee ?? 0n) : spend.amount;
  if (counted > 0n && (policy.maxPer24h !== null || (agent && policy.autonomy))) {
    counters.push({
      ledger: await ledgerAt(place, policy.chain, policy.ledger),
      amount: counted,
      cap: policy.maxPer24h,
      capName: ruleName(policy, 'max_per_24h'),
      agentCap: agent ? (policy.autonomy?.maxPer24h ?? null) : null,
      agentCapName: ruleName(policy, 'max_per_24h', true),
      show: (amount) => shown(policy, amount),
    });
  }
  // Locks are taken in this order: the chain's, then the tokens' by address, never the caller's
  // order (two permits listing the same tokens in other orders would each wait for the other).
  const tokens = [...tokenTotals(spend, policy)].sort(([a], [b]) => (a.toLowerCase() < b.toLowerCase() ? -1 : 1));
  for (const [token, amount] of tokens) {
    const rules = policy.tokens.get(token);
    if (!rules || amount === 0n || (rules.maxPer24h === null && !(agent && rules.autonomy))) continue;
    counters.push({
      ledger: await ledgerAt(place, policy.chain, `${policy.ledger}-${token.toLowerCase()}`),
      amount,
      cap: rules.maxPer24h,
      capName: tokenRuleName(policy, token, 'max_per_24h'),
      agentCap: agent ? (rules.autonomy?.maxPer24h ?? null) : null,
      agentCapName: tokenRuleName(policy, token, 'max_per_24h', true),
      show: (amount) => `${amount} base units of token ${token}`,
    });
  }
  return counters;
}

/**
 * The refusals that need no lock, before anything is signed: allowed recipients, the
 * per-transaction caps, an agent's autonomy, and the 24-hour caps as the ledgers stand (checked
 * again under their locks when the spend is recorded).
 */
export async function checkBeforeSigning(
  place: LedgerPlace,
  policy: SpendingPolicy | null,
  spend: LedgerSpend,
): Promise<void> {
  checkSpend(policy, spend);
  notePlannedSpend(place, policy, spend);
  checkAutonomy(policy, spend, spend.authority);
  await checkDailyCap(place, policy, spend);
}

/**
 * Refuses a spend that would take the last 24 hours past a cap, reading the ledgers without
 * reserving anything: what a dry run does, so it is refused as the payment would be. A spend
 * already recorded under `key` passes.
 */
export async function checkDailyCap(
  place: LedgerPlace,
  policy: SpendingPolicy | null,
  spend: LedgerSpend,
): Promise<void> {
  for (const counter of await countersOf(place, policy, spend)) {
    const recent = await counter.ledger.recent();
    if (spend.key !== undefined && recent.some((entry) => entry.key === spend.key)) return;
    checkRoom(counter, recent);
  }
}

/** A spend recorded in the ledger: `release` forgets it again, for a broadcast that definitely failed. */
export type Reservation<T> = { value: T; release: () => Promise<void> };

/**
 * Signs as a counted spend. Under the ledgers' locks (across processes, taken in one order): a
 * spend already recorded under `key` (the same transaction signed before) passes as it is;
 * otherwise the caps are checked, then `sign` runs and the spend is recorded before the locks are
 * released, so two processes can never both fit into the same room. Without a 24-hour cap this
 * only signs.
 *
 * The key is the transaction without its signatures, so signing and later sending one transaction
 * counts it once. A payment built inside `sign` (a one-step send) has no key before: `sign`
 * returns it. A transaction signed and never sent still counts: nothing tells the wallet it will
 * not be sent.
 */
export async function reserveSpend<T>(
  place: LedgerPlace,
  policy: SpendingPolicy | null,
  spend: LedgerSpend,
  sign: () => Promise<{ value: T; txid: string; key?: string }>,
): Promise<Reservation<T>> {
  // Checked again here: the fee may only be known now (a one-step payment plans it under its lock).
  checkAutonomy(policy, spend, spend.authority);
  const counters = await countersOf(place, policy, spend);
  if (counters.length === 0) return { value: (await sign()).value, release: forgetNothing };
  type Signed = { value: T; txid: string; key: string; recorded: boolean };
  const underLocks = async (index: number, recents: LedgerEntry[][]): Promise<Signed> => {
    const counter = counters[index];
    if (!counter) {
      const known = spend.key !== undefined && recents[0]?.some((entry) => entry.key === spend.key);
      if (known) return { ...(await sign()), key: spend.key ?? '', recorded: false };
      counters.forEach((each, i) => checkRoom(each, recents[i] ?? []));
      const signed = await sign();
      return { ...signed, key: spend.key ?? signed.key ?? signed.txid, recorded: true };
    }
    return counter.ledger.update(async (recent, now) => {
      const signed = await underLocks(index + 1, [...recents, recent]);
      if (!signed.recorded) return { entries: recent, result: signed };
      const entry: LedgerEntry = {
        key: signed.key,
        txid: signed.txid,
        amount: counter.amount,
        time: now,
        by: spend.authority === 'agent' ? 'agent' : 'owner',
      };
      return { entries: [...recent, entry], result: signed };
    });
  };
  const signed = await underLocks(0, []);
  if (!signed.recorded) return { value: signed.value, release: forgetNothing };
  return {
    value: signed.value,
    release: async () => {
      for (const counter of counters) await counter.ledger.remove(signed.key);
    },
  };
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

/** Whether a broadcast's failure means the node refused it (so it was not sent), not that it got no answer. */
export function definitelyRefused(error: unknown): boolean {
  return error instanceof WalletError && (error.code === 'INVALID_PARAM' || error.code === 'INSUFFICIENT_FUNDS');
}

function checkRoom(counter: Counter, recent: readonly LedgerEntry[]): void {
  if (counter.cap !== null) {
    const total = totalOf(recent) + counter.amount;
    if (total > counter.cap) {
      throw new WalletError(
        'POLICY_VIOLATION',
        `Refused by policy ${counter.capName}: this payment of ${counter.show(counter.amount)} would bring the last 24 hours to ${counter.show(total)}, above the cap of ${counter.show(counter.cap)}. ${REFUSED_TAIL}`,
        {
          hint: `Spends signed in the last 24 hours are counted in ${counter.ledger.path}; wait until older ones leave the window, or pay less.`,
        },
      );
    }
  }
  const short = agentShortfall(counter, recent);
  if (short !== undefined) throw needsHuman(short);
}

/** Why an agent alone has no room left under the counter's autonomous 24-hour cap, or undefined. */
function agentShortfall(counter: Counter, recent: readonly LedgerEntry[]): string | undefined {
  if (counter.agentCap === null) return undefined;
  const alone = totalOf(recent.filter((entry) => entry.by === 'agent')) + counter.amount;
  if (alone <= counter.agentCap) return undefined;
  return `it would bring what an agent spent alone in the last 24 hours to ${counter.show(alone)}, above ${counter.agentCapName} ${counter.show(counter.agentCap)}`;
}

/**
 * A spend's token amounts, summed per token, as the caps count them. An unlimited approval to a
 * spender the policy lists for it is not counted: the owner allowed exactly that, and its amount
 * (2^256 - 1) would fill every cap for a day.
 */
function tokenTotals(spend: CountedSpend, policy: SpendingPolicy | null): Map<string, bigint> {
  const totals = new Map<string, bigint>();
  for (const move of spend.tokens ?? []) {
    if (move.unlimited && policy?.tokens.get(move.token)?.unlimitedSpenders.has(move.counterparty)) continue;
    totals.set(move.token, (totals.get(move.token) ?? 0n) + move.amount);
  }
  return totals;
}

/** `evm.networks.mainnet.policy.tokens.0xA0b8….max_per_tx` (or `…autonomous.max_per_tx`). */
function tokenRuleName(
  policy: SpendingPolicy,
  token: string,
  rule: 'max_per_tx' | 'max_per_24h',
  agent = false,
): string {
  return `${policy.chain}.networks.${policy.network}.policy.tokens.${token}.${agent ? 'autonomous.' : ''}${rule}`;
}

function refusal(policy: SpendingPolicy, rule: PolicyRule, why: string, hint: string): WalletError {
  return new WalletError('POLICY_VIOLATION', `Refused by policy ${ruleName(policy, rule)}: ${why} ${REFUSED_TAIL}`, {
    hint,
  });
}

function shown(policy: SpendingPolicy, amount: bigint): string {
  return showAmount(amount, policy.unit);
}

function optionalAmount(text: string | undefined): bigint | null {
  return text === undefined ? null : BigInt(text);
}

const forgetNothing = (): Promise<void> => Promise.resolve();
