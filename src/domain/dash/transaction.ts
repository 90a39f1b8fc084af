import { Transaction } from '@scure/btc-signer';
import { sha256 } from '@noble/hashes/sha2.js';
import { base64, hex } from '@scure/base';
import type { CoreNetwork } from '../config/networks.js';
import { WalletError } from '../errors.js';
import { addressScript, requireAddress, scriptAddress } from './address.js';
import { formatDash } from '../../shared/amounts.js';
import { COINBASE_MATURITY, DASH_TX_VERSION, DUST_LIMIT_DUFFS } from './params.js';

/** An unspent output the wallet can spend, as a backend reports it. */
export type Utxo = {
  txid: string;
  vout: number;
  amount: bigint;
  /** The output script (P2PKH of one of the wallet's keys). */
  script: Uint8Array;
  address: string;
  /** Block height, or null while in the mempool. */
  height: number | null;
  /** A coinbase output, when the backend says so (it cannot be spent before maturity). */
  coinbase?: boolean | undefined;
};

/** Where an owned UTXO's key sits: the signer finds the key from this, recorded in the PSBT. */
export type KeyOrigin = { fingerprint: number; path: number[]; publicKey: Uint8Array };

export type Payment = { address: string; amount: bigint };

export type PlannedOutput = Payment & { change: boolean };

/** A funded, unsigned transaction. */
export type SpendPlan = {
  inputs: Utxo[];
  outputs: PlannedOutput[];
  fee: bigint;
  /** The estimated signed size in bytes (signatures at their largest). */
  size: number;
};

/**
 * Sizes of a legacy P2PKH transaction, signatures at their largest: a low-S DER signature is at
 * most 71 bytes (a 33-byte r, a 32-byte s), plus the sighash byte.
 */
const TX_OVERHEAD_BYTES = 4 + 4; // version, lock time
const P2PKH_INPUT_BYTES = 32 + 4 + 1 + (1 + 72) + (1 + 33) + 4; // outpoint, script length, sig, key, sequence
const outputBytes = (scriptLength: number): number => 8 + 1 + scriptLength;
const compactSizeBytes = (n: number): number => (n < 0xfd ? 1 : n <= 0xffff ? 3 : 5);

function estimateSize(inputCount: number, outputScriptLengths: readonly number[]): number {
  return (
    TX_OVERHEAD_BYTES +
    compactSizeBytes(inputCount) +
    inputCount * P2PKH_INPUT_BYTES +
    compactSizeBytes(outputScriptLengths.length) +
    outputScriptLengths.reduce((sum, length) => sum + outputBytes(length), 0)
  );
}

/** The fee for `size` bytes at `rate` duffs per 1000 bytes, rounded up. */
function feeFor(size: number, ratePerKb: bigint): bigint {
  return (BigInt(size) * ratePerKb + 999n) / 1000n;
}

/** Whether a UTXO can be spent in the next block: immature coinbase outputs cannot. */
export function isSpendable(utxo: Utxo, tipHeight: number): boolean {
  if (!utxo.coinbase) return true;
  return utxo.height !== null && tipHeight - utxo.height + 1 >= COINBASE_MATURITY;
}

/**
 * The output scripts of the payments, after checking each address is valid on `network` and each
 * amount above dust: checked before any backend is asked, so bad input costs nothing.
 */
export function checkPayments(payments: readonly Payment[], network: CoreNetwork): Uint8Array[] {
  if (payments.length === 0) throw new WalletError('INVALID_PARAM', 'outputs must name at least one payment.');
  return payments.map((payment, i) => {
    const field = payments.length === 1 ? '' : `outputs[${i}].`;
    if (payment.amount < DUST_LIMIT_DUFFS) {
      throw new WalletError(
        'INVALID_PARAM',
        `${field}amount_duffs is ${payment.amount}: below the dust limit of ${DUST_LIMIT_DUFFS} duffs.`,
      );
    }
    return addressScript(requireAddress(payment.address, network, `${field}address`));
  });
}

/**
 * Chooses inputs for `payments`, largest first (fewest inputs, deterministic), and adds change when
 * it is not dust; change below dust goes to the fee. `INSUFFICIENT_FUNDS` when the UTXOs
 * cannot pay outputs and fee.
 */
