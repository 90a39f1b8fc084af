/**
 * Tokens under the policy, on a real anvil with the test PermitToken (ERC-20, EIP-2612 permit):
 * per-token caps for evm_token_transfer and for permits, counted in the chain's token ledger and
 * still counted after a restart; unlimited approvals refused unless the spender is listed; and an
 * agent's autonomy per token (within it nobody is asked; above it, APPROVAL_REQUIRED). Balances
 * are read off the node with ethers, independently of the wallet.
 */
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { ethers } from 'ethers';
import { encodeFunctionData, erc20Abi, maxUint256, type Address, type Hex } from 'viem';
import { ANVIL_FIRST_ACCOUNT, ANVIL_MNEMONIC, startAnvil, type AnvilNode } from '../helpers/anvil.js';
import { compilePermitToken, deployPermitToken, sendAndWait } from '../helpers/erc20.js';
import { tempHome } from '../helpers/io.js';
import { importAnvilInto, localServer, ownerAndAgent, type ToolCaller, ToolFailure } from '../helpers/mcp.js';
import { refused, writeLocalPolicy } from '../helpers/policy.js';

const PASSPHRASE = 'token policy passphrase';
const account = (index: number) =>
  ethers.HDNodeWallet.fromPhrase(ANVIL_MNEMONIC, undefined, `m/44'/60'/0'/0/${index}`).address as Address;
const FRIEND = account(5);
const SPENDER = account(1);
const VAULT = account(2);
const STRANGER = account(6);
const TOKEN = 10n ** 6n;

