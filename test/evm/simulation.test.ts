/**
 * Simulation before a yes (issue 36), against a real node: anvil, the test ERC-20s and a contract
 * that pulls its caller's tokens (test/fixtures/erc20/), real MCP clients on the real server. What
 * a dry run, a question and an approval show of a call's asset changes is compared with what the
 * node shows after the call is sent: balances and allowances read with ethers, not through the
 * wallet. A node that lacks eth_simulateV1 (a proxy answering "method not found") is simulated
 * with debug_traceCall; one with neither, or one that never answers, "could not simulate".
 */
import assert from 'node:assert/strict';
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { ethers } from 'ethers';
import { encodeFunctionData, erc20Abi, type Address, type Hex } from 'viem';
import { connectEvm } from '../../src/domain/evm/network.js';
import { simulateCall } from '../../src/domain/evm/simulate.js';
import { ApprovalStore } from '../../src/domain/policy/approvals.js';
import { WalletServices } from '../../src/domain/services.js';
import { ANVIL_FIRST_ACCOUNT, ANVIL_MNEMONIC, startAnvil, type AnvilNode } from '../helpers/anvil.js';
import {
  compilePermitToken,
  compilePuller,
  deployPermitToken,
  deployPuller,
  deployToken,
  sendAndWait,
} from '../helpers/erc20.js';
import { tempHome } from '../helpers/io.js';
import { failureCode, importAnvilInto, localServer, type ToolCaller, ToolFailure } from '../helpers/mcp.js';
import { refused } from '../helpers/policy.js';
import { startRpcProxy, type RpcProxy } from '../helpers/rpc-proxy.js';

const PASSPHRASE = 'simulation passphrase';
const oracleAccount = (index: number) =>
  ethers.HDNodeWallet.fromPhrase(ANVIL_MNEMONIC, undefined, `m/44'/60'/0'/0/${index}`);
const SIGNER = ANVIL_FIRST_ACCOUNT as Address;
const SPENDER = oracleAccount(1).address as Address;
const RECIPIENT = oracleAccount(3).address as Address;
const NAME = 'Permit Token';
const DEADLINE = '4102444800';
/** The capped token's caps, in base units. */
const CAP_PER_TX = 100n;
const METHOD_NOT_FOUND = { kind: 'error', code: -32601, message: 'Method not found' } as const;

type Balance = { holder: string; signer: boolean; asset: string; delta: string };
type Allowance = { token: string; owner: string; spender: string; amount: string };
type AssetChanges =
  | { simulated: true; method: string; reverts: string | null; balances: Balance[]; allowances: Allowance[] }
  | { simulated: false; reason: string };
type Planned = { asset_changes?: AssetChanges; sent: boolean; fee_wei: string | null; hash: string | null };

