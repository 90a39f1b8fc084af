import { z } from 'zod';
import type { EvmAccount } from '../../domain/evm/accounts.js';
import { defineTool } from '../define.js';
import { WalletId } from '../fields.js';
import { AccountFields } from './account-fields.js';

/** The EVM domain (and viem) load on a call's first use, not when a Dash call starts the CLI. */
const evmAccounts = () => import('../../domain/evm/accounts.js');

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
