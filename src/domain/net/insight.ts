import { hex } from '@scure/base';
import { z } from 'zod';
import { redactUrl } from '../config/endpoints.js';
import type { CoreNetwork } from '../config/networks.js';
import { dashToDuffs } from '../dash/amount.js';
import type { Utxo } from '../dash/transaction.js';
import { clipForDisplay } from '../../shared/text.js';
import { WalletError } from '../errors.js';
import type { AddressBalance, CoreChainBackend, HistoryPage, WatchedAddress } from './chain-backend.js';
import { httpJson } from './http.js';

const InsightUtxo = z.object({
  address: z.string(),
  txid: z.string(),
  vout: z.int(),
  scriptPubKey: z.string(),
  satoshis: z.int(),
  height: z.int().optional(),
  confirmations: z.int().optional(),
});
const InsightAddress = z.object({
  balanceSat: z.int(),
  unconfirmedBalanceSat: z.int(),
  txApperances: z.int(),
  unconfirmedTxApperances: z.int(),
});
const InsightStatus = z.object({ info: z.object({ blocks: z.int(), network: z.string() }) });
const InsightTx = z.object({
  vout: z.array(
    z.object({ n: z.int(), value: z.union([z.string(), z.number()]), spentTxId: z.string().nullable().optional() }),
  ),
});
const InsightSend = z.object({ txid: z.string() });
const InsightHistory = z.object({
  totalItems: z.int(),
  items: z.array(
    z.object({
      txid: z.string(),
      vin: z.array(z.object({ addr: z.string().nullable().optional(), valueSat: z.int().nullable().optional() })),
      vout: z.array(
        z.object({
          value: z.union([z.string(), z.number()]),
          scriptPubKey: z.object({ addresses: z.array(z.string()).optional() }),
        }),
      ),
      blockheight: z.int(),
      time: z.int().optional(),
      fees: z.union([z.number(), z.string()]).optional(),
    }),
  ),
});

const ADDRESS_BATCH = 20;
/** The most transactions an explorer returns per request (dashcore-node's maxTransactionHistory). */
const HISTORY_PAGE_MAX = 50;
const PARALLEL_REQUESTS = 4;

/**
 * The Insight REST API that public Dash explorers serve (`…/insight-api`): `addrs/utxo`,
 * `addr/<address>`, `tx/<txid>`, `tx/send`, `utils/estimatefee`, `status`.
 */
export class InsightBackend implements CoreChainBackend {
  readonly kind = 'insight' as const;
  readonly endpoint: string;
  private readonly base: string;

  constructor(url: string) {
    this.base = url.replace(/\/+$/, '');
    this.endpoint = redactUrl(url);
  }

  historyKind = async (): Promise<'history'> => 'history';

  async chainInfo(): Promise<{ network: CoreNetwork | 'other'; height: number }> {
    const status = await this.get('/status?q=getInfo', InsightStatus);
    const name = status.info.network;
    const network =
      name === 'livenet' || name === 'mainnet'
        ? 'mainnet'
        : name === 'testnet'
          ? 'testnet'
          : name === 'regtest'
            ? 'regtest'
            : 'other';
    return { network, height: status.info.blocks };
  }

  /** Insight's answers need no further check: nothing is left unchecked. */
  async spendCandidates(
    addresses: readonly WatchedAddress[],
    signal?: AbortSignal,
  ): Promise<{ utxos: Utxo[]; unchecked: ReadonlySet<Utxo> }> {
    return { utxos: await this.utxos(addresses, signal), unchecked: new Set() };
  }

  checkUtxos(utxos: readonly Utxo[]): Promise<Utxo[]> {
    return Promise.resolve([...utxos]);
  }

  async utxos(addresses: readonly WatchedAddress[], signal?: AbortSignal): Promise<Utxo[]> {
    const byAddress = new Map(addresses.map((watched) => [watched.address, watched]));
    const utxos: Utxo[] = [];
    for (let i = 0; i < addresses.length; i += ADDRESS_BATCH) {
      const batch = addresses.slice(i, i + ADDRESS_BATCH).map((watched) => watched.address);
      const reply = await this.request('POST', '/addrs/utxo', z.array(InsightUtxo), { addrs: batch.join(',') }, signal);
      for (const u of reply) {
        const watched = byAddress.get(u.address);
        if (!watched || hex.encode(watched.script) !== u.scriptPubKey.toLowerCase()) continue;
        const confirmed = (u.confirmations ?? 0) > 0 && u.height !== undefined && u.height > 0;
        utxos.push({
          txid: u.txid,
          vout: u.vout,
          amount: BigInt(u.satoshis),
          script: watched.script,
          address: u.address,
          height: confirmed ? (u.height ?? null) : null,
        });
      }
    }
    return utxos;
  }

  async balances(addresses: readonly WatchedAddress[], signal?: AbortSignal): Promise<Map<string, AddressBalance>> {
    const infos = await this.addressInfos(addresses, signal);
    return new Map(
      [...infos].map(([address, info]) => [
        address,
        { confirmed: BigInt(info.balanceSat), unconfirmed: BigInt(info.unconfirmedBalanceSat) },
      ]),
    );
  }

  async used(addresses: readonly WatchedAddress[], signal?: AbortSignal): Promise<Set<string>> {
    const infos = await this.addressInfos(addresses, signal);
    return new Set(
      [...infos].filter(([, info]) => info.txApperances + info.unconfirmedTxApperances > 0).map(([address]) => address),
    );
  }

