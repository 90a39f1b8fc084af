import type { HDKey } from '@scure/bip32';
import type { Transaction } from '@scure/btc-signer';
import type { CoreNetwork } from '../config/networks.js';
import { WalletError } from '../errors.js';
import { addressScript, decodeAddress, publicKeyAddress } from './address.js';
import { HARDENED } from './paths.js';
import { dashParams } from './params.js';
import { summarizePsbt, type PsbtSummary } from './transaction.js';

export type SignedTransaction = { hex: string; txid: string; size: number; summary: PsbtSummary };

/**
 * Signs every input of a PSBT with the wallet's keys and finalizes it. Each input must name this
 * wallet's master fingerprint and a BIP44 path of the wallet's network, and the key at that path
 * must be the one the PSBT records; anything else is refused before a signature is made.
 */
export function signPsbt(tx: Transaction, master: HDKey, network: CoreNetwork): SignedTransaction {
  const summary = summarizePsbt(tx, network);
  const coinType = dashParams(network).coinType;
  summary.inputs.forEach((input, i) => {
    const origin = input.origins.find((candidate) => candidate.fingerprint === master.fingerprint);
    if (!origin) {
      throw new WalletError(
        'INVALID_PARAM',
        `psbt input ${i} is not this wallet's: no key of fingerprint ${fingerprint(master)}.`,
      );
    }
    const [purpose, coin] = origin.path;
    if (purpose !== 44 + HARDENED || coin === undefined) {
      throw new WalletError('INVALID_PARAM', `psbt input ${i} names a key outside BIP44 (m/44'/…).`);
    }
    if (coin !== coinType + HARDENED) {
      throw new WalletError(
        'NETWORK_MISMATCH',
        `psbt input ${i} uses coin type ${coin - HARDENED}; a ${network} wallet signs with coin type ${coinType}.`,
      );
    }
    const key = master.derive(pathText(origin.path));
    if (!key.privateKey || !key.publicKey || !sameBytes(key.publicKey, origin.publicKey)) {
      throw new WalletError('INVALID_PARAM', `psbt input ${i} records a public key that its path does not derive.`);
    }
    // Only the P2PKH output of that very key: never a segwit or taproot script of the same key,
    // which another chain sharing coin type 1 (every testnet) could slip in.
    const script = tx.getInput(i).witnessUtxo?.script;
    const expected = decodeAddress(publicKeyAddress(key.publicKey, network));
    if (!script || !expected || !sameBytes(script, addressScript(expected))) {
      key.wipePrivateData();
      throw new WalletError('INVALID_PARAM', `psbt input ${i} does not spend a P2PKH output of this wallet's key.`);
    }
    try {
      tx.signIdx(key.privateKey, i);
      tx.finalizeIdx(i);
    } catch (error) {
      throw new WalletError(
        'INVALID_PARAM',
        `psbt input ${i} cannot be signed: ${error instanceof Error ? error.message.split('\n')[0] : 'unknown'}.`,
      );
    } finally {
      key.wipePrivateData();
    }
  });
  const bytes = tx.extract();
  return { hex: tx.hex, txid: tx.id, size: bytes.length, summary };
}

function pathText(path: readonly number[]): string {
  return `m/${path.map((n) => (n >= HARDENED ? `${n - HARDENED}'` : String(n))).join('/')}`;
}

function fingerprint(master: HDKey): string {
  return master.fingerprint.toString(16).padStart(8, '0');
}

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  return a.length === b.length && a.every((byte, i) => byte === b[i]);
}
