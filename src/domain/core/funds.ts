import type { HDKey } from '@scure/bip32';
import type { CoreNetwork } from '../config/networks.js';
import { WalletError } from '../errors.js';
import type { WalletEntry } from '../keystore/keystore.js';
import { checkBackendNetwork, coreBackendFor } from '../net/backends.js';
import type { CoreChainBackend } from '../net/chain-backend.js';
import {
  broadcastReserved,
  checkAutonomy,
  checkBeforeSigning,
  checkSpend,
  policyFeeRefusal,
  reserveSpend,
  type CountedSpend,
  type LedgerSpend,
  type SpendingPolicy,
} from '../policy/spending-policy.js';
import type { Authority } from '../policy/authority.js';
import type { WalletServices } from '../services.js';
import {
  confirmOwned,
  findIssued,
  issuedAddresses,
  watched,
  watcherOf,
  walletAddress,
  type WalletAddress,
} from './addresses.js';
import { formatDash } from '../../shared/amounts.js';
import { DEFAULT_MAX_FEE_DUFFS, MAX_MONEY_DUFFS } from './amount.js';
import { CHAIN_INDEX, HARDENED, type AddressChain } from './hd.js';
import { DEFAULT_FEE_RATE_DUFFS_PER_KB, dashParams } from './params.js';
import { signPsbt } from './signer.js';
import {
  checkPayments,
  isSpendable,
  planSpend,
  planToPsbt,
  readPsbt,
  readRawTransaction,
  summarizePsbt,
  addressedOutputs,
  unsignedTxid,
  type KeyOrigin,
  type Payment,
  type PlannedOutput,
  type SpendPlan,
  type Utxo,
} from './transaction.js';
import { openWallet, unlockMaster } from './wallets.js';

/** The lowest fee rate Dash nodes relay (duffs per 1000 bytes). */
export const MIN_RELAY_FEE_RATE = DEFAULT_FEE_RATE_DUFFS_PER_KB;

export async function backendFor(services: WalletServices, network: CoreNetwork): Promise<CoreChainBackend> {
  return coreBackendFor(await services.network('core', network));
}

export type AddressBalances = {
  confirmed: bigint;
  unconfirmed: bigint;
  addresses: Array<WalletAddress & { confirmed: bigint; unconfirmed: bigint }>;
  backend: CoreChainBackend;
};

export async function walletBalances(
  services: WalletServices,
  walletId: string | undefined,
  network: CoreNetwork | undefined,
  signal?: AbortSignal,
): Promise<AddressBalances & { entry: WalletEntry }> {
  const entry = await openWallet(services, walletId, network);
  const backend = await backendFor(services, entry.network);
  await checkBackendNetwork(backend, entry.network);
  const addresses = await issuedAddresses(services, entry);
  const balances = await backend.balances(watched(addresses), signal);
  let confirmed = 0n;
  let unconfirmed = 0n;
  const rows = addresses.map((address) => {
    const balance = balances.get(address.address) ?? { confirmed: 0n, unconfirmed: 0n };
    confirmed += balance.confirmed;
    unconfirmed += balance.unconfirmed;
    return { ...address, ...balance };
  });
  return { entry, confirmed, unconfirmed, addresses: rows, backend };
}

export type WalletUtxo = Utxo & { spendable: boolean; path: string };

export async function walletUtxos(
  services: WalletServices,
  walletId: string | undefined,
  network: CoreNetwork | undefined,
  signal?: AbortSignal,
): Promise<{ entry: WalletEntry; utxos: WalletUtxo[]; tip: number }> {
  const entry = await openWallet(services, walletId, network);
  const backend = await backendFor(services, entry.network);
  const tip = await checkBackendNetwork(backend, entry.network);
  const addresses = await issuedAddresses(services, entry);
  const paths = new Map(addresses.map((a) => [a.address, a.path]));
  const utxos = await backend.utxos(watched(addresses), signal);
  return {
    entry,
    tip,
    utxos: utxos.map((utxo) => ({ ...utxo, spendable: isSpendable(utxo, tip), path: paths.get(utxo.address) ?? '' })),
  };
}

