/**
 * A spend through `wallet --server "wallet serve"` on a terminal is confirmed by the server's own
 * question (elicitation, issue 20): the CLI declares it on a TTY, asks the person on stderr, and
 * the server signs only after that yes; the CLI, told by the server's `wallet/consent` capability
 * that the server asks for itself, asks nothing first, and the server, told by the CLI's that a
 * person answers, asks even within the owner's autonomy. A no sends nothing; without a terminal
 * the CLI refuses unless --yes, and then the policy decides: above the agent's autonomy the CLI,
 * a client of the MCP tasks extension, waits on serve's task (its news on stderr) until the owner
 * approves in another process, then prints the result; with --detach it prints the task's id.
 * (A client without tasks gets APPROVAL_REQUIRED, exit 4, as before: test/mcp/tasks.test.ts.)
 * Against anvil; balances read with ethers, not through the wallet.
 */
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { ethers } from 'ethers';
import { ANVIL_FIRST_ACCOUNT, ANVIL_MNEMONIC, startAnvil, type AnvilNode } from '../helpers/anvil.js';
import { passphraseFileIn, tempHome, wallet } from '../helpers/io.js';
import { WALLET_BIN } from '../helpers/paths.js';
import { writeLocalPolicy } from '../helpers/policy.js';
import { importArgs } from '../helpers/core-argv.js';

const SAVINGS = ethers.HDNodeWallet.fromPhrase(ANVIL_MNEMONIC, undefined, "m/44'/60'/0'/0/1").address;
/** 0.02 ether: above the 0.01 the owner lets agents pay alone. */
const ABOVE_AUTONOMY = '20000000000000000';

