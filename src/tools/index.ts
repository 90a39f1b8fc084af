import { ToolCatalogue } from './catalogue.js';
import type { AnyTool } from './define.js';
import type { Profile } from '../shared/profiles.js';
import { getToolDefinition } from './meta/get-tool-definition.js';
import { networkInfo } from './meta/network-info.js';
import { toolDescribe } from './meta/tool-describe.js';
import { coreAddressCreate } from './core/address-create.js';
import { coreAddressesDiscover } from './core/addresses-discover.js';
import { coreAddressesList } from './core/addresses-list.js';
import { coreAddressValidate } from './core/address-validate.js';
import { coreBalancesGet } from './core/balances-get.js';
import { coreUtxosList } from './core/utxos-list.js';
import { coreTxsList } from './core/txs-list.js';
import { coreFundsSend } from './core/funds-send.js';
import { coreTxCreate } from './core/tx-create.js';
import { coreTxSend } from './core/tx-send.js';
import { coreTxSign } from './core/tx-sign.js';
import { coreMessageSign } from './core/message-sign.js';
import { coreMessageVerify } from './core/message-verify.js';
import { coreWalletCreate } from './core/wallet-create.js';
import { coreWalletDelete } from './core/wallet-delete.js';
import { coreWalletExport } from './core/wallet-export.js';
import { coreWalletImport } from './core/wallet-import.js';
import { coreWalletPassphraseChange } from './core/wallet-passphrase-change.js';
import { coreWalletsList } from './core/wallets-list.js';
import { evmAccountCreate } from './evm/account-create.js';
import { evmAccountExport } from './evm/account-export.js';
import { evmAccountImport } from './evm/account-import.js';
import { evmAccountsList } from './evm/accounts-list.js';
import { evmBalanceGet } from './evm/balance-get.js';
import { evmTxsList } from './evm/txs-list.js';
import { evmMessageSign } from './evm/message-sign.js';
import { evmMessageVerify } from './evm/message-verify.js';
import { evmTypedDataSign } from './evm/typed-data-sign.js';
import { evmTokenTransfer } from './evm/token-transfer.js';
import { evmFundsSend } from './evm/funds-send.js';
import { evmTxCreate } from './evm/tx-create.js';
import { evmTxGet } from './evm/tx-get.js';
import { evmTxSend } from './evm/tx-send.js';
import { evmTxSign } from './evm/tx-sign.js';
import { evmX402Fetch } from './evm/x402-fetch.js';

/** Every tool of the wallet. Adding a tool is one line here. */
export const ALL_TOOLS: readonly AnyTool[] = [
  // meta
  networkInfo,
  toolDescribe,
  getToolDefinition,
  // core: Dash Core wallets
  coreWalletsList,
  coreWalletCreate,
  coreWalletImport,
  coreWalletExport,
  coreWalletDelete,
  coreWalletPassphraseChange,
  coreAddressCreate,
  coreAddressesList,
  coreAddressValidate,
  coreAddressesDiscover,
  coreBalancesGet,
  coreUtxosList,
  coreTxsList,
  coreTxCreate,
  coreTxSign,
  coreTxSend,
  coreFundsSend,
  coreMessageSign,
  coreMessageVerify,
  // evm: Ethereum and EVM chains
  evmAccountsList,
  evmAccountCreate,
  evmAccountImport,
  evmAccountExport,
  evmBalanceGet,
  evmTxCreate,
  evmTxSign,
  evmTxSend,
  evmTxGet,
  evmTxsList,
  evmFundsSend,
  evmTokenTransfer,
  evmMessageSign,
  evmMessageVerify,
  evmTypedDataSign,
  evmX402Fetch,
];

export type ServedToolsOptions = {
  /** Include tools that reveal or accept secrets: only the local CLI does. */
  localOnly: boolean;
  /** Only tools whose annotations say read-only (`wallet serve --read-only`). */
  readOnly: boolean;
  /** How tools/list shows them (`wallet serve --profile`); `default` when not given. */
  profile?: Profile | undefined;
};

/** The catalogue a server serves: all tools, less the local-only ones unless asked, less writers when read-only. */
export function servedTools(options: ServedToolsOptions, tools: readonly AnyTool[] = ALL_TOOLS): ToolCatalogue {
  return new ToolCatalogue(
    tools.filter(
      (tool) => (options.localOnly || tool.localOnly !== true) && (!options.readOnly || tool.annotations.readOnlyHint),
    ),
    options.profile,
  );
}

export { ToolCatalogue, definitionsDigest, describeTool, leanInputSchema } from './catalogue.js';
export * from './profiles.js';
export type { AnyTool, ToolContext } from './define.js';