export function parseFeeRate(rate: bigint | undefined): bigint {
  const value = rate ?? DEFAULT_FEE_RATE_DUFFS_PER_KB;
  if (value < MIN_RELAY_FEE_RATE) {
    throw new WalletError(
      'INVALID_PARAM',
      `fee_rate_duffs_per_kb must be at least ${MIN_RELAY_FEE_RATE} (Dash's minimum relay fee).`,
    );
  }
  if (value > MAX_MONEY_DUFFS) throw new WalletError('INVALID_PARAM', 'fee_rate_duffs_per_kb is absurdly high.');
  return value;
}

export type CreatedTransaction = {
  entry: WalletEntry;
  /** The unsigned PSBT; null for a plan that was only previewed (nothing reserved, nothing signable). */
  psbt: string | null;
  fee: bigint;
  size: number;
  inputs: Utxo[];
  outputs: PlannedOutput[];
  change: WalletAddress | null;
};

type SpendRequest = {
  walletId: string | undefined;
  network: CoreNetwork;
  payments: Payment[];
  feeRate?: bigint | undefined;
  signal?: AbortSignal | undefined;
};

type PreparedSpend = {
  entry: WalletEntry;
  plan: SpendPlan;
  addresses: WalletAddress[];
  /** The change address the plan would use: the next one, not yet reserved. */
  provisional: WalletAddress;
  /** The backend the coins came from, checked to serve the wallet's network. */
  backend: CoreChainBackend;
};

/** Plans a payment from the wallet's spendable coins; reserves nothing. */
async function prepareSpend(services: WalletServices, request: SpendRequest): Promise<PreparedSpend> {
  const feeRate = parseFeeRate(request.feeRate);
  checkPayments(request.payments, request.network);
  const entry = await openWallet(services, request.walletId, request.network);
  const backend = await backendFor(services, entry.network);
  const tip = await checkBackendNetwork(backend, entry.network);
  const addresses = await issuedAddresses(services, entry);
  const { utxos, unchecked } = await backend.spendCandidates(watched(addresses), request.signal);
  let spendable = utxos.filter((utxo) => isSpendable(utxo, tip));
  const provisional = walletAddress(entry, watcherOf(entry), 'change', entry.account.next_change);
  // Only the coins chosen are checked with the backend; one found spent or immature is set
  // aside and the choice made again, so the calls grow with the inputs, not the coins held.
  const checked = new Set<Utxo>();
  for (;;) {
    const plan = planSpend(spendable, request.payments, feeRate, entry.network, provisional.address);
    const toCheck = plan.inputs.filter((utxo) => unchecked.has(utxo) && !checked.has(utxo));
    if (toCheck.length === 0) return { entry, plan, addresses, provisional, backend };
    const kept = new Set(await backend.checkUtxos(toCheck, request.signal));
    for (const utxo of toCheck) checked.add(utxo);
    const unusable = new Set(toCheck.filter((utxo) => !kept.has(utxo) || !isSpendable(utxo, tip)));
    if (unusable.size > 0) spendable = spendable.filter((utxo) => !unusable.has(utxo));
  }
}

/** A preview of a prepared spend: what it would pay, with no PSBT and no index used up. */
function preview(prepared: PreparedSpend): CreatedTransaction {
  const { entry, plan, provisional } = prepared;
  const hasChange = plan.outputs.some((output) => output.change);
  return {
    entry,
    psbt: null,
    fee: plan.fee,
    size: plan.size,
    inputs: plan.inputs,
    outputs: plan.outputs,
    change: hasChange ? provisional : null,
  };
}

/**
 * Turns a prepared spend into its PSBT. Change, if any, goes to the next change address, reserved
 * now (never reused), last of all, so that a refused spend uses up no index.
 */
