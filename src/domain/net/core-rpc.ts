import { readFile } from 'node:fs/promises';
import { setTimeout as sleep } from 'node:timers/promises';
import { hex } from '@scure/base';
import { z } from 'zod';
import { redactUrl } from '../config/endpoints.js';
import type { CoreNetwork } from '../config/networks.js';
import { dashToDuffs } from '../dash/amount.js';
import { COINBASE_MATURITY } from '../dash/params.js';
import type { Utxo } from '../dash/transaction.js';
import { WalletError } from '../errors.js';
import type { AddressBalance, CoreChainBackend, HistoryPage, HistoryTx, WatchedAddress } from './chain-backend.js';
import { httpJson } from './http.js';

/** A node's JSON-RPC error: the node answered, and said no. */
class RpcError extends Error {
  override name = 'RpcError';
  constructor(
    readonly code: number,
    message: string,
  ) {
    super(message);
  }
}

const RPC_METHOD_NOT_FOUND = -32601;
const SCAN_TIMEOUT_MS = 180_000;
/** How long a scan waits for the node's other scan (it runs one at a time) before giving up. */
const SCAN_BUSY_WAIT_MS = 30_000;
/** sendrawtransaction refusals that mean an input was spent meanwhile (Bitcoin Core and Dash Core wording). */
const SPENT_MEANWHILE = /txn-mempool-conflict|missing-?inputs|inputs-missingorspent|already spent/i;

const RpcReply = z.object({
  result: z.unknown().optional(),
  error: z.object({ code: z.number(), message: z.string() }).nullable().optional(),
});

const ChainInfo = z.object({ chain: z.string(), blocks: z.int() });
const AddressUtxo = z.object({
  address: z.string(),
  txid: z.string(),
  outputIndex: z.int(),
  script: z.string(),
  satoshis: z.int(),
  height: z.int(),
});
const AddressMempoolDelta = z.object({
  address: z.string(),
  txid: z.string(),
  index: z.int(),
  satoshis: z.int(),
  prevtxid: z.string().optional(),
  prevout: z.int().optional(),
});
const AddressBalanceReply = z.object({ balance: z.int(), received: z.int() });
const AddressDelta = z.object({ address: z.string(), satoshis: z.int() });
const HistoryDelta = z.object({ txid: z.string(), satoshis: z.int(), height: z.int(), blockindex: z.int() });
const HistoryMempoolDelta = z.object({ txid: z.string(), satoshis: z.int(), timestamp: z.int() });
const BlockHeader = z.object({ time: z.int() });
const ScanResult = z.object({
  success: z.boolean(),
  height: z.int().optional(),
  unspents: z.array(
    z.object({
      txid: z.string(),
      vout: z.int(),
      scriptPubKey: z.string(),
      amount: z.union([z.number(), z.string()]),
      height: z.int(),
    }),
  ),
});
const TxOut = z
  .object({ value: z.union([z.number(), z.string()]), confirmations: z.int(), coinbase: z.boolean().optional() })
  .nullable();
const SmartFee = z.object({ feerate: z.number().optional() });

/**
 * A Dash Core node's JSON-RPC (user/password in the URL, or the node's cookie file). Reads use the
 * address index (`getaddressutxos`, `getaddressbalance`, `getaddressmempool`, `getaddressdeltas`)
 * when the node has it (`-addressindex`), and fall back to `scantxoutset` over raw scripts, which
 * works on any Bitcoin-Core-family node but sees only confirmed unspent outputs.
 */
export class CoreRpcBackend implements CoreChainBackend {
  readonly kind = 'core-rpc' as const;
  readonly endpoint: string;
  private indexed: Promise<boolean> | undefined;
  private nextId = 1;

  constructor(
    private readonly url: string,
    readonly network: CoreNetwork,
    private readonly cookieFile: string | null = null,
  ) {
    this.endpoint = redactUrl(url);
  }