  /**
   * The explorer's transactions of several addresses (`POST /addrs/txs`, all addresses in one body
   * so that one ordering covers them), newest first; the net amount summed from the inputs and
   * outputs that are the wallet's, the fee as the explorer computed it.
   */
  async history(
    addresses: readonly WatchedAddress[],
    page: { offset: number; limit: number },
    signal?: AbortSignal,
  ): Promise<HistoryPage> {
    if (addresses.length === 0) return { total: 0, txs: [] };
    const own = new Set(addresses.map((watched) => watched.address));
    const limit = Math.min(page.limit, HISTORY_PAGE_MAX);
    const reply = await this.request(
      'POST',
      '/addrs/txs',
      InsightHistory,
      { addrs: [...own].join(','), from: page.offset, to: page.offset + limit },
      signal,
    );
    return {
      total: reply.totalItems,
      txs: reply.items.map((tx) => {
        const spentIn = tx.vin.filter((input) => input.addr != null && own.has(input.addr));
        const received = tx.vout
          .filter((output) => (output.scriptPubKey.addresses ?? []).some((address) => own.has(address)))
          .reduce((sum, output) => sum + dashToDuffs(output.value), 0n);
        const spentSum = spentIn.reduce((sum, input) => sum + BigInt(input.valueSat ?? 0), 0n);
        const spent = spentIn.length > 0;
        return {
          txid: tx.txid,
          height: tx.blockheight >= 0 ? tx.blockheight : null,
          time: tx.time ?? null,
          net: received - spentSum,
          spent,
          fee: spent && tx.fees !== undefined ? dashToDuffs(tx.fees) : null,
        };
      }),
    };
  }

  async feeRate(signal?: AbortSignal): Promise<bigint | undefined> {
    const reply = await this.get('/utils/estimatefee?nbBlocks=6', z.record(z.string(), z.number()), signal);
    const perKb = reply['6'];
    return perKb === undefined || perKb <= 0 ? undefined : dashToDuffs(perKb);
  }

  async prevout(txid: string, vout: number, signal?: AbortSignal): Promise<{ amount: bigint } | undefined> {
    if (!/^[0-9a-f]{64}$/.test(txid)) return undefined;
    let tx: z.infer<typeof InsightTx>;
    try {
      tx = await this.get(`/tx/${txid}`, InsightTx, signal);
    } catch (error) {
      if (error instanceof WalletError && error.message.includes('HTTP 404')) return undefined;
      throw error;
    }
    const out = tx.vout.find((candidate) => candidate.n === vout);
    return out && !out.spentTxId ? { amount: dashToDuffs(out.value) } : undefined;
  }

  async broadcast(rawHex: string, signal?: AbortSignal): Promise<string> {
    const response = await httpJson({
      url: `${this.base}/tx/send`,
      method: 'POST',
      body: { rawtx: rawHex },
      idempotent: false,
      signal,
    });
    if (response.status >= 500) {
      // The explorer failed, not the transaction: it may or may not have passed it on.
      throw new WalletError('BACKEND_UNAVAILABLE', `${this.endpoint} failed on tx/send (HTTP ${response.status}).`, {
        hint: 'The payment may have gone out: check the balance or the explorer before paying again.',
      });
    }
    if (response.status >= 400) {
      throw new WalletError(
        'INVALID_PARAM',
        `The explorer rejected the transaction: ${clipForDisplay(response.text.slice(0, 200).trim())} (HTTP ${response.status}).`,
      );
    }
    const parsed = InsightSend.safeParse(response.json);
    if (!parsed.success)
      throw new WalletError('BACKEND_UNAVAILABLE', `${this.endpoint} answered tx/send with an unexpected shape.`, {
        hint: 'The payment may have gone out: check the balance or the explorer before paying again.',
      });
    return parsed.data.txid;
  }

  private async addressInfos(
    addresses: readonly WatchedAddress[],
    signal?: AbortSignal,
  ): Promise<Map<string, z.infer<typeof InsightAddress>>> {
    const result = new Map<string, z.infer<typeof InsightAddress>>();
    for (let i = 0; i < addresses.length; i += PARALLEL_REQUESTS) {
      const batch = addresses.slice(i, i + PARALLEL_REQUESTS);
      const infos = await Promise.all(
        batch.map((watched) => this.get(`/addr/${watched.address}?noTxList=1`, InsightAddress, signal)),
      );
      batch.forEach((watched, j) => {
        const info = infos[j];
        if (info) result.set(watched.address, info);
      });
    }
    return result;
  }

  private get<T>(path: string, schema: z.ZodType<T>, signal?: AbortSignal): Promise<T> {
    return this.request('GET', path, schema, undefined, signal);
  }

  private async request<T>(
    method: 'GET' | 'POST',
    path: string,
    schema: z.ZodType<T>,
    body: unknown,
    signal?: AbortSignal,
  ): Promise<T> {
    const response = await httpJson({ url: `${this.base}${path}`, method, body, idempotent: true, signal });
    if (response.status >= 400) {
      throw new WalletError(
        'BACKEND_UNAVAILABLE',
        `${this.endpoint} answered ${path.split('?')[0] ?? path} with HTTP ${response.status}.`,
        { hint: 'The explorer is failing, or the URL is not an Insight API; check it or use another endpoint.' },
      );
    }
    const parsed = schema.safeParse(response.json);
    if (!parsed.success) {
      throw new WalletError(
        'BACKEND_UNAVAILABLE',
        `${this.endpoint} answered ${path.split('?')[0] ?? path} with an unexpected shape.`,
        {
          hint: 'The explorer is failing, or the URL is not an Insight API; check it or use another endpoint.',
          cause: parsed.error,
        },
      );
    }
    return parsed.data;
  }
}
