import { join } from 'node:path';
import { z } from 'zod';
import { ensurePrivateDir, readPrivateText, writeFileAtomic } from '../../../shared/private-files.js';
import { hasSystemCode, WalletError } from '../../errors.js';
import { withNamedLock } from '../../keystore/lock.js';
import { MAX_PASSKEYS, PasskeySchema, type Passkey, type PasskeyRecords } from '../../policy/passkey-record.js';
import { readStateFile } from '../../policy/state-file.js';

const PASSKEYS_FILE_NAME = 'passkeys.json';
const FORMAT = 'wallet-passkeys';
const VERSION = 1;

const PasskeysFileSchema = z.strictObject({
  format: z.literal(FORMAT),
  version: z.literal(VERSION),
  passkeys: z.array(PasskeySchema).max(MAX_PASSKEYS),
});

/**
 * The owner's passkeys in the data directory: `<dataDir>/passkeys.json` (0600, replaced
 * atomically, changed under a cross-process lock).
 */
export function filePasskeys(dataDir: string): PasskeyRecords {
  const path = join(dataDir, PASSKEYS_FILE_NAME);
  const read = async (): Promise<Passkey[]> => (await readPasskeysFile(path))?.passkeys ?? [];
  return {
    path,
    read,
    enrolled: () => enrolledInFile(path),
    // The file is read at each ask: always now.
    enrolledNow: () => Promise.resolve(enrolledInFile(path)),
    change: async (update) => {
      ensurePrivateDir(dataDir);
      return withNamedLock(dataDir, 'passkeys', async () => {
        const { passkeys, result } = update(await read());
        writeFileAtomic(path, `${JSON.stringify({ format: FORMAT, version: VERSION, passkeys }, null, 2)}\n`);
        return result;
      });
    },
  };
}

/** The passkeys of a data directory's file (`wallet state import`); none when there is no file. */
export async function readPasskeysFile(path: string): Promise<{ passkeys: Passkey[] } | undefined> {
  return readStateFile(
    path,
    PasskeysFileSchema,
    `a ${FORMAT} file of version ${VERSION}`,
    (reason, cause) =>
      new WalletError('POLICY_VIOLATION', `The passkeys file ${path} is damaged (${reason}).`, {
        hint: 'Nothing is approved while it is: restore it, or delete it and enroll your passkeys again.',
        cause,
      }),
  );
}

/** A file that cannot be read or parsed counts as enrolled: a damaged file must not lift the requirement. */
function enrolledInFile(path: string): boolean {
  let text: string;
  try {
    text = readPrivateText(path);
  } catch (error) {
    return !hasSystemCode(error, 'ENOENT');
  }
  try {
    const parsed = PasskeysFileSchema.safeParse(JSON.parse(text));
    return !parsed.success || parsed.data.passkeys.length > 0;
  } catch {
    return true;
  }
}
