import { z } from 'zod';
import type { WalletSummary } from '../../domain/dash/wallets.js';
import type { WalletServices } from '../../domain/services.js';
import { defineTool } from '../define.js';
import { Alias, CoreNetwork, OptionalCoreNetwork, RequiredCoreNetwork, WalletId, secretString } from '../fields.js';

/** The keystore and HD derivation load on a call's first use, not when another tool's call starts. */
const dashWallets = () => import('../../domain/dash/wallets.js');

const WalletFields = {
  wallet_id: z
    .string()
    .describe("The wallet's fingerprint: 8 hex digits of its BIP32 master key, stable across aliases."),
  alias: z.string().describe("The wallet's alias."),
  network: z.string().describe('The Dash network the wallet belongs to.'),
  account_path: z.string().describe("The BIP44 account path, m/44'/5'/0' on mainnet, m/44'/1'/0' elsewhere."),
  account_xpub: z.string().describe("The account's extended public key (watch-only: reveals addresses, cannot spend)."),
  receive_addresses: z.int().describe('How many receive addresses have been handed out.'),
  change_addresses: z.int().describe('How many change addresses have been used.'),
};

function walletFields(summary: WalletSummary) {
  return {
    wallet_id: summary.walletId,
    alias: summary.alias,
    network: summary.network,
    account_path: summary.accountPath,
    account_xpub: summary.accountXpub,
    receive_addresses: summary.receiveAddresses,
    change_addresses: summary.changeAddresses,
  };
}

/** The network a new wallet gets: the one given, else the configured Dash default. */
async function defaultNetwork(network: z.infer<typeof OptionalCoreNetwork>, services: WalletServices) {
  return network ?? CoreNetwork.parse((await services.network('core', undefined)).network);
}

export const coreWalletsList = defineTool({
  name: 'core_wallets_list',
  group: 'core_wallet',
  title: 'List Dash wallets',
  summary: 'List the Dash wallets in the keystore',
  description: [
    'Lists every wallet in the keystore with its alias, fingerprint (wallet_id), network, account',
    'xpub and how many receive and change addresses it has handed out. Needs no passphrase and',
    'never shows a secret. Keystore files that cannot be read are listed in unreadable_files.',
    '',
    'Example: wallet core-wallets-list',
  ].join('\n'),
  input: () => z.strictObject({}),
  output: () =>
    z.object({
      wallets: z
        .array(z.object({ ...WalletFields, created_at: z.string().describe('When the wallet was added (ISO 8601).') }))
        .describe('The wallets, by alias.'),
      unreadable_files: z.array(z.string()).describe('Keystore files that are damaged or of an unknown format.'),
    }),
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  handler: async (_input, { services }) => {
    const { listWallets } = await dashWallets();
    const { wallets, unreadable } = await listWallets(services);
    return {
      wallets: wallets.map((wallet) => ({ ...walletFields(wallet), created_at: wallet.createdAt })),
      unreadable_files: unreadable,
    };
  },
});

export const coreWalletCreate = defineTool({
  name: 'core_wallet_create',
  group: 'core_wallet',
  title: 'Create a Dash wallet',
  summary: 'Create a new HD wallet (BIP39 mnemonic, encrypted)',
  description: [
    'Creates a BIP39 wallet from fresh randomness and stores it in the keystore, the mnemonic',
    'encrypted under the keystore passphrase (scrypt + AES-256-GCM). The mnemonic is never returned:',
    'back it up with core-wallet-export, which only the local CLI serves.',
    '',
    'Needs the keystore passphrase (at least 8 characters): the CLI asks for it twice on a terminal,',
    'or takes --passphrase-file / --passphrase-stdin; wallet serve uses its --passphrase-file.',
    '',
    'Example: wallet core-wallet-create --alias main --network testnet',
  ].join('\n'),
  input: () =>
    z.strictObject({
      alias: Alias,
      network: OptionalCoreNetwork.describe(
        'The Dash network of the wallet; the configured default (testnet) when omitted.',
      ),
      words: z
        .union([z.literal(12), z.literal(24)])
        .default(12)
        .describe('Mnemonic length in words. 12 (128 bits) or 24 (256 bits).'),
    }),
  output: () =>
    z.object({
      ...WalletFields,
      backup: z.string().describe('How to back up the mnemonic, which this result never contains.'),
    }),
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  handler: async ({ alias, network, words }, { services }) => {
    const { createWallet, summarize } = await dashWallets();
    const entry = await createWallet(services, { alias, network: await defaultNetwork(network, services), words });
    return {
      ...walletFields(summarize(entry)),
      backup: `Back up the mnemonic now, locally: wallet core-wallet-export --wallet-id ${entry.alias}`,
    };
  },
});

