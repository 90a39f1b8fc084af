/**
 * x402 over MCP in the CLI, end to end on anvil: `wallet --server <paid server> <tool> --pay-from …`
 * against test/fixtures/x402-mcp-server.ts (x402's MCP transport on the x402 packages' resource
 * server and facilitator, settling the test PermitToken's EIP-3009 authorizations on anvil). The
 * CLI pays within the caps and the token moves on chain; over --pay-max-price, the caps or the
 * allowlist it signs nothing; a dry run signs nothing; terms other than the ones shown, before
 * signing or on the paid call, are refused; without a terminal it needs --yes; the audit log has
 * each payment and the 24-hour ledger counts it. Balances are read with ethers.
 */
import assert from 'node:assert/strict';
import { execFile, spawn } from 'node:child_process';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { ethers } from 'ethers';
import type { Address } from 'viem';
import { ANVIL_FIRST_ACCOUNT, ANVIL_MNEMONIC, startAnvil, type AnvilNode } from '../helpers/anvil.js';
import { compilePermitToken, deployPermitToken } from '../helpers/erc20.js';
import { passphraseFileIn, tempHome, wallet } from '../helpers/io.js';
import { importAnvilAccount } from '../helpers/mcp.js';
import { WALLET_BIN, X402_MCP_SERVER } from '../helpers/paths.js';
import { auditLines } from '../helpers/policy.js';

const PASSPHRASE = 'x402 mcp passphrase';
const account = (index: number) =>
  ethers.HDNodeWallet.fromPhrase(ANVIL_MNEMONIC, undefined, `m/44'/60'/0'/0/${index}`).address as Address;
const PAYEE = account(3);
const STRANGER = account(6);
const TOKEN = 10n ** 6n;
const CENT = TOKEN / 100n;
const SERVER = `"${process.execPath}" "${X402_MCP_SERVER}"`;

