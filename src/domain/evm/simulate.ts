import { decodeErrorResult, getAddress, type Hex, type TransactionSerializable } from 'viem';
import { z } from 'zod';
import { clipForDisplay } from '../../shared/text.js';
import { WalletError } from '../errors.js';
import type { EvmNode } from '../net/evm-rpc.js';
import {
  checkBeforeSigning,
  type CountedSpend,
  type LedgerPlace,
  type LedgerSpend,
  type SpendingPolicy,
} from '../policy/spending-policy.js';
import type { EvmAddress } from './address.js';
import { connectNode, type EvmNetwork } from './network.js';

/**
 * What a call would do to balances and allowances, asked of the node before anyone says yes: the
 * ether and ERC-20 balance changes of the signer and its counterparties, and the ERC-20 allowances
 * set, read from the events and value transfers of a simulation of the call on the latest block.
 *
 * The node is asked `eth_simulateV1` with `traceTransfers` (ether moves come back as ERC-20-like
 * `Transfer` logs of 0xEeee…EEeE); a node without it is asked `debug_traceCall` with geth's
 * `callTracer` (`withLog`). A node with neither, an answer that does not come within
 * {@link SIMULATION_TIMEOUT_MS}, or one that cannot be read is "could not simulate": never an
 * error, never a wait. The fee is not part of it (the plan shows the most it can be).
 *
 * The call is the transaction as it will be sent: its gas, its fee fields and its nonce, with the
 * node validating them, so `tx.gasprice`, `block.basefee` and `gasleft()` read as they will on
 * chain (a contract that checks `tx.gasprice == 0` to tell a simulation apart sees none). A
 * hostile contract can still tell (block number, timestamp, coinbase differ): against one the
 * simulation is advisory; the caps on what the calldata decodes to are the hard line.
 */

/** The most a simulation may take, both methods together: then it "could not simulate". */
const SIMULATION_TIMEOUT_MS = 5_000;

/** A balance that changes: whose, of what (`ether` or the token contract), by how much (signed, base units). */
type BalanceChange = { holder: EvmAddress; asset: 'ether' | EvmAddress; delta: bigint };

/** An ERC-20 allowance the call sets (its `Approval` event): `spender` may then move `amount` of `owner`'s `token`. */
type AllowanceChange = { token: EvmAddress; owner: EvmAddress; spender: EvmAddress; amount: bigint };

/** One ERC-20 `Transfer` the call makes. */
type TokenTransfer = { token: EvmAddress; from: EvmAddress; to: EvmAddress; amount: bigint };

export type AssetChanges =
  | {
      simulated: true;
      method: 'eth_simulateV1' | 'debug_traceCall';
      /** Why the call would revert (then nothing changes), or null. */
      reverts: string | null;
      balances: BalanceChange[];
      allowances: AllowanceChange[];
      /** Every token transfer, in order: what the policy counts. */
      transfers: TokenTransfer[];
    }
  | { simulated: false; reason: string };

/** The call simulated: the transaction's fields, those it sets (a plan's has them all). */
export type SimulatedCall = {
  from: EvmAddress;
  to: EvmAddress | null;
  value: bigint;
  data: Hex;
  gas?: bigint | undefined;
  gasPrice?: bigint | undefined;
  maxFeePerGas?: bigint | undefined;
  maxPriorityFeePerGas?: bigint | undefined;
  nonce?: number | undefined;
};

/** The call `from` makes by sending `transaction`: every field the node runs it with. */
export function simulatedCallOf(from: EvmAddress, transaction: TransactionSerializable): SimulatedCall {
  return {
    from,
    to: transaction.to ? getAddress(transaction.to) : null,
    value: transaction.value ?? 0n,
    data: transaction.data ?? '0x',
    gas: transaction.gas,
    gasPrice: transaction.gasPrice ?? undefined,
    maxFeePerGas: transaction.maxFeePerGas ?? undefined,
    maxPriorityFeePerGas: transaction.maxPriorityFeePerGas ?? undefined,
    nonce: transaction.nonce,
  };
}

const quantity = (value: bigint | number) => `0x${value.toString(16)}`;

/** The address eth_simulateV1's `traceTransfers` gives ether moves as `Transfer` logs of. */
const ETHER_LOG_ADDRESS = '0xeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeee';
/** keccak256("Transfer(address,address,uint256)") and keccak256("Approval(address,address,uint256)"). */
const TRANSFER_TOPIC = '0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef';
const APPROVAL_TOPIC = '0x8c5be1e5ebec7d5bd14f71427d1e84f3dd0314c0f7b2291e5b200ac8c7c3b925';
const ZERO_ADDRESS = '0x0000000000000000000000000000000000000000';