export const coreWalletImport = defineTool({
  name: 'core_wallet_import',
  group: 'core_wallet',
  title: 'Import a Dash wallet',
  summary: 'Import a wallet from its BIP39 mnemonic (local only)',
  description: [
    'Adds a wallet from an existing 12- or 24-word BIP39 mnemonic (and its optional BIP39',
    'passphrase), encrypted under the keystore passphrase. Then, unless discover is false, it asks',
    "the network's backend which addresses were used (BIP44 gap limit 20 on the receive and change",
    'chains) so balances include them. If the backend cannot be reached the wallet is still imported',
    'and discovery reports failed: run core-addresses-discover later.',
    '',
    'Local CLI only: the mnemonic is a secret, read from a hidden prompt, --mnemonic-stdin or',
    '--mnemonic-file <owner-only file>, never from the command line.',
    '',
    'Example: wallet core-wallet-import --alias old --network testnet --mnemonic-file ./words.txt --passphrase-file ./pw',
  ].join('\n'),
  input: () =>
    z.strictObject({
      alias: Alias,
      network: OptionalCoreNetwork.describe('The Dash network of the wallet; the configured default when omitted.'),
      mnemonic: secretString('The BIP39 mnemonic: 12 or 24 English words separated by spaces.'),
      mnemonic_passphrase: secretString('The optional BIP39 passphrase ("25th word"); empty when omitted.').optional(),
      discover: z
        .boolean()
        .default(true)
        .describe('Scan the chain for used addresses after importing (needs the backend).'),
    }),
  output: () =>
    z.object({
      ...WalletFields,
      discovery: z.enum(['done', 'skipped', 'failed']).describe('Whether address discovery ran and finished.'),
      discovery_error: z.string().nullable().describe('Why discovery failed; null otherwise.'),
    }),
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
  localOnly: true,
  handler: async ({ alias, network, mnemonic, mnemonic_passphrase, discover }, { services, progress, signal }) => {
    const [{ importAndDiscover }, { summarize }] = await Promise.all([
      import('../../domain/dash/import.js'),
      dashWallets(),
    ]);
    const result = await importAndDiscover(
      services,
      {
        alias,
        network: await defaultNetwork(network, services),
        mnemonic,
        mnemonicPassphrase: mnemonic_passphrase ?? '',
        discover,
      },
      { progress, signal },
    );
    return {
      ...walletFields(summarize(result.entry)),
      discovery: result.discovery,
      discovery_error: result.discoveryError,
    };
  },
});

export const coreWalletExport = defineTool({
  name: 'core_wallet_export',
  group: 'core_wallet',
  title: 'Export a Dash wallet',
  summary: "Reveal a wallet's mnemonic for backup (local only)",
  description: [
    'Unlocks a wallet with the keystore passphrase and returns its BIP39 mnemonic and BIP39',
    'passphrase, for writing down or moving to another wallet. Anyone with the mnemonic controls the',
    'funds: the local CLI serves this tool, wallet serve never does.',
    '',
    'Example: wallet core-wallet-export --wallet-id main',
  ].join('\n'),
  input: () => z.strictObject({ wallet_id: WalletId }),
  output: () =>
    z.object({
      wallet_id: z.string().describe("The wallet's fingerprint."),
      alias: z.string().describe("The wallet's alias."),
      network: z.string().describe("The wallet's Dash network."),
      mnemonic: z.string().describe('SECRET: the BIP39 mnemonic.'),
      mnemonic_passphrase: z.string().describe('SECRET: the BIP39 passphrase; empty when none.'),
    }),
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  localOnly: true,
  handler: async ({ wallet_id }, { services }) => {
    const { exportWallet } = await dashWallets();
    const exported = await exportWallet(services, wallet_id);
    return {
      wallet_id: exported.entry.id,
      alias: exported.entry.alias,
      network: exported.entry.network,
      mnemonic: exported.mnemonic,
      mnemonic_passphrase: exported.mnemonicPassphrase,
    };
  },
});

