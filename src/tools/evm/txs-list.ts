import { z } from 'zod';
import { defineTool } from '../define.js';
import { EvmAccount, OptionalEvmNetwork, tokenUnitsOf, Wei } from '../fields.js';

/** The EVM domain (and viem) load on a call's first use. */
const history = () => import('../../domain/evm/history.js');

const DEFAULT_LIMIT = 20;

export const evmTxsList = defineTool({
  name: 'evm_txs_list',
  group: 'evm_account',
  title: 'List sent EVM transactions',
  summary: 'List EVM transactions this wallet sent',
  description: [
    "Plain JSON-RPC keeps no history by address, so this lists the wallet's own record: every",
    'transaction evm_tx_send, evm_funds_send and evm_token_transfer broadcast on the network (its',
    'chain id), newest first, with its live status from the node: pending (the node has it, not',
    'mined), success or reverted (with block, confirmations and fee), or unknown (the node has never',
    'seen it: dropped, or another node). Received payments are not listed. address keeps only what',
    'that account sent. The record (history/evm-<chain id>.json in the data directory, owner-only;',
    "with a PostgreSQL state store, the store's: what every replica sent) lists the latest 1000",
    'transactions and holds no secret.',
    '',
    'Example: wallet evm-txs-list --network sepolia --address spend --limit 10',
  ].join('\n'),
  input: () =>
    z.strictObject({
      network: OptionalEvmNetwork,
      address: EvmAccount.optional().describe('Only what this account sent. A keystore address or alias.'),
      limit: z.int().min(1).max(50).optional().describe(`Per page. At most 50; ${DEFAULT_LIMIT} when omitted.`),
      page: z.int().min(1).optional().describe('Page, from 1 (newest). 1 when omitted.'),
    }),
  output: () =>
    z.object({
      network: z.string().describe('The EVM network.'),
      chain_id: z.int().describe('Its chain id.'),
      total: z.int().describe('How many transactions the record holds (for address: that account).'),
      page: z.int().describe('This page, from 1.'),
      limit: z.int().describe('Transactions per page.'),
      txs: z
        .array(
          z.object({
            hash: z.string().describe('The transaction hash.'),
            from: z.string().describe('The sender.'),
            to: z.string().nullable().describe('The recipient or contract called; null for a deployment.'),
            value_wei: Wei.describe('The value sent, in wei.'),
            nonce: z.int().describe("The sender's nonce."),
            sent_at: z.string().describe('When the wallet broadcast it (ISO 8601, UTC).'),
            token: z.string().nullable().describe('For an ERC-20 transfer: the token contract; else null.'),
            token_to: z.string().nullable().describe('For an ERC-20 transfer: the recipient of the tokens.'),
            token_amount: tokenUnitsOf('token')
              .nullable()
              .describe('For an ERC-20 transfer: the amount, in base units.'),
            status: z
              .enum(['pending', 'success', 'reverted', 'unknown'])
              .describe('pending, success, reverted, or unknown (the node has never seen it).'),
            block_number: z.int().nullable().describe('The block that mined it; null unless mined.'),
            confirmations: z.int().describe('Blocks on top of it, its own included; 0 unless mined.'),
            fee_wei: Wei.nullable().describe('The fee paid, gas used × effective gas price; null unless mined.'),
          }),
        )
        .describe('The transactions, newest first.'),
    }),
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: true },
  handler: async ({ network, address, limit, page }, { services, signal }) => {
    const { listSent } = await history();
    const pageNumber = page ?? 1;
    const listed = await listSent(
      services,
      { network, address, limit: limit ?? DEFAULT_LIMIT, page: pageNumber },
      signal,
    );
    return {
      network: listed.network,
      chain_id: listed.chainId,
      total: listed.total,
      page: pageNumber,
      limit: limit ?? DEFAULT_LIMIT,
      txs: listed.txs.map((tx) => ({
        hash: tx.hash,
        from: tx.from,
        to: tx.to,
        value_wei: tx.value,
        nonce: tx.nonce,
        sent_at: tx.sent_at,
        token: tx.token?.address ?? null,
        token_to: tx.token?.to ?? null,
        token_amount: tx.token?.amount ?? null,
        status: tx.status,
        block_number: tx.blockNumber === null ? null : Number(tx.blockNumber),
        confirmations: Number(tx.confirmations),
        fee_wei: tx.fee === null ? null : tx.fee.toString(),
      })),
    };
  },
});
