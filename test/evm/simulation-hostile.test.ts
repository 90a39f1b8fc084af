/**
 * Simulation before a yes against calls that try to slip past it (anvil, real MCP clients on the
 * real server, contracts compiled from test/fixtures/erc20/): a contract that moves tokens only
 * when the gas price is not zero, a call the wallet cannot read that reverts or cannot be
 * simulated where tokens are capped, evm_tx_sign's real path, a fee-on-transfer token whose fee
 * goes to an address not allowed, and a revert reason that forges a line. What the node holds is
 * read with ethers, not through the wallet.
 */
import assert from 'node:assert/strict';
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { ethers } from 'ethers';
import { encodeDeployData, encodeFunctionData, erc20Abi, serializeTransaction, type Address, type Hex } from 'viem';
import { connectEvm } from '../../src/domain/evm/network.js';
import { simulateCall, simulatedCallOf } from '../../src/domain/evm/simulate.js';
import { WalletServices } from '../../src/domain/services.js';
import { ANVIL_FIRST_ACCOUNT, ANVIL_MNEMONIC, startAnvil, type AnvilNode } from '../helpers/anvil.js';
import {
  compileFixture,
  compilePuller,
  deployContract,
  deployPuller,
  deployToken,
  sendAndWait,
} from '../helpers/erc20.js';
import { tempHome } from '../helpers/io.js';
import { failureCode, importAnvilInto, localServer, type ToolCaller, ToolFailure } from '../helpers/mcp.js';
import { refused } from '../helpers/policy.js';
import { startRpcProxy, type RpcProxy } from '../helpers/rpc-proxy.js';

const PASSPHRASE = 'hostile simulation passphrase';
const oracleAccount = (index: number) =>
  ethers.HDNodeWallet.fromPhrase(ANVIL_MNEMONIC, undefined, `m/44'/60'/0'/0/${index}`);
const SIGNER = ANVIL_FIRST_ACCOUNT as Address;
const RECIPIENT = oracleAccount(3).address as Address;
const COLLECTOR = oracleAccount(4).address as Address;
const CAP_PER_TX = 100n;
const CAP_PER_24H = 150n;
const GWEI = 1_000_000_000n;
const METHOD_NOT_FOUND = { kind: 'error', code: -32601, message: 'Method not found' } as const;

type AssetChanges =
  | { simulated: true; method: string; reverts: string | null; balances: unknown[]; allowances: unknown[] }
  | { simulated: false; reason: string };
type Planned = { asset_changes?: AssetChanges; sent: boolean; signed_tx?: string | null };