async function finalizeSpend(
  services: WalletServices,
  prepared: PreparedSpend,
): Promise<CreatedTransaction & { psbt: string }> {
  const { plan, addresses } = prepared;
  let current = prepared.entry;
  let change: WalletAddress | null = null;
  const watcher = watcherOf(current);
  const changeOutput = plan.outputs.find((output) => output.change);
  if (changeOutput) {
    const reserved = await services.keystore.reserve(current, 'change');
    current = reserved.entry;
    change = walletAddress(current, watcher, 'change', reserved.first);
    changeOutput.address = change.address;
  }
  const byAddress = new Map(addresses.map((a) => [a.address, a]));
  const origins = new Map<string, KeyOrigin>();
  for (const input of plan.inputs) {
    const owned = byAddress.get(input.address);
    if (!owned) {
      throw new WalletError(
        'BACKEND_INVALID',
        'The backend returned a coin of an address the wallet did not ask for.',
        {
          hint: "The node or explorer answers wrongly: check it, or point the network's endpoint at another (network_info shows it).",
        },
      );
    }
    if (!origins.has(input.address)) await confirmOwned(services, current, owned);
    origins.set(input.address, originOf(current, watcher, owned.chain, owned.index));
  }
  return {
    entry: current,
    psbt: planToPsbt(plan, origins, current.network),
    fee: plan.fee,
    size: plan.size,
    inputs: plan.inputs,
    outputs: plan.outputs,
    change,
  };
}

/**
 * Funds `payments` from the wallet's spendable coins and returns the unsigned PSBT. Change, if
 * any, goes to the next change address, whose index is reserved (never reused).
 */
export async function createTransaction(
  services: WalletServices,
  request: SpendRequest,
): Promise<CreatedTransaction & { psbt: string }> {
  return finalizeSpend(services, await prepareSpend(services, request));
}

function originOf(
  entry: WalletEntry,
  watcher: ReturnType<typeof watcherOf>,
  chain: AddressChain,
  index: number,
): KeyOrigin {
  return {
    fingerprint: Number.parseInt(entry.id, 16),
    path: [
      44 + HARDENED,
      dashParams(entry.network).coinType + HARDENED,
      entry.account.index + HARDENED,
      CHAIN_INDEX[chain],
      index,
    ],
    publicKey: watcher.publicKey(chain, index),
  };
}

export type SignedResult = { entry: WalletEntry; hex: string; txid: string; fee: bigint; size: number };

/**
 * Refuses a fee above the binding cap: the call's `max_fee_duffs` (0.01 DASH by default) or the
 * network policy's `max_fee_duffs`, whichever is lower; the refusal names the one that bound.
 */
