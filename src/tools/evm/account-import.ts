import { z } from 'zod';
import { defineTool } from '../define.js';
import { secretString } from '../fields.js';
import { AccountAlias, AccountFields } from './account-fields.js';

/** The EVM domain (and viem) load on a call's first use, not when a Dash call starts the CLI. */
const evmAccounts = () => import('../../domain/evm/accounts.js');

export const evmAccountImport = defineTool({
  name: 'evm_account_import',
  group: 'evm_account',
  title: 'Import an EVM key',
  summary: 'Import a private key or keystore v3 JSON (local only)',
  description: [
    'Adds an EVM account from a raw private key (64 hex digits) or a standard keystore v3 JSON file',
    "(geth, MetaMask, ethers) with its password. The key is sealed under this wallet's keystore",
    'passphrase (--passphrase-file, --passphrase-stdin or the prompt) in its own owner-only file.',
    'Secrets come from a prompt, stdin or an owner-only file, never from argv; only the local CLI',
    'offers this tool, never `wallet serve`.',
    '',
    'Example: wallet evm-account-import --keystore-json-file ./UTC--2024-01-01T00-00-00Z--f39fd6e5.json --keystore-password-stdin --alias old',
  ].join('\n'),
  input: () =>
    z.strictObject({
      private_key: secretString(
        'The private key, 32 bytes in hex (0x optional). Give this or keystore_json.',
      ).optional(),
      keystore_json: secretString('A keystore v3 JSON document, as geth or MetaMask export it.').optional(),
      keystore_password: secretString('The password keystore_json was saved with.').optional(),
      alias: AccountAlias,
    }),
  output: () =>
    z.object({
      address: AccountFields.address,
      alias: AccountFields.alias,
      source: AccountFields.source,
    }),
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  localOnly: true,
  handler: async ({ private_key, keystore_json, keystore_password, alias }, { services }) => {
    const { importAccount } = await evmAccounts();
    const account = await importAccount(services, {
      privateKey: private_key,
      keystoreJson: keystore_json,
      keystorePassword: keystore_password,
      alias: alias ?? null,
    });
    return { address: account.address, alias: account.alias, source: account.source };
  },
});
