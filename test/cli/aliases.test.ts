/**
 * Aliases of the keystore's own EVM accounts where a counterparty goes: `--to` of evm-funds-send,
 * evm-token-transfer and evm-tx-create, and `--address` of evm-message-verify, through the CLI
 * against anvil. What arrives is read from the node with ethers, not through the wallet. A policy's
 * allowlist judges the resolved address. A Dash wallet alias is refused where a Dash address goes:
 * a wallet has many addresses.
 */
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { ethers } from 'ethers';
import { ANVIL_MNEMONIC, startAnvil, type AnvilNode } from '../helpers/anvil.js';
import { cliHarness, type CliHarness } from '../helpers/cli-harness.js';
import { deployToken } from '../helpers/erc20.js';

const oracleAccount = (index: number) =>
  ethers.HDNodeWallet.fromPhrase(ANVIL_MNEMONIC, undefined, `m/44'/60'/0'/0/${index}`);
const SAVINGS = oracleAccount(1).address;
const STRANGER = oracleAccount(5).address;
const erc20 = new ethers.Interface(['function balanceOf(address owner) view returns (uint256)']);

describe('aliases of own accounts as counterparties, through the CLI on anvil', () => {
  let node: AnvilNode;
  let cli: CliHarness;
  let provider: ethers.JsonRpcProvider;
  let token: string;
  const local = ['--network', 'local'];

  before(async () => {
    node = await startAnvil();
    provider = new ethers.JsonRpcProvider(node.url, 31337, { staticNetwork: true, cacheTimeout: -1 });
    token = await deployToken(node, { name: 'Test Token', symbol: 'TST', decimals: 6, supply: 1_000_000n });
    cli = cliHarness({ WALLET_EVM_LOCAL_URL: node.url }, []);
    await cli.json(
      ['core-wallet-import', '--alias', 'anvil', '--network', 'regtest', '--mnemonic-stdin', '--no-discover'],
      {
        stdin: ANVIL_MNEMONIC,
      },
    );
    await cli.json(['evm-account-create', '--wallet-id', 'anvil', '--alias', 'funded']);
    await cli.json(['evm-account-create', '--wallet-id', 'anvil', '--alias', 'savings']);
  });
  after(async () => {
    provider.destroy();
    cli.remove();
    await node.stop();
  });

  it('evm-funds-send --to <alias> pays that account', async () => {
    const before = await provider.getBalance(SAVINGS);
    const sent = await cli.json<{ to: string; status: string }>([
      'evm-funds-send',
      '--address',
      'funded',
      '--to',
      'savings',
      '--value-wei',
      '12345',
      '--wait',
      ...local,
    ]);
    assert.deepEqual([sent.to, sent.status], [SAVINGS, 'success']);
    assert.equal((await provider.getBalance(SAVINGS)) - before, 12345n);
  });

  it('evm-token-transfer --to <alias> moves the tokens to that account', async () => {
    const sent = await cli.json<{ to: string }>([
      'evm-token-transfer',
      '--address',
      'funded',
      '--token',
      token,
      '--to',
      'savings',
      '--amount',
      '777',
      '--wait',
      ...local,
    ]);
    assert.equal(sent.to, SAVINGS);
    const held = (await new ethers.Contract(token, erc20, provider).getFunction('balanceOf')(SAVINGS)) as bigint;
    assert.equal(held, 777n);
  });

  it('evm-tx-create --to <alias> plans a transaction to its address', async () => {
    const plan = await cli.json<{ to: string }>(['evm-tx-create', '--address', 'funded', '--to', 'savings', ...local]);
    assert.equal(plan.to, SAVINGS);
  });

  it('evm-message-verify --address <alias> checks against that account', async () => {
    const signed = await cli.json<{ signature: string }>([
      'evm-message-sign',
      '--address',
      'savings',
      '--message',
      'hello',
    ]);
    const verify = async (address: string) => {
      const argv = ['evm-message-verify', '--address', address, '--message', 'hello', '--signature', signed.signature];
      const result = await cli.run([...argv, '--json']);
      return { code: result.code, valid: (JSON.parse(result.stdout) as { valid: boolean }).valid };
    };
    // A failed check exits 1 and still prints its result (the tool declares `checkField: 'valid'`).
    assert.deepEqual(await verify('savings'), { code: 0, valid: true });
    assert.deepEqual(await verify('funded'), { code: 1, valid: false });
  });

  it('a name that is neither an address nor an alias: INVALID_PARAM naming the field, exit 2, nothing sent', async () => {
    const nonce = await provider.getTransactionCount(oracleAccount(0).address);
    const stderr = await cli.expectError(
      ['evm-funds-send', '--address', 'funded', '--to', 'nobody', '--value-wei', '1', ...local],
      'INVALID_PARAM',
      2,
    );
    assert.match(stderr, /\bto is neither an EVM address nor the alias of a keystore account/);
    assert.match(stderr, /evm-accounts-list/);
    assert.ok(!stderr.includes('nobody'), 'the value is not echoed');
    await cli.expectError(
      ['evm-message-verify', '--address', 'nobody', '--message', 'm', '--signature', `0x${'11'.repeat(65)}`],
      'INVALID_PARAM',
      2,
    );
    assert.equal(await provider.getTransactionCount(oracleAccount(0).address), nonce);
  });

  it("the allowlist judges the alias's address", async () => {
    writeFileSync(
      join(cli.home, 'config.json'),
      JSON.stringify({ evm: { networks: { local: { policy: { allowed_recipients: [SAVINGS] } } } } }),
    );
    try {
      const allowed = await cli.json<{ to: string; sent: boolean }>([
        'evm-funds-send',
        '--address',
        'funded',
        '--to',
        'savings',
        '--value-wei',
        '1',
        ...local,
      ]);
      assert.deepEqual([allowed.to, allowed.sent], [SAVINGS, true]);
      await cli.json(['evm-account-import', '--private-key-stdin', '--alias', 'outsider'], {
        stdin: oracleAccount(5).privateKey,
      });
      const stderr = await cli.expectError(
        ['evm-funds-send', '--address', 'funded', '--to', 'outsider', '--value-wei', '1', ...local],
        'POLICY_VIOLATION',
        1,
      );
      assert.match(stderr, new RegExp(STRANGER));
    } finally {
      writeFileSync(join(cli.home, 'config.json'), '{}');
    }
  });

  it('a Dash wallet alias where a Dash address goes: refused, with a hint to ask that wallet for one', async () => {
    const stderr = await cli.expectError(
      ['core-funds-send', '--network', 'regtest', '--address', 'anvil', '--amount-duffs', '100000'],
      'INVALID_PARAM',
      2,
    );
    assert.match(stderr, /not a valid Dash address/);
    assert.match(
      stderr,
      /A wallet alias names many addresses, not one: ask that wallet for one with core-address-create/,
    );
  });
});
