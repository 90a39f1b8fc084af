/**
 * The spending policy on a Dash network through a real MCP client on the real server, against
 * test/fixtures/dash-backends.ts (the local stand-in for a Dash Core node, whose mempool checks
 * every signature): caps, allowed recipients, the fee cap, the ledger across a restart and when
 * damaged, and the audit log lines of every destructive call.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { addressScript, encodeAddress, requireAddress } from '../../src/domain/dash/address.js';
import { startDashBackends, type DashBackends } from '../fixtures/dash-backends.js';
import { tempHome } from '../helpers/io.js';
import { localServer, ToolFailure, type ToolCaller } from '../helpers/mcp.js';
import { auditLines, refused } from '../helpers/policy.js';

const PASSPHRASE = 'dash policy passphrase';
const MNEMONIC = 'abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about';
const COIN = 100_000_000n;
const stranger = () => encodeAddress(randomBytes(20), 'p2pkh', 'testnet');
const FRIEND = stranger();
const FRIEND2 = stranger();

type Funds = { sent: boolean; txid: string | null; fee_duffs: string; change_address: string | null };

describe('spending policy on a Dash network', () => {
  let backends: DashBackends;
  let home: string;
  let env: Record<string, string>;
  let wallet: ToolCaller;
  let earlyAudit = '';

  const pay = (args: Record<string, unknown>, caller: ToolCaller = wallet) =>
    caller.call<Funds>('core_funds_send', { wallet_id: 'main', network: 'testnet', address: FRIEND, ...args });
  const changeCount = async () =>
    (
      await wallet.call<{ wallets: { alias: string; change_addresses: number }[] }>('core_wallets_list', {})
    ).wallets.find((entry) => entry.alias === 'main')?.change_addresses;
  /** Runs `check`, then asserts nothing new was broadcast and no change index was used up. */
  const nothingSent = async (check: () => Promise<void>): Promise<void> => {
    const broadcasts = backends.chain.broadcasts.length;
    const change = await changeCount();
    await check();
    assert.equal(backends.chain.broadcasts.length, broadcasts, 'nothing broadcast');
    assert.equal(await changeCount(), change, 'no change index used up');
  };
  const ledgerPath = () => join(home, 'ledger', 'core-testnet.json');

  before(async () => {
    backends = await startDashBackends({ chain: 'test' });
    home = tempHome();
    writeFileSync(
      join(home, 'config.json'),
      JSON.stringify({
        core: {
          networks: {
            testnet: {
              policy: {
                max_per_tx_duffs: COIN.toString(),
                max_per_24h_duffs: ((3n * COIN) / 2n).toString(),
                allowed_recipients: [FRIEND, FRIEND2],
                max_fee_duffs: '20000',
              },
            },
          },
        },
      }),
    );
    env = { WALLET_HOME: home, WALLET_CORE_TESTNET_URL: backends.rpcUrl };
    wallet = await localServer({ env, passphrase: PASSPHRASE });
    await wallet.call('core_wallet_import', { alias: 'main', network: 'testnet', mnemonic: MNEMONIC, discover: false });
    for (let i = 0; i < 2; i++) {
      const { address } = await wallet.call<{ address: string }>('core_address_create', { wallet_id: 'main' });
      backends.chain.fund(address, addressScript(requireAddress(address, 'testnet')), 5n * COIN);
    }
    backends.chain.mine(1);
  });
  after(async () => {
    await wallet.close();
    await backends.close();
    rmSync(home, { recursive: true, force: true });
  });

  it('allowed recipients and the per-transaction cap: refused, dry run too, nothing signed', async () => {
    const planned = await pay({ amount_duffs: '1000000', dry_run: true });
    assert.equal(planned.sent, false);
    earlyAudit = readFileSync(join(home, 'audit.log'), 'utf8');
    await nothingSent(async () => {
      const other = stranger();
      const message = await refused(
        pay({ address: other, amount_duffs: '1000000' }),
        'core.networks.testnet.policy.allowed_recipients',
      );
      assert.ok(message.includes(`${other} (an output) is not an allowed recipient`), message);
      await refused(
        pay({ address: other, amount_duffs: '1000000', dry_run: true }),
        'core.networks.testnet.policy.allowed_recipients',
      );
      assert.match(
        await refused(pay({ amount_duffs: '120000000' }), 'core.networks.testnet.policy.max_per_tx_duffs'),
        /this payment of 1\.2 DASH \(120000000 duffs\) is above the cap of 1 DASH \(100000000 duffs\)/,
      );
      await refused(pay({ amount_duffs: '120000000', dry_run: true }), 'core.networks.testnet.policy.max_per_tx_duffs');
    });
  });

  it("policy max fee: refused naming the rule; a caller's lower max_fee_duffs is the one named", () =>
    nothingSent(async () => {
      const expensive = { amount_duffs: '1000000', fee_rate_duffs_per_kb: '100000' };
      assert.match(
        await refused(pay(expensive), 'core.networks.testnet.policy.max_fee_duffs'),
        /the fee would be .* above the cap of 0\.0002 DASH \(20000 duffs\)/,
      );
      await refused(pay({ ...expensive, dry_run: true }), 'core.networks.testnet.policy.max_fee_duffs');
      const stricter = await pay({ ...expensive, max_fee_duffs: '10000' }).catch((error: unknown) => error);
      assert.ok(stricter instanceof ToolFailure);
      assert.equal(stricter.code, 'POLICY_VIOLATION');
      assert.match(stricter.message, /above max_fee_duffs 10000; nothing was signed or sent/);
      assert.doesNotMatch(stricter.message, /Refused by policy/);
    }));

  it('24-hour cap: counted over payments, a PSBT signed then sent counts once, own addresses not at all', async () => {
    const rule = 'core.networks.testnet.policy.max_per_24h_duffs';
    assert.equal((await pay({ amount_duffs: ((8n * COIN) / 10n).toString() })).sent, true);
    const created = await wallet.call<{ psbt: string }>('core_tx_create', {
      wallet_id: 'main',
      network: 'testnet',
      outputs: [{ address: FRIEND2, amount_duffs: (COIN / 2n).toString() }],
    });
    const sign = () =>
      wallet.call<{ hex: string; txid: string }>('core_tx_sign', {
        wallet_id: 'main',
        network: 'testnet',
        psbt: created.psbt,
      });
    const signed = await sign();
    assert.equal((await sign()).txid, signed.txid, 'signing it again is not a second spend');
    const sent = await wallet.call<{ txid: string; amount_duffs: string; recipients: string[] }>('core_tx_send', {
      network: 'testnet',
      hex: signed.hex,
    });
    assert.deepEqual(sent, { ...sent, txid: signed.txid, amount_duffs: '50000000', recipients: [FRIEND2] });
    // 0.8 + 0.5 = 1.3 DASH counted: 0.3 more would pass 1.5, 0.2 fits exactly.
    await nothingSent(async () => {
      const message = await refused(pay({ amount_duffs: '30000000' }), rule);
      assert.match(
        message,
        /would bring the last 24 hours to 1\.6 DASH \(160000000 duffs\), above the cap of 1\.5 DASH/,
      );
      await refused(pay({ amount_duffs: '30000000', dry_run: true }), rule);
    });
    assert.equal((await pay({ amount_duffs: '20000000' })).sent, true);

    // Paying an address of a wallet of this keystore moves no money out: not counted, not refused.
    await wallet.call('core_wallet_create', { alias: 'savings', network: 'testnet' });
    const { address: own } = await wallet.call<{ address: string }>('core_address_create', { wallet_id: 'savings' });
    assert.equal((await pay({ address: own, amount_duffs: '150000000' })).sent, true);
    backends.chain.mine(1);

    const restarted = await localServer({ env, passphrase: PASSPHRASE });
    try {
      await refused(pay({ amount_duffs: '100000' }, restarted), rule);
      await refused(pay({ amount_duffs: '100000', dry_run: true }, restarted), rule);
    } finally {
      await restarted.close();
    }
    assert.equal(statSync(ledgerPath()).mode & 0o777, 0o600);
    const entries = (JSON.parse(readFileSync(ledgerPath(), 'utf8')) as { entries: { amount: string }[] }).entries;
    assert.deepEqual(
      entries.map((entry) => entry.amount),
      ['80000000', '50000000', '20000000'],
    );
  });

  it('a damaged ledger refuses every spend, naming the file, and is left as it is', async () => {
    const original = readFileSync(ledgerPath(), 'utf8');
    writeFileSync(ledgerPath(), original.slice(0, 40));
    try {
      await nothingSent(async () => {
        for (const dryRun of [false, true]) {
          const failure = await pay({ amount_duffs: '100000', dry_run: dryRun }).catch((error: unknown) => error);
          assert.ok(failure instanceof ToolFailure);
          assert.equal(failure.code, 'POLICY_VIOLATION');
          assert.ok(failure.message.includes(`The spend ledger ${ledgerPath()} is damaged`), failure.message);
        }
      });
      assert.equal(readFileSync(ledgerPath(), 'utf8'), original.slice(0, 40));
    } finally {
      writeFileSync(ledgerPath(), original);
    }
  });

  it('the audit log: one line per destructive call, success, dry run and failure, no secret', async () => {
    const { wallet_id: savings } = await wallet
      .call<{ wallets: { alias: string; wallet_id: string }[] }>('core_wallets_list', {})
      .then((listed) => listed.wallets.find((entry) => entry.alias === 'savings') ?? assert.fail('no savings'));
    await wallet.call('core_wallet_delete', { wallet_id: 'savings', network: 'testnet', confirm_fingerprint: savings });
    await wallet
      .call('core_funds_send', { wallet_id: 'main', address: FRIEND, amount_duffs: '1000' })
      .catch(() => undefined);

    const path = join(home, 'audit.log');
    const text = readFileSync(path, 'utf8');
    assert.ok(earlyAudit.length > 0 && text.startsWith(earlyAudit), 'lines are only ever appended');
    assert.equal(statSync(path).mode & 0o777, 0o600);
    assert.ok(!text.includes(PASSPHRASE), 'no passphrase');
    assert.ok(!text.includes('abandon'), 'no mnemonic');
    const lines = auditLines(home);

    const firstSent = lines.find((line) => line.tool === 'core_funds_send' && line.outcome === 'sent');
    assert.match(String(firstSent?.['txid']), /^[0-9a-f]{64}$/);
    assert.deepEqual(
      { ...firstSent, time: 'T', txid: 'X' },
      {
        time: 'T',
        tool: 'core_funds_send',
        outcome: 'sent',
        network: 'testnet',
        wallet_id: 'main',
        amount: '80000000',
        unit: 'duffs',
        recipient: FRIEND,
        txid: 'X',
        authority: 'terminal',
      },
    );
    const dry = lines[0];
    assert.deepEqual(
      [dry?.tool, dry?.outcome, dry?.['dry_run'], dry?.['txid']],
      ['core_funds_send', 'dry_run', true, undefined],
    );
    const refusedLine = lines.find((line) => line.error?.message.includes('max_per_tx_duffs'));
    assert.deepEqual([refusedLine?.outcome, refusedLine?.error?.code], ['error', 'POLICY_VIOLATION']);
    const txSend = lines.find((line) => line.tool === 'core_tx_send');
    assert.deepEqual(
      [txSend?.outcome, txSend?.['amount'], txSend?.['unit'], txSend?.['recipient']],
      ['sent', '50000000', 'duffs', [FRIEND2]],
    );
    // Signing is spending (anyone can broadcast the result): logged as `signed`, with the fee.
    const signedLines = lines.filter((line) => line.tool === 'core_tx_sign');
    assert.ok(signedLines.length > 0);
    for (const line of signedLines) {
      assert.equal(line.outcome, 'signed');
      assert.match(String(line['txid']), /^[0-9a-f]{64}$/);
      assert.match(String(line['fee']), /^\d+$/);
      assert.ok(Array.isArray(line['recipient']));
    }
    const deleted = lines.find((line) => line.tool === 'core_wallet_delete');
    assert.deepEqual([deleted?.outcome, deleted?.['wallet_id'], deleted?.['network']], ['ok', savings, 'testnet']);
    const invalid = lines.at(-1);
    assert.deepEqual(
      [invalid?.tool, invalid?.outcome, invalid?.error?.code, 'network' in (invalid ?? {})],
      ['core_funds_send', 'error', 'NETWORK_REQUIRED', false],
    );
  });
});
