/**
 * The EVM test harness itself: a real anvil node from the @foundry-rs/anvil devDependency and the
 * test ERC-20 compiled with solc-js, deployed and moved over plain JSON-RPC.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { decodeFunctionResult, encodeFunctionData, parseEther, type Address, type Hex } from 'viem';
import { ANVIL_FIRST_ACCOUNT, startAnvil, type AnvilNode } from '../helpers/anvil.js';
import { compileToken, deployToken, transferToken } from '../helpers/erc20.js';

const SUPPLY = 1_000_000n * 10n ** 6n;
const RECIPIENT: Address = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8';

describe('anvil harness', () => {
  let node: AnvilNode;
  let token: Address;

  const call = async (functionName: string, args: readonly unknown[] = []): Promise<unknown> => {
    const { abi } = compileToken();
    const data = encodeFunctionData({ abi, functionName, args });
    const result = await node.rpc<Hex>('eth_call', [{ to: token, data }, 'latest']);
    return decodeFunctionResult({ abi, functionName, data: result });
  };

  before(async () => {
    node = await startAnvil();
  });

  after(async () => {
    await node?.stop();
  });

  it('answers on a free loopback port with chain id 31337', async () => {
    assert.match(node.url, /^http:\/\/127\.0\.0\.1:\d+\/$/);
    assert.notEqual(new URL(node.url).port, '8545');
    assert.equal(await node.rpc<string>('eth_chainId'), '0x7a69');
  });

  it('funds the first account with 10000 ether', async () => {
    const balance = await node.rpc<Hex>('eth_getBalance', [ANVIL_FIRST_ACCOUNT, 'latest']);
    assert.equal(BigInt(balance), parseEther('10000'));
  });

  it('deploys the token with the whole supply on the first account', async () => {
    token = await deployToken(node, { name: 'Test Token', symbol: 'TST', decimals: 6, supply: SUPPLY });
    assert.equal(await call('balanceOf', [ANVIL_FIRST_ACCOUNT]), SUPPLY);
    assert.equal(await call('totalSupply'), SUPPLY);
    assert.equal(await call('symbol'), 'TST');
    assert.equal(await call('name'), 'Test Token');
    assert.equal(await call('decimals'), 6);
  });

  it('moves tokens with transfer', async () => {
    await transferToken(node, token, RECIPIENT, 1_234_567n);
    assert.equal(await call('balanceOf', [RECIPIENT]), 1_234_567n);
    assert.equal(await call('balanceOf', [ANVIL_FIRST_ACCOUNT]), SUPPLY - 1_234_567n);
  });

  it('leaves no process after stop()', async () => {
    const { pid } = node;
    assert.doesNotThrow(() => process.kill(pid, 0));
    await node.stop();
    assert.throws(() => process.kill(pid, 0), { code: 'ESRCH' });
  });
});