export function planSpend(
  utxos: readonly Utxo[],
  payments: readonly Payment[],
  ratePerKb: bigint,
  network: CoreNetwork,
  changeAddress: string,
): SpendPlan {
  const paymentScripts = checkPayments(payments, network);
  const target = payments.reduce((sum, payment) => sum + payment.amount, 0n);
  const changeScript = addressScript(requireAddress(changeAddress, network, 'change address'));
  const sorted = [...utxos].sort((a, b) =>
    a.amount === b.amount ? outpointKey(a).localeCompare(outpointKey(b)) : a.amount > b.amount ? -1 : 1,
  );
  const scriptLengths = paymentScripts.map((script) => script.length);
  const chosen: Utxo[] = [];
  let total = 0n;
  for (const utxo of sorted) {
    chosen.push(utxo);
    total += utxo.amount;
    const withChange = estimateSize(chosen.length, [...scriptLengths, changeScript.length]);
    const feeWithChange = feeFor(withChange, ratePerKb);
    const change = total - target - feeWithChange;
    if (change >= DUST_LIMIT_DUFFS) {
      return {
        inputs: chosen,
        outputs: [
          ...payments.map((payment) => ({ ...payment, change: false })),
          { address: changeAddress, amount: change, change: true },
        ],
        fee: feeWithChange,
        size: withChange,
      };
    }
    const withoutChange = estimateSize(chosen.length, scriptLengths);
    if (total - target >= feeFor(withoutChange, ratePerKb)) {
      return {
        inputs: chosen,
        outputs: payments.map((payment) => ({ ...payment, change: false })),
        fee: total - target,
        size: withoutChange,
      };
    }
  }
  const available = utxos.reduce((sum, utxo) => sum + utxo.amount, 0n);
  const needed = target + feeFor(estimateSize(Math.max(utxos.length, 1), scriptLengths), ratePerKb);
  throw new WalletError(
    'INSUFFICIENT_FUNDS',
    `Spendable balance ${available} duffs (${formatDash(available)} DASH) cannot pay ${target} duffs plus the fee (about ${needed - target} duffs).`,
    { hint: 'Check core_balances_get; unconfirmed or immature coins may not be spendable yet.' },
  );
}

const TX_OPTIONS = { version: DASH_TX_VERSION, allowLegacyWitnessUtxo: true } as const;

/** The plan as an unsigned PSBT (Base64), each input recording the key that signs it. */
export function planToPsbt(plan: SpendPlan, origins: ReadonlyMap<string, KeyOrigin>, network: CoreNetwork): string {
  const tx = new Transaction(TX_OPTIONS);
  for (const utxo of plan.inputs) {
    const origin = origins.get(utxo.address);
    if (!origin) throw new WalletError('INTERNAL', 'A chosen input is not one of the wallet’s addresses.');
    tx.addInput({
      txid: utxo.txid,
      index: utxo.vout,
      witnessUtxo: { script: utxo.script, amount: utxo.amount },
      bip32Derivation: [[origin.publicKey, { fingerprint: origin.fingerprint, path: origin.path }]],
    });
  }
  for (const output of plan.outputs) {
    tx.addOutput({ script: addressScript(requireAddress(output.address, network)), amount: output.amount });
  }
  return base64.encode(tx.toPSBT());
}

type PsbtInput = { txid: string; vout: number; amount: bigint; origins: KeyOrigin[] };
export type PsbtSummary = {
  inputs: PsbtInput[];
  outputs: Array<{ address: string | undefined; amount: bigint }>;
  /** Inputs minus outputs, by the amounts the PSBT records. */
  fee: bigint;
};

/** Parses a PSBT, or `INVALID_PARAM` naming what is wrong. */
export function readPsbt(psbt: string): Transaction {
  let bytes: Uint8Array;
  try {
    bytes = base64.decode(psbt.trim());
  } catch {
    throw new WalletError('INVALID_PARAM', 'psbt is not Base64.');
  }
  try {
    return Transaction.fromPSBT(bytes, TX_OPTIONS);
  } catch (error) {
    throw new WalletError('INVALID_PARAM', `psbt is not a valid PSBT: ${firstLine(error)}.`);
  }
}