export const coreWalletDelete = defineTool({
  name: 'core_wallet_delete',
  group: 'core_wallet',
  title: 'Delete a Dash wallet',
  summary: 'Delete a wallet from the keystore (irreversible)',
  description: [
    'Removes a wallet from the keystore for good. Without a backup of its mnemonic its funds are',
    "lost. Three checks first: network must be the wallet's, confirm_fingerprint must be its",
    'fingerprint (wallet_id in core-wallets-list), and the keystore passphrase must unlock it.',
    '',
    'Example: wallet core-wallet-delete --wallet-id old --network testnet --confirm-fingerprint 73c5da0a',
  ].join('\n'),
  input: () =>
    z.strictObject({
      wallet_id: WalletId,
      network: RequiredCoreNetwork,
      confirm_fingerprint: z
        .string()
        .min(1)
        .max(16)
        .describe("The wallet's fingerprint, to confirm. Type out its 8 hex digits."),
    }),
  output: () =>
    z.object({
      deleted: z.boolean().describe('True: the wallet is gone.'),
      wallet_id: z.string().describe('The fingerprint of the deleted wallet.'),
      alias: z.string().describe('The alias it had.'),
      network: z.string().describe('Its network.'),
    }),
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
  // Irreversible, and its confirmation is readable by any caller of core_wallets_list: never autonomous.
  consent: 'human',
  precheck: async ({ wallet_id, network, confirm_fingerprint }, { services }) => {
    const { walletToDelete } = await dashWallets();
    await walletToDelete(services, { walletId: wallet_id, network, confirmFingerprint: confirm_fingerprint });
  },
  handler: async ({ wallet_id, network, confirm_fingerprint }, { services }) => {
    const { deleteWallet } = await dashWallets();
    const entry = await deleteWallet(services, {
      walletId: wallet_id,
      network,
      confirmFingerprint: confirm_fingerprint,
    });
    return { deleted: true, wallet_id: entry.id, alias: entry.alias, network: entry.network };
  },
  audit: (input, output) => ({ network: input.network, wallet_id: output?.wallet_id ?? input.wallet_id }),
});

export const coreWalletPassphraseChange = defineTool({
  name: 'core_wallet_passphrase_change',
  group: 'core_wallet',
  title: 'Change the keystore passphrase',
  summary: 'Re-encrypt the keystore under a new passphrase (local only)',
  description: [
    'The keystore has one passphrase: every wallet and imported EVM key is sealed with it. This',
    're-encrypts all of them under new_passphrase, all or nothing: each file is opened with the',
    'current passphrase first, the new files are written beside the old ones, and only then',
    'renamed over them; on any failure nothing changes and the old passphrase keeps working.',
    '',
    'A keystore from before the one-passphrase rule may hold a wallet sealed with a passphrase of',
    "its own: bring it over with wallet_id, starting the CLI with that wallet's passphrase and",
    'giving the keystore passphrase as new_passphrase.',
    '',
    'Local CLI only: new_passphrase is a secret, read from a hidden prompt, --new-passphrase-stdin',
    'or --new-passphrase-file <owner-only file>.',
    '',
    'Example: wallet core-wallet-passphrase-change --passphrase-file ./old --new-passphrase-file ./new',
  ].join('\n'),
  input: () =>
    z.strictObject({
      new_passphrase: secretString('The new keystore passphrase, 8 characters or more.'),
      wallet_id: WalletId.describe(
        'Only this wallet: one sealed with a passphrase of its own, brought to the keystore passphrase.',
      ),
    }),
  output: () =>
    z.object({
      wallets: z.array(z.string()).describe('The aliases of the wallets re-encrypted.'),
      imported_keys: z.int().describe('How many imported EVM keys were re-encrypted.'),
    }),
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  localOnly: true,
  handler: async ({ new_passphrase, wallet_id }, { services }) => {
    const { changeKeystorePassphrase } = await dashWallets();
    const changed = await changeKeystorePassphrase(services, { newPassphrase: new_passphrase, walletId: wallet_id });
    return { wallets: changed.wallets.map((entry) => entry.alias), imported_keys: changed.keys };
  },
});