  async call<T>(
    method: string,
    params: unknown[],
    schema: z.ZodType<T>,
    options: { idempotent?: boolean; timeoutMs?: number; signal?: AbortSignal | undefined } = {},
  ): Promise<T> {
    const headers: Record<string, string> = {};
    if (this.cookieFile !== null)
      headers['authorization'] = `Basic ${Buffer.from((await this.readCookie()).trim()).toString('base64')}`;
    const response = await httpJson({
      url: this.url,
      method: 'POST',
      body: { jsonrpc: '1.0', id: this.nextId++, method, params },
      headers,
      idempotent: options.idempotent ?? true,
      ...(options.timeoutMs === undefined ? {} : { timeoutMs: options.timeoutMs }),
      signal: options.signal,
    });
    if (response.status === 401 || response.status === 403) {
      throw new WalletError(
        'BACKEND_UNAVAILABLE',
        `${this.endpoint} refused the RPC credentials (HTTP ${response.status}).`,
        {
          hint: 'Put rpcuser:rpcpassword in the URL (http://user:pass@host:port) or set cookie_file in the config.',
        },
      );
    }
    const reply = RpcReply.safeParse(response.json);
    if (!reply.success) {
      throw new WalletError(
        'BACKEND_UNAVAILABLE',
        `${this.endpoint} did not answer ${method} with JSON-RPC (HTTP ${response.status}).`,
        { hint: 'The node is failing, or the URL is not its RPC endpoint; check it or use another endpoint.' },
      );
    }
    if (reply.data.error) throw new RpcError(reply.data.error.code, reply.data.error.message);
    const result = schema.safeParse(reply.data.result);
    if (!result.success) {
      throw new WalletError('BACKEND_UNAVAILABLE', `${this.endpoint} answered ${method} with an unexpected shape.`, {
        hint: 'The node is failing, or the URL is not its RPC endpoint; check it or use another endpoint.',
        cause: result.error,
      });
    }
    return result.data;
  }

  async chainInfo(): Promise<{ network: CoreNetwork | 'other'; height: number }> {
    const info = await this.call('getblockchaininfo', [], ChainInfo);
    const network =
      info.chain === 'main'
        ? 'mainnet'
        : info.chain === 'test'
          ? 'testnet'
          : info.chain === 'regtest'
            ? 'regtest'
            : 'other';
    return { network, height: info.blocks };
  }

  historyKind = async (): Promise<'history' | 'unspent-only'> =>
    (await this.hasAddressIndex()) ? 'history' : 'unspent-only';

  async utxos(addresses: readonly WatchedAddress[], signal?: AbortSignal): Promise<Utxo[]> {
    const { utxos, unchecked } = await this.spendCandidates(addresses, signal);
    const checked = new Set(await this.checkUtxos([...unchecked], signal));
    return utxos.filter((utxo) => !unchecked.has(utxo) || checked.has(utxo));
  }

