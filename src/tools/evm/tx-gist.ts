import type { TransactionGist } from '../../domain/evm/transaction.js';

/** A transaction's gist for the audit line and the confirmation; undefined when it does not decode. */
export async function readableGist(hex: string, field: string): Promise<TransactionGist | undefined> {
  const { transactionGist } = await import('../../domain/evm/transaction.js');
  try {
    return transactionGist(hex, field);
  } catch {
    return undefined;
  }
}

export function gistFields(gist: TransactionGist | undefined) {
  if (!gist) return {};
  return {
    amount: gist.value.toString(),
    unit: 'wei' as const,
    recipient: gist.to ?? '(contract creation)',
    fee: gist.maxFee.toString(),
  };
}