const Hex32 = z.string().regex(/^0x[0-9a-fA-F]*$/);
const Log = z.object({ address: z.string().regex(/^0x[0-9a-fA-F]{40}$/), topics: z.array(Hex32), data: Hex32 });
type Log = z.infer<typeof Log>;

const SimulateReply = z
  .array(
    z.object({
      calls: z
        .array(
          z.object({
            status: Hex32,
            logs: z.array(Log).default([]),
            returnData: Hex32.optional(),
            error: z.object({ message: z.string(), data: Hex32.optional() }).nullish(),
          }),
        )
        .length(1),
    }),
  )
  .length(1);

type CallFrame = {
  type: string;
  from: string;
  to?: string | undefined;
  value?: string | undefined;
  error?: string | undefined;
  revertReason?: string | undefined;
  logs?: (Log & { position?: string | undefined })[] | undefined;
  calls?: CallFrame[] | undefined;
};
const CallFrameSchema: z.ZodType<CallFrame> = z.lazy(() =>
  z.object({
    type: z.string(),
    from: z.string(),
    to: z.string().optional(),
    value: Hex32.optional(),
    error: z.string().optional(),
    revertReason: z.string().optional(),
    logs: z.array(Log.extend({ position: Hex32.optional() })).optional(),
    calls: z.array(CallFrameSchema).optional(),
  }),
);

/**
 * Simulates `call` on the node's latest block: its asset changes, or why it could not.
 *
 * @example
 * const changes = await simulateCall(node, { from, to: token, value: 0n, data: transferCalldata });
 * if (changes.simulated) for (const change of changes.balances) console.log(change.holder, change.delta);
 */
export async function simulateCall(
  node: EvmNode,
  call: SimulatedCall,
  timeoutMs = SIMULATION_TIMEOUT_MS,
): Promise<AssetChanges> {
  const deadline = Date.now() + timeoutMs;
  const left = () => Math.max(1, deadline - Date.now());
  const request = {
    from: call.from,
    ...(call.to === null ? {} : { to: call.to }),
    value: quantity(call.value),
    ...(call.data === '0x' ? {} : { input: call.data }),
    ...(call.gas === undefined ? {} : { gas: quantity(call.gas) }),
    ...(call.gasPrice === undefined ? {} : { gasPrice: quantity(call.gasPrice) }),
    ...(call.maxFeePerGas === undefined ? {} : { maxFeePerGas: quantity(call.maxFeePerGas) }),
    ...(call.maxPriorityFeePerGas === undefined ? {} : { maxPriorityFeePerGas: quantity(call.maxPriorityFeePerGas) }),
    ...(call.nonce === undefined ? {} : { nonce: quantity(call.nonce) }),
  };
  let first: string;
  try {
    const reply = await node.optional(
      'eth_simulateV1',
      // Validated: the fee fields are charged and the base fee is the block's, as on chain (without
      // validation the node runs it at gas price and base fee 0).
      [{ blockStateCalls: [{ calls: [request] }], traceTransfers: true, validation: true }, 'latest'],
      left(),
    );
    return fromSimulateV1(reply);
  } catch (error) {
    first = `eth_simulateV1: ${why(error)}`;
  }
  if (Date.now() >= deadline) return { simulated: false, reason: `${first}; no time was left to try debug_traceCall` };
  try {
    const reply = await node.optional(
      'debug_traceCall',
      [request, 'latest', { tracer: 'callTracer', tracerConfig: { withLog: true } }],
      left(),
    );
    return fromCallTrace(reply);
  } catch (error) {
    return { simulated: false, reason: `${first}; debug_traceCall: ${why(error)}` };
  }
}

/** A failure in a few words: the node's, or that its answer could not be read. */
function why(error: unknown): string {
  if (error instanceof WalletError) return error.message.replace(/^The node at \S+ /, 'the node ');
  if (error instanceof z.ZodError) return 'an answer that cannot be read';
  return error instanceof Error ? error.message.slice(0, 200) : 'failed';
}