  /**
   * The outputs the address index (or `scantxoutset`) reports. Those it cannot vouch for are
   * `unchecked`: young ones (a coinbase that may be immature) and, without the index, every one
   * (`scantxoutset` sees only blocks, not what the mempool already spends).
   */
  async spendCandidates(
    addresses: readonly WatchedAddress[],
    signal?: AbortSignal,
  ): Promise<{ utxos: Utxo[]; unchecked: ReadonlySet<Utxo> }> {
    if (addresses.length === 0) return { utxos: [], unchecked: new Set() };
    const byAddress = new Map(addresses.map((watched) => [watched.address, watched]));
    let utxos: Utxo[];
    let tip: number;
    const indexed = await this.hasAddressIndex();
    if (indexed) {
      const names = { addresses: addresses.map((watched) => watched.address) };
      const [confirmed, mempool, info] = await Promise.all([
        this.call('getaddressutxos', [names], z.array(AddressUtxo), { signal }),
        this.call('getaddressmempool', [names], z.array(AddressMempoolDelta), { signal }),
        this.chainInfo(),
      ]);
      tip = info.height;
      const spent = new Set(
        mempool
          .filter((delta) => delta.satoshis < 0 && delta.prevtxid)
          .map((delta) => `${delta.prevtxid}:${delta.prevout}`),
      );
      utxos = [
        ...confirmed.map((u) => ({
          txid: u.txid,
          vout: u.outputIndex,
          amount: BigInt(u.satoshis),
          script: hex.decode(u.script),
          address: u.address,
          height: u.height,
        })),
        ...mempool
          .filter((delta) => delta.satoshis > 0)
          .map((delta) => ({
            txid: delta.txid,
            vout: delta.index,
            amount: BigInt(delta.satoshis),
            script: byAddress.get(delta.address)?.script ?? new Uint8Array(),
            address: delta.address,
            height: null,
          })),
      ].filter((utxo) => !spent.has(`${utxo.txid}:${utxo.vout}`) && byAddress.has(utxo.address));
    } else {
      const scan = await this.scan(addresses, signal);
      tip = scan.height ?? (await this.chainInfo()).height;
      const byScript = new Map(addresses.map((watched) => [hex.encode(watched.script), watched]));
      utxos = scan.unspents.flatMap((u) => {
        const watched = byScript.get(u.scriptPubKey.toLowerCase());
        return watched
          ? [
              {
                txid: u.txid,
                vout: u.vout,
                amount: dashToDuffs(u.amount),
                script: watched.script,
                address: watched.address,
                height: u.height,
              },
            ]
          : [];
      });
    }
    const unchecked = new Set(
      utxos.filter((utxo) => !indexed || (utxo.height !== null && tip - utxo.height + 1 < COINBASE_MATURITY)),
    );
    return { utxos, unchecked };
  }

  /**
   * Checks outputs with `gettxout` (mempool included): drops those already spent by an unconfirmed
   * transaction (scantxoutset and getaddressutxos see only blocks), and marks coinbase outputs,
   * which neither reports.
   */
  async checkUtxos(utxos: readonly Utxo[], signal?: AbortSignal): Promise<Utxo[]> {
    const kept: Utxo[] = [];
    for (const utxo of utxos) {
      const out = await this.call('gettxout', [utxo.txid, utxo.vout, true], TxOut, { signal });
      if (out === null) continue;
      utxo.coinbase = out.coinbase === true;
      kept.push(utxo);
    }
    return kept;
  }

  async balances(addresses: readonly WatchedAddress[], signal?: AbortSignal): Promise<Map<string, AddressBalance>> {
    const result = new Map<string, AddressBalance>(
      addresses.map((watched) => [watched.address, { confirmed: 0n, unconfirmed: 0n }]),
    );
    if (addresses.length === 0) return result;
    if (await this.hasAddressIndex()) {
      const mempool = await this.call(
        'getaddressmempool',
        [{ addresses: addresses.map((w) => w.address) }],
        z.array(AddressMempoolDelta),
        { signal },
      );
      for (const watched of addresses) {
        const balance = await this.call('getaddressbalance', [{ addresses: [watched.address] }], AddressBalanceReply, {
          signal,
        });
        const unconfirmed = mempool
          .filter((d) => d.address === watched.address)
          .reduce((sum, d) => sum + BigInt(d.satoshis), 0n);
        result.set(watched.address, { confirmed: BigInt(balance.balance), unconfirmed });
      }
      return result;
    }
    for (const utxo of await this.utxos(addresses, signal)) {
      const entry = result.get(utxo.address);
      if (entry) entry.confirmed += utxo.amount;
    }
    return result;
  }