describe('simulation against hostile calls (anvil)', () => {
  let node: AnvilNode;
  let home: string;
  let owner: ToolCaller;
  let provider: ethers.JsonRpcProvider;
  let capped: Address;
  let puller: Address;
  let aware: Address;
  let feeToken: Address;
  let plain: RpcProxy;

  const balance = async (token: Address, holder: string): Promise<bigint> =>
    (await new ethers.Contract(token, erc20Abi as ethers.InterfaceAbi, provider).getFunction('balanceOf')(
      holder,
    )) as bigint;
  const nonce = () => provider.getTransactionCount(SIGNER, 'pending');
  const pull = (contract: 'SimulationAware' | 'Puller', amount: bigint): Hex =>
    encodeFunctionData({
      abi: contract === 'Puller' ? compilePuller().abi : compileFixture('SimulationAware').abi,
      functionName: 'pull',
      args: [capped, amount],
    });
  /** A transaction with its gas and fees set, as a dapp hands it over: nothing for the wallet to estimate. */
  const transaction = async (to: Address, data: Hex, next = 0) => ({
    chainId: 31337,
    type: 'eip1559' as const,
    to,
    data,
    gas: 200_000n,
    maxFeePerGas: 3n * GWEI,
    maxPriorityFeePerGas: GWEI,
    nonce: (await nonce()) + next,
  });
  const unsigned = async (to: Address, data: Hex, next = 0): Promise<Hex> =>
    serializeTransaction(await transaction(to, data, next));

  before(async () => {
    node = await startAnvil();
    provider = new ethers.JsonRpcProvider(node.url, 31337, { staticNetwork: true, cacheTimeout: -1 });
    capped = ethers.getAddress(
      await deployToken(node, { name: 'Capped', symbol: 'CAP', decimals: 0, supply: 10n ** 9n }),
    ) as Address;
    puller = ethers.getAddress(await deployPuller(node)) as Address;
    aware = ethers.getAddress(await deployContract(node, compileFixture('SimulationAware').bytecode)) as Address;
    const fee = compileFixture('FeeToken');
    feeToken = ethers.getAddress(
      await deployContract(
        node,
        encodeDeployData({ abi: fee.abi, bytecode: fee.bytecode, args: [COLLECTOR, 10n ** 9n] }),
      ),
    ) as Address;
    plain = await startRpcProxy(node.url);
    plain.faults.set('eth_simulateV1', METHOD_NOT_FOUND);
    plain.faults.set('debug_traceCall', METHOD_NOT_FOUND);
    home = tempHome();
    const policy = {
      allowed_recipients: [RECIPIENT, capped, puller, aware, feeToken],
      tokens: {
        [capped]: { max_per_tx: CAP_PER_TX.toString(), max_per_24h: CAP_PER_24H.toString() },
        [feeToken]: { max_per_tx: '1000000' },
      },
    };
    writeFileSync(
      join(home, 'config.json'),
      JSON.stringify({
        evm: {
          networks: { local: { url: node.url, chain_id: 31337, policy }, plain: { url: plain.url, chain_id: 31337 } },
        },
      }),
    );
    owner = await localServer({ env: { WALLET_HOME: home, WALLET_EVM_LOCAL_URL: node.url }, passphrase: PASSPHRASE });
    await importAnvilInto(owner, { walletAlias: 'anvil', accountAlias: 'signer' });
    // The signer let both contracts take its capped tokens, outside the wallet.
    for (const [spender, amount] of [
      [aware, 5000n],
      [puller, 10_000n],
    ] as const) {
      await sendAndWait(node, {
        from: SIGNER,
        to: capped,
        data: encodeFunctionData({ abi: erc20Abi, functionName: 'approve', args: [spender, amount] }),
      });
    }
  });
  after(async () => {
    provider.destroy();
    await owner.close();
    await plain.close();
    await node.stop();
    rmSync(home, { recursive: true, force: true });
  });

  it('a contract that moves tokens only at a real gas price: simulated at the real one, and capped', async () => {
    const call = {
      address: 'signer',
      to: aware,
      value_wei: '0',
      data: pull('SimulationAware', 3000n),
      network: 'local',
    };
    const rule = `evm.networks.local.policy.tokens.${capped}.max_per_tx`;
    const before = [await nonce(), await balance(capped, SIGNER)];
    // A transaction with its own gas and fees (as a dapp hands it over): its simulation runs at
    // its gas price and sees the pull of 3000, above the cap of 100. Refused to sign, dry run or
    // not, and refused to broadcast when signed elsewhere.
    const tx = await transaction(aware, call.data);
    const sign = async (dryRun: boolean) =>
      owner.call('evm_tx_sign', {
        address: 'signer',
        unsigned_tx: await unsigned(aware, call.data),
        network: 'local',
        dry_run: dryRun,
      });
    await refused(sign(true), rule);
    await refused(sign(false), rule);
    const signed = await oracleAccount(0).signTransaction({
      type: 2,
      chainId: 31337,
      to: tx.to,
      data: tx.data,
      gasLimit: tx.gas,
      maxFeePerGas: tx.maxFeePerGas,
      maxPriorityFeePerGas: tx.maxPriorityFeePerGas,
      nonce: tx.nonce,
    });
    await refused(owner.call('evm_tx_send', { signed_tx: signed, network: 'local', dry_run: true }), rule);
    await refused(owner.call('evm_tx_send', { signed_tx: signed, network: 'local' }), rule);
    // evm_funds_send has the node estimate the gas with the fee fields it will sign with, so the
    // estimate runs the pull too (at gas price 0 it would skip it, and the plan's gas would not
    // fit it): its simulation sees the pull of 3000, refused by the cap, dry run or not.
    await refused(owner.call<Planned>('evm_funds_send', { ...call, dry_run: true }), rule);
    await refused(owner.call('evm_funds_send', call), rule);
    assert.deepEqual([await nonce(), await balance(capped, SIGNER)], before, 'nothing was sent, nothing moved');
    // What the node shows, asked directly with the transaction's fee fields: the pull.
    const evm = await connectEvm(new WalletServices({ dataDir: home }), 'local');
    const changes = await simulateCall(evm, simulatedCallOf(SIGNER, await transaction(aware, call.data)));
    assert.ok(
      changes.simulated && changes.reverts === null,
      JSON.stringify(changes, (_k, v: unknown) => (typeof v === 'bigint' ? v.toString() : v)),
    );
    assert.deepEqual(
      changes.transfers.map((move) => [move.token, move.from, move.to, move.amount]),
      [[capped, SIGNER, aware, 3000n]],
    );
  });

  it('a call the wallet cannot read that reverts in simulation, where tokens are capped: not signed or sent', async () => {
    // Above the allowance of 5000: transferFrom reverts, so the simulation shows no moves.
    const data = pull('SimulationAware', 6000n);
    const planned = await owner.call<Planned>('evm_tx_sign', {
      address: 'signer',
      unsigned_tx: await unsigned(aware, data),
      network: 'local',
      dry_run: true,
    });
    assert.ok(planned.asset_changes?.simulated, JSON.stringify(planned.asset_changes));
    assert.match(planned.asset_changes.reverts ?? '', /allowance too low/);
    const rule = 'evm.networks.local.policy.tokens';
    await refused(
      owner.call('evm_tx_sign', { address: 'signer', unsigned_tx: await unsigned(aware, data), network: 'local' }),
      rule,
    );
    // Signed elsewhere (the same key, outside the wallet) and handed to evm_tx_send: not broadcast.
    const { to, maxFeePerGas, maxPriorityFeePerGas, nonce: next } = await transaction(aware, data);
    const signed = await oracleAccount(0).signTransaction({
      type: 2,
      chainId: 31337,
      to,
      data,
      gasLimit: 200_000n,
      maxFeePerGas,
      maxPriorityFeePerGas,
      nonce: next,
    });
    const before = await nonce();
    const message = await refused(owner.call('evm_tx_send', { signed_tx: signed, network: 'local' }), rule);
    assert.match(message, /reverts in simulation \(allowance too low\)/);
    assert.equal(await nonce(), before, 'nothing was broadcast');
  });

  it('a call the wallet cannot read on a node that cannot simulate, where tokens are capped: BACKEND_UNAVAILABLE', async () => {
    const call = { address: 'signer', to: puller, value_wei: '0', data: pull('Puller', 7n), network: 'plain' };
    // The dry run still plans it, and says plainly that it could not simulate.
    const planned = await owner.call<Planned>('evm_funds_send', { ...call, dry_run: true });
    assert.ok(planned.asset_changes && !planned.asset_changes.simulated, JSON.stringify(planned.asset_changes));
    assert.match(planned.asset_changes.reason, /Method not found/);
    const before = [await nonce(), await balance(capped, SIGNER)];
    const failure = await owner.call('evm_funds_send', call).then(
      () => assert.fail('a call that could not be simulated must not be sent'),
      (error: unknown) => error,
    );
    assert.ok(failure instanceof ToolFailure, String(failure));
    assert.equal(failure.code, 'BACKEND_UNAVAILABLE', failure.message);
    assert.match(failure.message, /could not simulate .*nothing was signed or sent/);
    const signing = owner.call('evm_tx_sign', {
      address: 'signer',
      unsigned_tx: await unsigned(puller, call.data),
      network: 'plain',
    });
    assert.equal(await failureCode(signing), 'BACKEND_UNAVAILABLE');
    assert.deepEqual([await nonce(), await balance(capped, SIGNER)], before, 'nothing was sent, nothing moved');
    // A plain ether payment on the same node is not held up: it is not a call the wallet cannot read.
    const paid = await owner.call<Planned>('evm_funds_send', {
      address: 'signer',
      to: RECIPIENT,
      value_wei: '5',
      network: 'plain',
    });
    assert.equal(paid.sent, true);
  });

  it('evm_tx_sign simulates before it signs: a pull above the cap is refused, one within it is counted', async () => {
    const sign = async (amount: bigint, next: number) =>
      owner.call<{ signed_tx: string | null }>('evm_tx_sign', {
        address: 'signer',
        unsigned_tx: await unsigned(puller, pull('Puller', amount), next),
        network: 'local',
      });
    await refused(sign(CAP_PER_TX + 1n, 0), `evm.networks.local.policy.tokens.${capped}.max_per_tx`);
    const signed = await sign(CAP_PER_TX, 0);
    assert.match(signed.signed_tx ?? '', /^0x02/);
    // The 100 signed is in the token's 24-hour total: 60 more would pass the 150.
    await refused(sign(60n, 1), `evm.networks.local.policy.tokens.${capped}.max_per_24h`);
    assert.match((await sign(50n, 1)).signed_tx ?? '', /^0x02/);
  });

  it('a fee-on-transfer token: the fee’s recipient meets allowed_recipients, not only the last one', async () => {
    const data = encodeFunctionData({ abi: erc20Abi, functionName: 'transfer', args: [RECIPIENT, 1000n] });
    const evm = await connectEvm(new WalletServices({ dataDir: home }), 'local');
    const changes = await simulateCall(evm, simulatedCallOf(SIGNER, await transaction(feeToken, data)));
    assert.ok(changes.simulated);
    assert.deepEqual(
      changes.transfers.map((move) => [move.to, move.amount]),
      [
        [COLLECTOR, 10n],
        [RECIPIENT, 1000n],
      ],
    );
    const before = [await nonce(), await balance(feeToken, SIGNER)];
    const call = { address: 'signer', to: feeToken, value_wei: '0', data, network: 'local' };
    const rule = 'evm.networks.local.policy.allowed_recipients';
    for (const dryRun of [true, false]) {
      const message = await refused(owner.call('evm_funds_send', { ...call, dry_run: dryRun }), rule);
      assert.ok(message.includes(`${COLLECTOR} (the recipient of a token simulated transfer)`), message);
    }
    assert.deepEqual([await nonce(), await balance(feeToken, SIGNER)], before, 'nothing was sent, nothing moved');
  });

  it('a revert reason with a line separator or a format character: shown on one printable line', async () => {
    const evm = await connectEvm(new WalletServices({ dataDir: home }), 'local');
    const data = encodeFunctionData({ abi: compileFixture('SimulationAware').abi, functionName: 'spoof' });
    const changes = await simulateCall(evm, simulatedCallOf(SIGNER, await transaction(aware, data)));
    assert.ok(changes.simulated, JSON.stringify(changes));
    assert.ok(changes.reverts?.startsWith('no funds'), changes.reverts ?? 'no revert');
    assert.match(changes.reverts ?? '', /^[\x20-\x7e]*$/, 'printable ASCII only');
  });
});
