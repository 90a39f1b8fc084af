/**
 * core_txs_list through the real tools against test/fixtures/dash-backends.ts: a Dash Core node's
 * address index (getaddressdeltas, getaddressmempool, getblockhash, getblockheader) and an Insight
 * explorer (POST /addrs/txs), both recorded response shapes over one chain model (no Dash node
 * runs here). The expected rows come from the model's own funding and broadcast results.
 */
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { startDashBackends, type DashBackends } from '../../fixtures/dash-backends.js';
import { ABANDON, addressAt, scriptOf, STRANGER } from '../../helpers/dash-backend-wallet.js';
import { passphraseFileIn, tempHome, wallet } from '../../helpers/io.js';
import { fundsSendArgs, importArgs } from '../../helpers/core-argv.js';

type Row = {
  txid: string;
  time: number | null;
  height: number | null;
  confirmations: number;
  direction: string;
  amount_duffs: string;
  fee_duffs: string | null;
};

const KINDS = [
  { name: 'core-rpc with -addressindex', url: (b: DashBackends) => b.rpcUrl, feeKnown: false },
  { name: 'insight', url: (b: DashBackends) => `insight+${b.insightUrl}`, feeKnown: true },
];

for (const kind of KINDS) {
  describe(`core_txs_list: ${kind.name}`, () => {
    let backends: DashBackends;
    let home: string;
    let passphraseFile: string;
    let env: Record<string, string>;
    const funded: Array<{ txid: string; duffs: bigint }> = [];
    let sent: { txid: string; amount: bigint; fee: bigint };
    const ok = async (argv: string[]) => {
      const result = await wallet([...argv, '--passphrase-file', passphraseFile, '--yes', '--json'], { home, env });
      assert.equal(result.code, 0, `${argv[0]}: ${result.stderr}`);
      return JSON.parse(result.stdout) as Record<string, unknown>;
    };

    before(async () => {
      backends = await startDashBackends({ chain: 'test' });
      home = tempHome();
      passphraseFile = passphraseFileIn(home, 'history passphrase');
      env = { WALLET_CORE_TESTNET_URL: kind.url(backends) };
      const chain = backends.chain;
      for (const [address, duffs] of [
        [addressAt(0, 0), 200_000_000n],
        [addressAt(0, 1), 100_000_000n],
      ] as const) {
        funded.push({ txid: chain.fund(address, scriptOf(address), duffs).txid, duffs });
        chain.mine(1);
      }
      chain.mine(2);
      const imported = await wallet(importArgs(['--passphrase-file', passphraseFile]), { home, env, stdin: ABANDON });
      assert.equal(imported.code, 0, imported.stderr);
      // Paid from 0/0's 2 DASH: the change comes back, so the net is the payment plus the fee.
      const payment = await ok(fundsSendArgs(STRANGER, '150000000'));
      sent = { txid: payment['txid'] as string, amount: 150_000_000n, fee: BigInt(payment['fee_duffs'] as string) };
    });
    after(async () => {
      await backends.close();
      rmSync(home, { recursive: true, force: true });
    });

    it('lists every transaction newest first: the unconfirmed payment, then the fundings', async () => {
      const listed = await ok(['core-txs-list', '--wallet-id', 'main']);
      assert.equal(listed['total'], 3);
      assert.equal(listed['backend'], kind.url(backends).startsWith('insight') ? 'insight' : 'core-rpc');
      const rows = listed['txs'] as Row[];
      assert.deepEqual(
        rows.map((row) => row.txid),
        [sent.txid, funded[1]?.txid, funded[0]?.txid],
      );
      const [payment, second, first] = rows as [Row, Row, Row];
      assert.equal(payment.direction, 'outgoing');
      assert.equal(payment.amount_duffs, (sent.amount + sent.fee).toString(), 'net: the payment plus the fee');
      assert.equal(payment.height, null);
      assert.equal(payment.confirmations, 0);
      assert.equal(payment.fee_duffs, kind.feeKnown ? sent.fee.toString() : null);
      assert.equal(typeof payment.time, 'number');
      const tip = backends.chain.height;
      assert.deepEqual(
        [second.direction, second.amount_duffs, second.fee_duffs, second.confirmations],
        ['incoming', '100000000', null, tip - (second.height ?? 0) + 1],
      );
      assert.equal(first.amount_duffs, '200000000');
      assert.equal((second.height ?? 0) - (first.height ?? 0), 1, 'one block apart, as funded');
      assert.ok(
        (first.time ?? 0) < (second.time ?? 0),
        `block times from the backend grow with the height: ${first.time} < ${second.time}`,
      );
    });

    it('pages: limit and page pick a slice, total stays', async () => {
      const page2 = await ok(['core-txs-list', '--wallet-id', 'main', '--limit', '2', '--page', '2']);
      assert.deepEqual(
        [page2['total'], page2['page'], page2['limit'], (page2['txs'] as Row[]).map((row) => row.txid)],
        [3, 2, 2, [funded[0]?.txid]],
      );
      const beyond = await ok(['core-txs-list', '--wallet-id', 'main', '--limit', '2', '--page', '3']);
      assert.deepEqual(beyond['txs'], []);
    });

    it('once mined, the payment has a height, a block time and a confirmation', async () => {
      backends.chain.mine(1);
      const rows = (await ok(['core-txs-list', '--wallet-id', 'main', '--limit', '1']))['txs'] as Row[];
      assert.equal(rows[0]?.txid, sent.txid);
      assert.deepEqual([rows[0]?.height, rows[0]?.confirmations], [backends.chain.height, 1]);
    });
  });
}

describe('core_txs_list on a core-rpc node without the address index', () => {
  for (const index of [false, 'disabled'] as const) {
    it(`says so with BACKEND_INVALID (index: ${String(index)})`, async () => {
      const backends = await startDashBackends({ chain: 'test', addressIndex: index });
      const home = tempHome();
      try {
        const env = { WALLET_CORE_TESTNET_URL: backends.rpcUrl };
        const passphraseFile = passphraseFileIn(home, 'history passphrase');
        const created = await wallet(
          ['core-wallet-create', '--alias', 'main', '--network', 'testnet', '--passphrase-file', passphraseFile],
          { home, env },
        );
        assert.equal(created.code, 0, created.stderr);
        const listed = await wallet(['core-txs-list', '--wallet-id', 'main'], { home, env });
        assert.equal(listed.code, 7, listed.stderr);
        assert.match(listed.stderr, /BACKEND_INVALID.*has no address index/);
        assert.match(listed.stderr, /addressindex=1/);
        assert.equal(listed.stdout, '');
      } finally {
        await backends.close();
        rmSync(home, { recursive: true, force: true });
      }
    });
  }
});
