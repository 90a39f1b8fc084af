/**
 * The EVM tools end to end against a real node: anvil (from @foundry-rs/anvil) on a free loopback
 * port, driven through a real MCP client on the real server. Every signature, transaction and
 * keystore file the tools produce is checked with ethers, an independent implementation.
 */
import assert from 'node:assert/strict';
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { ethers } from 'ethers';
import { encodeDeployData } from 'viem';
import { ANVIL_FIRST_ACCOUNT, ANVIL_MNEMONIC, startAnvil, type AnvilNode } from '../helpers/anvil.js';
import { compileToken } from '../helpers/erc20.js';
import { tempHome } from '../helpers/io.js';
import { failureCode, importAnvilMnemonic, localServer, type ToolCaller, ToolFailure } from '../helpers/mcp.js';
import { startRpcProxy, type RpcProxy } from '../helpers/rpc-proxy.js';
import { freePort } from '../helpers/ports.js';

const PASSPHRASE = 'anvil e2e passphrase';
const ETHER = 10n ** 18n;

type Funds = {
  hash: string | null;
  status: string;
  nonce: number;
  fee_wei: string | null;
  max_fee_wei: string;
  sent: boolean;
};
type Balance = {
  wei: string;
  ether: string;
  token_symbol: string | null;
  token_decimals: number | null;
  token_balance: string | null;
  token_amount: string | null;
};

function oracleAccount(index: number): ethers.HDNodeWallet {
  return ethers.HDNodeWallet.fromPhrase(ANVIL_MNEMONIC, undefined, `m/44'/60'/0'/0/${index}`);
}