function fromSimulateV1(reply: unknown): AssetChanges {
  const [block] = SimulateReply.parse(reply);
  const [result] = block?.calls ?? [];
  if (!result) throw new z.ZodError([]);
  if (result.status !== '0x1') {
    const why = revertData(result.error?.data ?? result.returnData) ?? result.error?.message ?? 'reverted';
    return reverted('eth_simulateV1', why);
  }
  const transfers: TokenTransfer[] = [];
  const ether: TokenTransfer[] = [];
  const allowances = new Map<string, AllowanceChange>();
  for (const log of result.logs) {
    if (log.address.toLowerCase() === ETHER_LOG_ADDRESS) {
      const move = transferOf(log);
      if (move) ether.push(move);
    } else readTokenLog(log, transfers, allowances);
  }
  return changes('eth_simulateV1', ether, transfers, allowances);
}

function fromCallTrace(reply: unknown): AssetChanges {
  const root = CallFrameSchema.parse(reply);
  if (root.error !== undefined) return reverted('debug_traceCall', root.revertReason ?? root.error);
  const transfers: TokenTransfer[] = [];
  const ether: TokenTransfer[] = [];
  const allowances = new Map<string, AllowanceChange>();
  const walk = (frame: CallFrame): void => {
    // A frame that reverted changed nothing, nor did anything it called.
    if (frame.error !== undefined) return;
    const value = BigInt(frame.value ?? '0x0');
    // DELEGATECALL and STATICCALL name their context's value; they move none.
    if (value > 0n && frame.to !== undefined && !['DELEGATECALL', 'STATICCALL', 'CALLCODE'].includes(frame.type)) {
      ether.push({ token: ETHER_LOG_ADDRESS, from: getAddress(frame.from), to: getAddress(frame.to), amount: value });
    }
    // Its own logs and its calls in the order they happened: a log's position counts the calls before it.
    const calls = frame.calls ?? [];
    let next = 0;
    for (const log of frame.logs ?? []) {
      const position = log.position === undefined ? calls.length : Number(BigInt(log.position));
      while (next < Math.min(position, calls.length)) walk(calls[next++] as CallFrame);
      readTokenLog(log, transfers, allowances);
    }
    while (next < calls.length) walk(calls[next++] as CallFrame);
  };
  walk(root);
  return changes('debug_traceCall', ether, transfers, allowances);
}

/** The reason in revert data: `Error(string)`'s text, or `Panic(uint256)`'s code; else undefined. */
function revertData(data: string | undefined): string | undefined {
  if (data === undefined || data.length < 10) return undefined;
  try {
    const decoded = decodeErrorResult({ data: data as Hex });
    return decoded.errorName === 'Error' ? String(decoded.args[0]) : `${decoded.errorName}(${decoded.args.join(', ')})`;
  } catch {
    return undefined;
  }
}

function reverted(method: 'eth_simulateV1' | 'debug_traceCall', reason: string): AssetChanges {
  // The contract's text, shown in a question: printable ASCII only (no control, format or line
  // separator character can forge a line of it).
  const shown = clipForDisplay(reason, 200);
  return { simulated: true, method, reverts: shown, balances: [], allowances: [], transfers: [] };
}

/** An ERC-20 `Transfer` or `Approval` log (three topics and one word of data; ERC-721's have four). */
function readTokenLog(log: Log, transfers: TokenTransfer[], allowances: Map<string, AllowanceChange>): void {
  const topic = log.topics[0]?.toLowerCase();
  if (topic === TRANSFER_TOPIC) {
    const move = transferOf(log);
    if (move) transfers.push(move);
  } else if (topic === APPROVAL_TOPIC && log.topics.length === 3 && log.data.length === 66) {
    const [owner, spender] = [wordAddress(log.topics[1]), wordAddress(log.topics[2])];
    if (!owner || !spender) return;
    const token = getAddress(log.address);
    allowances.set(`${token}:${owner}:${spender}`, { token, owner, spender, amount: BigInt(log.data) });
  }
}

function transferOf(log: Log): TokenTransfer | undefined {
  if (log.topics[0]?.toLowerCase() !== TRANSFER_TOPIC || log.topics.length !== 3 || log.data.length !== 66) {
    return undefined;
  }
  const [from, to] = [wordAddress(log.topics[1]), wordAddress(log.topics[2])];
  if (!from || !to) return undefined;
  const token = log.address.toLowerCase() === ETHER_LOG_ADDRESS ? ETHER_LOG_ADDRESS : getAddress(log.address);
  return { token, from, to, amount: BigInt(log.data) };
}

/** The address in a 32-byte topic, when its first 12 bytes are zero. */
function wordAddress(word: string | undefined): EvmAddress | undefined {
  if (word === undefined || !/^0x0{24}[0-9a-fA-F]{40}$/.test(word)) return undefined;
  return getAddress(`0x${word.slice(26)}`);
}

