/**
 * evm_tx_send (with evm_tx_create and evm_tx_sign before it) against anvil: the dry runs of
 * signing and of sending show the transaction's simulated asset changes, and they are what the
 * node shows once it is sent; a transaction that the simulation shows pulling more of a capped
 * token than its cap allows is refused by the dry runs and by the broadcast itself, though it
 * was signed offline (issue 36).
 */
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { ethers } from 'ethers';
import { encodeFunctionData, erc20Abi, type Address } from 'viem';
import { ApprovalStore } from '../../../src/domain/policy/approvals.js';
import { ANVIL_FIRST_ACCOUNT, ANVIL_MNEMONIC, startAnvil, type AnvilNode } from '../../helpers/anvil.js';
import { compilePuller, deployPuller, deployToken, sendAndWait } from '../../helpers/erc20.js';
import { tempHome } from '../../helpers/io.js';
import { closeAnvilTest, localServer, serveAnvilWallet, type ToolCaller, ToolFailure } from '../../helpers/mcp.js';
import { refused } from '../../helpers/policy.js';

const PASSPHRASE = 'tx send passphrase';
const SIGNER = ANVIL_FIRST_ACCOUNT as Address;
const RECIPIENT = ethers.HDNodeWallet.fromPhrase(ANVIL_MNEMONIC, undefined, "m/44'/60'/0'/0/3").address as Address;

type Changes = {
  simulated: boolean;
  method?: string;
  reverts?: string | null;
  balances?: { holder: string; signer: boolean; asset: string; delta: string }[];
  allowances?: unknown[];
};
type Planned = { hash: string | null; status?: string; signed_tx?: string | null; asset_changes?: Changes };