describe('EVM tools against anvil, through MCP', () => {
  let node: AnvilNode;
  let home: string;
  let wallet: ToolCaller;
  let fresh: string;

  const balanceOf = async (address: string): Promise<bigint> =>
    BigInt(await node.rpc<string>('eth_getBalance', [address, 'latest']));

  before(async () => {
    node = await startAnvil();
    home = tempHome();
    wallet = await localServer({
      env: { WALLET_HOME: home, WALLET_EVM_LOCAL_URL: node.url },
      passphrase: PASSPHRASE,
    });
    await importAnvilMnemonic(wallet, 'anvil');
    await wallet.call('core_wallet_create', { alias: 'fresh', network: 'regtest' });
    fresh = (await wallet.call<{ address: string }>('evm_account_create', { wallet_id: 'fresh', alias: 'fresh' }))
      .address;
  });
  after(async () => {
    await wallet.close();
    await node.stop();
    rmSync(home, { recursive: true, force: true });
  });

  it("derives the funded account and the next one exactly as ethers does (m/44'/60'/0'/0/i)", async () => {
    const first = await wallet.call<{ address: string; path: string; index: number; wallet_id: string; alias: string }>(
      'evm_account_create',
      { wallet_id: 'anvil', alias: 'funded' },
    );
    assert.deepEqual(
      [first.address, first.path, first.index, first.alias],
      [ANVIL_FIRST_ACCOUNT, "m/44'/60'/0'/0/0", 0, 'funded'],
    );
    assert.match(first.wallet_id, /^[0-9a-f]{8}$/);
    assert.equal(first.address, oracleAccount(0).address);
    const second = await wallet.call<{ address: string; index: number }>('evm_account_create', { wallet_id: 'anvil' });
    assert.equal(second.index, 1);
    assert.equal(second.address, oracleAccount(1).address);
    const { accounts } = await wallet.call<{ accounts: { address: string; alias: string | null }[] }>(
      'evm_accounts_list',
      { wallet_id: 'anvil' },
    );
    assert.deepEqual(
      accounts.map((account) => [account.address, account.alias]),
      [
        [oracleAccount(0).address, 'funded'],
        [oracleAccount(1).address, null],
      ],
    );
  });

  it('create -> sign -> send as three calls; ethers decodes and recovers the signed transaction', async () => {
    const created = await wallet.call<{ unsigned_tx: string; nonce: number; chain_id: number; gas_limit: string }>(
      'evm_tx_create',
      { address: 'funded', to: fresh.toLowerCase(), value_wei: '12345', network: 'local' },
    );
    assert.equal(created.chain_id, 31337);
    assert.equal(created.gas_limit, '21000');
    const unsigned = ethers.Transaction.from(created.unsigned_tx);
    assert.equal(unsigned.signature, null);
    const signed = await wallet.call<{ signed_tx: string; hash: string; from: string }>('evm_tx_sign', {
      address: 'funded',
      unsigned_tx: created.unsigned_tx,
      network: 'local',
    });
    const decoded = ethers.Transaction.from(signed.signed_tx);
    assert.equal(decoded.from, ANVIL_FIRST_ACCOUNT);
    assert.equal(decoded.to, fresh);
    assert.equal(decoded.value, 12345n);
    assert.equal(decoded.chainId, 31337n);
    assert.equal(decoded.nonce, created.nonce);
    assert.equal(decoded.type, 2);
    assert.equal(decoded.hash, signed.hash);
    const sent = await wallet.call<{ hash: string; status: string; block_number: number }>('evm_tx_send', {
      signed_tx: signed.signed_tx,
      network: 'local',
      wait: true,
    });
    assert.equal(sent.hash, signed.hash);
    assert.equal(sent.status, 'success');
    // Sending it again changes nothing and reports the same transaction.
    const again = await wallet.call<{ hash: string; block_number: number }>('evm_tx_send', {
      signed_tx: signed.signed_tx,
      network: 'local',
    });
    assert.deepEqual([again.hash, again.block_number], [sent.hash, sent.block_number]);
    const looked = await wallet.call<{ status: string; from: string; value_wei: string; confirmations: number }>(
      'evm_tx_get',
      { hash: signed.hash, network: 'local' },
    );
    assert.deepEqual([looked.status, looked.from, looked.value_wei], ['success', ANVIL_FIRST_ACCOUNT, '12345']);
    assert.ok(looked.confirmations >= 1);
    const unknown = await wallet.call<{ status: string }>('evm_tx_get', {
      hash: `0x${'ab'.repeat(32)}`,
      network: 'local',
    });
    assert.equal(unknown.status, 'not_found');
  });

  it('deploys an ERC-20 through the tools and reads its balance, symbol and decimals', async () => {
    const { abi, bytecode } = compileToken();
    const data = encodeDeployData({ abi, bytecode, args: ['Test Token', 'TTK', 6, 1_234_567_890n] });
    const created = await wallet.call<{ unsigned_tx: string; nonce: number; to: string | null }>('evm_tx_create', {
      address: 'funded',
      data,
      network: 'local',
    });
    assert.equal(created.to, null);
    const signed = await wallet.call<{ signed_tx: string }>('evm_tx_sign', {
      address: 'funded',
      unsigned_tx: created.unsigned_tx,
      network: 'local',
    });
    const sent = await wallet.call<{ status: string; contract_address: string }>('evm_tx_send', {
      signed_tx: signed.signed_tx,
      network: 'local',
      wait: true,
    });
    assert.equal(sent.status, 'success');
    assert.equal(sent.contract_address, ethers.getCreateAddress({ from: ANVIL_FIRST_ACCOUNT, nonce: created.nonce }));
    const balance = await wallet.call<Balance>('evm_balance_get', {
      address: 'funded',
      network: 'local',
      token: sent.contract_address,
    });
    assert.deepEqual(
      [balance.token_symbol, balance.token_decimals, balance.token_balance, balance.token_amount],
      ['TTK', 6, '1234567890', '1234.56789'],
    );
    const none = await wallet.call<Balance>('evm_balance_get', {
      address: fresh,
      network: 'local',
      token: sent.contract_address,
    });
    assert.equal(none.token_balance, '0');
    assert.equal(
      await failureCode(wallet.call('evm_balance_get', { address: fresh, network: 'local', token: fresh })),
      'INVALID_PARAM',
    );
  });

  it('signs a message (EIP-191) that ethers verifies, and verifies both ways', async () => {
    const message = 'I own this account\nsecond line ✓';
    const signed = await wallet.call<{ signature: string; address: string }>('evm_message_sign', {
      address: 'funded',
      message,
    });
    assert.equal(ethers.verifyMessage(message, signed.signature), ANVIL_FIRST_ACCOUNT);
    assert.equal(signed.signature, await oracleAccount(0).signMessage(message));
    const valid = (args: Record<string, unknown>) =>
      wallet.call<{ valid: boolean }>('evm_message_verify', args).then((r) => r.valid);
    assert.equal(await valid({ address: ANVIL_FIRST_ACCOUNT, message, signature: signed.signature }), true);
    assert.equal(
      await valid({ address: ANVIL_FIRST_ACCOUNT, message: `${message}.`, signature: signed.signature }),
      false,
    );
    assert.equal(await valid({ address: fresh, message, signature: signed.signature }), false);
    const theirs = await oracleAccount(1).signMessage('from ethers');
    assert.equal(await valid({ address: oracleAccount(1).address, message: 'from ethers', signature: theirs }), true);
    assert.equal(
      await failureCode(wallet.call('evm_message_verify', { address: fresh, message, signature: '0x1234' })),
      'INVALID_PARAM',
    );
  });

  it('signs EIP-712 typed data that ethers verifies, refusing a domain of another chain', async () => {
    const domain = {
      name: 'Ether Mail',
      version: '1',
      chainId: 31337,
      verifyingContract: '0xCcCCccccCCCCcCCCCCCcCcCccCcCCCcCcccccccC',
    };
    const types = {
      Person: [
        { name: 'name', type: 'string' },
        { name: 'wallet', type: 'address' },
      ],
      Mail: [
        { name: 'from', type: 'Person' },
        { name: 'to', type: 'Person' },
        { name: 'contents', type: 'string' },
      ],
    };
    const message = {
      from: { name: 'Cow', wallet: '0xCD2a3d9F938E13CD947Ec05AbC7FE734Df8DD826' },
      to: { name: 'Bob', wallet: '0xbBbBBBBbbBBBbbbBbbBbbbbBBbBbbbbBbBbbBBbB' },
      contents: 'Hello, Bob!',
    };
    const signed = await wallet.call<{ signature: string; hash: string }>('evm_typed_data_sign', {
      address: 'funded',
      network: 'local',
      typed_data: { domain, types, primaryType: 'Mail', message },
    });
    assert.equal(ethers.verifyTypedData(domain, types, message, signed.signature), ANVIL_FIRST_ACCOUNT);
    assert.equal(signed.hash, ethers.TypedDataEncoder.hash(domain, types, message));
    assert.equal(
      await failureCode(
        wallet.call('evm_typed_data_sign', {
          address: 'funded',
          network: 'local',
          typed_data: { domain: { ...domain, chainId: 1 }, types, primaryType: 'Mail', message },
        }),
      ),
      'NETWORK_MISMATCH',
    );
    assert.equal(
      await failureCode(
        wallet.call('evm_typed_data_sign', {
          address: 'funded',
          network: 'local',
          typed_data: { domain, types, primaryType: 'Letter', message },
        }),
      ),
      'INVALID_PARAM',
    );
  });

  it('exports a keystore v3 that ethers decrypts, and imports it and a raw key elsewhere', async () => {
    const exported = await wallet.call<{ keystore_json: string; private_key: null }>('evm_account_export', {
      address: 'funded',
      keystore_password: 'export password',
    });
    const decrypted = await ethers.Wallet.fromEncryptedJson(exported.keystore_json, 'export password');
    assert.equal(decrypted.address, ANVIL_FIRST_ACCOUNT);
    assert.equal(decrypted.privateKey, oracleAccount(0).privateKey);
    const raw = await wallet.call<{ private_key: string }>('evm_account_export', {
      address: 'funded',
      key_format: 'private_key',
    });
    assert.equal(raw.private_key, oracleAccount(0).privateKey);

    const otherHome = tempHome();
    const other = await localServer({
      env: { WALLET_HOME: otherHome, WALLET_EVM_LOCAL_URL: node.url },
      passphrase: PASSPHRASE,
    });
    try {
      const fromJson = await other.call<{ address: string; source: string }>('evm_account_import', {
        keystore_json: exported.keystore_json,
        keystore_password: 'export password',
        alias: 'restored',
      });
      assert.deepEqual([fromJson.address, fromJson.source], [ANVIL_FIRST_ACCOUNT, 'imported']);
      assert.equal(
        await failureCode(other.call('evm_account_import', { private_key: oracleAccount(0).privateKey })),
        'INVALID_PARAM',
      );
      const third = oracleAccount(2);
      const fromKey = await other.call<{ address: string }>('evm_account_import', {
        private_key: third.privateKey.slice(2),
        alias: 'third',
      });
      assert.equal(fromKey.address, third.address);
      const paid = await other.call<Funds>('evm_funds_send', {
        address: 'third',
        to: fresh,
        value_wei: '777',
        network: 'local',
        wait: true,
      });
      assert.equal(paid.status, 'success');
      const signed = await other.call<{ signature: string }>('evm_message_sign', {
        address: 'restored',
        message: 'hi',
      });
      assert.equal(ethers.verifyMessage('hi', signed.signature), ANVIL_FIRST_ACCOUNT);
      assert.equal(
        await failureCode(
          other.call('evm_account_import', {
            keystore_json: exported.keystore_json,
            keystore_password: 'wrong password',
          }),
        ),
        'WALLET_LOCKED',
      );
    } finally {
      await other.close();
      rmSync(otherHome, { recursive: true, force: true });
    }
  });

  it('payments from one account at once get distinct nonces: none replaces another', async () => {
    const results = await Promise.all(
      Array.from({ length: 4 }, (_, i) =>
        wallet.call<Funds>('evm_funds_send', {
          address: 'funded',
          to: fresh,
          value_wei: String(100 + i),
          network: 'local',
          wait: true,
        }),
      ),
    );
    assert.deepEqual(
      results.map((result) => result.status),
      ['success', 'success', 'success', 'success'],
    );
    assert.equal(new Set(results.map((result) => result.nonce)).size, 4);
  });

  it('typed data with chainId as a string or hex is signed over that chain id, as ethers reads it', async () => {
    const types = { Ping: [{ name: 'n', type: 'uint256' }] };
    const message = { n: '7' };
    for (const chainId of ['31337', '0x7a69', 31337]) {
      const signed = await wallet.call<{ signature: string; hash: string }>('evm_typed_data_sign', {
        address: 'funded',
        network: 'local',
        typed_data: { domain: { name: 'P', chainId }, types, primaryType: 'Ping', message },
      });
      assert.equal(
        signed.hash,
        ethers.TypedDataEncoder.hash({ name: 'P', chainId: 31337 }, types, message),
        String(chainId),
      );
      assert.equal(
        ethers.verifyTypedData({ name: 'P', chainId: 31337 }, types, message, signed.signature),
        ANVIL_FIRST_ACCOUNT,
      );
    }
    for (const chainId of [true, '31337abc', 1.5, '']) {
      assert.equal(
        await failureCode(
          wallet.call('evm_typed_data_sign', {
            address: 'funded',
            network: 'local',
            typed_data: { domain: { name: 'P', chainId }, types, primaryType: 'Ping', message },
          }),
        ),
        'INVALID_PARAM',
        String(chainId),
      );
    }
  });

  describe('a node that misbehaves', () => {
    let proxy: RpcProxy;
    let proxied: ToolCaller;
    before(async () => {
      proxy = await startRpcProxy(node.url);
      proxied = await localServer({
        env: { WALLET_HOME: home, WALLET_EVM_LOCAL_URL: proxy.url },
        passphrase: PASSPHRASE,
      });
    });
    after(async () => {
      await proxied.close();
      await proxy.close();
    });

    it('a broadcast that went out but got no answer is found again: paid once, reported once', async () => {
      proxy.faults.set('eth_sendRawTransaction', { kind: 'forward-then-drop' });
      const nonce = Number(await node.rpc<string>('eth_getTransactionCount', [ANVIL_FIRST_ACCOUNT, 'pending']));
      const paid = await proxied.call<Funds>('evm_funds_send', {
        address: 'funded',
        to: fresh,
        value_wei: '5',
        network: 'local',
        wait: true,
      });
      proxy.faults.clear();
      assert.equal(paid.status, 'success');
      assert.equal(
        Number(await node.rpc<string>('eth_getTransactionCount', [ANVIL_FIRST_ACCOUNT, 'pending'])),
        nonce + 1,
      );
    });

    it('a broadcast lost on the way names the transaction hash, and nothing was sent', async () => {
      proxy.faults.set('eth_sendRawTransaction', { kind: 'drop' });
      const nonce = await node.rpc<string>('eth_getTransactionCount', [ANVIL_FIRST_ACCOUNT, 'pending']);
      const failure = await proxied
        .call('evm_funds_send', { address: 'funded', to: fresh, value_wei: '5', network: 'local' })
        .catch((error: unknown) => error);
      proxy.faults.clear();
      assert.ok(failure instanceof ToolFailure);
      assert.equal(failure.code, 'BACKEND_UNAVAILABLE');
      assert.match(failure.message, /0x[0-9a-f]{64}.*may have been sent/);
      assert.equal(await node.rpc<string>('eth_getTransactionCount', [ANVIL_FIRST_ACCOUNT, 'pending']), nonce);
    });

    it('a node error on a read is BACKEND_UNAVAILABLE, not bad input', async () => {
      proxy.faults.set('eth_getBalance', { kind: 'error', code: -32000, message: 'header not found' });
      const failure = await proxied
        .call('evm_balance_get', { address: fresh, network: 'local' })
        .catch((error: unknown) => error);
      proxy.faults.clear();
      assert.ok(failure instanceof ToolFailure);
      assert.equal(failure.code, 'BACKEND_UNAVAILABLE');
      assert.match(failure.message, /header not found/);
    });
  });

  describe('bad input: a clear error, nothing sent', () => {
    const unchanged = async (check: () => Promise<void>): Promise<void> => {
      const balance = await balanceOf(ANVIL_FIRST_ACCOUNT);
      const nonce = await node.rpc<string>('eth_getTransactionCount', [ANVIL_FIRST_ACCOUNT, 'pending']);
      await check();
      assert.equal(await balanceOf(ANVIL_FIRST_ACCOUNT), balance);
      assert.equal(await node.rpc<string>('eth_getTransactionCount', [ANVIL_FIRST_ACCOUNT, 'pending']), nonce);
    };
    const send = (args: Record<string, unknown>) =>
      failureCode(
        wallet.call('evm_funds_send', { address: 'funded', to: fresh, value_wei: '1', network: 'local', ...args }),
      );

    it('malformed and wrong-checksum addresses', () =>
      unchanged(async () => {
        assert.equal(await send({ to: '0x1234' }), 'INVALID_PARAM');
        // One letter's case flipped: still mixed case, so the EIP-55 checksum no longer matches.
        assert.equal(await send({ to: '0xf39fd6e51aad88F6F4ce6aB8827279cffFb92266' }), 'INVALID_PARAM');
        const planned = await wallet.call<Funds>('evm_funds_send', {
          address: 'funded',
          to: fresh.toLowerCase(),
          value_wei: '1',
          network: 'local',
          dry_run: true,
        });
        assert.equal(planned.status, 'planned');
      }));

    it('a value that is not a whole number of wei', () =>
      unchanged(async () => {
        for (const value_wei of ['1.5', '-1', '1e18', '0x10', ' 1', '']) {
          assert.equal(await send({ value_wei }), 'INVALID_PARAM', value_wei);
        }
      }));

    it('insufficient funds, before anything is signed', async () => {
      const before = await balanceOf(fresh);
      assert.equal(
        await failureCode(
          wallet.call('evm_funds_send', {
            address: 'fresh',
            to: ANVIL_FIRST_ACCOUNT,
            value_wei: (2n * ETHER).toString(),
            network: 'local',
          }),
        ),
        'INSUFFICIENT_FUNDS',
      );
      assert.equal(await balanceOf(fresh), before);
    });

    it('the network is required for spending and signing', () =>
      unchanged(async () => {
        assert.equal(
          await failureCode(wallet.call('evm_funds_send', { address: 'funded', to: fresh, value_wei: '1' })),
          'NETWORK_REQUIRED',
        );
      }));

    it('a node that is down: BACKEND_UNAVAILABLE, fast', async () => {
      const down = await localServer({
        env: { WALLET_HOME: home, WALLET_EVM_LOCAL_URL: `http://127.0.0.1:${await freePort()}` },
        passphrase: PASSPHRASE,
      });
      try {
        const started = Date.now();
        assert.equal(
          await failureCode(down.call('evm_balance_get', { address: fresh, network: 'local' })),
          'BACKEND_UNAVAILABLE',
        );
        assert.equal(
          await failureCode(
            down.call('evm_funds_send', { address: 'funded', to: fresh, value_wei: '1', network: 'local' }),
          ),
          'BACKEND_UNAVAILABLE',
        );
        assert.ok(Date.now() - started < 10_000, `took ${Date.now() - started} ms`);
      } finally {
        await down.close();
      }
    });

    it('a node of another chain: NETWORK_MISMATCH on every call', () =>
      unchanged(async () => {
        const configHome = tempHome();
        writeFileSync(
          join(configHome, 'config.json'),
          JSON.stringify({ evm: { networks: { holesky: { url: node.url, chain_id: 17000 } } } }),
        );
        const mismatched = await localServer({ env: { WALLET_HOME: configHome }, passphrase: PASSPHRASE });
        try {
          assert.equal(
            await failureCode(mismatched.call('evm_balance_get', { address: fresh, network: 'holesky' })),
            'NETWORK_MISMATCH',
          );
          assert.equal(
            await failureCode(mismatched.call('evm_tx_create', { address: fresh, to: fresh, network: 'holesky' })),
            'NETWORK_MISMATCH',
          );
          assert.equal(
            await failureCode(mismatched.call('evm_tx_get', { hash: `0x${'00'.repeat(32)}`, network: 'holesky' })),
            'NETWORK_MISMATCH',
          );
        } finally {
          await mismatched.close();
          rmSync(configHome, { recursive: true, force: true });
        }
      }));

    it('a transaction for another chain is neither signed nor sent', () =>
      unchanged(async () => {
        const created = await wallet.call<{ unsigned_tx: string }>('evm_tx_create', {
          address: 'funded',
          to: fresh,
          value_wei: '1',
          network: 'local',
        });
        assert.equal(
          await failureCode(
            wallet.call('evm_tx_sign', { address: 'funded', unsigned_tx: created.unsigned_tx, network: 'mainnet' }),
          ),
          'NETWORK_MISMATCH',
        );
        const nonce = Number(await node.rpc<string>('eth_getTransactionCount', [ANVIL_FIRST_ACCOUNT, 'pending']));
        const forMainnet = await oracleAccount(0).signTransaction({
          type: 2,
          chainId: 1,
          nonce,
          to: fresh,
          value: 1n,
          gasLimit: 21000n,
          maxFeePerGas: 10n ** 10n,
          maxPriorityFeePerGas: 10n ** 9n,
        });
        assert.equal(
          await failureCode(wallet.call('evm_tx_send', { signed_tx: forMainnet, network: 'local' })),
          'NETWORK_MISMATCH',
        );
        assert.equal(await node.rpc('eth_getTransactionByHash', [ethers.keccak256(forMainnet)]), null);
        assert.equal(
          await failureCode(wallet.call('evm_tx_send', { signed_tx: created.unsigned_tx, network: 'local' })),
          'INVALID_PARAM',
        );
        assert.equal(
          await failureCode(wallet.call('evm_tx_send', { signed_tx: '0x02c0ffee', network: 'local' })),
          'INVALID_PARAM',
        );
      }));

    it('a fee above max_fee_wei is refused before sending', () =>
      unchanged(async () => {
        assert.equal(await send({ max_fee_wei: '1' }), 'POLICY_VIOLATION');
      }));
  });
});