export function summarizePsbt(tx: Transaction, network: CoreNetwork): PsbtSummary {
  const inputs: PsbtInput[] = [];
  for (let i = 0; i < tx.inputsLength; i++) {
    const input = tx.getInput(i);
    if (!input.txid || input.index === undefined || !input.witnessUtxo) {
      throw new WalletError('INVALID_PARAM', `psbt input ${i} does not record the output it spends (witness UTXO).`);
    }
    inputs.push({
      txid: hex.encode(input.txid),
      vout: input.index,
      amount: input.witnessUtxo.amount,
      origins: (input.bip32Derivation ?? []).map(([publicKey, origin]) => ({
        publicKey,
        fingerprint: origin.fingerprint,
        path: [...origin.path],
      })),
    });
  }
  const outputs = [];
  for (let i = 0; i < tx.outputsLength; i++) {
    const output = tx.getOutput(i);
    if (!output.script || output.amount === undefined)
      throw new WalletError('INVALID_PARAM', `psbt output ${i} is incomplete.`);
    outputs.push({ address: scriptAddress(output.script, network), amount: output.amount });
  }
  const fee =
    inputs.reduce((sum, input) => sum + input.amount, 0n) - outputs.reduce((sum, out) => sum + out.amount, 0n);
  if (fee < 0n) throw new WalletError('INVALID_PARAM', 'psbt spends more than its inputs hold.');
  return { inputs, outputs, fee };
}

/**
 * The id of a transaction with its signatures left out (every scriptSig empty): the same for a
 * PSBT and for the transaction signed from it, so a spend is known before and after signing.
 */
export function unsignedTxid(tx: Transaction): string {
  return hex.encode(sha256(sha256(tx.unsignedTx)).reverse());
}

/** A raw transaction's outpoints and outputs, parsed. */
export type RawTransaction = {
  txid: string;
  /** See {@link unsignedTxid}. */
  unsignedTxid: string;
  version: number;
  inputs: Array<{ txid: string; vout: number }>;
  outputs: Array<{ script: Uint8Array; amount: bigint }>;
  size: number;
};

export function readRawTransaction(rawHex: string): RawTransaction {
  const text = rawHex.trim();
  if (!/^([0-9a-fA-F]{2})+$/.test(text))
    throw new WalletError('INVALID_PARAM', 'hex is not a hexadecimal transaction.');
  let tx: Transaction;
  try {
    tx = Transaction.fromRaw(hex.decode(text.toLowerCase()), {
      ...TX_OPTIONS,
      allowUnknownInputs: true,
      allowUnknownOutputs: true,
    });
  } catch (error) {
    throw new WalletError('INVALID_PARAM', `hex is not a valid transaction: ${firstLine(error)}.`);
  }
  const inputs = [];
  for (let i = 0; i < tx.inputsLength; i++) {
    const input = tx.getInput(i);
    if (!input.txid || input.index === undefined)
      throw new WalletError('INVALID_PARAM', `transaction input ${i} is incomplete.`);
    inputs.push({ txid: hex.encode(input.txid), vout: input.index });
  }
  const outputs = [];
  for (let i = 0; i < tx.outputsLength; i++) {
    const output = tx.getOutput(i);
    if (!output.script || output.amount === undefined)
      throw new WalletError('INVALID_PARAM', `transaction output ${i} is incomplete.`);
    outputs.push({ script: output.script, amount: output.amount });
  }
  return { txid: tx.id, unsignedTxid: unsignedTxid(tx), version: tx.version, inputs, outputs, size: text.length / 2 };
}

function outpointKey(utxo: Utxo): string {
  return `${utxo.txid}:${String(utxo.vout).padStart(10, '0')}`;
}

function firstLine(error: unknown): string {
  const text = error instanceof Error ? error.message : String(error);
  return (text.split('\n')[0] ?? '').slice(0, 160);
}

/** The outputs of a PSBT or a raw transaction, read offline: for questions and audit lines. */
export type TransactionGist = { outputs: Array<{ address: string | undefined; amount: bigint }>; fee?: bigint };

/** Decodes a PSBT (Base64) with its fee, or a raw transaction (hex) without one (that needs the chain). */
export function transactionGist(encoded: { psbt: string } | { hex: string }, network: CoreNetwork): TransactionGist {
  if ('psbt' in encoded) {
    const summary = summarizePsbt(readPsbt(encoded.psbt), network);
    return { outputs: summary.outputs, fee: summary.fee };
  }
  return { outputs: addressedOutputs(readRawTransaction(encoded.hex), network) };
}

/** A raw transaction's outputs with the address each pays (undefined for a script without one). */
export function addressedOutputs(
  raw: RawTransaction,
  network: CoreNetwork,
): Array<{ address: string | undefined; amount: bigint }> {
  return raw.outputs.map((output) => ({ address: scriptAddress(output.script, network), amount: output.amount }));
}