  async used(addresses: readonly WatchedAddress[], signal?: AbortSignal): Promise<Set<string>> {
    if (addresses.length === 0) return new Set();
    if (await this.hasAddressIndex()) {
      const deltas = await this.call(
        'getaddressdeltas',
        [{ addresses: addresses.map((w) => w.address) }],
        z.array(AddressDelta),
        { signal },
      );
      const mempool = await this.call(
        'getaddressmempool',
        [{ addresses: addresses.map((w) => w.address) }],
        z.array(AddressMempoolDelta),
        { signal },
      );
      return new Set([...deltas, ...mempool].map((delta) => delta.address));
    }
    return new Set((await this.utxos(addresses, signal)).map((utxo) => utxo.address));
  }

  /**
   * The history from the address index: `getaddressdeltas` (every confirmed credit and debit of the
   * addresses) and `getaddressmempool`, summed per transaction; block times from `getblockhash` and
   * `getblockheader`, asked only for the page's blocks. The index carries no fee: `fee` is null.
   */
  async history(
    addresses: readonly WatchedAddress[],
    page: { offset: number; limit: number },
    signal?: AbortSignal,
  ): Promise<HistoryPage> {
    if (!(await this.hasAddressIndex())) {
      throw new WalletError(
        'BACKEND_INVALID',
        `${this.endpoint} has no address index: it cannot list a wallet's transactions.`,
        {
          hint: `Run Dash Core with addressindex=1 (a reindex), or set the network's endpoint to an Insight explorer (insight+https://…); network_info shows the endpoints.`,
        },
      );
    }
    if (addresses.length === 0) return { total: 0, txs: [] };
    const names = { addresses: addresses.map((watched) => watched.address) };
    const [deltas, mempool] = await Promise.all([
      this.call('getaddressdeltas', [names], z.array(HistoryDelta), { signal }),
      this.call('getaddressmempool', [names], z.array(HistoryMempoolDelta), { signal }),
    ]);
    type Row = HistoryTx & { blockIndex: number };
    const rows = new Map<string, Row>();
    const add = (txid: string, satoshis: number, at: Pick<Row, 'height' | 'time' | 'blockIndex'>) => {
      const row = rows.get(txid) ?? { txid, net: 0n, spent: false, fee: null, ...at };
      row.net += BigInt(satoshis);
      if (satoshis < 0) row.spent = true;
      rows.set(txid, row);
    };
    for (const delta of deltas)
      add(delta.txid, delta.satoshis, { height: delta.height, time: null, blockIndex: delta.blockindex });
    for (const delta of mempool) {
      if (!rows.has(delta.txid) || rows.get(delta.txid)?.height === null)
        add(delta.txid, delta.satoshis, { height: null, time: delta.timestamp, blockIndex: 0 });
    }
    const sorted = [...rows.values()].sort(
      (a, b) =>
        (b.height ?? Number.MAX_SAFE_INTEGER) - (a.height ?? Number.MAX_SAFE_INTEGER) ||
        (b.time ?? 0) - (a.time ?? 0) ||
        b.blockIndex - a.blockIndex ||
        (a.txid < b.txid ? -1 : 1),
    );
    const shown = sorted.slice(page.offset, page.offset + page.limit);
    const times = new Map<number, number>();
    for (const height of new Set(shown.flatMap((row) => (row.height === null ? [] : [row.height])))) {
      const hash = await this.call('getblockhash', [height], z.string(), { signal });
      times.set(height, (await this.call('getblockheader', [hash, true], BlockHeader, { signal })).time);
    }
    return {
      total: sorted.length,
      txs: shown.map(({ blockIndex: _blockIndex, ...row }) => ({
        ...row,
        time: row.height === null ? row.time : (times.get(row.height) ?? null),
      })),
    };
  }

  async feeRate(signal?: AbortSignal): Promise<bigint | undefined> {
    const estimate = await this.call('estimatesmartfee', [6], SmartFee, { signal });
    return estimate.feerate === undefined || estimate.feerate <= 0 ? undefined : dashToDuffs(estimate.feerate);
  }

