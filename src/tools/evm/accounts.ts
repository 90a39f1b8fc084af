import { z } from 'zod';
import type { EvmAccount } from '../../domain/evm/accounts.js';
import { defineTool } from '../define.js';
import { Alias, EvmAccount as AccountRef, WalletId, secretString } from '../fields.js';

/** The EVM domain (and viem) load on a call's first use, not when a Dash call starts the CLI. */
const evmAccounts = () => import('../../domain/evm/accounts.js');

const AccountFields = {
  address: z.string().describe('The account address, EIP-55 checksummed.'),
  alias: z.string().nullable().describe("The account's alias, or null."),
  source: z.enum(['derived', 'imported']).describe("derived from a wallet's seed, or an imported key."),
  wallet_id: z.string().nullable().describe('The fingerprint of the wallet whose seed derives it; null if imported.'),
  index: z.int().nullable().describe("Its index i in m/44'/60'/0'/0/i; null if imported."),
  path: z.string().nullable().describe('Its BIP44 path; null if imported.'),
};

function accountFields(account: EvmAccount) {
  return {
    address: account.address,
    alias: account.alias,
    source: account.source,
    wallet_id: account.wallet?.id ?? null,
    index: account.index,
    path: account.path,
  };
}

const AccountAlias = Alias.optional().describe(
  'An alias for the account. Usable as its address wherever an address of yours is asked for; a lower-case letter, then letters, digits, - or _.',
);

export const evmAccountsList = defineTool({
  name: 'evm_accounts_list',
  group: 'evm_account',
  title: 'List EVM accounts',
  summary: 'List the EVM accounts in the keystore',
  description: [
    "Lists every EVM account: those derived from a wallet's seed (m/44'/60'/0'/0/i, by wallet and",
    'index) and imported keys. Needs no passphrase and never shows a key. The same address is used',
    'on every EVM network.',
    '',
    'Example: wallet evm-accounts-list --wallet-id main',
  ].join('\n'),
  input: () =>
    z.strictObject({
      wallet_id: WalletId.optional().describe("Only this wallet's derived accounts. Its alias or fingerprint."),
    }),
  output: () =>
    z.object({
      accounts: z.array(z.object(AccountFields)).describe('Derived accounts by wallet and index, then imported keys.'),
      unreadable_files: z.array(z.string()).describe('Keystore files that are damaged or of an unknown format.'),
    }),
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  handler: async ({ wallet_id }, { services }) => {
    const { listAccounts } = await evmAccounts();
    const { accounts, unreadable } = await listAccounts(services, wallet_id);
    return { accounts: accounts.map(accountFields), unreadable_files: unreadable };
  },
});

export const evmAccountCreate = defineTool({
  name: 'evm_account_create',
  group: 'evm_account',
  receiveAddressField: 'address',
  title: 'New EVM account',
  summary: "Derive the next EVM account from a wallet's seed",
  description: [
    "Derives the wallet's next Ethereum account, m/44'/60'/0'/0/i (as MetaMask and Ledger Live do),",
    'and records it in the keystore under the lock, so no two calls get the same index. The first',
    "account of a wallet needs the keystore passphrase (to store the wallet's EVM xpub); later ones",
    'derive from that xpub without it.',
    '',
    'Example: wallet evm-account-create --wallet-id main --alias savings',
  ].join('\n'),
  input: () => z.strictObject({ wallet_id: WalletId, alias: AccountAlias }),
  output: () =>
    z.object({
      address: AccountFields.address,
      path: z.string().describe("Its BIP44 path, m/44'/60'/0'/0/i."),
      index: z.int().describe('Its index i.'),
      wallet_id: z.string().describe("The wallet's fingerprint."),
      alias: AccountFields.alias,
    }),
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  handler: async ({ wallet_id, alias }, { services }) => {
    const { createAccount } = await evmAccounts();
    const account = await createAccount(services, { walletId: wallet_id, alias: alias ?? null });
    return {
      address: account.address,
      path: account.path ?? '',
      index: account.index ?? 0,
      wallet_id: account.wallet?.id ?? '',
      alias: account.alias,
    };
  },
});

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