describe('tokens under the policy (anvil, PermitToken)', () => {
  let node: AnvilNode;
  let home: string;
  let token: Address;
  let contract: ethers.Contract;
  let provider: ethers.JsonRpcProvider;
  let owner: ToolCaller;
  let agent: ToolCaller;
  const env = () => ({ WALLET_HOME: home, WALLET_EVM_LOCAL_URL: node.url });
  const balanceOf = async (who: Address) => (await contract.getFunction('balanceOf').staticCall(who)) as bigint;
  const transfer = (caller: ToolCaller, amount: bigint, to: Address = FRIEND) =>
    caller.call<{ sent: boolean }>('evm_token_transfer', {
      address: 'holder',
      token,
      to,
      amount: amount.toString(),
      network: 'local',
      wait: true,
    });
  const codeOf = (promise: Promise<unknown>) =>
    promise.then(
      () => 'ok',
      (error: unknown) => (error instanceof ToolFailure ? error.code : String(error)),
    );
  const permit = async (caller: ToolCaller, spender: Address, value: bigint) => {
    const nonce = (await contract.getFunction('nonces').staticCall(ANVIL_FIRST_ACCOUNT)) as bigint;
    return caller.call<{ signature: string; hash: string }>('evm_typed_data_sign', {
      address: 'holder',
      network: 'local',
      typed_data: {
        domain: { name: 'Permit Token', version: '1', chainId: 31337, verifyingContract: token },
        types: {
          Permit: [
            { name: 'owner', type: 'address' },
            { name: 'spender', type: 'address' },
            { name: 'value', type: 'uint256' },
            { name: 'nonce', type: 'uint256' },
            { name: 'deadline', type: 'uint256' },
          ],
        },
        primaryType: 'Permit',
        message: {
          owner: ANVIL_FIRST_ACCOUNT,
          spender,
          value: value.toString(),
          nonce: nonce.toString(),
          deadline: '4102444800',
        },
      },
    });
  };

  before(async () => {
    node = await startAnvil();
    provider = new ethers.JsonRpcProvider(node.url, 31337, { staticNetwork: true, cacheTimeout: -1 });
    token = ethers.getAddress(
      await deployPermitToken(node, { name: 'Permit Token', symbol: 'PTK', decimals: 6, supply: 1000n * TOKEN }),
    ) as Address;
    contract = new ethers.Contract(token, compilePermitToken().abi as ethers.InterfaceAbi, provider);
    home = tempHome();
    writeLocalPolicy(home, {
      allowed_recipients: [FRIEND, SPENDER, VAULT, token],
      // The agent may spend ether alone only on fees (0.01 ether a day), the token within
      // its own caps.
      autonomous: { max_per_tx_wei: (10n ** 16n).toString(), max_per_24h_wei: (10n ** 16n).toString() },
      tokens: {
        [token.toLowerCase()]: {
          max_per_tx: (5n * TOKEN).toString(),
          max_per_24h: (12n * TOKEN).toString(),
          autonomous: { max_per_tx: (2n * TOKEN).toString(), max_per_24h: (3n * TOKEN).toString() },
          unlimited_spenders: [VAULT],
        },
      },
    });
    ({ owner, agent } = await ownerAndAgent(env(), PASSPHRASE));
  });
  after(async () => {
    provider.destroy();
    await owner.close();
    await agent.close();
    await node.stop();
    rmSync(home, { recursive: true, force: true });
  });

  it('an agent moves the token alone within its autonomous caps, and waits for approval above them', async () => {
    const before = await balanceOf(FRIEND);
    assert.equal((await transfer(agent, 2n * TOKEN)).sent, true);
    assert.equal(await codeOf(transfer(agent, 2n * TOKEN + 1n)), 'APPROVAL_REQUIRED', 'above autonomous.max_per_tx');
    // What the owner is asked: the amount in the token's base units, the fee in the chain's wei.
    const asked = await agent.client.callTool({
      name: 'evm_token_transfer',
      arguments: {
        address: 'holder',
        token,
        to: FRIEND,
        amount: (2n * TOKEN + 1n).toString(),
        network: 'local',
        wait: true,
      },
    });
    const details = (asked._meta?.['wallet/error'] as { details?: Record<string, unknown> } | undefined)?.details ?? {};
    assert.deepEqual([details['unit'], details['amount'], details['fee_unit']], ['token', '2000001', 'wei']);
    assert.match(String(details['fee']), /^[1-9]\d*$/);
    assert.match(JSON.stringify(asked.content), /fee up to [\d.]+ ether \(\d+ wei\)/);
    assert.equal((await transfer(agent, TOKEN)).sent, true);
    assert.equal(await codeOf(transfer(agent, 1n)), 'APPROVAL_REQUIRED', 'the agent spent its 3 of the day');
    assert.equal(await balanceOf(FRIEND), before + 3n * TOKEN, 'exactly what went through');
    // An ether payment above what the agent may spend alone.
    const ether = await codeOf(
      agent.call('evm_funds_send', {
        address: 'holder',
        to: FRIEND,
        value_wei: (2n * 10n ** 16n).toString(),
        network: 'local',
      }),
    );
    assert.equal(ether, 'APPROVAL_REQUIRED');
  });

  it('per-token caps bind the owner too, and hold across a restart', async () => {
    const rule = `evm.networks.local.policy.tokens.${token}`;
    assert.match(await refused(transfer(owner, 5n * TOKEN + 1n), `${rule}.max_per_tx`), /5000001 base units/);
    const before = await balanceOf(FRIEND);
    assert.equal((await transfer(owner, 5n * TOKEN)).sent, true);
    // 3 (agent) + 5 = 8 of 12: 4 more fit, 5 do not, after a restart as before.
    const restarted = await localServer({ env: env(), passphrase: PASSPHRASE });
    try {
      await refused(transfer(restarted, 5n * TOKEN), `${rule}.max_per_24h`);
      assert.equal((await transfer(restarted, 4n * TOKEN)).sent, true);
      await refused(transfer(restarted, 1n), `${rule}.max_per_24h`);
    } finally {
      await restarted.close();
    }
    assert.equal(await balanceOf(FRIEND), before + 9n * TOKEN);
  });

  it('an unlimited approval is refused unless the policy lists that spender; so is one sent as raw calldata', async () => {
    const approve = (spender: Address, amount: bigint) =>
      owner.call('evm_funds_send', {
        address: 'holder',
        to: token,
        value_wei: '0',
        network: 'local',
        data: encodeFunctionData({ abi: erc20Abi, functionName: 'approve', args: [spender, amount] }),
        wait: true,
      });
    const error = await approve(SPENDER, maxUint256).catch((failure: unknown) => failure);
    assert.ok(error instanceof ToolFailure);
    assert.equal(error.code, 'POLICY_VIOLATION');
    assert.match(error.message, /unlimited approve of token .* unless the policy allows that spender/);
    assert.equal(await contract.getFunction('allowance').staticCall(ANVIL_FIRST_ACCOUNT, SPENDER), 0n);
    await approve(VAULT, maxUint256);
    assert.equal(await contract.getFunction('allowance').staticCall(ANVIL_FIRST_ACCOUNT, VAULT), maxUint256);
    // Unreadable calldata (not a token call) is never autonomous.
    const unreadable = await codeOf(
      agent.call('evm_funds_send', {
        address: 'holder',
        to: FRIEND,
        value_wei: '0',
        network: 'local',
        data: '0xdeadbeef',
      }),
    );
    assert.equal(unreadable, 'APPROVAL_REQUIRED');
  });

  it('a permit is a token spend: allowlist and caps apply; within autonomy the agent signs one that works on chain', async () => {
    assert.equal(await codeOf(permit(owner, STRANGER, TOKEN)), 'POLICY_VIOLATION', 'spender not allowed');
    assert.equal(await codeOf(permit(owner, SPENDER, 6n * TOKEN)), 'POLICY_VIOLATION', 'above the token cap');
    assert.equal(await codeOf(permit(owner, SPENDER, maxUint256)), 'POLICY_VIOLATION', 'unlimited');
    // The token's day is spent (3 + 5 + 4 of 12): refused by the 24-hour cap, whoever asks; no
    // approval could lift it.
    assert.equal(await codeOf(permit(owner, SPENDER, 1n)), 'POLICY_VIOLATION');
    assert.equal(await codeOf(permit(agent, SPENDER, 1n)), 'POLICY_VIOLATION');
  });
});

