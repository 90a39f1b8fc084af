/**
 * evm_token_transfer against a real node: anvil, the test ERC-20 deployed on it, a real MCP client
 * on the real server. Balances are read from the node with ethers (not through the wallet's tools),
 * and the transaction the tool sent is decoded with ethers' ABI coder.
 */
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { ethers } from 'ethers';
import type { Address } from 'viem';
import { ANVIL_FIRST_ACCOUNT, ANVIL_MNEMONIC, startAnvil, type AnvilNode } from '../../helpers/anvil.js';
import { deployContract, deployToken } from '../../helpers/erc20.js';
import { tempHome } from '../../helpers/io.js';
import { closeAnvilTest, failureCode, serveAnvilWallet, type ToolCaller, ToolFailure } from '../../helpers/mcp.js';
import { auditLines } from '../../helpers/policy.js';

const PASSPHRASE = 'token transfer passphrase';
const SUPPLY = 1_000_000_000_000n;
const oracleAccount = (index: number) =>
  ethers.HDNodeWallet.fromPhrase(ANVIL_MNEMONIC, undefined, `m/44'/60'/0'/0/${index}`);
const RECIPIENT = oracleAccount(3).address;
/** Init code of a contract whose code is one STOP: it answers every call with no data. */
const NOT_A_TOKEN_INIT_CODE = '0x6001600c60003960016000f300';
/** A private key written where an address goes (64 hex digits pass the fields' length check): never logged. */
const KEY_SHAPED = '4c0883a69102937d6231471b5dbb6204fe5129617082792ae468d01a3f362318';

type Transfer = {
  network: string;
  chain_id: number;
  from: string;
  to: string;
  token: string;
  token_symbol: string | null;
  token_decimals: number;
  amount: string;
  token_amount: string;
  data: string;
  nonce: number;
  max_fee_wei: string;
  sent: boolean;
  hash: string | null;
  status: string;
  fee_wei: string | null;
};

const erc20 = new ethers.Interface([
  'function balanceOf(address owner) view returns (uint256)',
  'function transfer(address to, uint256 value) returns (bool)',
]);

