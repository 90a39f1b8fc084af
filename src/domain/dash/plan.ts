import type { CoreNetwork } from '../config/networks.js';
import { WalletError } from '../errors.js';
import type { WalletEntry } from '../keystore/wallet-record.js';
import { checkBackendNetwork } from '../net/backends.js';
import type { CoreChainBackend } from '../net/chain-backend.js';
import type { WalletServices } from '../services.js';
import { confirmOwned, issuedAddresses, watched, walletAddress, type WalletAddress } from './addresses.js';
import { watcherOf } from './watcher.js';
import { chooseHeldCoins } from './coin-holds.js';
import { MAX_MONEY_DUFFS } from './amount.js';
import { CHAIN_INDEX, HARDENED, type AddressChain } from './paths.js';
import { backendFor } from './network.js';
import { DEFAULT_FEE_RATE_DUFFS_PER_KB, dashParams } from './params.js';
import {
  checkPayments,
  isSpendable,
  planSpend,
  planToPsbt,
  readPsbt,
  unsignedTxid,
  type KeyOrigin,
  type Payment,
  type PlannedOutput,
  type SpendPlan,
  type Utxo,
} from './transaction.js';
import { openWallet } from '../wallet/wallets.js';

/** The lowest fee rate Dash nodes relay (duffs per 1000 bytes). */
const MIN_RELAY_FEE_RATE = DEFAULT_FEE_RATE_DUFFS_PER_KB;

function parseFeeRate(rate: bigint | undefined): bigint {
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

export type SpendRequest = {
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

/**
 * Plans a payment from the wallet's spendable coins, but those in `exclude` (outpoints `txid:vout`
 * another replica's payment holds); reserves nothing.
 */
export async function prepareSpend(
  services: WalletServices,
  request: SpendRequest,
  exclude: ReadonlySet<string> = new Set(),
): Promise<PreparedSpend> {
  const feeRate = parseFeeRate(request.feeRate);
  checkPayments(request.payments, request.network);
  const entry = await openWallet(services, request.walletId, request.network);
  const backend = await backendFor(services, entry.network);
  const tip = await checkBackendNetwork(backend, entry.network);
  const addresses = await issuedAddresses(services, entry);
  const { utxos, unchecked } = await backend.spendCandidates(watched(addresses), request.signal);
  let spendable = utxos.filter((utxo) => isSpendable(utxo, tip) && !exclude.has(`${utxo.txid}:${utxo.vout}`));
  const provisional = walletAddress(entry, watcherOf(entry, services.dataDir), 'change', entry.account.next_change);
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
export function preview(prepared: PreparedSpend): CreatedTransaction {
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
export async function finalizeSpend(
  services: WalletServices,
  prepared: PreparedSpend,
): Promise<CreatedTransaction & { psbt: string }> {
  const { plan, addresses } = prepared;
  let current = prepared.entry;
  let change: WalletAddress | null = null;
  const watcher = watcherOf(current, services.dataDir);
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
  // Across replicas its coins are held in the state store, for this transaction, until it is sent
  // (core_tx_send) or for 30 minutes: another replica's payment does not choose them meanwhile.
  const { coins } = await services.stateStore();
  const { prepared, hold } = await chooseHeldCoins(coins, request.network, (exclude) =>
    prepareSpend(services, request, exclude),
  );
  let created: CreatedTransaction & { psbt: string };
  try {
    created = await finalizeSpend(services, prepared);
  } catch (error) {
    await hold.release().catch(() => undefined);
    throw error;
  }
  await hold.keep(unsignedTxid(readPsbt(created.psbt)));
  return created;
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
