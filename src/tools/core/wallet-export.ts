import { z } from 'zod';
import { defineTool } from '../define.js';
import { WalletId } from '../fields.js';

/** The keystore and HD derivation load on a call's first use, not when another tool's call starts. */
const wallets = () => import('../../domain/wallet/wallets.js');

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
    const { exportWallet } = await wallets();
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