describe('a permit within autonomy works on chain', () => {
  let node: AnvilNode;
  let home: string;
  let token: Address;
  let agent: ToolCaller;

  before(async () => {
    node = await startAnvil();
    token = ethers.getAddress(
      await deployPermitToken(node, { name: 'Permit Token', symbol: 'PTK', decimals: 6, supply: 1000n * TOKEN }),
    ) as Address;
    home = tempHome();
    writeLocalPolicy(home, {
      autonomous: { max_per_tx_wei: '0', max_per_24h_wei: '0' },
      tokens: {
        [token]: {
          autonomous: { max_per_tx: (2n * TOKEN).toString(), max_per_24h: (2n * TOKEN).toString() },
        },
      },
    });
    const owner = await localServer({
      env: { WALLET_HOME: home, WALLET_EVM_LOCAL_URL: node.url },
      passphrase: PASSPHRASE,
    });
    await importAnvilInto(owner, { walletAlias: 'anvil', accountAlias: 'holder' });
    await owner.close();
    agent = await localServer({
      env: { WALLET_HOME: home, WALLET_EVM_LOCAL_URL: node.url },
      passphrase: PASSPHRASE,
      localOnly: false,
      caller: 'agent',
    });
  });
  after(async () => {
    await agent.close();
    await node.stop();
    rmSync(home, { recursive: true, force: true });
  });

  it('signed alone, verified by ethers, then permit and transferFrom by the spender move the tokens', async () => {
    const value = 2n * TOKEN;
    const domain = { name: 'Permit Token', version: '1', chainId: 31337, verifyingContract: token };
    const types = {
      Permit: [
        { name: 'owner', type: 'address' },
        { name: 'spender', type: 'address' },
        { name: 'value', type: 'uint256' },
        { name: 'nonce', type: 'uint256' },
        { name: 'deadline', type: 'uint256' },
      ],
    };
    const message = {
      owner: ANVIL_FIRST_ACCOUNT,
      spender: SPENDER,
      value: value.toString(),
      nonce: '0',
      deadline: '4102444800',
    };
    const signed = await agent.call<{ signature: string; hash: string }>('evm_typed_data_sign', {
      address: 'holder',
      network: 'local',
      typed_data: { domain, types, primaryType: 'Permit', message },
    });
    assert.equal(ethers.verifyTypedData(domain, types, message, signed.signature), ANVIL_FIRST_ACCOUNT);
    const { v, r, s } = ethers.Signature.from(signed.signature);
    const iface = new ethers.Interface(compilePermitToken().abi as ethers.InterfaceAbi);
    await sendAndWait(node, {
      from: SPENDER,
      to: token,
      data: iface.encodeFunctionData('permit', [ANVIL_FIRST_ACCOUNT, SPENDER, value, 4102444800n, v, r, s]) as Hex,
    });
    await sendAndWait(node, {
      from: SPENDER,
      to: token,
      data: iface.encodeFunctionData('transferFrom', [ANVIL_FIRST_ACCOUNT, STRANGER, value]) as Hex,
    });
    const balance = await node.rpc<string>('eth_call', [
      { to: token, data: iface.encodeFunctionData('balanceOf', [STRANGER]) },
      'latest',
    ]);
    assert.equal(BigInt(balance), value);
    // The agent's token day is used up by that permit: the next one waits for the owner.
    const next = await agent
      .call('evm_typed_data_sign', {
        address: 'holder',
        network: 'local',
        typed_data: { domain, types, primaryType: 'Permit', message: { ...message, nonce: '1', value: '1' } },
      })
      .catch((error: unknown) => error);
    assert.ok(next instanceof ToolFailure);
    assert.equal(next.code, 'APPROVAL_REQUIRED');
    // An EIP712Domain type that leaves the chainId out of the hash is refused: the signature would
    // be good on every chain, though the domain object names one.
    const hidden = await agent
      .call('evm_typed_data_sign', {
        address: 'holder',
        network: 'local',
        typed_data: {
          domain,
          types: {
            ...types,
            EIP712Domain: [
              { name: 'name', type: 'string' },
              { name: 'version', type: 'string' },
              { name: 'verifyingContract', type: 'address' },
            ],
          },
          primaryType: 'Permit',
          message: { ...message, nonce: '1', value: '1' },
        },
      })
      .catch((error: unknown) => error);
    assert.ok(hidden instanceof ToolFailure);
    assert.equal(hidden.code, 'INVALID_PARAM');
    assert.match(hidden.message, /EIP712Domain must list exactly the fields of typed_data\.domain/);
  });
});