describe('simulation before a yes: what is shown is what the node does (anvil)', () => {
  let node: AnvilNode;
  let home: string;
  let owner: ToolCaller;
  let agent: ToolCaller;
  let provider: ethers.JsonRpcProvider;
  let token: Address;
  let capped: Address;
  let puller: Address;
  let withoutSimulateV1: RpcProxy;
  let withoutEither: RpcProxy;
  let silent: RpcProxy;

  const erc20 = () => new ethers.Interface(compilePermitToken().abi as ethers.InterfaceAbi);
  const tokenBalance = async (asset: Address, holder: string): Promise<bigint> =>
    (await new ethers.Contract(asset, erc20(), provider).getFunction('balanceOf')(holder)) as bigint;
  const allowance = async (asset: Address, holder: string, spender: string): Promise<bigint> =>
    (await new ethers.Contract(asset, erc20(), provider).getFunction('allowance')(holder, spender)) as bigint;
  const nonce = () => provider.getTransactionCount(SIGNER, 'pending');

  /** Every balance and allowance a test call could touch, read from the node. */
  const state = async (): Promise<Map<string, bigint>> => {
    const seen = new Map<string, bigint>();
    const holders = [SIGNER, SPENDER, RECIPIENT, puller];
    for (const holder of holders) {
      seen.set(`ether:${holder}`, await provider.getBalance(holder));
      for (const asset of [token, capped]) {
        seen.set(`${asset}:${holder}`, await tokenBalance(asset, holder));
        for (const spender of holders) {
          seen.set(`allowance:${asset}:${holder}:${spender}`, await allowance(asset, holder, spender));
        }
      }
    }
    return seen;
  };

  /**
   * Plans `call` as a dry run, sends it, and checks that every balance change and allowance the
   * dry run showed is what the node shows after (the signer's ether less the fee it paid), and
   * that nothing it did not show changed.
   */
  const shownIsDone = async (
    tool: string,
    args: Record<string, unknown>,
    /**
     * Allowances the call spends, by `transferFrom`: ERC-20 emits no event for that (Token.sol
     * does not), so a simulation read from events cannot show it; the test checks the change itself.
     */
    spent: Map<string, bigint> = new Map(),
  ): Promise<AssetChanges> => {
    const planned = await owner.call<Planned>(tool, { ...args, dry_run: true });
    const changes = planned.asset_changes;
    assert.ok(changes?.simulated, JSON.stringify(changes));
    assert.equal(changes.reverts, null);
    const before = await state();
    const sent = await owner.call<Planned>(tool, { ...args, wait: true });
    assert.equal(sent.sent, true);
    const after = await state();
    const fee = BigInt(sent.fee_wei ?? 'x');
    const expected = new Map<string, bigint>();
    for (const change of changes.balances) {
      expected.set(`${change.asset}:${change.holder}`, BigInt(change.delta));
    }
    for (const granted of changes.allowances) {
      const key = `allowance:${granted.token}:${granted.owner}:${granted.spender}`;
      expected.set(key, BigInt(granted.amount) - (before.get(key) ?? 0n));
    }
    for (const [key, amount] of spent) expected.set(key, -amount);
    for (const [key, was] of before) {
      const fees = key === `ether:${SIGNER}` ? fee : 0n;
      assert.equal((after.get(key) ?? 0n) - was + fees, expected.get(key) ?? 0n, `${key}: shown as done`);
    }
    for (const key of expected.keys()) assert.ok(before.has(key), `${key} is one the test reads`);
    return changes;
  };

  before(async () => {
    node = await startAnvil();
    provider = new ethers.JsonRpcProvider(node.url, 31337, { staticNetwork: true, cacheTimeout: -1 });
    token = ethers.getAddress(
      await deployPermitToken(node, { name: NAME, symbol: 'PTK', decimals: 6, supply: 10n ** 12n }),
    ) as Address;
    capped = ethers.getAddress(
      await deployToken(node, { name: 'Capped', symbol: 'CAP', decimals: 0, supply: 10n ** 9n }),
    ) as Address;
    puller = ethers.getAddress(await deployPuller(node)) as Address;
    withoutSimulateV1 = await startRpcProxy(node.url);
    withoutSimulateV1.faults.set('eth_simulateV1', METHOD_NOT_FOUND);
    withoutEither = await startRpcProxy(node.url);
    withoutEither.faults.set('eth_simulateV1', METHOD_NOT_FOUND);
    withoutEither.faults.set('debug_traceCall', METHOD_NOT_FOUND);
    silent = await startRpcProxy(node.url);
    silent.faults.set('eth_simulateV1', { kind: 'hang' });
    silent.faults.set('debug_traceCall', { kind: 'hang' });
    home = tempHome();
    const network = (url: string) => ({ url, chain_id: 31337 });
    const policy = { tokens: { [capped]: { max_per_tx: CAP_PER_TX.toString(), max_per_24h: '1000' } } };
    writeFileSync(
      join(home, 'config.json'),
      JSON.stringify({
        evm: {
          networks: {
            local: { policy },
            // One policy per chain id: the networks below share local's chain, and its policy.
            tracing: network(withoutSimulateV1.url),
            plain: network(withoutEither.url),
            silent: network(silent.url),
          },
        },
      }),
    );
    const env = { WALLET_HOME: home, WALLET_EVM_LOCAL_URL: node.url };
    owner = await localServer({ env, passphrase: PASSPHRASE });
    agent = await localServer({ env, passphrase: PASSPHRASE, caller: 'agent' });
    await importAnvilInto(owner, { walletAlias: 'anvil', accountAlias: 'signer' });
    // The signer let the puller take its capped tokens, outside the wallet (anvil's unlocked account).
    await sendAndWait(node, {
      from: SIGNER,
      to: capped,
      data: encodeFunctionData({ abi: erc20Abi, functionName: 'approve', args: [puller, 10_000n] }),
    });
  });
  after(async () => {
    provider.destroy();
    await owner.close();
    await agent.close();
    await Promise.all([withoutSimulateV1.close(), withoutEither.close(), silent.close()]);
    await node.stop();
    rmSync(home, { recursive: true, force: true });
  });

  it('an ether payment: the signer pays value (and the fee), the recipient gets value', async () => {
    const changes = await shownIsDone('evm_funds_send', {
      address: 'signer',
      to: RECIPIENT,
      value_wei: '1000000000000000',
      network: 'local',
    });
    assert.ok(changes.simulated);
    assert.equal(changes.method, 'eth_simulateV1');
    assert.deepEqual(changes.balances, [
      { holder: SIGNER, signer: true, asset: 'ether', delta: '-1000000000000000' },
      { holder: RECIPIENT, signer: false, asset: 'ether', delta: '1000000000000000' },
    ]);
  });

  it('an ERC-20 transfer: the token moves from the signer to the recipient, no ether', async () => {
    const changes = await shownIsDone('evm_token_transfer', {
      address: 'signer',
      token,
      to: RECIPIENT,
      amount: '1500000',
      network: 'local',
    });
    assert.ok(changes.simulated);
    assert.deepEqual(changes.balances, [
      { holder: SIGNER, signer: true, asset: token, delta: '-1500000' },
      { holder: RECIPIENT, signer: false, asset: token, delta: '1500000' },
    ]);
  });

  it('approve: the allowance granted, no balance moves', async () => {
    const changes = await shownIsDone('evm_funds_send', {
      address: 'signer',
      to: token,
      value_wei: '0',
      data: encodeFunctionData({ abi: erc20Abi, functionName: 'approve', args: [SPENDER, 777_000n] }),
      network: 'local',
    });
    assert.ok(changes.simulated);
    assert.deepEqual(changes.balances, []);
    assert.deepEqual(changes.allowances, [{ token, owner: SIGNER, spender: SPENDER, amount: '777000' }]);
  });

  it('a permit submitted by the signer (EIP-2612, signed by evm_typed_data_sign): the allowance it sets', async () => {
    const contract = new ethers.Contract(token, erc20(), provider);
    const domain = { name: NAME, version: '1', chainId: 31337, verifyingContract: token };
    const message = {
      owner: SIGNER,
      spender: RECIPIENT,
      value: '4200000',
      nonce: ((await contract.getFunction('nonces')(SIGNER)) as bigint).toString(),
      deadline: DEADLINE,
    };
    const signed = await owner.call<{ signature: string }>('evm_typed_data_sign', {
      address: 'signer',
      network: 'local',
      typed_data: {
        domain,
        types: {
          EIP712Domain: [
            { name: 'name', type: 'string' },
            { name: 'version', type: 'string' },
            { name: 'chainId', type: 'uint256' },
            { name: 'verifyingContract', type: 'address' },
          ],
          Permit: [
            { name: 'owner', type: 'address' },
            { name: 'spender', type: 'address' },
            { name: 'value', type: 'uint256' },
            { name: 'nonce', type: 'uint256' },
            { name: 'deadline', type: 'uint256' },
          ],
        },
        primaryType: 'Permit',
        message,
      },
    });
    const { v, r, s } = ethers.Signature.from(signed.signature);
    const data = erc20().encodeFunctionData('permit', [SIGNER, RECIPIENT, message.value, DEADLINE, v, r, s]) as Hex;
    const changes = await shownIsDone('evm_funds_send', {
      address: 'signer',
      to: token,
      value_wei: '0',
      data,
      network: 'local',
    });
    assert.ok(changes.simulated);
    assert.deepEqual(changes.allowances, [{ token, owner: SIGNER, spender: RECIPIENT, amount: '4200000' }]);
  });

  it('a contract call that pulls the signer’s tokens: shown, and counted against the token caps', async () => {
    const pull = (amount: bigint) =>
      encodeFunctionData({ abi: compilePuller().abi, functionName: 'pull', args: [capped, amount] });
    const call = (amount: bigint, extra: Record<string, unknown> = {}) => ({
      address: 'signer',
      to: puller,
      value_wei: '0',
      data: pull(amount),
      network: 'local',
      ...extra,
    });
    // Within the cap: the calldata says nothing the wallet reads; the simulation shows the pull.
    const changes = await shownIsDone(
      'evm_funds_send',
      call(40n),
      new Map([[`allowance:${capped}:${SIGNER}:${puller}`, 40n]]),
    );
    assert.ok(changes.simulated);
    assert.deepEqual(changes.balances, [
      { holder: SIGNER, signer: true, asset: capped, delta: '-40' },
      { holder: puller, signer: false, asset: capped, delta: '40' },
    ]);

    // Above it: refused as a decoded transfer is, dry run or not, owner or agent; nothing sent,
    // nobody asked.
    const rule = `evm.networks.local.policy.tokens.${capped}.max_per_tx`;
    const before = [await nonce(), await state()];
    await refused(owner.call('evm_funds_send', call(CAP_PER_TX + 1n, { dry_run: true })), rule);
    await refused(owner.call('evm_funds_send', call(CAP_PER_TX + 1n)), rule);
    await refused(agent.call('evm_funds_send', call(CAP_PER_TX + 1n)), rule);
    assert.deepEqual([await nonce(), await state()], before, 'nothing was sent');
    assert.deepEqual(await new ApprovalStore(home).list(), [], 'no approval was filed: nobody was asked');
  });

  it('the question (the approval the page shows) lists the asset changes', async () => {
    const failure = await agent
      .call('evm_funds_send', { address: 'signer', to: RECIPIENT, value_wei: '2000000000000000', network: 'local' })
      .then(
        () => assert.fail('an agent without autonomy must wait for the owner'),
        (error: unknown) => error,
      );
    assert.ok(failure instanceof ToolFailure && failure.code === 'APPROVAL_REQUIRED', String(failure));
    const [approval] = await new ApprovalStore(home).list();
    assert.ok(approval);
    const text = approval.summary.text;
    assert.match(text, /asset changes \(simulated with eth_simulateV1; the fee comes on top\):/);
    assert.ok(text.includes(`signer ${SIGNER}: -0.002 ether (2000000000000000 wei)`), text);
    assert.ok(text.includes(`${RECIPIENT}: +0.002 ether (2000000000000000 wei)`), text);
  });

  it('a node without eth_simulateV1: debug_traceCall shows the same', async () => {
    const changes = await shownIsDone('evm_token_transfer', {
      address: 'signer',
      token,
      to: RECIPIENT,
      amount: '2500',
      network: 'tracing',
    });
    assert.ok(changes.simulated);
    assert.equal(changes.method, 'debug_traceCall');
    assert.deepEqual(changes.balances, [
      { holder: SIGNER, signer: true, asset: token, delta: '-2500' },
      { holder: RECIPIENT, signer: false, asset: token, delta: '2500' },
    ]);
    const pulled = await owner.call<Planned>('evm_funds_send', {
      address: 'signer',
      to: puller,
      value_wei: '0',
      data: encodeFunctionData({ abi: compilePuller().abi, functionName: 'pull', args: [capped, 7n] }),
      network: 'tracing',
      dry_run: true,
    });
    assert.deepEqual(pulled.asset_changes, {
      simulated: true,
      method: 'debug_traceCall',
      reverts: null,
      balances: [
        { holder: SIGNER, signer: true, asset: capped, delta: '-7' },
        { holder: puller, signer: false, asset: capped, delta: '7' },
      ],
      allowances: [],
    });
  });

  it('a node with neither: "could not simulate", plainly, and the call is still planned', async () => {
    const planned = await owner.call<Planned>('evm_funds_send', {
      address: 'signer',
      to: RECIPIENT,
      value_wei: '1',
      network: 'plain',
      dry_run: true,
    });
    const changes = planned.asset_changes;
    assert.ok(changes && !changes.simulated, JSON.stringify(changes));
    assert.match(changes.reason, /eth_simulateV1: .*Method not found.*; debug_traceCall: .*Method not found/);
    const failure = await agent
      .call('evm_funds_send', { address: 'signer', to: RECIPIENT, value_wei: '3', network: 'plain' })
      .then(
        () => assert.fail('an agent without autonomy must wait for the owner'),
        (error: unknown) => error,
      );
    assert.equal(await failureCode(Promise.reject(failure)), 'APPROVAL_REQUIRED');
    const approval = (await new ApprovalStore(home).list()).find((each) => each.summary.network === 'plain');
    assert.match(approval?.summary.text ?? '', /asset changes: could not simulate \(eth_simulateV1: /);
  });

  it('a node that never answers: "could not simulate" within the timeout, not a wait', async () => {
    const services = new WalletServices({ dataDir: home });
    const evm = await connectEvm(services, 'silent');
    const started = Date.now();
    const changes = await simulateCall(evm, { from: SIGNER, to: RECIPIENT, value: 1n, data: '0x' }, 400);
    const took = Date.now() - started;
    assert.equal(changes.simulated, false);
    assert.ok(took < 2_000, `gave up after ${took} ms`);
    assert.ok(silent.calls.includes('eth_simulateV1'));
  });
});
