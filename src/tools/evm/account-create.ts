import { z } from 'zod';
import { defineTool } from '../define.js';
import { WalletId } from '../fields.js';
import { AccountAlias, AccountFields } from './account-fields.js';

/** The EVM domain (and viem) load on a call's first use, not when a Dash call starts the CLI. */
const evmAccounts = () => import('../../domain/evm/accounts.js');

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