describe('evm_tx_sign and evm_tx_send: the simulation their dry runs show is what the node does (anvil)', () => {
  let node: AnvilNode;
  let home: string;
  let wallet: ToolCaller;
  let provider: ethers.JsonRpcProvider;
  let token: Address;
  let capped: Address;
  let puller: Address;

  const balanceOf = async (asset: Address, holder: string): Promise<bigint> =>
    (await new ethers.Contract(asset, erc20Abi as ethers.InterfaceAbi, provider).getFunction('balanceOf')(
      holder,
    )) as bigint;
  const create = async (to: Address, data: string): Promise<string> =>
    (
      await wallet.call<{ unsigned_tx: string }>('evm_tx_create', {
        address: 'signer',
        to,
        data,
        network: 'local',
      })
    ).unsigned_tx;

  before(async () => {
    node = await startAnvil();
    provider = new ethers.JsonRpcProvider(node.url, 31337, { staticNetwork: true, cacheTimeout: -1 });
    token = ethers.getAddress(
      await deployToken(node, { name: 'Test', symbol: 'TST', decimals: 6, supply: 10n ** 12n }),
    ) as Address;
    capped = ethers.getAddress(
      await deployToken(node, { name: 'Capped', symbol: 'CAP', decimals: 0, supply: 10n ** 9n }),
    ) as Address;
    puller = ethers.getAddress(await deployPuller(node)) as Address;
    await sendAndWait(node, {
      from: SIGNER,
      to: capped,
      data: encodeFunctionData({ abi: erc20Abi, functionName: 'approve', args: [puller, 10_000n] }),
    });
    home = tempHome();
    writeFileSync(
      join(home, 'config.json'),
      JSON.stringify({
        evm: { networks: { local: { policy: { tokens: { [capped]: { max_per_tx: '100', max_per_24h: '1000' } } } } } },
      }),
    );
    wallet = await serveAnvilWallet(home, node.url, PASSPHRASE, 'signer');
  });
  after(() => closeAnvilTest({ provider, wallet, node, home }));

  it('a token transfer: both dry runs show it, the node then does it', async () => {
    const unsigned = await create(
      token,
      encodeFunctionData({ abi: erc20Abi, functionName: 'transfer', args: [RECIPIENT, 1234n] }),
    );
    const expected: Changes = {
      simulated: true,
      method: 'eth_simulateV1',
      reverts: null,
      balances: [
        { holder: SIGNER, signer: true, asset: token, delta: '-1234' },
        { holder: RECIPIENT, signer: false, asset: token, delta: '1234' },
      ],
      allowances: [],
    };
    const signPlan = await wallet.call<Planned>('evm_tx_sign', {
      address: 'signer',
      unsigned_tx: unsigned,
      network: 'local',
      dry_run: true,
    });
    assert.deepEqual([signPlan.signed_tx, signPlan.hash], [null, null], 'a dry run signs nothing');
    assert.deepEqual(signPlan.asset_changes, expected);
    const { signed_tx: signed } = await wallet.call<{ signed_tx: string }>('evm_tx_sign', {
      address: 'signer',
      unsigned_tx: unsigned,
      network: 'local',
    });
    const sendPlan = await wallet.call<Planned>('evm_tx_send', { signed_tx: signed, network: 'local', dry_run: true });
    assert.equal(sendPlan.status, 'planned');
    assert.equal(sendPlan.hash, ethers.keccak256(signed));
    assert.deepEqual(sendPlan.asset_changes, expected);
    assert.equal(await provider.getTransaction(ethers.keccak256(signed)), null, 'a dry run broadcasts nothing');

    const before = [await balanceOf(token, SIGNER), await balanceOf(token, RECIPIENT)];
    const sent = await wallet.call<Planned>('evm_tx_send', { signed_tx: signed, network: 'local', wait: true });
    assert.equal(sent.status, 'success');
    const after = [await balanceOf(token, SIGNER), await balanceOf(token, RECIPIENT)];
    assert.deepEqual(
      after.map((value, index) => (value - (before[index] ?? 0n)).toString()),
      expected.balances?.map((change) => change.delta),
    );
  });

  it("an agent's evm_tx_sign waits for the owner: the approval's question lists the simulated changes", async () => {
    const agent = await localServer({
      env: { WALLET_HOME: home, WALLET_EVM_LOCAL_URL: node.url },
      passphrase: PASSPHRASE,
      caller: 'agent',
    });
    try {
      const unsigned = await create(
        token,
        encodeFunctionData({ abi: erc20Abi, functionName: 'transfer', args: [RECIPIENT, 55n] }),
      );
      const failure = await agent
        .call('evm_tx_sign', { address: 'signer', unsigned_tx: unsigned, network: 'local' })
        .then(
          () => assert.fail('an agent without autonomy must wait for the owner'),
          (error: unknown) => error,
        );
      assert.ok(failure instanceof ToolFailure && failure.code === 'APPROVAL_REQUIRED', String(failure));
      const approval = (await new ApprovalStore(home).list()).find((each) => each.summary.tool === 'evm_tx_sign');
      const text = approval?.summary.text ?? '';
      assert.ok(text.includes('asset changes (simulated with eth_simulateV1; the fee comes on top):'), text);
      assert.ok(text.includes(`signer ${SIGNER}: -55 base units of token ${token}`), text);
      assert.ok(text.includes(`${RECIPIENT}: +55 base units of token ${token}`), text);
    } finally {
      await agent.close();
    }
  });

  it('a transaction that would revert: the dry run says so and shows no change', async () => {
    // A gas limit given: the node's estimate, which would refuse it, is not asked.
    const { unsigned_tx: unsigned } = await wallet.call<{ unsigned_tx: string }>('evm_tx_create', {
      address: 'signer',
      to: puller,
      data: encodeFunctionData({ abi: compilePuller().abi, functionName: 'pull', args: [capped, 20_000n] }),
      gas_limit: '200000',
      network: 'local',
    });
    const plan = await wallet.call<Planned>('evm_tx_sign', {
      address: 'signer',
      unsigned_tx: unsigned,
      network: 'local',
      dry_run: true,
    });
    assert.equal(plan.asset_changes?.simulated, true);
    assert.match(plan.asset_changes?.reverts ?? '', /allowance too low/);
    assert.deepEqual([plan.asset_changes?.balances, plan.asset_changes?.allowances], [[], []]);
  });

  it("a pull of the signer's capped token above its cap: refused by both dry runs, the signing and the broadcast", async () => {
    const rule = `evm.networks.local.policy.tokens.${capped}.max_per_tx`;
    const unsigned = await create(
      puller,
      encodeFunctionData({ abi: compilePuller().abi, functionName: 'pull', args: [capped, 150n] }),
    );
    await refused(
      wallet.call('evm_tx_sign', { address: 'signer', unsigned_tx: unsigned, network: 'local', dry_run: true }),
      rule,
    );
    // Where a policy is set, signing asks the node too (the signed transaction could go out
    // through any node): refused.
    await refused(wallet.call('evm_tx_sign', { address: 'signer', unsigned_tx: unsigned, network: 'local' }), rule);
    // Signed outside the wallet with the same key: the broadcast is refused.
    const signed = await ethers.HDNodeWallet.fromPhrase(ANVIL_MNEMONIC, undefined, "m/44'/60'/0'/0/0").signTransaction(
      ethers.Transaction.from(unsigned),
    );
    const nonce = await provider.getTransactionCount(SIGNER, 'pending');
    await refused(wallet.call('evm_tx_send', { signed_tx: signed, network: 'local', dry_run: true }), rule);
    await refused(wallet.call('evm_tx_send', { signed_tx: signed, network: 'local' }), rule);
    assert.equal(await provider.getTransactionCount(SIGNER, 'pending'), nonce, 'nothing was sent');
    assert.equal(await provider.getTransaction(ethers.keccak256(signed)), null);
    assert.equal(await balanceOf(capped, puller), 0n);
  });
});