  async prevout(txid: string, vout: number, signal?: AbortSignal): Promise<{ amount: bigint } | undefined> {
    const out = await this.call('gettxout', [txid, vout, true], TxOut, { signal });
    return out ? { amount: dashToDuffs(out.value) } : undefined;
  }

  async broadcast(rawHex: string, signal?: AbortSignal): Promise<string> {
    try {
      return await this.call('sendrawtransaction', [rawHex], z.string(), { idempotent: false, signal });
    } catch (error) {
      if (error instanceof RpcError) {
        const reason = `${error.message.split('\n')[0]?.slice(0, 200)} (RPC ${error.code})`;
        if (SPENT_MEANWHILE.test(error.message)) {
          throw new WalletError('INSUFFICIENT_FUNDS', `The node rejected the transaction: ${reason}.`, {
            hint: 'A coin it spends was spent by another transaction meanwhile; run it again to choose coins anew.',
          });
        }
        throw new WalletError('INVALID_PARAM', `The node rejected the transaction: ${reason}.`);
      }
      throw error;
    }
  }

  /**
   * Whether the node has the address index. Probed once with `getaddressmempool` on no addresses:
   * a node without the RPC answers -32601, and current Dash Core without `-addressindex` answers
   * "Address index is disabled" (its `getaddressbalance` would answer zeros instead).
   */
  private hasAddressIndex(): Promise<boolean> {
    this.indexed ??= this.call('getaddressmempool', [{ addresses: [] }], z.unknown())
      .then(() => true)
      .catch((error: unknown) => {
        if (error instanceof RpcError) {
          return (
            error.code !== RPC_METHOD_NOT_FOUND &&
            !/index is disabled|index not enabled|-addressindex/i.test(error.message)
          );
        }
        this.indexed = undefined;
        throw error;
      });
    return this.indexed;
  }

  private async scan(addresses: readonly WatchedAddress[], signal?: AbortSignal): Promise<z.infer<typeof ScanResult>> {
    const descriptors = addresses.map((watched) => `raw(${hex.encode(watched.script)})`);
    // A node runs one scantxoutset at a time: another one (of ours or anyone's) is waited out.
    const giveUpAt = Date.now() + SCAN_BUSY_WAIT_MS;
    for (;;) {
      try {
        const result = await this.call('scantxoutset', ['start', descriptors], ScanResult, {
          timeoutMs: SCAN_TIMEOUT_MS,
          signal,
        });
        if (!result.success)
          throw new WalletError('BACKEND_UNAVAILABLE', `${this.endpoint} could not finish scantxoutset.`);
        return result;
      } catch (error) {
        if (error instanceof RpcError && /already in progress/i.test(error.message) && Date.now() < giveUpAt) {
          await sleep(200 + Math.random() * 300, undefined, { signal });
          continue;
        }
        throw this.scanFailure(error);
      }
    }
  }

  /** What a failed scan becomes: the node's refusal as BACKEND_UNAVAILABLE; anything else as it is. */
  private scanFailure(error: unknown): unknown {
    if (!(error instanceof RpcError)) return error;
    if (/already in progress/i.test(error.message)) {
      return new WalletError('BACKEND_UNAVAILABLE', `${this.endpoint} is busy with another UTXO scan.`, {
        hint: 'Try again in a moment.',
      });
    }
    return new WalletError(
      'BACKEND_UNAVAILABLE',
      `${this.endpoint} refused scantxoutset: ${error.message.slice(0, 160)}.`,
    );
  }

  private async readCookie(): Promise<string> {
    try {
      return await readFile(this.cookieFile ?? '', 'utf8');
    } catch {
      throw new WalletError('BACKEND_UNAVAILABLE', `Cannot read the node's cookie file ${this.cookieFile ?? ''}.`, {
        hint: 'Check cookie_file in the config; the node writes it at start.',
      });
    }
  }
}