/** Net changes per holder and asset, those that end at zero and the zero address's left out. */
function changes(
  method: 'eth_simulateV1' | 'debug_traceCall',
  ether: readonly TokenTransfer[],
  transfers: readonly TokenTransfer[],
  allowances: ReadonlyMap<string, AllowanceChange>,
): AssetChanges {
  const deltas = new Map<string, BalanceChange>();
  const add = (holder: EvmAddress, asset: 'ether' | EvmAddress, delta: bigint) => {
    if (holder === ZERO_ADDRESS) return;
    const key = `${asset}:${holder}`;
    const change = deltas.get(key) ?? { holder, asset, delta: 0n };
    deltas.set(key, { ...change, delta: change.delta + delta });
  };
  for (const move of ether) {
    add(move.from, 'ether', -move.amount);
    add(move.to, 'ether', move.amount);
  }
  for (const move of transfers) {
    add(move.from, move.token, -move.amount);
    add(move.to, move.token, move.amount);
  }
  return {
    simulated: true,
    method,
    reverts: null,
    balances: [...deltas.values()].filter((change) => change.delta !== 0n),
    allowances: [...allowances.values()],
    transfers: [...transfers],
  };
}

type TokenSpend = NonNullable<CountedSpend['tokens']>[number];

/** An allowance this large is unlimited in practice (as token-moves counts it). */
const UNLIMITED_ALLOWANCE = 1n << 255n;

/**
 * The spend as the policy counts it, with what the simulation shows the signer's tokens do beyond
 * what its calldata says: a transfer out of the signer's balance that no decoded move accounts for
 * (a router pulling tokens with an earlier allowance, a contract called with plain ether), and an
 * allowance of the signer's set by a call the wallet cannot read (a `permit` it submits). So the
 * token caps and the allowlist apply to them as to a decoded `transfer` or `approve`. The same
 * spend when there is nothing more, or no simulation.
 */
function withSimulatedMoves(spend: CountedSpend, changes: AssetChanges, signer: EvmAddress): CountedSpend {
  if (!changes.simulated || changes.reverts !== null) return spend;
  const decoded = spend.tokens ?? [];
  const added: TokenSpend[] = [];
  // Per token and recipient, what the simulation shows going out beyond what the calldata sends
  // there: each with its own counterparty, so every recipient meets the allowlist.
  const outflows = new Map<string, { token: EvmAddress; to: EvmAddress; amount: bigint }>();
  for (const move of changes.transfers) {
    if (move.from !== signer || move.to === signer) continue;
    const key = `${move.token}:${move.to}`;
    const sum = outflows.get(key) ?? { token: move.token, to: move.to, amount: 0n };
    outflows.set(key, { ...sum, amount: sum.amount + move.amount });
  }
  for (const { token, to, amount } of outflows.values()) {
    const counted = decoded
      .filter((move) => move.token === token && move.role === 'recipient' && move.counterparty === to)
      .reduce((sum, move) => sum + move.amount, 0n);
    if (amount > counted) added.push(simulated('transfer', token, to, 'recipient', amount - counted));
  }
  for (const allowance of changes.allowances) {
    if (allowance.owner !== signer || allowance.amount === 0n) continue;
    const known = decoded.some(
      (move) => move.token === allowance.token && move.role === 'spender' && move.counterparty === allowance.spender,
    );
    if (!known) added.push(simulated('approval', allowance.token, allowance.spender, 'spender', allowance.amount));
  }
  return added.length === 0 ? spend : { ...spend, tokens: [...decoded, ...added] };
}

function simulated(
  kind: string,
  token: EvmAddress,
  counterparty: EvmAddress,
  role: 'recipient' | 'spender',
  amount: bigint,
): TokenSpend {
  return {
    kind: `simulated ${kind}`,
    token,
    counterparty,
    role,
    amount,
    unlimited: role === 'spender' && amount >= UNLIMITED_ALLOWANCE,
  };
}

/** Asset changes as the tools answer them: amounts as strings, the signer marked. */
export type AssetChangesOutput =
  | {
      simulated: true;
      method: 'eth_simulateV1' | 'debug_traceCall';
      reverts: string | null;
      balances: { holder: string; signer: boolean; asset: string; delta: string }[];
      allowances: { token: string; owner: string; spender: string; amount: string }[];
    }
  | { simulated: false; reason: string };