describe('wallet --server "wallet serve": a spend confirmed through the server\'s question', () => {
  let node: AnvilNode;
  let home: string;
  let passphraseFile: string;
  let provider: ethers.JsonRpcProvider;
  const serve = (): string =>
    [
      '/usr/bin/env',
      `WALLET_HOME=${home}`,
      `WALLET_EVM_LOCAL_URL=${node.url}`,
      process.execPath,
      WALLET_BIN,
      'serve',
      '--passphrase-file',
      passphraseFile,
    ].join(' ');
  const send = (stdin: string, { tty = true, yes = false, wei = '12345' } = {}) =>
    wallet(
      [
        '--server',
        serve(),
        'evm-funds-send',
        '--address',
        'funded',
        '--to',
        SAVINGS,
        '--value-wei',
        wei,
        '--network',
        'local',
        '--no-color',
        // No --yes on a terminal: the server declares it asks for its own yes, so the CLI does not ask first.
        ...(yes ? ['--yes'] : []),
      ],
      { home, tty, stdin },
    );

  before(async () => {
    node = await startAnvil();
    provider = new ethers.JsonRpcProvider(node.url, 31337, { staticNetwork: true, cacheTimeout: -1 });
    home = tempHome();
    passphraseFile = passphraseFileIn(home, 'right passphrase');
    const env = { WALLET_EVM_LOCAL_URL: node.url };
    // The owner lets agents pay up to 0.01 ether alone (fees included): the person at a terminal
    // is asked all the same, since the CLI asks nothing itself.
    writeLocalPolicy(home, {
      autonomous: { max_per_tx_wei: '10000000000000000', max_per_24h_wei: '50000000000000000' },
    });
    const imported = await wallet(
      importArgs(['--no-discover', '--passphrase-file', passphraseFile, '--json'], {
        alias: 'anvil',
        network: 'regtest',
      }),
      { home, env, stdin: ANVIL_MNEMONIC },
    );
    assert.equal(imported.code, 0, imported.stderr);
    const account = await wallet(
      ['evm-account-create', '--wallet-id', 'anvil', '--alias', 'funded', '--passphrase-file', passphraseFile],
      { home, env },
    );
    assert.equal(account.code, 0, account.stderr);
  });
  /** The id of the approval waiting for the owner (the newest), once there is one. */
  const pendingApproval = async (): Promise<string> => {
    for (let tries = 0; tries < 300; tries++) {
      const listed = await wallet(['approvals', 'list', '--json'], { home });
      const pending = (
        JSON.parse(listed.stdout || '{"approvals":[]}') as { approvals: { id: string; status: string }[] }
      ).approvals.filter((approval) => approval.status === 'pending');
      const id = pending.at(-1)?.id;
      if (id) return id;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    assert.fail('no approval waits for the owner');
  };
  after(async () => {
    provider.destroy();
    rmSync(home, { recursive: true, force: true });
    await node.stop();
  });

  /** The server's question came to the terminal: answer it?, then its confirm field. */
  const assertConfirmAsked = (stderr: string): void =>
    assert.match(
      stderr,
      /The server asks: [^]*Answer it\? \[Y\/n\] [^]*Confirm[^\n]*y\/n/,
      'the confirm field was asked',
    );

  it('asks on the terminal, and the server signs only after the yes', async () => {
    const before = await provider.getBalance(SAVINGS);
    // The server's question: answer it, and confirm.
    const sent = await send('y\ny\n');
    assert.equal(sent.code, 0, sent.stderr);
    assertConfirmAsked(sent.stderr);
    assert.doesNotMatch(sent.stdout, /The server asks/, 'the question stays off stdout');
    assert.doesNotMatch(sent.stderr, /Proceed\?/, "the CLI's own question is not asked as well");
    assert.equal(sent.stderr.match(/The server asks/g)?.length, 1, 'one question');
    assert.equal((await provider.getBalance(SAVINGS)) - before, 12345n);
  });

  it("a no at the server's question sends nothing", async () => {
    const before = await provider.getBalance(SAVINGS);
    const declined = await send('y\nn\n');
    assert.notEqual(declined.code, 0, declined.stdout);
    assertConfirmAsked(declined.stderr);
    assert.match(declined.stderr, /POLICY_VIOLATION|declined|Not confirmed/);
    assert.equal(await provider.getBalance(SAVINGS), before);
  });

  it("without a terminal: refused unless --yes; with it, the owner's policy decides", async () => {
    const before = await provider.getBalance(SAVINGS);
    const refused = await send('', { tty: false });
    assert.equal(refused.code, 2, refused.stderr);
    assert.match(refused.stderr, /no terminal to confirm on; nothing was done/);
    assert.equal(await provider.getBalance(SAVINGS), before);
  });

  it('above the autonomy, the CLI (a tasks client) waits on the task until the owner approves elsewhere', async () => {
    const before = await provider.getBalance(SAVINGS);
    const nonce = await provider.getTransactionCount(ANVIL_FIRST_ACCOUNT);
    // The CLI declares MCP tasks: serve answers with a task waiting for the owner; the CLI says
    // so on stderr (the approval's id and command) and polls until the owner answers.
    const called = send('', { tty: false, yes: true, wei: ABOVE_AUTONOMY });
    const id = await pendingApproval();
    assert.equal(await provider.getBalance(SAVINGS), before, 'nothing is sent before the yes');
    const approved = await wallet(['approvals', 'approve', id], { home, tty: true, stdin: 'y\n' });
    assert.equal(approved.code, 0, approved.stderr);
    const result = await called;
    assert.equal(result.code, 0, result.stderr);
    assert.match(
      result.stderr,
      new RegExp(
        `task tk-[a-z2-7]{26}: working — Waiting for the owner's approval ${id}\\.[^\\n]*wallet approvals approve ${id}`,
      ),
    );
    assert.match(result.stdout, /0x[0-9a-f]{64}/, 'the result, on stdout');
    assert.doesNotMatch(result.stdout, /task tk-/, 'the task news stays off stdout');
    assert.equal((await provider.getBalance(SAVINGS)) - before, BigInt(ABOVE_AUTONOMY));
    assert.equal(await provider.getTransactionCount(ANVIL_FIRST_ACCOUNT), nonce + 1, 'exactly one transaction');
  });

  it('with --detach, the task id prints and nothing is sent; the approval waits for the owner', async () => {
    const before = await provider.getBalance(SAVINGS);
    const detached = await wallet(
      [
        '--server',
        serve(),
        '--detach',
        '--yes',
        'evm-funds-send',
        '--address',
        'funded',
        '--to',
        SAVINGS,
        '--value-wei',
        '20000000000000001',
        '--network',
        'local',
      ],
      { home, tty: false, stdin: '' },
    );
    assert.equal(detached.code, 0, detached.stderr);
    assert.match(detached.stdout, /^tk-[a-z2-7]{26}\n$/);
    assert.match(detached.stderr, /over stdio the server is this command's child/);
    assert.ok(await pendingApproval(), 'the approval request stands for the owner');
    assert.equal(await provider.getBalance(SAVINGS), before);
  });
});