function checkFee(fee: bigint, maxFee: bigint | undefined, what: string, policy: SpendingPolicy | null): void {
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

/** The spending policy the config file sets for a Dash network, or null. */
async function policyOf(services: WalletServices, network: CoreNetwork): Promise<SpendingPolicy | null> {
  return (await services.network('core', network)).policy;
}

/**
 * Which of `candidates` the keystore's wallets of `network` have handed out: paying one is not
 * spending. Each one found is derived again from its wallet's xpub (the list comes from the cache).
 */
async function keystoreAddresses(
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
function countedSpend(
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
async function checkPolicy(
  services: WalletServices,
  policy: SpendingPolicy | null,
  network: CoreNetwork,
  outputs: ReadonlyArray<{ address: string | undefined; amount: bigint; change?: boolean }>,
  authority: Authority,
  key?: string,
): Promise<LedgerSpend> {
  if (!policy && authority === 'owner') return { amount: 0n, recipients: [], authority, key };
  const own = await keystoreAddresses(
    services,
    network,
    outputs.map((output) => output.address),
  );
  const spend = { ...countedSpend(outputs, own), authority, key };
  await checkBeforeSigning(services.dataDir, policy, spend);
  return spend;
}

/**
 * Signs a PSBT of this wallet's inputs. Legacy signatures do not commit to the amounts spent, so a
 * PSBT could understate them to hide a fee: every input's amount is first checked against the
 * backend's own view of that coin, and the fee against `maxFee`.
 */
export async function signTransaction(
  services: WalletServices,
  request: {
    walletId: string | undefined;
    network: CoreNetwork;
    psbt: string;
    maxFee?: bigint | undefined;
    signal?: AbortSignal | undefined;
    authority: Authority;
  },
): Promise<SignedResult> {
  const entry = await openWallet(services, request.walletId, request.network);
  const tx = readPsbt(request.psbt);
  const summary = summarizePsbt(tx, entry.network);
  const backend = await backendFor(services, entry.network);
  await checkBackendNetwork(backend, entry.network);
  for (const [i, input] of summary.inputs.entries()) {
    const coin = await backend.prevout(input.txid, input.vout, request.signal);
    if (!coin) {
      throw new WalletError(
        'INVALID_PARAM',
        `psbt input ${i} spends ${input.txid}:${input.vout}, which the backend does not know as unspent.`,
      );
    }
    if (coin.amount !== input.amount) {
      throw new WalletError(
        'INVALID_PARAM',
        `psbt input ${i} claims ${input.amount} duffs; the chain says ${coin.amount}. Not signed.`,
      );
    }
  }
  const key = unsignedTxid(tx);
  const policy = await policyOf(services, entry.network);
  const spend = await checkPolicy(services, policy, entry.network, summary.outputs, request.authority, key);
  checkFee(summary.fee, request.maxFee, 'is', policy);
  const master = await unlockMaster(services, entry);
  try {
    const { value } = await reserveSpend(services.dataDir, policy, { ...spend, fee: summary.fee }, async () => {
      const signed = signWith(master, entry, tx);
      return { value: signed, txid: signed.txid };
    });
    return value;
  } finally {
    wipe(master);
  }
}

function signWith(master: HDKey, entry: WalletEntry, tx: ReturnType<typeof readPsbt>): SignedResult {
  const signed = signPsbt(tx, master, entry.network);
  return { entry, hex: signed.hex, txid: signed.txid, fee: signed.summary.fee, size: signed.size };
}

export type SentResult = {
  txid: string;
  fee: bigint;
  size: number;
  /** What it pays to addresses outside the keystore's wallets of that network, and those addresses. */
  paid: bigint;
  recipients: string[];
};

/**
 * Broadcasts a signed transaction after checking, against the backend's own view of the coins it
 * spends, that its fee is at most `maxFee`, and that the network's spending policy allows it.
 */
export async function sendTransaction(
  services: WalletServices,
  request: {
    network: CoreNetwork;
    hex: string;
    maxFee?: bigint | undefined;
    signal?: AbortSignal | undefined;
    authority: Authority;
  },
): Promise<SentResult> {
  const tx = readRawTransaction(request.hex);
  const backend = await backendFor(services, request.network);
  await checkBackendNetwork(backend, request.network);
  let inputs = 0n;
  for (const [i, input] of tx.inputs.entries()) {
    const prevout = await backend.prevout(input.txid, input.vout, request.signal);
    if (!prevout) {
      throw new WalletError(
        'INVALID_PARAM',
        `Input ${i} spends ${input.txid}:${input.vout}, which the backend does not know as unspent.`,
        {
          hint: 'It is already spent, not yet seen by this node, or on another network.',
        },
      );
    }
    inputs += prevout.amount;
  }
  const outputs = tx.outputs.reduce((sum, output) => sum + output.amount, 0n);
  const fee = inputs - outputs;
  if (fee < 0n) throw new WalletError('INVALID_PARAM', 'The transaction spends more than its inputs hold.');
  const policy = await policyOf(services, request.network);
  const addressed = addressedOutputs(tx, request.network);
  const own = await keystoreAddresses(
    services,
    request.network,
    addressed.map((output) => output.address),
  );
  const spend = { ...countedSpend(addressed, own), key: tx.unsignedTxid, authority: request.authority, fee };
  checkSpend(policy, spend);
  checkAutonomy(policy, spend, request.authority);
  checkFee(fee, request.maxFee, 'is', policy);
  const reservation = await reserveSpend(services.dataDir, policy, spend, async () => ({
    value: undefined,
    txid: tx.txid,
  }));
  const txid = await broadcastReserved(reservation, () =>
    backend.broadcast(request.hex.trim().toLowerCase(), request.signal),
  );
  const recipients = [...new Set(spend.recipients.flatMap((recipient) => recipient.address ?? []))];
  return { txid, fee, size: tx.size, paid: spend.amount, recipients };
}

export type FundsSent = CreatedTransaction & { hex: string | null; txid: string | null; sent: boolean };

/**
 * Create, sign and send in one step. The fee is checked and the wallet unlocked before the change
 * index is reserved. `dryRun` only plans: it returns the fee, size, inputs and outputs, and neither
 * signs nor reserves anything (a signed transaction is never handed out unsent with an unrecorded
 * change address).
 */
export async function sendFunds(
  services: WalletServices,
  request: SpendRequest & { maxFee?: bigint | undefined; dryRun: boolean; authority: Authority },
): Promise<FundsSent> {
  if (request.dryRun) return spendFunds(services, request);
  // Coins are chosen from what the node shows unspent: the wallet's payments take turns from
  // choosing them to broadcasting, so a second one sees the first one's coins as spent.
  const entry = await openWallet(services, request.walletId, request.network);
  return services.keystore.withWalletLock(entry, () => spendFunds(services, request));
}

async function spendFunds(
  services: WalletServices,
  request: SpendRequest & { maxFee?: bigint | undefined; dryRun: boolean; authority: Authority },
): Promise<FundsSent> {
  const prepared = await prepareSpend(services, request);
  const policy = await policyOf(services, request.network);
  // A dry run signs nothing: only the owner's rules apply, so it shows what an approval would ask for.
  const authority = request.dryRun ? 'owner' : request.authority;
  const spend = await checkPolicy(services, policy, request.network, prepared.plan.outputs, authority);
  checkFee(prepared.plan.fee, request.maxFee, 'would be', policy);
  if (request.dryRun) return { ...preview(prepared), hex: null, txid: null, sent: false };
  const master = await unlockMaster(services, prepared.entry);
  try {
    // The change index is reserved and the payment signed only once the 24-hour cap has room.
    const reservation = await reserveSpend(services.dataDir, policy, { ...spend, fee: prepared.plan.fee }, async () => {
      const created = await finalizeSpend(services, prepared);
      const psbt = readPsbt(created.psbt);
      const key = unsignedTxid(psbt);
      const signed = signWith(master, created.entry, psbt);
      return { value: { created, signed }, key, txid: signed.txid };
    });
    const { created, signed } = reservation.value;
    // The fee was checked above on the backend's own amounts: broadcast through the same backend.
    const txid = await broadcastReserved(reservation, () => prepared.backend.broadcast(signed.hex, request.signal));
    return { ...created, hex: signed.hex, txid, sent: true };
  } finally {
    wipe(master);
  }
}

/** The private key of one of the wallet's issued addresses, for message signing. */
export async function withAddressKey<T>(
  services: WalletServices,
  entry: WalletEntry,
  address: string,
  use: (key: Uint8Array, owned: WalletAddress) => T,
): Promise<T> {
  const owned = await findIssued(services, entry, address);
  if (!owned) {
    throw new WalletError('INVALID_PARAM', `address is not one of wallet '${entry.alias}'s issued addresses.`, {
      hint: 'core_addresses_list shows them.',
    });
  }
  await confirmOwned(services, entry, owned);
  const master = await unlockMaster(services, entry);
  const key = master.derive(owned.path);
  try {
    if (!key.privateKey) throw new WalletError('INTERNAL', 'Derived a key without its private part.');
    return use(key.privateKey, owned);
  } finally {
    wipe(key);
    wipe(master);
  }
}

function wipe(key: HDKey): void {
  try {
    key.wipePrivateData();
  } catch {
    // Already wiped.
  }
}
