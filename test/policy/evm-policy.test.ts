/**
 * The spending policy on EVM networks against real nodes (anvil), through a real MCP client on
 * the real server, and through three `wallet` processes at once. One policy per chain: each
 * configured network is its own anvil with its own chain id, so each has its own policy and ledger.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { ethers } from 'ethers';
import { encodeFunctionData, erc20Abi, type Hex } from 'viem';
import { ANVIL_FIRST_ACCOUNT, ANVIL_MNEMONIC, startAnvil, type AnvilNode } from '../helpers/anvil.js';
import { passphraseFileIn, tempHome } from '../helpers/io.js';
import { importAnvilInto, localServer, type ToolCaller, ToolFailure } from '../helpers/mcp.js';
import { auditLines, refused } from '../helpers/policy.js';
import { WALLET_BIN } from '../helpers/paths.js';

const PASSPHRASE = 'evm policy passphrase';
const ETHER = 10n ** 18n;
const oracleAccount = (index: number) =>
  ethers.HDNodeWallet.fromPhrase(ANVIL_MNEMONIC, undefined, `m/44'/60'/0'/0/${index}`);
const FRIEND = oracleAccount(5).address as Hex;
const STRANGER = oracleAccount(6).address as Hex;
const AUDIT_KEYS = new Set([
  'time',
  'tool',
  'outcome',
  'network',
  'wallet_id',
  'from',
  'amount',
  'unit',
  'recipient',
  'fee',
  'txid',
  'hash',
  'typed_data_hash',
  'dry_run',
  'authority',
  'approval',
  'error',
]);
/** The chain id of each configured network's own anvil. */
const CHAIN_IDS = { local: 31337, listed: 31338, feecap: 31339, pair: 31340, race: 31341 } as const;
type NetworkName = keyof typeof CHAIN_IDS;

type Funds = { hash: string | null; status: string; sent: boolean };

function run(args: string[], env: Record<string, string>): Promise<{ code: number | null; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [WALLET_BIN, ...args], {
      env: { ...process.env, NO_COLOR: '1', ...env },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('exit', (code) => resolve({ code, stderr }));
  });
}

