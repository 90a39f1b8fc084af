import { z } from 'zod';
import { defineTool } from '../define.js';
import { Alias, OptionalCoreNetwork, secretString } from '../fields.js';
import { defaultNetwork } from './default-network.js';
import { WalletFields, walletFields } from './wallet-fields.js';

/** The keystore and HD derivation load on a call's first use, not when another tool's call starts. */
const wallets = () => import('../../domain/wallet/wallets.js');

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
      wallets(),
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
