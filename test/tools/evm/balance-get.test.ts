/**
 * evm_balance_get against a real node (anvil), through a real SDK client on the wallet's server:
 * the balance the node itself reports (eth_getBalance, asked directly), for an address or a
 * keystore alias, before and after a transfer the node's unlocked account makes on its own.
 */
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { formatEther } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { ANVIL_FIRST_ACCOUNT, startAnvil, type AnvilNode } from '../../helpers/anvil.js';
import { tempHome } from '../../helpers/io.js';
import { failureCode, localServer, type ToolCaller } from '../../helpers/mcp.js';

type Balance = { address: string; network: string; wei: string; ether: string; token: string | null };

describe('evm_balance_get against anvil', () => {
  let node: AnvilNode;
  let home: string;
  let wallet: ToolCaller;
  const key = generatePrivateKey();
  const holder = privateKeyToAccount(key).address;
  const nodeBalance = async (address: string) =>
    BigInt(await node.rpc<string>('eth_getBalance', [address, 'latest'])).toString();
  before(async () => {
    node = await startAnvil();
    home = tempHome();
    wallet = await localServer({
      env: { WALLET_HOME: home, WALLET_EVM_LOCAL_URL: node.url },
      passphrase: 'balance test passphrase',
    });
    await wallet.call('evm_account_import', { private_key: key, alias: 'holder' });
  });
  after(async () => {
    await wallet.close();
    await node.stop();
    rmSync(home, { recursive: true, force: true });
  });

  it("answers the node's balance of a funded address, in wei and in ether", async () => {
    const funded = await wallet.call<Balance>('evm_balance_get', { address: ANVIL_FIRST_ACCOUNT, network: 'local' });
    assert.equal(funded.wei, await nodeBalance(ANVIL_FIRST_ACCOUNT));
    assert.equal(BigInt(funded.wei) > 0n, true);
    assert.equal(funded.ether, formatEther(BigInt(funded.wei)));
    assert.deepEqual([funded.address, funded.network, funded.token], [ANVIL_FIRST_ACCOUNT, 'local', null]);
  });

  it("follows the node: a keystore alias's balance, 0 before and the value after a transfer to it", async () => {
    const empty = await wallet.call<Balance>('evm_balance_get', { address: 'holder', network: 'local' });
    assert.deepEqual([empty.address, empty.wei, empty.ether], [holder, '0', '0']);
    // The node's own unlocked account pays, outside the wallet.
    await node.rpc('eth_sendTransaction', [{ from: ANVIL_FIRST_ACCOUNT, to: holder, value: '0x3039' }]);
    const paid = await wallet.call<Balance>('evm_balance_get', { address: 'holder', network: 'local' });
    assert.equal(paid.wei, '12345');
    assert.equal(paid.wei, await nodeBalance(holder));
  });

  it('refuses a malformed address before asking the node: INVALID_PARAM', async () => {
    assert.equal(
      await failureCode(wallet.call('evm_balance_get', { address: '0x1234', network: 'local' })),
      'INVALID_PARAM',
    );
  });
});
