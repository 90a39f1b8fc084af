/**
 * evm_txs_list against a real node: anvil, a real MCP client on the real server. What the wallet
 * sent through evm_funds_send, evm_token_transfer and evm_tx_send is listed from its own record,
 * newest first; each status, block, confirmation count and fee is compared with the receipt anvil
 * returns (eth_getTransactionReceipt, asked directly). Pending and unknown come from anvil with
 * automine off and from anvil_dropTransaction.
 */
import assert from 'node:assert/strict';
import { readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { ethers } from 'ethers';
import type { Address } from 'viem';
import { SENT_LOG_MAX, SentLog, type SentRecord } from '../../../src/domain/evm/sent-log.js';
import { ANVIL_MNEMONIC, startAnvil, type AnvilNode } from '../../helpers/anvil.js';
import { deployToken } from '../../helpers/erc20.js';
import { tempHome } from '../../helpers/io.js';
import { closeAnvilTest, failureCode, serveAnvilWallet, type ToolCaller } from '../../helpers/mcp.js';

const PASSPHRASE = 'evm history passphrase';
const oracleAccount = (index: number) =>
  ethers.HDNodeWallet.fromPhrase(ANVIL_MNEMONIC, undefined, `m/44'/60'/0'/0/${index}`);
const FUNDED = oracleAccount(0);
const SECOND = oracleAccount(1);
const RECIPIENT = oracleAccount(3).address;

type Row = {
  hash: string;
  from: string;
  to: string | null;
  value_wei: string;
  nonce: number;
  sent_at: string;
  token: string | null;
  token_to: string | null;
  token_amount: string | null;
  status: string;
  block_number: number | null;
  confirmations: number;
  fee_wei: string | null;
};
type Listing = { network: string; chain_id: number; total: number; page: number; limit: number; txs: Row[] };
type Receipt = { blockNumber: string; gasUsed: string; effectiveGasPrice: string; status: string };

describe('evm_txs_list against anvil, through MCP', () => {
  let node: AnvilNode;
  let home: string;
  let wallet: ToolCaller;
  let token: Address;
  const hashes: { payment: string; transfer: string; signed: string; signedTx: string } = {
    payment: '',
    transfer: '',
    signed: '',
    signedTx: '',
  };
  const list = (args: Record<string, unknown> = {}) =>
    wallet.call<Listing>('evm_txs_list', { network: 'local', ...args });
  const receipt = (hash: string) => node.mined<Receipt>(hash);

  before(async () => {
    node = await startAnvil();
    token = ethers.getAddress(
      await deployToken(node, { name: 'Test Token', symbol: 'TST', decimals: 6, supply: 1_000_000_000n }),
    ) as Address;
    home = tempHome();
    wallet = await serveAnvilWallet(home, node.url, PASSPHRASE, 'funded');
    await wallet.call('evm_account_create', { wallet_id: 'anvil', alias: 'second' });
  });
  after(() => closeAnvilTest({ wallet, node, home }));

  it('lists nothing before anything was sent', async () => {
    assert.deepEqual(await list(), { network: 'local', chain_id: 31337, total: 0, page: 1, limit: 20, txs: [] });
  });

  it('records what evm_funds_send, evm_token_transfer and evm_tx_send broadcast, newest first', async () => {
    hashes.payment = (
      await wallet.call<{ hash: string }>('evm_funds_send', {
        address: 'funded',
        to: RECIPIENT,
        value_wei: '1000',
        network: 'local',
        wait: true,
      })
    ).hash;
    hashes.transfer = (
      await wallet.call<{ hash: string }>('evm_token_transfer', {
        address: 'funded',
        token,
        to: RECIPIENT,
        amount: '2500',
        network: 'local',
        wait: true,
      })
    ).hash;
    const created = await wallet.call<{ unsigned_tx: string }>('evm_tx_create', {
      address: 'second',
      to: RECIPIENT,
      value_wei: '7',
      network: 'local',
    });
    const signed = await wallet.call<{ signed_tx: string; hash: string }>('evm_tx_sign', {
      address: 'second',
      unsigned_tx: created.unsigned_tx,
      network: 'local',
    });
    hashes.signed = signed.hash;
    hashes.signedTx = signed.signed_tx;
    await wallet.call('evm_tx_send', { signed_tx: signed.signed_tx, network: 'local', wait: true });
    // Sending the same transaction again is harmless, and is not a second record.
    await wallet.call('evm_tx_send', { signed_tx: signed.signed_tx, network: 'local' });

    const listed = await list();
    assert.equal(listed.total, 3);
    assert.deepEqual(
      listed.txs.map((row) => row.hash),
      [hashes.signed, hashes.transfer, hashes.payment],
    );
    const tip = BigInt(await node.rpc<string>('eth_blockNumber'));
    for (const row of listed.txs) {
      const mined = await receipt(row.hash);
      assert.equal(row.status, mined.status === '0x1' ? 'success' : 'reverted');
      assert.equal(row.block_number, Number(BigInt(mined.blockNumber)));
      assert.equal(row.confirmations, Number(tip - BigInt(mined.blockNumber) + 1n));
      assert.equal(row.fee_wei, (BigInt(mined.gasUsed) * BigInt(mined.effectiveGasPrice)).toString());
      assert.ok(Date.now() - Date.parse(row.sent_at) < 120_000, `sent_at is now: ${row.sent_at}`);
    }
    const [byTx, byTransfer, byPayment] = listed.txs as [Row, Row, Row];
    assert.deepEqual(
      [byPayment.from, byPayment.to, byPayment.value_wei, byPayment.token],
      [FUNDED.address, RECIPIENT, '1000', null],
    );
    assert.deepEqual(
      [
        byTransfer.from,
        byTransfer.to,
        byTransfer.value_wei,
        byTransfer.token,
        byTransfer.token_to,
        byTransfer.token_amount,
      ],
      [FUNDED.address, token, '0', token, RECIPIENT, '2500'],
    );
    assert.deepEqual([byTx.from, byTx.value_wei, byTx.nonce], [SECOND.address, '7', 0]);
  });

  it('filters by sending account (address or alias) and pages', async () => {
    const second = await list({ address: 'second' });
    assert.deepEqual([second.total, second.txs.map((row) => row.hash)], [1, [hashes.signed]]);
    const funded = await list({ address: FUNDED.address.toLowerCase(), limit: 1, page: 2 });
    assert.deepEqual([funded.total, funded.txs.map((row) => row.hash)], [2, [hashes.payment]]);
    assert.equal(await failureCode(list({ address: 'nobody' })), 'WALLET_NOT_FOUND');
  });

  it('shows pending before a block, and unknown for a transaction the node dropped', async () => {
    await node.rpc('evm_setAutomine', [false]);
    try {
      const pay = () =>
        wallet.call<{ hash: string; status: string }>('evm_funds_send', {
          address: 'second',
          to: RECIPIENT,
          value_wei: '1',
          network: 'local',
        });
      const pending = await pay();
      assert.equal(pending.status, 'pending');
      let rows = (await list({ limit: 1 })).txs;
      assert.deepEqual(
        [rows[0]?.hash, rows[0]?.status, rows[0]?.block_number, rows[0]?.confirmations, rows[0]?.fee_wei],
        [pending.hash, 'pending', null, 0, null],
      );
      await node.rpc('anvil_dropTransaction', [pending.hash]);
      rows = (await list({ limit: 1 })).txs;
      assert.deepEqual([rows[0]?.hash, rows[0]?.status], [pending.hash, 'unknown']);
    } finally {
      await node.rpc('evm_setAutomine', [true]);
    }
  });

  it('keeps an owner-only record with no secret in it', () => {
    const path = join(home, 'history', 'evm-31337.json');
    assert.equal(statSync(path).mode & 0o777, 0o600);
    const text = readFileSync(path, 'utf8');
    for (const secret of [FUNDED.privateKey, SECOND.privateKey, hashes.signedTx, ANVIL_MNEMONIC, PASSPHRASE]) {
      assert.ok(!text.toLowerCase().includes(secret.slice(2).toLowerCase()), 'no key, signed bytes or passphrase');
    }
  });

  it(`keeps at most ${SENT_LOG_MAX} records, dropping the oldest`, async () => {
    const log = new SentLog(home, 999);
    const record = (n: number): SentRecord => ({
      hash: `0x${n.toString(16).padStart(64, '0')}`,
      from: FUNDED.address,
      to: RECIPIENT,
      value: String(n),
      nonce: n,
      sent_at: new Date(1_700_000_000_000 + n * 1000).toISOString(),
      token: null,
    });
    writeFileSync(
      log.path,
      JSON.stringify({
        format: 'wallet-evm-sent',
        version: 1,
        chain_id: 999,
        records: Array.from({ length: SENT_LOG_MAX }, (_, n) => record(n)),
      }),
      { mode: 0o600 },
    );
    await log.append(record(SENT_LOG_MAX));
    await log.append(record(SENT_LOG_MAX + 1));
    const kept = await log.records();
    assert.equal(kept.length, SENT_LOG_MAX);
    assert.deepEqual([kept[0]?.nonce, kept.at(-1)?.nonce], [2, SENT_LOG_MAX + 1]);
  });

  it('says which file is damaged instead of listing nothing, and still records nothing wrong', async () => {
    const path = join(home, 'history', 'evm-31337.json');
    const saved = readFileSync(path, 'utf8');
    writeFileSync(path, '{"format":"something else"}');
    try {
      assert.equal(await failureCode(list()), 'KEYSTORE_DAMAGED');
      // A payment still goes out; the damaged record is left for its owner to restore.
      const paid = await wallet.call<{ sent: boolean }>('evm_funds_send', {
        address: 'funded',
        to: RECIPIENT,
        value_wei: '3',
        network: 'local',
      });
      assert.equal(paid.sent, true);
      assert.equal(readFileSync(path, 'utf8'), '{"format":"something else"}');
    } finally {
      writeFileSync(path, saved);
    }
  });
});
