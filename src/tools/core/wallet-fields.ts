import { z } from 'zod';
import type { WalletSummary } from '../../domain/wallet/wallets.js';

/** What every result about a wallet says of it (core_wallets_list, core_wallet_create, core_wallet_import). */
export const WalletFields = {
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

export function walletFields(summary: WalletSummary) {
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
