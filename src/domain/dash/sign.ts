import type { HDKey } from '@scure/bip32';
import type { CoreNetwork } from '../config/networks.js';
import { WalletError } from '../errors.js';
import type { WalletEntry } from '../keystore/wallet-record.js';
import { checkBackendNetwork } from '../net/backends.js';
import { reserveSpend } from '../policy/spending-policy.js';
import type { Authority } from '../policy/authority.js';
import type { WalletServices } from '../services.js';
import { wipe } from './keys.js';
import { backendFor, policyOf } from './network.js';
import { signPsbt } from './signer.js';
import { checkFee, checkPolicy } from './spend.js';
import { readPsbt, summarizePsbt, unsignedTxid } from './transaction.js';
import { openWallet, unlockMaster } from '../wallet/wallets.js';

export type SignedResult = { entry: WalletEntry; hex: string; txid: string; fee: bigint; size: number };

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
    const { value } = await reserveSpend(services.ledgers, policy, { ...spend, fee: summary.fee }, async () => {
      const signed = signWith(master, entry, tx);
      return { value: signed, txid: signed.txid };
    });
    return value;
  } finally {
    wipe(master);
  }
}

export function signWith(master: HDKey, entry: WalletEntry, tx: ReturnType<typeof readPsbt>): SignedResult {
  const signed = signPsbt(tx, master, entry.network);
  return { entry, hex: signed.hex, txid: signed.txid, fee: signed.summary.fee, size: signed.size };
}
