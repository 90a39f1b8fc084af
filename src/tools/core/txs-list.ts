import { z } from 'zod';
import { defineTool } from '../define.js';
import { Duffs, OptionalCoreNetwork, WalletId } from '../fields.js';

/** The history module loads on a call's first use. */
const history = () => import('../../domain/dash/history.js');

const DEFAULT_LIMIT = 20;

export const coreTxsList = defineTool({
  name: 'core_txs_list',
  group: 'core_address',
  title: 'List wallet transactions',
  summary: "List a Dash wallet's transactions",
  description: [
    'Lists the transactions that touched any address the wallet has handed out (receive and change),',
    'newest first (unconfirmed ones on top): txid, time, confirmations, direction (incoming, or',
    'outgoing when it spent wallet coins), the net amount for the wallet in duffs, and the fee when',
    'the backend tells it (an Insight explorer does; the address index of a core-rpc node does not).',
    'Pages of limit (at most 50) transactions; total says how many there are. No passphrase needed.',
    'A core-rpc node needs the address index (Dash Core with addressindex=1): without it the call is',
    'refused with BACKEND_INVALID; an Insight endpoint always has it.',
    '',
    'Example: wallet core-txs-list --wallet-id main --limit 10 --page 2',
  ].join('\n'),
  input: () =>
    z.strictObject({
      wallet_id: WalletId,
      network: OptionalCoreNetwork,
      limit: z.int().min(1).max(50).optional().describe(`Per page. At most 50; ${DEFAULT_LIMIT} when omitted.`),
      page: z.int().min(1).optional().describe('Page, from 1 (newest). 1 when omitted.'),
    }),
  output: () =>
    z.object({
      wallet_id: z.string().describe("The wallet's fingerprint."),
      network: z.string().describe("The wallet's network."),
      backend: z.string().describe('The backend kind asked (core-rpc or insight).'),
      total: z.int().describe("How many transactions the wallet's addresses have in all."),
      page: z.int().describe('This page, from 1.'),
      limit: z.int().describe('Transactions per page.'),
      txs: z
        .array(
          z.object({
            txid: z.string().describe('Transaction id.'),
            time: z.int().nullable().describe('Block time (mempool: first seen), Unix seconds; null if unknown.'),
            height: z.int().nullable().describe('Block height; null while in the mempool.'),
            confirmations: z.int().describe('Confirmations; 0 while in the mempool.'),
            direction: z
              .enum(['incoming', 'outgoing'])
              .describe('outgoing when it spent wallet coins (the wallet sent it), else incoming.'),
            amount_duffs: Duffs.describe('What it changed in the balance, in duffs, without sign (see direction).'),
            fee_duffs: Duffs.nullable().describe('The fee the wallet paid, in duffs; null when unknown or not ours.'),
          }),
        )
        .describe('The transactions, newest first.'),
    }),
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: true },
  handler: async ({ wallet_id, network, limit, page }, { services, signal }) => {
    const { walletHistory } = await history();
    const pageNumber = page ?? 1;
    const result = await walletHistory(
      services,
      { walletId: wallet_id, network, limit: limit ?? DEFAULT_LIMIT, page: pageNumber },
      signal,
    );
    return {
      wallet_id: result.entry.id,
      network: result.entry.network,
      backend: result.backend.kind,
      total: result.total,
      page: pageNumber,
      limit: limit ?? DEFAULT_LIMIT,
      txs: result.txs.map((tx) => ({
        txid: tx.txid,
        time: tx.time,
        height: tx.height,
        confirmations: tx.confirmations,
        direction: tx.spent ? ('outgoing' as const) : ('incoming' as const),
        amount_duffs: (tx.net < 0n ? -tx.net : tx.net).toString(),
        fee_duffs: tx.fee === null ? null : tx.fee.toString(),
      })),
    };
  },
});
