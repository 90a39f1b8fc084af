import { z } from 'zod';
import { defineTool } from '../define.js';
import { Alias, OptionalCoreNetwork } from '../fields.js';
import { defaultNetwork } from './default-network.js';
import { WalletFields, walletFields } from './wallet-fields.js';

/** The keystore and HD derivation load on a call's first use, not when another tool's call starts. */
const wallets = () => import('../../domain/wallet/wallets.js');

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
    const { createWallet, summarize } = await wallets();
    const entry = await createWallet(services, { alias, network: await defaultNetwork(network, services), words });
    return {
      ...walletFields(summarize(entry)),
      backup: `Back up the mnemonic now, locally: wallet core-wallet-export --wallet-id ${entry.alias}`,
    };
  },
});