describe('x402 over MCP: the CLI pays another server’s tool under the policy (anvil)', () => {
  let node: AnvilNode;
  let home: string;
  let token: Address;
  let contract: ethers.Contract;
  let provider: ethers.JsonRpcProvider;
  let passphraseFile: string;
  let log: string;
  const balanceOf = async (who: Address) => (await contract.getFunction('balanceOf').staticCall(who)) as bigint;
  const balances = async (): Promise<[bigint, bigint, bigint]> => [
    await balanceOf(ANVIL_FIRST_ACCOUNT),
    await balanceOf(PAYEE),
    await balanceOf(STRANGER),
  ];
  /** The paid server, asking `price` of `payee` for `report`. */
  const at = (price: bigint, payee: Address = PAYEE) => [
    '--server',
    SERVER,
    ...[
      `X402_MCP_RPC=${node.url}`,
      `X402_MCP_CHAIN_ID=${node.chainId}`,
      `X402_MCP_TOKEN=${token}`,
      `X402_MCP_PAYEE=${payee}`,
      `X402_MCP_PRICE=${price}`,
      `X402_MCP_LOG=${log}`,
    ].flatMap((pair) => ['--env', pair]),
  ];
  const pay = (maxPrice: bigint = TOKEN / 10n) => [
    '--pay-from',
    'holder',
    '--pay-token',
    token,
    '--pay-max-price',
    maxPrice.toString(),
    '--pay-network',
    'local',
    '--passphrase-file',
    passphraseFile,
  ];
  const run = (argv: string[], options: { tty?: boolean; stdin?: string } = {}) =>
    wallet(argv, { home, env: { WALLET_EVM_LOCAL_URL: node.url }, ...options });
  /** The server's calls since `from`: `<tool> paid|unpaid`. */
  const calls = (): string[] => {
    try {
      return readFileSync(log, 'utf8').split('\n').filter(Boolean);
    } catch {
      return [];
    }
  };
  const paymentLines = () => auditLines(home).filter((line) => line.tool === 'x402_mcp_payment');
  /** A refusal: the code and message on stderr, and nothing moved or was offered to the server. */
  const refused = async (
    argv: string[],
    exit: number,
    message: RegExp,
    options: { tty?: boolean; stdin?: string } = {},
  ) => {
    const before = await balances();
    const seen = calls().length;
    const { code, stdout, stderr } = await run(argv, options);
    assert.equal(code, exit, stderr);
    assert.equal(stdout, '');
    assert.match(stderr, message);
    assert.deepEqual(await balances(), before, 'nothing moved');
    assert.ok(
      calls()
        .slice(seen)
        .every((line) => line.endsWith(' unpaid')),
      'no payment was sent to the server',
    );
    return stderr;
  };

  /** The config's policy for `local`, with `extra` rules (allowed_hosts) over the tests' own. */
  const writePolicy = (extra: Record<string, unknown> = {}) =>
    writeFileSync(
      join(home, 'config.json'),
      JSON.stringify({
        evm: {
          networks: {
            local: {
              policy: {
                allowed_recipients: [PAYEE],
                tokens: {
                  [token.toLowerCase()]: { max_per_tx: TOKEN.toString(), max_per_24h: (15n * CENT).toString() },
                },
                ...extra,
              },
            },
          },
        },
      }),
    );
  /** The paid server over Streamable HTTP, asking CENT of PAYEE: its URL, and how to stop it. */
  const httpServer = async () => {
    const env = {
      ...process.env,
      X402_MCP_RPC: node.url,
      X402_MCP_CHAIN_ID: String(node.chainId),
      X402_MCP_TOKEN: token,
      X402_MCP_PAYEE: PAYEE,
      X402_MCP_PRICE: CENT.toString(),
      X402_MCP_LOG: log,
    };
    const server = spawn(process.execPath, [X402_MCP_SERVER, 'http'], { env, stdio: ['ignore', 'pipe', 'inherit'] });
    const url = await new Promise<string>((resolve, reject) => {
      let out = '';
      server.stdout.on('data', (chunk: Buffer) => {
        out += chunk.toString();
        const found = /^listening (\S+)$/m.exec(out)?.[1];
        if (found) resolve(found);
      });
      server.once('exit', () => reject(new Error(`the server exited: ${out}`)));
    });
    return { url, stop: () => server.kill() };
  };

  before(async () => {
    node = await startAnvil();
    provider = new ethers.JsonRpcProvider(node.url, 31337, { staticNetwork: true, cacheTimeout: -1 });
    const parameters = { name: 'Permit Token', symbol: 'PTK', decimals: 6, supply: 1000n * TOKEN };
    token = ethers.getAddress(await deployPermitToken(node, parameters)) as Address;
    contract = new ethers.Contract(token, compilePermitToken().abi as ethers.InterfaceAbi, provider);
    home = tempHome();
    log = join(home, 'server-calls.log');
    passphraseFile = passphraseFileIn(home, PASSPHRASE);
    writePolicy();
    await importAnvilAccount(home, PASSPHRASE, { walletAlias: 'anvil', accountAlias: 'holder' });
  });
  after(async () => {
    provider.destroy();
    await node.stop();
    rmSync(home, { recursive: true, force: true });
  });

  it('calls a free tool as it is, paying nothing', async () => {
    const { code, stdout, stderr } = await run([...at(CENT), 'free-echo', '--text', 'hello', ...pay(), '--yes']);
    assert.equal(code, 0, stderr);
    assert.equal(stdout.trim(), 'hello');
    assert.doesNotMatch(stderr, /paid/);
    assert.deepEqual(calls().slice(-1), ['free_echo unpaid']);
  });

  it('refuses --pay-from with what calls no tool, rather than ignore it', async () => {
    for (const verb of [['tools'], ['resources'], ['prompts'], ['report', '--get-tool-definition']]) {
      const { code, stdout, stderr } = await run([...at(CENT), ...verb, ...pay()]);
      assert.equal(code, 2, stderr);
      assert.equal(stdout, '');
      assert.match(stderr, /--pay-from pays a tool call/);
    }
  });

  it('without --pay-from, says the tool asks for a payment and how to pay it', async () => {
    const { code, stdout, stderr } = await run([...at(CENT), 'report', '--topic', 'tides']);
    assert.equal(code, 1, stderr);
    assert.equal(stdout, '');
    assert.match(
      stderr,
      new RegExp(
        `^error: PAYMENT_REQUIRED: report asks for an x402 payment: ${CENT} base units of token ${token} to ${PAYEE} on eip155:31337; nothing was paid\\.$`,
        'm',
      ),
    );
    assert.match(
      stderr,
      new RegExp(
        `^hint: .*--pay-from <account> --pay-token ${token} --pay-max-price ${CENT} --pay-network <the network of chain 31337> --pay-dry-run`,
        'm',
      ),
    );
  });

  it('pays the price within the caps: the token moves on chain, the audit log has the payment', async () => {
    const [payer, payee] = await balances();
    const { code, stdout, stderr } = await run([
      ...at(CENT),
      'report',
      '--topic',
      'tides',
      ...pay(),
      '--yes',
      '--json',
    ]);
    assert.equal(code, 0, stderr);
    assert.deepEqual(JSON.parse(stdout), { topic: 'tides', report: 'The report on tides.' });
    const hash = /settled in (0x[0-9a-f]{64})/.exec(stderr)?.[1] ?? '';
    assert.match(stderr, new RegExp(`paid 0\\.01 PTK \\(${CENT} base units of token ${token}\\) to ${PAYEE}`));
    assert.deepEqual(await balances(), [payer - CENT, payee + CENT, 0n]);
    const receipt = await provider.getTransactionReceipt(hash);
    assert.equal(receipt?.status, 1, 'the settlement transaction is mined');
    assert.equal(receipt?.to, token, 'a call of the token contract (transferWithAuthorization)');
    assert.deepEqual(calls().slice(-2), ['report unpaid', 'report paid']);
    const line = paymentLines().at(-1);
    assert.deepEqual(
      [line?.outcome, line?.['from'], line?.['recipient'], line?.['amount'], line?.['unit'], line?.['token']],
      ['sent', ANVIL_FIRST_ACCOUNT, PAYEE, CENT.toString(), 'token', token],
    );
    assert.deepEqual([line?.['hash'], line?.['network'], line?.['authority']], [hash, 'local', 'terminal']);
  });

  it('a dry run shows the price and the terms digest, and signs nothing', async () => {
    const before = await balances();
    const { code, stdout, stderr } = await run([
      ...at(5n * CENT),
      'report',
      '--topic',
      'x',
      ...pay(),
      '--pay-dry-run',
      '--json',
    ]);
    assert.equal(code, 0, stderr);
    const shown = JSON.parse(stdout) as Record<string, unknown>;
    assert.deepEqual(
      [
        shown['dry_run'],
        shown['paid'],
        shown['payee'],
        shown['asset'],
        shown['amount'],
        shown['token_amount'],
        shown['token_symbol'],
      ],
      [true, false, PAYEE, token, (5n * CENT).toString(), '0.05', 'PTK'],
    );
    assert.match(String(shown['terms']), /^[0-9a-f]{16}$/);
    assert.match(stderr, new RegExp(`--pay-terms ${String(shown['terms'])}`));
    assert.deepEqual(await balances(), before);
    assert.deepEqual(calls().slice(-1), ['report unpaid']);
    assert.equal(paymentLines().at(-1)?.outcome, 'dry_run');
  });

  it('refuses, signing nothing: above --pay-max-price, above the token cap, a payee not allowed', async () => {
    const overMax = await refused(
      [...at(5n * CENT), 'report', '--topic', 'x', ...pay(5n * CENT - 1n), '--yes'],
      1,
      /POLICY_VIOLATION: Refused by --pay-max-price/,
    );
    assert.match(overMax, /above --pay-max-price 49999/);
    await refused(
      [...at(2n * TOKEN), 'report', '--topic', 'x', ...pay(5n * TOKEN), '--yes'],
      1,
      /POLICY_VIOLATION: Refused by policy evm\.networks\.local\.policy\.tokens\.0x[0-9a-fA-F]{40}\.max_per_tx/,
    );
    await refused(
      [...at(CENT, STRANGER), 'report', '--topic', 'x', ...pay(), '--yes'],
      1,
      /POLICY_VIOLATION: Refused by policy evm\.networks\.local\.policy\.allowed_recipients/,
    );
    const line = paymentLines().at(-1);
    assert.deepEqual([line?.outcome, line?.['payment_signed'], line?.['amount']], ['error', undefined, undefined]);
  });

  it('refuses terms other than the ones a dry run showed, and pays the ones shown', async () => {
    const dry = await run([...at(2n * CENT), 'report', '--topic', 'y', ...pay(), '--pay-dry-run', '--json']);
    const terms = String((JSON.parse(dry.stdout) as Record<string, unknown>)['terms']);
    // The server raised its price since the dry run.
    const stderr = await refused(
      [...at(3n * CENT), 'report', '--topic', 'y', ...pay(), '--pay-terms', terms, '--yes'],
      1,
      /POLICY_VIOLATION: /,
    );
    assert.match(
      stderr,
      new RegExp(`now asks ${3n * CENT} base units .* not the terms ${terms} you were shown\\. Nothing was signed\\.`),
    );
    const [payer, payee] = await balances();
    const paid = await run([...at(2n * CENT), 'report', '--topic', 'y', ...pay(), '--pay-terms', terms, '--yes']);
    assert.equal(paid.code, 0, paid.stderr);
    assert.deepEqual((await balances()).slice(0, 2), [payer - 2n * CENT, payee + 2n * CENT]);
  });

  it('does not pay again when the paid call asks other terms', async () => {
    const before = await balances();
    const { code, stdout, stderr } = await run([...at(CENT), 'moving-target', ...pay(), '--yes']);
    assert.equal(code, 1, stderr);
    assert.equal(stdout, '');
    assert.match(
      stderr,
      /POLICY_VIOLATION: tool moving-target of server paid-tools answered the paid call by asking other terms/,
    );
    assert.deepEqual(
      calls().slice(-2),
      ['moving_target unpaid', 'moving_target paid'],
      'one payment offered, no second',
    );
    assert.deepEqual(await balances(), before, 'the server did not settle it');
    // The signature went out with the call: the refusal's audit line says what it paid.
    const line = paymentLines().at(-1);
    assert.deepEqual(
      [line?.outcome, line?.['from'], line?.['recipient'], line?.['amount'], line?.['token'], line?.['error']?.code],
      ['error', ANVIL_FIRST_ACCOUNT, PAYEE, CENT.toString(), token, 'POLICY_VIOLATION'],
    );
    assert.equal(line?.['payment_signed'], true);
  });

  it('a tool that fails after it settled the payment: the warning names the settlement', async () => {
    const [payer, payee] = await balances();
    const { code, stdout, stderr } = await run([...at(CENT), 'settle-then-fail', ...pay(), '--yes']);
    assert.equal(code, 1, stderr);
    assert.equal(stdout, '');
    assert.match(stderr, /^error: TOOL_ERROR: Paid, then broke\.$/m);
    assert.deepEqual((await balances()).slice(0, 2), [payer - CENT, payee + CENT], 'the server settled it');
    const hash = paymentLines().at(-1)?.['hash'];
    assert.match(String(hash), /^0x[0-9a-f]{64}$/, 'the audit line has the settlement');
    assert.match(
      stderr,
      new RegExp(
        `a payment of 0\\.01 PTK .* to ${PAYEE} was signed and sent with the call; the server settled it in ${hash}`,
      ),
    );
    assert.doesNotMatch(stderr, /reported no settlement/);
  });

  it('a tool that fails once paid: its error, and a warning that the payment went out unsettled', async () => {
    const before = await balances();
    const { code, stdout, stderr } = await run([...at(CENT), 'broken-report', ...pay(), '--yes']);
    assert.equal(code, 1, stderr);
    assert.equal(stdout, '');
    assert.match(stderr, /^error: TOOL_ERROR: The report broke\.$/m);
    assert.match(
      stderr,
      new RegExp(
        `a payment of 0\\.01 PTK .* to ${PAYEE} was signed and sent with the call; the server reported no settlement`,
      ),
    );
    assert.deepEqual(await balances(), before, 'the server did not settle it');
    // A failure after signing: the line says so, with what was signed.
    const line = paymentLines().at(-1);
    assert.deepEqual(
      [line?.outcome, line?.['payment_signed'], line?.['error']?.code, line?.['hash']],
      ['error', true, 'BACKEND_INVALID', undefined],
    );
    assert.deepEqual(
      [line?.['network'], line?.['from'], line?.['recipient'], line?.['amount'], line?.['unit'], line?.['token']],
      ['local', ANVIL_FIRST_ACCOUNT, PAYEE, CENT.toString(), 'token', token],
    );
    assert.match(
      String(line?.['error']?.message),
      /^tool broken_report of server paid-tools answered the paid call with an error: a payment of 10000 base units/,
    );
  });

  it('a server that drops the connection once it has the payment: the audit line names what was signed', async () => {
    const before = await balances();
    const { code, stdout, stderr } = await run([...at(CENT), 'vanishing-report', ...pay(), '--yes']);
    assert.notEqual(code, 0, stderr);
    assert.equal(stdout, '');
    assert.match(
      stderr,
      new RegExp(
        `A payment of ${CENT} base units of token ${token} to ${PAYEE} was signed and sent to tool vanishing-report of server paid-tools, but the request failed`,
      ),
    );
    assert.doesNotMatch(stderr, /Nothing was signed/);
    assert.deepEqual(calls().slice(-2), ['vanishing_report unpaid', 'vanishing_report paid']);
    assert.deepEqual(await balances(), before, 'the server did not settle it');
    const line = paymentLines().at(-1);
    assert.deepEqual(
      [line?.outcome, line?.['payment_signed'], line?.['network'], line?.['from']],
      ['error', true, 'local', ANVIL_FIRST_ACCOUNT],
    );
    assert.deepEqual(
      [line?.['recipient'], line?.['amount'], line?.['unit'], line?.['token']],
      [PAYEE, CENT.toString(), 'token', token],
    );
    // Never the signature: nothing signature-shaped (65 bytes of hex) in the line.
    assert.doesNotMatch(JSON.stringify(line), /[0-9a-fA-F]{130}/);
  });

  it('a paid call answered by a payment request it cannot read: says the payment was signed and sent', async () => {
    const [payer, payee] = await balances();
    const { code, stdout, stderr } = await run([...at(CENT), 'pocket-and-ask', ...pay(), '--yes']);
    assert.equal(code, 7, stderr);
    assert.equal(stdout, '');
    assert.match(
      stderr,
      /BACKEND_INVALID: A payment of 10000 base units of token 0x[0-9a-fA-F]{40} to 0x[0-9a-fA-F]{40} was signed and sent to tool pocket-and-ask/,
    );
    assert.match(stderr, /x402 payment of version "1"/);
    assert.match(stderr, /the payment may be settled all the same/);
    assert.deepEqual((await balances()).slice(0, 2), [payer - CENT, payee + CENT], 'the server settled it');
    assert.deepEqual(calls().slice(-2), ['pocket_and_ask unpaid', 'pocket_and_ask paid'], 'no second payment');
    const line = paymentLines().at(-1);
    assert.deepEqual(
      [line?.outcome, line?.['recipient'], line?.['amount'], line?.['error']?.code, line?.['payment_signed']],
      ['error', PAYEE, CENT.toString(), 'BACKEND_INVALID', true],
    );
  });

  it('a settlement the server reports failed is not called settled, whatever hash it names', async () => {
    const before = await balances();
    const { code, stdout, stderr } = await run([...at(CENT), 'failed-settlement', ...pay(), '--yes']);
    assert.equal(code, 0, stderr);
    assert.equal(stdout.trim(), 'Done.');
    assert.doesNotMatch(stderr, /settled in/);
    assert.match(
      stderr,
      new RegExp(`paid 0\\.01 PTK .* to ${PAYEE} from ${ANVIL_FIRST_ACCOUNT}; the server did not report it settled`),
    );
    assert.deepEqual(await balances(), before, 'nothing was settled');
  });

  it('Ctrl-C during the paid call: exit 130, saying the payment went out, and its audit line', async () => {
    const child = spawn(process.execPath, [WALLET_BIN, ...at(CENT), 'slow-report', ...pay(), '--yes'], {
      env: { ...process.env, WALLET_HOME: home, WALLET_EVM_LOCAL_URL: node.url },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
    for (let waited = 0; calls().at(-1) !== 'slow_report paid'; waited += 50) {
      assert.ok(waited < 30_000, `the paid call never reached the server: ${stderr}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    child.kill('SIGINT');
    assert.equal(await exited, 130, stderr);
    assert.equal(stdout, '');
    assert.match(
      stderr,
      new RegExp(`A payment of ${CENT} base units of token ${token} to ${PAYEE} was signed and sent`),
    );
    assert.match(stderr, /interrupted/);
    const line = paymentLines().at(-1);
    assert.deepEqual(
      [line?.outcome, line?.['recipient'], line?.['amount'], line?.['payment_signed']],
      ['error', PAYEE, CENT.toString(), true],
    );
  });

  it('asks on a terminal, and needs --yes without one', async () => {
    const stderr = await refused(
      [...at(CENT), 'report', '--topic', 'z', ...pay()],
      2,
      /error: CONFIRMATION_REQUIRED: tool report of server paid-tools asks 0\.01 PTK/,
    );
    assert.match(stderr, /hint: .*--yes/);
    const declined = await refused(
      [...at(CENT), 'report', '--topic', 'z', ...pay()],
      1,
      /Pay\? \[y\/N\] [\s\S]*DECLINED/,
      { tty: true, stdin: 'n\n' },
    );
    assert.match(declined, new RegExp(`asks 0\\.01 PTK [\\s\\S]* to ${PAYEE}, from ${ANVIL_FIRST_ACCOUNT}`));
    const [payer] = await balances();
    const yes = await run([...at(CENT), 'report', '--topic', 'z', ...pay()], { tty: true, stdin: 'y\n' });
    assert.equal(yes.code, 0, yes.stderr);
    assert.deepEqual((await balances())[0], payer - CENT);
  });

  it('pays a server over Streamable HTTP, its host in the audit line', async () => {
    const server = await httpServer();
    try {
      const [payer, payee] = await balances();
      const { code, stdout, stderr } = await run([
        '--url',
        server.url,
        'report',
        '--topic',
        'http',
        ...pay(),
        '--yes',
        '--json',
      ]);
      assert.equal(code, 0, stderr);
      assert.deepEqual(JSON.parse(stdout), { topic: 'http', report: 'The report on http.' });
      assert.deepEqual((await balances()).slice(0, 2), [payer - CENT, payee + CENT]);
      const line = paymentLines().at(-1);
      assert.deepEqual([line?.outcome, line?.['host'], line?.['amount']], ['sent', '127.0.0.1', CENT.toString()]);
    } finally {
      server.stop();
    }
  });

  it("allowed_hosts: an HTTP server is paid only when its URL's host is listed, a dry run says so", async (t) => {
    const server = await httpServer();
    t.after(() => {
      server.stop();
      writePolicy();
    });
    const argv = ['--url', server.url, 'report', '--topic', 'listed', ...pay()];
    writePolicy({ allowed_hosts: ['localhost', 'api.example.com'] });
    const rule =
      /POLICY_VIOLATION: Refused by policy evm\.networks\.local\.policy\.allowed_hosts: tool report of server paid-tools is at 127\.0\.0\.1, which is not an allowed host\. Nothing was signed\./;
    const hint = /^hint: .*add "127\.0\.0\.1" to evm\.networks\.local\.policy\.allowed_hosts in the config file/m;
    for (const more of [['--yes'], ['--pay-dry-run']]) {
      const stderr = await refused([...argv, ...more], 1, rule);
      assert.match(stderr, hint);
      const line = paymentLines().at(-1);
      assert.deepEqual(
        [line?.outcome, line?.['host'], line?.['error']?.code, line?.['payment_signed'], line?.['dry_run']],
        ['error', '127.0.0.1', 'POLICY_VIOLATION', undefined, more[0] === '--pay-dry-run' || undefined],
      );
    }
    // A free tool of the same server asks for no payment: called as usual.
    const free = await run(['--url', server.url, 'free-echo', '--text', 'still free', ...pay(), '--yes']);
    assert.equal(free.code, 0, free.stderr);
    assert.equal(free.stdout.trim(), 'still free');
    // Listed: paid.
    writePolicy({ allowed_hosts: ['127.0.0.1'] });
    const [payer, payee] = await balances();
    const paid = await run([...argv, '--yes']);
    assert.equal(paid.code, 0, paid.stderr);
    assert.deepEqual((await balances()).slice(0, 2), [payer - CENT, payee + CENT]);
  });

  it('allowed_hosts: a stdio server is paid only when saved and listed as stdio:<name>', async (t) => {
    t.after(() => writePolicy());
    // Saved with its environment: a listed server is paid only as it is saved, not with --env.
    const added = await run(['servers', 'add', 'paid-tools', '--server', SERVER, ...at(CENT).slice(2)]);
    assert.equal(added.code, 0, added.stderr);
    writePolicy({ allowed_hosts: ['127.0.0.1'] });
    // A command line is no saved server: it has no name to list.
    const commandLine = await refused(
      [...at(CENT), 'report', '--topic', 'stdio', ...pay(), '--yes'],
      1,
      /POLICY_VIOLATION: Refused by policy evm\.networks\.local\.policy\.allowed_hosts: tool report of server paid-tools is run from a command line, and only a saved server listed there as "stdio:<name>" is paid\. Nothing was signed\./,
    );
    assert.match(
      commandLine,
      /^hint: If you trust it, save it under a name \(wallet servers add\) and add "stdio:<name>"/m,
    );
    // The saved server, not listed; a dry run says so too.
    const saved = ['--server', 'paid-tools', 'report', '--topic', 'stdio', ...pay()];
    for (const more of [['--yes'], ['--pay-dry-run']]) {
      const stderr = await refused(
        [...saved, ...more],
        1,
        /POLICY_VIOLATION: Refused by policy evm\.networks\.local\.policy\.allowed_hosts: tool report of server paid-tools \(stdio:paid-tools\) is not listed\./,
      );
      assert.match(stderr, /^hint: .*add "stdio:paid-tools" to evm\.networks\.local\.policy\.allowed_hosts/m);
      assert.equal(paymentLines().at(-1)?.['host'], 'stdio:paid-tools');
    }
    writePolicy({ allowed_hosts: ['stdio:paid-tools'] });
    // Saved names are case-sensitive: another server saved as Paid-Tools is not the one listed.
    assert.equal((await run(['servers', 'add', 'Paid-Tools', '--server', SERVER])).code, 0);
    await refused(
      ['--server', 'Paid-Tools', ...at(CENT).slice(2), 'report', '--topic', 'stdio', ...pay(), '--yes'],
      1,
      /POLICY_VIOLATION: Refused by policy evm\.networks\.local\.policy\.allowed_hosts: tool report of server paid-tools \(stdio:Paid-Tools\) is not listed\./,
    );
    const [payer, payee] = await balances();
    const paid = await run([...saved, '--yes']);
    assert.equal(paid.code, 0, paid.stderr);
    assert.deepEqual((await balances()).slice(0, 2), [payer - CENT, payee + CENT]);
    const line = paymentLines().at(-1);
    assert.deepEqual([line?.outcome, line?.['host'], line?.['amount']], ['sent', 'stdio:paid-tools', CENT.toString()]);
  });

  it('pays through the installed binary too (bin/wallet.js and its bundle)', async () => {
    const [payer, payee] = await balances();
    const { code, stdout, stderr } = await new Promise<{ code: number | null; stdout: string; stderr: string }>(
      (resolve) => {
        execFile(
          process.execPath,
          [WALLET_BIN, ...at(CENT), 'report', '--topic', 'bundle', ...pay(), '--yes', '--json'],
          { env: { ...process.env, WALLET_HOME: home, WALLET_EVM_LOCAL_URL: node.url } },
          (error, out, err) => resolve({ code: error ? Number(error.code) : 0, stdout: out, stderr: err }),
        );
      },
    );
    assert.equal(code, 0, stderr);
    assert.deepEqual(JSON.parse(stdout), { topic: 'bundle', report: 'The report on bundle.' });
    assert.deepEqual((await balances()).slice(0, 2), [payer - CENT, payee + CENT]);
  });

  it('the 24-hour ledger counts the payments: a price that fits one payment but not what is left is refused', async () => {
    // Paid so far: 1 + 2 + 1 + 1 + 1 + 1 + 1 cents (the last two to the listed servers), and 1
    // each signed for moving_target, settle_then_fail, broken_report, vanishing_report,
    // pocket_and_ask, failed_settlement and slow_report (a signature counts, whoever settles
    // it): 15 of the 15 a day; 4 more fits max_per_tx and the day's cap, not what is left.
    await refused(
      [...at(4n * CENT), 'report', '--topic', 'w', ...pay(), '--yes'],
      1,
      /POLICY_VIOLATION: Refused by policy evm\.networks\.local\.policy\.tokens\.0x[0-9a-fA-F]{40}\.max_per_24h/,
    );
  });
});
