import { WalletError } from '../domain/errors.js';
import { BusyError, UsageError } from '../shared/usage-error.js';

/**
 * Runs one of the owner's own verbs on the wallet's files (`wallet config`, `wallet networks add`,
 * `wallet approvals`, servers.json's lock): a refusal (an unknown key, an approval already
 * decided, a damaged file) is a usage error (exit 2) with its code and hint, a held lock is BUSY.
 */
export async function asOwnerVerb<T>(task: () => Promise<T>): Promise<T> {
  try {
    return await task();
  } catch (error) {
    if (error instanceof WalletError && error.code === 'BUSY') {
      throw new BusyError(`${error.code}: ${error.message}`, error.hint);
    }
    if (error instanceof WalletError) throw new UsageError(`${error.code}: ${error.message}`, error.hint);
    throw error;
  }
}
