/**
 * A spend through `wallet --server "wallet serve"` on a terminal is confirmed by the server's own
 * question (elicitation, issue 20): the CLI declares it on a TTY, asks the person on stderr, and
 * the server signs only after that yes; the CLI, told by the server's `wallet/consent` capability
 * that the server asks for itself, asks nothing first, and the server, told by the CLI's that a
 * person answers, asks even within the owner's autonomy. A no sends nothing; without a terminal
 * the CLI refuses unless --yes, and then the policy decides. Against anvil;
 * balances read with ethers, not through the wallet.
 */
import assert from 'node:assert/strict';
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { ethers } from 'ethers';
import { ANVIL_MNEMONIC, startAnvil, type AnvilNode } from '../helpers/anvil.js';
import { passphraseFileIn, tempHome, wallet } from '../helpers/io.js';
import { WALLET_BIN } from '../helpers/paths.js';

const SAVINGS = ethers.HDNodeWallet.fromPhrase(ANVIL_MNEMONIC, undefined, "m/44'/60'/0'/0/1").address;

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
    writeFileSync(
      join(home, 'config.json'),
      JSON.stringify({
        evm: {
          networks: {
            local: {
              policy: { autonomous: { max_per_tx_wei: '10000000000000000', max_per_24h_wei: '50000000000000000' } },
            },
          },
        },
      }),
      { mode: 0o600 },
    );
    const imported = await wallet(
      [
        'core-wallet-import',
        '--alias',
        'anvil',
        '--network',
        'regtest',
        '--mnemonic-stdin',
        '--no-discover',
        '--passphrase-file',
        passphraseFile,
        '--json',
      ],
      { home, env, stdin: ANVIL_MNEMONIC },
    );
    assert.equal(imported.code, 0, imported.stderr);
    const account = await wallet(
      ['evm-account-create', '--wallet-id', 'anvil', '--alias', 'funded', '--passphrase-file', passphraseFile],
      { home, env },
    );
    assert.equal(account.code, 0, account.stderr);
  });
  after(async () => {
    provider.destroy();
    rmSync(home, { recursive: true, force: true });
    await node.stop();
  });

  it('asks on the terminal, and the server signs only after the yes', async () => {
    const before = await provider.getBalance(SAVINGS);
    // The server's question: answer it, and confirm.
    const sent = await send('y\ny\n');
    assert.equal(sent.code, 0, sent.stderr);
    assert.match(
      sent.stderr,
      /The server asks: [^]*Answer it\? \[Y\/n\] [^]*Confirm[^\n]*y\/n/,
      'the confirm field was asked',
    );
    assert.doesNotMatch(sent.stdout, /The server asks/, 'the question stays off stdout');
    assert.doesNotMatch(sent.stderr, /Proceed\?/, "the CLI's own question is not asked as well");
    assert.equal(sent.stderr.match(/The server asks/g)?.length, 1, 'one question');
    assert.equal((await provider.getBalance(SAVINGS)) - before, 12345n);
  });

  it("a no at the server's question sends nothing", async () => {
    const before = await provider.getBalance(SAVINGS);
    const declined = await send('y\nn\n');
    assert.notEqual(declined.code, 0, declined.stdout);
    assert.match(
      declined.stderr,
      /The server asks: [^]*Answer it\? \[Y\/n\] [^]*Confirm[^\n]*y\/n/,
      'the confirm field was asked',
    );
    assert.match(declined.stderr, /POLICY_VIOLATION|declined|Not confirmed/);
    assert.equal(await provider.getBalance(SAVINGS), before);
  });

  it("without a terminal: refused unless --yes; with it, the owner's policy decides", async () => {
    const before = await provider.getBalance(SAVINGS);
    const refused = await send('', { tty: false });
    assert.equal(refused.code, 2, refused.stderr);
    assert.match(refused.stderr, /no terminal to confirm on; nothing was done/);
    // Above the autonomy: the server's APPROVAL_REQUIRED, naming the approval the owner can grant.
    const above = await send('', { tty: false, yes: true, wei: '20000000000000000' });
    assert.equal(above.code, 4, above.stderr);
    assert.match(above.stderr, /APPROVAL_REQUIRED/);
    assert.equal(await provider.getBalance(SAVINGS), before);
  });
});