describe('spending policy on EVM networks (anvil)', () => {
  let node: AnvilNode;
  let nodes: Record<NetworkName, AnvilNode>;
  let home: string;
  let env: Record<string, string>;
  let wallet: ToolCaller;
  let earlyAudit = '';

  const nonce = (on: AnvilNode) => on.rpc<string>('eth_getTransactionCount', [ANVIL_FIRST_ACCOUNT, 'pending']);
  const balance = (on: AnvilNode) => on.rpc<string>('eth_getBalance', [ANVIL_FIRST_ACCOUNT, 'latest']);
  const pay = (args: Record<string, unknown>, caller: ToolCaller = wallet) =>
    caller.call<Funds>('evm_funds_send', { address: 'a0', to: FRIEND, network: 'local', ...args });
  /** Runs `check`, then asserts the first account signed and spent nothing on any network's node. */
  const nothingSent = async (check: () => Promise<void>): Promise<void> => {
    const state = () => Promise.all(Object.values(nodes).map(async (on) => [await nonce(on), await balance(on)]));
    const before = await state();
    await check();
    assert.deepEqual(await state(), before, 'nonce and balance unchanged');
  };

  before(async () => {
    const started = await Promise.all(
      Object.values(CHAIN_IDS).map((chainId) => startAnvil(chainId === 31337 ? {} : { chainId })),
    );
    nodes = Object.fromEntries(Object.keys(CHAIN_IDS).map((name, i) => [name, started[i]])) as Record<
      NetworkName,
      AnvilNode
    >;
    node = nodes.local;
    home = tempHome();
    const network = (name: NetworkName, policy: Record<string, unknown>) => ({
      url: nodes[name].url,
      chain_id: CHAIN_IDS[name],
      policy,
    });
    writeFileSync(
      join(home, 'config.json'),
      JSON.stringify({
        evm: {
          networks: {
            // A built-in network: its url comes from the environment, its policy from here.
            local: { policy: { max_per_tx_wei: (2n * ETHER).toString(), max_per_24h_wei: (3n * ETHER).toString() } },
            listed: network('listed', { allowed_recipients: [FRIEND.toLowerCase()] }),
            feecap: network('feecap', { max_fee_wei: '1000' }),
            pair: network('pair', { max_per_24h_wei: ETHER.toString() }),
            race: network('race', { max_per_24h_wei: (2n * ETHER).toString() }),
          },
        },
      }),
    );
    env = { WALLET_HOME: home, WALLET_EVM_LOCAL_URL: node.url };
    wallet = await localServer({ env, passphrase: PASSPHRASE });
    await importAnvilInto(wallet, { walletAlias: 'anvil', accountAlias: 'a0' });
    for (const alias of ['a1', 'a2']) await wallet.call('evm_account_create', { wallet_id: 'anvil', alias });
  });
  after(async () => {
    await wallet.close();
    await Promise.all(Object.values(nodes).map((each) => each.stop()));
    rmSync(home, { recursive: true, force: true });
  });

  it('per-transaction cap: refused naming the rule, dry run too; nothing is signed', async () => {
    const planned = await pay({ value_wei: '1000', dry_run: true });
    assert.equal(planned.status, 'planned');
    earlyAudit = readFileSync(join(home, 'audit.log'), 'utf8');
    await nothingSent(async () => {
      const message = await refused(
        pay({ value_wei: ((5n * ETHER) / 2n).toString() }),
        'evm.networks.local.policy.max_per_tx_wei',
      );
      assert.match(message, /this payment of 2\.5 ether \(2500000000000000000 wei\) is above the cap of 2 ether/);
      await refused(
        pay({ value_wei: ((5n * ETHER) / 2n).toString(), dry_run: true }),
        'evm.networks.local.policy.max_per_tx_wei',
      );
    });
  });

  it('24-hour cap: reached over several payments, and still reached after a restart', async () => {
    assert.equal((await pay({ value_wei: ((3n * ETHER) / 2n).toString(), wait: true })).status, 'success');
    assert.equal((await pay({ value_wei: ETHER.toString(), wait: true })).status, 'success');
    await nothingSent(async () => {
      const message = await refused(pay({ value_wei: ETHER.toString() }), 'evm.networks.local.policy.max_per_24h_wei');
      assert.match(
        message,
        /this payment of 1 ether .* would bring the last 24 hours to 3\.5 ether \(3500000000000000000 wei\), above the cap of 3 ether/,
      );
      await refused(pay({ value_wei: ETHER.toString(), dry_run: true }), 'evm.networks.local.policy.max_per_24h_wei');
    });
    const ledger = join(home, 'ledger', 'evm-chain-31337.json');
    assert.equal(statSync(ledger).mode & 0o777, 0o600);

    const restarted = await localServer({ env, passphrase: PASSPHRASE });
    try {
      await nothingSent(() =>
        refused(pay({ value_wei: ETHER.toString() }, restarted), 'evm.networks.local.policy.max_per_24h_wei').then(
          () => undefined,
        ),
      );
      assert.equal((await pay({ value_wei: (ETHER / 2n).toString() }, restarted)).sent, true, 'exactly up to the cap');
      await refused(pay({ value_wei: '1' }, restarted), 'evm.networks.local.policy.max_per_24h_wei');
    } finally {
      await restarted.close();
    }
    const entries = (JSON.parse(readFileSync(ledger, 'utf8')) as { entries: { amount: string }[] }).entries;
    assert.deepEqual(
      entries.map((entry) => entry.amount),
      ['1500000000000000000', '1000000000000000000', '500000000000000000'],
    );
  });

  it('allowed recipients: a listed one passes, any other is refused, also inside ERC-20 calldata', async () => {
    const rule = 'evm.networks.listed.policy.allowed_recipients';
    assert.equal((await pay({ network: 'listed', value_wei: '1000' })).sent, true);
    const transfer = (to: Hex) => encodeFunctionData({ abi: erc20Abi, functionName: 'transfer', args: [to, 5n] });
    await nothingSent(async () => {
      assert.match(await refused(pay({ network: 'listed', to: STRANGER, value_wei: '1' }), rule), /\(to\)/);
      const inner = await refused(pay({ network: 'listed', value_wei: '0', data: transfer(STRANGER) }), rule);
      assert.ok(inner.includes(`${STRANGER} (the recipient of a token transfer)`), inner);
      const approve = encodeFunctionData({ abi: erc20Abi, functionName: 'approve', args: [STRANGER, 5n] });
      assert.match(
        await refused(pay({ network: 'listed', value_wei: '0', data: approve }), rule),
        /the spender of a token approve/,
      );
      const transferFrom = encodeFunctionData({
        abi: erc20Abi,
        functionName: 'transferFrom',
        args: [FRIEND, STRANGER, 5n],
      });
      await refused(pay({ network: 'listed', value_wei: '0', data: transferFrom }), rule);
      // A token call whose arguments do not decode is refused outright, allowlist or not.
      const garbled = transfer(FRIEND).slice(0, 20);
      const failure = await pay({ network: 'listed', value_wei: '0', data: garbled }).then(
        () => assert.fail('a garbled token call was sent'),
        (error: unknown) => error,
      );
      assert.ok(failure instanceof ToolFailure, String(failure));
      assert.equal(failure.code, 'INVALID_PARAM', failure.message);
      assert.match(failure.message, /with arguments that do not decode; nothing was signed or sent/);

      const deployment = await wallet.call<{ unsigned_tx: string }>('evm_tx_create', {
        address: 'a0',
        data: '0x6000',
        network: 'listed',
      });
      assert.match(
        await refused(
          wallet.call('evm_tx_sign', { address: 'a0', unsigned_tx: deployment.unsigned_tx, network: 'listed' }),
          rule,
        ),
        /a contract deployment \(no to\)/,
      );
      // Signed elsewhere (another wallet's key), then sent here: refused at the broadcast.
      const signed = {
        signed_tx: await oracleAccount(7).signTransaction({
          type: 2,
          chainId: CHAIN_IDS.listed,
          nonce: 0,
          to: STRANGER,
          value: 1n,
          gasLimit: 21000n,
          maxFeePerGas: 10n ** 10n,
          maxPriorityFeePerGas: 10n ** 9n,
        }),
      };
      await refused(wallet.call('evm_tx_send', { signed_tx: signed.signed_tx, network: 'listed' }), rule);
    });
    const allowed = await pay({ network: 'listed', value_wei: '0', data: transfer(FRIEND), wait: true });
    assert.equal(allowed.status, 'success');
  });

  it("policy max fee: refused naming the rule; a caller's lower max_fee_wei is the one named", () =>
    nothingSent(async () => {
      const message = await refused(
        pay({ network: 'feecap', value_wei: '1' }),
        'evm.networks.feecap.policy.max_fee_wei',
      );
      assert.match(
        message,
        /the fee may reach [0-9.]+ ether \([0-9]+ wei\), above the cap of 0\.000000000000001 ether/,
      );
      await refused(
        pay({ network: 'feecap', value_wei: '1', dry_run: true }),
        'evm.networks.feecap.policy.max_fee_wei',
      );
      const stricter = await pay({ network: 'feecap', value_wei: '1', max_fee_wei: '500' }).catch(
        (error: unknown) => error,
      );
      assert.ok(stricter instanceof ToolFailure);
      assert.equal(stricter.code, 'POLICY_VIOLATION');
      assert.match(stricter.message, /above max_fee_wei 500; nothing was signed or sent/);
      assert.doesNotMatch(stricter.message, /Refused by policy/);
    }));

  it('a transaction signed with evm_tx_sign, then sent with evm_tx_send, is counted once', async () => {
    const rule = 'evm.networks.pair.policy.max_per_24h_wei';
    const created = await wallet.call<{ unsigned_tx: string }>('evm_tx_create', {
      address: 'a0',
      to: FRIEND,
      value_wei: ((6n * ETHER) / 10n).toString(),
      network: 'pair',
    });
    const sign = () =>
      wallet.call<{ signed_tx: string; hash: string }>('evm_tx_sign', {
        address: 'a0',
        unsigned_tx: created.unsigned_tx,
        network: 'pair',
      });
    const signed = await sign();
    assert.equal((await sign()).signed_tx, signed.signed_tx, 'signing it again is not a second spend');
    const sent = await wallet.call<{ hash: string; status: string }>('evm_tx_send', {
      signed_tx: signed.signed_tx,
      network: 'pair',
      wait: true,
    });
    assert.deepEqual([sent.hash, sent.status], [signed.hash, 'success']);
    await refused(pay({ network: 'pair', value_wei: ((6n * ETHER) / 10n).toString() }), rule);

    // A transaction the node refuses (its nonce is used) is not counted: the room stays.
    const stale = await oracleAccount(0).signTransaction({
      type: 2,
      chainId: CHAIN_IDS.pair,
      nonce: 0,
      to: FRIEND,
      value: (4n * ETHER) / 10n,
      gasLimit: 21000n,
      maxFeePerGas: 10n ** 10n,
      maxPriorityFeePerGas: 10n ** 9n,
    });
    const rejected = await wallet
      .call('evm_tx_send', { signed_tx: stale, network: 'pair' })
      .catch((error: unknown) => error);
    assert.ok(rejected instanceof ToolFailure);
    assert.equal(rejected.code, 'INVALID_PARAM', rejected.message);
    assert.equal((await pay({ network: 'pair', value_wei: ((4n * ETHER) / 10n).toString() })).sent, true);
    await refused(pay({ network: 'pair', value_wei: '1' }), rule);
  });

  it('three processes paying at once cannot pass the 24-hour cap together', async () => {
    const passphraseFile = passphraseFileIn(home, PASSPHRASE, 'race-pw');
    const runs = await Promise.all(
      ['a0', 'a1', 'a2'].map((address) =>
        run(
          [
            'evm-funds-send',
            '--address',
            address,
            '--to',
            FRIEND,
            '--value-wei',
            ETHER.toString(),
            '--network',
            'race',
            '--passphrase-file',
            passphraseFile,
            '--yes',
            '--json',
          ],
          env,
        ),
      ),
    );
    assert.deepEqual(
      runs.map((result) => result.code).sort(),
      [0, 0, 1],
      runs.map((result) => result.stderr).join('\n'),
    );
    const loser = runs.find((result) => result.code === 1);
    assert.match(loser?.stderr ?? '', /POLICY_VIOLATION.*evm\.networks\.race\.policy\.max_per_24h_wei/);
    const ledger = JSON.parse(readFileSync(join(home, 'ledger', `evm-chain-${CHAIN_IDS.race}.json`), 'utf8')) as {
      entries: unknown[];
    };
    assert.equal(ledger.entries.length, 2);
  });

  it('the audit log: one line per destructive call, success, dry run and failure, no secret', async () => {
    await wallet.call('evm_typed_data_sign', {
      address: 'a0',
      network: 'local',
      typed_data: {
        domain: { name: 'Mail', chainId: 31337 },
        types: { Mail: [{ name: 'contents', type: 'string' }] },
        primaryType: 'Mail',
        message: { contents: 'hello' },
      },
    });
    await wallet.call('evm_funds_send', { address: 'a0', to: FRIEND, value_wei: '1' }).catch(() => undefined);

    const text = readFileSync(join(home, 'audit.log'), 'utf8');
    assert.ok(earlyAudit.length > 0 && text.startsWith(earlyAudit), 'lines are only ever appended');
    assert.equal(statSync(join(home, 'audit.log')).mode & 0o777, 0o600);
    for (const secret of [PASSPHRASE, ANVIL_MNEMONIC, oracleAccount(0).privateKey.slice(2)]) {
      assert.ok(!text.includes(secret), `the log holds no ${secret.slice(0, 8)}…`);
    }
    const lines = auditLines(home);
    for (const line of lines) {
      assert.deepEqual(
        Object.keys(line).filter((key) => !AUDIT_KEYS.has(key)),
        [],
      );
      assert.ok(!Number.isNaN(Date.parse(String(line['time']))));
    }
    const sent = lines.find((line) => line.outcome === 'sent' && line['amount'] === '1500000000000000000');
    assert.match(String(sent?.['hash']), /^0x[0-9a-f]{64}$/);
    assert.deepEqual(
      { ...sent, time: 'T', hash: 'H' },
      {
        time: 'T',
        tool: 'evm_funds_send',
        outcome: 'sent',
        network: 'local',
        from: ANVIL_FIRST_ACCOUNT,
        amount: '1500000000000000000',
        unit: 'wei',
        recipient: FRIEND,
        hash: 'H',
        authority: 'terminal',
      },
    );
    const dry = lines.find((line) => line.outcome === 'dry_run');
    assert.deepEqual([dry?.tool, dry?.['dry_run'], dry?.['hash']], ['evm_funds_send', true, undefined]);
    const perTx = lines.find((line) => line.error?.message.includes('max_per_tx_wei'));
    assert.deepEqual([perTx?.outcome, perTx?.error?.code], ['error', 'POLICY_VIOLATION']);
    assert.equal(lines.filter((line) => line.tool === 'evm_tx_send' && line.outcome === 'sent').length, 1);
    assert.deepEqual(
      lines
        .filter((line) => line['network'] === 'race')
        .map((line) => line.outcome)
        .sort(),
      ['error', 'sent', 'sent'],
      'each process wrote its own whole line',
    );
    const typed = lines.find((line) => line.tool === 'evm_typed_data_sign');
    assert.deepEqual([typed?.outcome, typed?.['from']], ['ok', ANVIL_FIRST_ACCOUNT]);
    assert.match(String(typed?.['typed_data_hash']), /^0x[0-9a-f]{64}$/);
    const invalid = lines.at(-1);
    assert.deepEqual(
      [invalid?.tool, invalid?.outcome, invalid?.error?.code, invalid?.['network']],
      ['evm_funds_send', 'error', 'NETWORK_REQUIRED', undefined],
    );
  });
});
