import type { z } from 'zod';
import { readPrivateText, UnsafeFileError } from '../../shared/private-files.js';
import { asWalletError, hasSystemCode, type WalletError } from '../errors.js';

/**
 * Reads one of the policy's state files (a spend ledger, the approvals): undefined when there is
 * none yet. A file that cannot be read, is not JSON, or is not `schema` (described as `what`) is
 * `damaged(reason, cause)`, never taken as empty: an empty ledger would lift a cap. A link or a
 * file others can write is refused as such ({@link readPrivateText}).
 */
export async function readStateFile<T>(
  path: string,
  schema: z.ZodType<T>,
  what: string,
  damaged: (reason: string, cause: unknown) => WalletError,
): Promise<T | undefined> {
  let text: string;
  try {
    text = readPrivateText(path);
  } catch (error) {
    if (hasSystemCode(error, 'ENOENT')) return undefined;
    if (error instanceof UnsafeFileError) throw asWalletError(error);
    throw damaged('it cannot be read', error);
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw damaged('it is not valid JSON', error);
  }
  const parsed = schema.safeParse(json);
  if (!parsed.success) throw damaged(`it is not ${what}`, parsed.error);
  return parsed.data;
}