export function assetChangesOutput(changes: AssetChanges, signer: EvmAddress): AssetChangesOutput {
  if (!changes.simulated) return changes;
  return {
    simulated: true,
    method: changes.method,
    reverts: changes.reverts,
    // The signer's first, then the counterparties', ether before tokens.
    balances: [...changes.balances]
      .sort(
        (a, b) =>
          Number(b.holder === signer) - Number(a.holder === signer) ||
          Number(b.asset === 'ether') - Number(a.asset === 'ether'),
      )
      .map((change) => ({
        holder: change.holder,
        signer: change.holder === signer,
        asset: change.asset,
        delta: change.delta.toString(),
      })),
    allowances: changes.allowances.map((allowance) => ({
      token: allowance.token,
      owner: allowance.owner,
      spender: allowance.spender,
      amount: allowance.amount.toString(),
    })),
  };
}

/**
 * Refuses, as a decoded move would be refused, what the simulation shows the signer's tokens do
 * beyond `spend` (see {@link withSimulatedMoves}); returns the spend the ledger then counts.
 * Without a policy it only shows: the real call is not simulated then (nothing to hold it to), and
 * a dry run refusing what the call itself would not is no plan of it.
 *
 * `signing` (not a dry run): where the policy caps tokens, a call the wallet cannot read is only
 * signed or sent on a simulation that ran and did not revert. Such a call's token moves are known
 * only from the simulation, so "could not simulate" is BACKEND_UNAVAILABLE (retry), and a revert,
 * which shows no moves, may be a contract that behaves otherwise on chain: refused. A dry run
 * shows both as they are, for the question.
 */
export async function checkSimulatedSpend(
  place: LedgerPlace,
  policy: SpendingPolicy | null,
  spend: LedgerSpend,
  changes: AssetChanges,
  signer: EvmAddress,
  signing: boolean,
): Promise<LedgerSpend> {
  if (signing && policy !== null && policy.tokens.size > 0 && spend.unreadable !== undefined) {
    requireSimulated(policy, changes);
  }
  const counted = policy === null ? spend : withSimulatedMoves(spend, changes, signer);
  if (counted === spend) return spend;
  const ledgerSpend = { ...spend, tokens: counted.tokens };
  await checkBeforeSigning(place, policy, ledgerSpend);
  return ledgerSpend;
}

/**
 * The spend a signature counts: as decoded where the network has no policy (nothing is simulated);
 * else checked and counted with what `simulate` shows the transaction would do
 * ({@link checkSimulatedSpend}, signing).
 */
export async function countedWhenSigning(
  place: LedgerPlace,
  policy: SpendingPolicy | null,
  spend: LedgerSpend,
  simulate: () => Promise<AssetChanges>,
  signer: EvmAddress,
): Promise<LedgerSpend> {
  return policy === null ? spend : checkSimulatedSpend(place, policy, spend, await simulate(), signer, true);
}

/** Throws unless `changes` is a simulation that ran and did not revert (see {@link checkSimulatedSpend}). */
function requireSimulated(policy: SpendingPolicy, changes: AssetChanges): void {
  const rules = `${policy.chain}.networks.${policy.network}.policy.tokens`;
  if (!changes.simulated) {
    throw new WalletError(
      'BACKEND_UNAVAILABLE',
      `The node could not simulate this contract call (${changes.reason}), and ${rules} caps tokens it could move uncounted; nothing was signed or sent.`,
      {
        hint: 'Retry when the node can simulate (eth_simulateV1 or debug_traceCall), or use a node that can; a dry run shows what it answers.',
      },
    );
  }
  if (changes.reverts !== null) {
    throw new WalletError(
      'POLICY_VIOLATION',
      `Refused by policy ${rules}: this contract call, which the wallet cannot read, reverts in simulation (${changes.reverts}), so what it moves of a capped token cannot be counted. Nothing was signed or sent.`,
      {
        hint: 'Find out why it reverts (a dry run shows the reason) and fix the call; a contract that reverts only when simulated is one not to sign for.',
      },
    );
  }
}

/** {@link simulateCall} on the network's node; a node that cannot be reached "could not simulate" too. */
export async function simulateOn(
  network: EvmNetwork,
  call: SimulatedCall,
  signal?: AbortSignal,
): Promise<AssetChanges> {
  const deadline = Date.now() + SIMULATION_TIMEOUT_MS;
  const connecting = connectNode(network, signal);
  let node: EvmNode;
  try {
    node = await withDeadline(connecting, SIMULATION_TIMEOUT_MS);
  } catch (error) {
    return { simulated: false, reason: `the node could not be reached (${why(error)})` };
  }
  return simulateCall(node, call, Math.max(1, deadline - Date.now()));
}

function withDeadline<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ms / 1000} s`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}