describe('evm_token_transfer against anvil, through MCP', () => {
  let node: AnvilNode;
  let home: string;
  let wallet: ToolCaller;
  let token: Address;
  let provider: ethers.JsonRpcProvider;

  const tokenBalance = async (holder: string): Promise<bigint> =>
    (await new ethers.Contract(token, erc20, provider).getFunction('balanceOf')(holder)) as bigint;
  const nonce = () => provider.getTransactionCount(ANVIL_FIRST_ACCOUNT, 'pending');
  const transfer = (args: Record<string, unknown>) =>
    wallet.call<Transfer>('evm_token_transfer', {
      address: 'funded',
      token,
      to: RECIPIENT,
      amount: '1',
      network: 'local',
      ...args,
    });
  /** Runs `check`, then asserts nothing was sent: same nonce, same token and ether balances. */
  const nothingSent = async (check: () => Promise<void>): Promise<void> => {
    const state = async () => [
      await nonce(),
      await provider.getBalance(ANVIL_FIRST_ACCOUNT),
      await tokenBalance(ANVIL_FIRST_ACCOUNT),
      await tokenBalance(RECIPIENT),
    ];
    const before = await state();
    await check();
    assert.deepEqual(await state(), before, 'nonce and balances unchanged');
  };

  before(async () => {
    node = await startAnvil();
    provider = new ethers.JsonRpcProvider(node.url, 31337, { staticNetwork: true, cacheTimeout: -1 });
    token = ethers.getAddress(
      await deployToken(node, { name: 'Test Token', symbol: 'TST', decimals: 6, supply: SUPPLY }),
    ) as Address;
    home = tempHome();
    const network = (settings: Record<string, unknown>) => ({ url: node.url, ...settings });
    writeFileSync(
      join(home, 'config.json'),
      JSON.stringify({
        evm: {
          networks: {
            elsewhere: network({ chain_id: 17000 }),
          },
        },
      }),
    );
    wallet = await serveAnvilWallet(home, node.url, PASSPHRASE, 'funded');
  });
  after(() => closeAnvilTest({ provider, wallet, node, home }));

  it('moves exactly amount from the sender to the recipient; the sender pays only gas in ether', async () => {
    const [senderTokens, recipientTokens, senderWei] = [
      await tokenBalance(ANVIL_FIRST_ACCOUNT),
      await tokenBalance(RECIPIENT),
      await provider.getBalance(ANVIL_FIRST_ACCOUNT),
    ];
    const sent = await transfer({ amount: '1500000', to: RECIPIENT.toLowerCase(), wait: true });
    assert.deepEqual(
      [sent.sent, sent.status, sent.network, sent.chain_id, sent.from, sent.to, sent.token],
      [true, 'success', 'local', 31337, ANVIL_FIRST_ACCOUNT, RECIPIENT, token],
    );
    assert.deepEqual(
      [sent.token_symbol, sent.token_decimals, sent.amount, sent.token_amount],
      ['TST', 6, '1500000', '1.5'],
    );
    assert.equal(await tokenBalance(ANVIL_FIRST_ACCOUNT), senderTokens - 1_500_000n);
    assert.equal(await tokenBalance(RECIPIENT), recipientTokens + 1_500_000n);
    assert.equal(await provider.getBalance(ANVIL_FIRST_ACCOUNT), senderWei - BigInt(sent.fee_wei ?? 'x'));

    const onChain = await provider.getTransaction(sent.hash ?? '');
    assert.ok(onChain);
    assert.deepEqual([onChain.from, onChain.to, onChain.value], [ANVIL_FIRST_ACCOUNT, token, 0n]);
    const call = erc20.parseTransaction({ data: onChain.data });
    assert.deepEqual([call?.name, call?.args[0], call?.args[1]], ['transfer', RECIPIENT, 1_500_000n]);
    assert.equal(onChain.data, sent.data);

    const line = auditLines(home).at(-1);
    assert.deepEqual(
      [line?.['tool'], line?.['outcome'], line?.['network'], line?.['from'], line?.['recipient'], line?.['hash']],
      ['evm_token_transfer', 'sent', 'local', ANVIL_FIRST_ACCOUNT, RECIPIENT, sent.hash],
    );
  });

  it('a dry run plans and moves nothing', () =>
    nothingSent(async () => {
      const planned = await transfer({ amount: '2000000', dry_run: true });
      assert.deepEqual([planned.sent, planned.hash, planned.status], [false, null, 'planned']);
      assert.equal(planned.nonce, await nonce());
      assert.ok(BigInt(planned.max_fee_wei) > 0n);
      assert.equal(planned.token_amount, '2');
      assert.equal(auditLines(home).at(-1)?.outcome, 'dry_run');
    }));

  it('more than the sender holds: INSUFFICIENT_FUNDS naming the balance; nothing sent', () =>
    nothingSent(async () => {
      const held = await tokenBalance(ANVIL_FIRST_ACCOUNT);
      const error = await transfer({ amount: (held + 1n).toString() }).then(
        () => assert.fail('expected INSUFFICIENT_FUNDS'),
        (failure: unknown) => failure,
      );
      assert.ok(error instanceof ToolFailure);
      assert.equal(error.code, 'INSUFFICIENT_FUNDS');
      assert.ok(error.message.includes(`(${held} base units)`), error.message);
      assert.ok(error.message.includes(`needs ${held + 1n}`), error.message);
    }));

  it('not a token: no code, or a contract that does not answer as an ERC-20 (INVALID_PARAM)', async () => {
    const silent = await deployContract(node, NOT_A_TOKEN_INIT_CODE);
    await nothingSent(async () => {
      for (const [notAToken, expected] of [
        [oracleAccount(7).address, /No contract at token/],
        [silent, /is not an ERC-20: balanceOf\(\) or decimals\(\) fails/],
      ] as const) {
        const error = await transfer({ token: notAToken }).then(
          () => assert.fail('expected INVALID_PARAM'),
          (failure: unknown) => failure,
        );
        assert.ok(error instanceof ToolFailure);
        assert.equal(error.code, 'INVALID_PARAM');
        assert.match(error.message, expected);
      }
    });
  });

  it('bad amounts and recipients are refused before the node is asked', () =>
    nothingSent(async () => {
      for (const amount of ['0', '-1', '1.5', '007', '', (2n ** 256n).toString()]) {
        assert.equal(await failureCode(transfer({ amount })), 'INVALID_PARAM', amount);
      }
      assert.equal(await failureCode(transfer({ to: token })), 'INVALID_PARAM');
      assert.equal(await failureCode(transfer({ to: 'bob' })), 'INVALID_PARAM');
      assert.equal(await failureCode(transfer({ token: '0x1234' })), 'INVALID_PARAM');
    }));

  it('the network is required, and one whose node serves another chain is refused', () =>
    nothingSent(async () => {
      const { network: _omitted, ...withoutNetwork } = {
        address: 'funded',
        token,
        to: RECIPIENT,
        amount: '1',
        network: 'local',
      };
      assert.equal(await failureCode(wallet.call('evm_token_transfer', withoutNetwork)), 'NETWORK_REQUIRED');
      assert.equal(await failureCode(transfer({ network: 'elsewhere' })), 'NETWORK_MISMATCH');
      assert.equal(await failureCode(transfer({ network: 'nowhere' })), 'INVALID_PARAM');
    }));

  it('the audit line of a failed call holds only validated values, never a raw argument', async () => {
    await nothingSent(async () => {
      assert.ok(await failureCode(transfer({ address: KEY_SHAPED })));
      assert.ok(await failureCode(transfer({ to: KEY_SHAPED })));
    });
    const log = readFileSync(join(home, 'audit.log'), 'utf8');
    assert.ok(!log.includes(KEY_SHAPED), 'the key-shaped argument reached audit.log');
    const [fromLine, toLine] = auditLines(home).slice(-2);
    assert.deepEqual(
      [fromLine?.['tool'], fromLine?.['outcome'], fromLine?.['from']],
      ['evm_token_transfer', 'error', undefined],
    );
    assert.deepEqual([toLine?.['from'], toLine?.['recipient']], ['funded', undefined]);
  });
});
