import type { CoreNetwork } from '../../domain/config/networks.js';
import type { TransactionGist } from '../../domain/dash/transaction.js';

/** A transaction's outputs for the audit line and the confirmation; undefined when it does not decode. */
export async function readableGist(
  encoded: { psbt: string } | { hex: string },
  network: CoreNetwork,
): Promise<TransactionGist | undefined> {
  const { transactionGist } = await import('../../domain/dash/transaction.js');
  try {
    return transactionGist(encoded, network);
  } catch {
    return undefined;
  }
}

/** Every output's address, change included (what a transaction pays before anyone sorts out change). */
export function outputAddresses(gist: TransactionGist | undefined): string[] | undefined {
  return gist?.outputs.map((out) => out.address ?? '(no address)');
}
