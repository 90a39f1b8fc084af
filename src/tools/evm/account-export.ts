import { z } from 'zod';
import { defineTool } from '../define.js';
import { EvmAccount as AccountRef, secretString } from '../fields.js';
import { AccountFields } from './account-fields.js';

/** The EVM domain (and viem) load on a call's first use, not when a Dash call starts the CLI. */
const evmAccounts = () => import('../../domain/evm/accounts.js');

export const evmAccountExport = defineTool({
  name: 'evm_account_export',
  group: 'evm_account',
  title: 'Export an EVM key',
  summary: "Export an account's key or keystore v3 JSON (local only)",
  description: [
    "Unlocks an account's private key for a backup or another wallet: as a keystore v3 JSON",
    '(default; scrypt-encrypted with keystore_password, or with the keystore passphrase when none is',
    'given) or as raw hex. Anyone with the raw key controls the funds on every EVM chain. Only the',
    'local CLI offers this tool, never `wallet serve`.',
    '',
    'Example: wallet evm-account-export --address savings --keystore-password-stdin',
  ].join('\n'),
  input: () =>
    z.strictObject({
      address: AccountRef,
      key_format: z
        .enum(['keystore_v3', 'private_key'])
        .default('keystore_v3')
        .describe('keystore_v3 (encrypted JSON, the default) or private_key (raw hex).'),
      keystore_password: secretString(
        'The password for the keystore v3 JSON; the keystore passphrase when omitted.',
      ).optional(),
    }),
  output: () =>
    z.object({
      address: AccountFields.address,
      key_format: z.enum(['keystore_v3', 'private_key']).describe('What was exported.'),
      private_key: z.string().nullable().describe('The private key in hex (key_format private_key), else null.'),
      keystore_json: z
        .string()
        .nullable()
        .describe('The keystore v3 JSON document (key_format keystore_v3), else null.'),
    }),
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  localOnly: true,
  handler: async ({ address, key_format, keystore_password }, { services }) => {
    const { exportAccount } = await evmAccounts();
    const exported = await exportAccount(services, {
      ref: address,
      format: key_format,
      keystorePassword: keystore_password,
    });
    return {
      address: exported.account.address,
      key_format,
      private_key: exported.privateKey,
      keystore_json: exported.keystoreJson,
    };
  },
});
