/**
 * x402 over MCP, where the payment may reach: `--pay-from` against the paid fixture server
 * (test/fixtures/x402-mcp-server.ts, settling on anvil) when the server is not simply the one the
 * owner named. An allowed HTTP server that redirects the call (307) to another host: the payment
 * is never sent on there (the MCP SDK's transport follows a redirect within the origin only), even
 * to a host allowed_hosts lists. A saved stdio server run with `--env` (which can change what it
 * runs) is not paid under an allowlist. A kept-alive server's paid call is made by the caller's own
 * process, not the daemon (which never holds the keystore).
 */
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, request as httpRequest, type Server } from 'node:http';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { setTimeout as delay } from 'node:timers/promises';
import { ethers } from 'ethers';
import type { Address } from 'viem';
import { ANVIL_FIRST_ACCOUNT, ANVIL_MNEMONIC, startAnvil, type AnvilNode } from '../helpers/anvil.js';
import { compilePermitToken, deployPermitToken } from '../helpers/erc20.js';
import { passphraseFileIn, tempHome, wallet } from '../helpers/io.js';
import { importAnvilAccount } from '../helpers/mcp.js';
import { WALLET_BIN, X402_MCP_SERVER } from '../helpers/paths.js';
import { auditLines } from '../helpers/policy.js';

const PASSPHRASE = 'x402 mcp reach passphrase';
const PAYEE = ethers.HDNodeWallet.fromPhrase(ANVIL_MNEMONIC, undefined, `m/44'/60'/0'/0/3`).address as Address;
const TOKEN = 10n ** 6n;
const CENT = TOKEN / 100n;
const SERVER = `"${process.execPath}" "${X402_MCP_SERVER}"`;
/** Another loopback address (Linux answers the whole 127/8): another host than 127.0.0.1. */
const OTHER_HOST = '127.0.0.2';

/** Which calls the redirecting front sends elsewhere with a 307: paid ones only, or every tool call. */
type RedirectMode = 'paid' | 'calls';

describe('x402 over MCP: where a payment may go (redirects, --env, kept-alive servers; anvil)', () => {
  let node: AnvilNode;
  let home: string;
  let token: Address;
  let contract: ethers.Contract;
  let provider: ethers.JsonRpcProvider;
  let passphraseFile: string;
  let log: string;
  let paid: { url: string; process: ChildProcess };
  const serverEnv = () => ({
    X402_MCP_RPC: node.url,
    X402_MCP_CHAIN_ID: String(node.chainId),
    X402_MCP_TOKEN: token,
    X402_MCP_PAYEE: PAYEE,
    X402_MCP_PRICE: CENT.toString(),
    X402_MCP_LOG: log,
  });
  const balances = async (): Promise<[bigint, bigint]> => {
    const balanceOf = contract.getFunction('balanceOf');
    return [(await balanceOf.staticCall(ANVIL_FIRST_ACCOUNT)) as bigint, (await balanceOf.staticCall(PAYEE)) as bigint];
  };
  const pay = () => [
    '--pay-from',
    'holder',
    '--pay-token',
    token,
    '--pay-max-price',
    (TOKEN / 10n).toString(),
    '--pay-network',
    'local',
    '--passphrase-file',
    passphraseFile,
  ];
  const run = (argv: string[]) => wallet(argv, { home, env: { WALLET_EVM_LOCAL_URL: node.url } });
  /** The paid server's calls: `<tool> paid|unpaid`. */
  const calls = (): string[] => {
    try {
      return readFileSync(log, 'utf8').split('\n').filter(Boolean);
    } catch {
      return [];
    }
  };
  const paymentLines = () => auditLines(home).filter((line) => line.tool === 'x402_mcp_payment');
  const writePolicy = (allowedHosts?: string[]) =>
    writeFileSync(
      join(home, 'config.json'),
      JSON.stringify({
        evm: {
          networks: {
            local: {
              policy: {
                allowed_recipients: [PAYEE],
                tokens: { [token.toLowerCase()]: { max_per_tx: TOKEN.toString(), max_per_24h: TOKEN.toString() } },
                ...(allowedHosts ? { allowed_hosts: allowedHosts } : {}),
              },
            },
          },
        },
      }),
    );

  /**
   * A front for the paid server on {@link OTHER_HOST}: it passes every request through, except the
   * tool calls of `mode`, which it answers with a redirect (`status`, a 307 unless told) to the paid
   * server itself (on 127.0.0.1), as a server that moved its paid tools elsewhere would, or with
   * `to` 'self' to another path of its own origin. `redirected`: the calls it sent on.
   */
  const redirectingFront = async (mode: RedirectMode, status = 307, to: 'server' | 'self' = 'server') => {
    const target = new URL(paid.url);
    const front = { redirected: 0, url: '', server: undefined as Server | undefined };
    const server = createServer((incoming, answer) => {
      const chunks: Buffer[] = [];
      incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
      incoming.on('end', () => {
        const body = Buffer.concat(chunks);
        const text = body.toString('utf8');
        const isCall = text.includes('"tools/call"');
        if (isCall && (mode === 'calls' || text.includes('"x402/payment"'))) {
          front.redirected++;
          const location = to === 'server' ? `${target.origin}${incoming.url ?? '/'}` : '/moved';
          answer.writeHead(status, { location }).end();
          return;
        }
        const headers = { ...incoming.headers, host: target.host };
        const onward = httpRequest(
          { host: target.hostname, port: target.port, path: incoming.url, method: incoming.method, headers },
          (reply) => {
            answer.writeHead(reply.statusCode ?? 502, reply.headers);
            reply.pipe(answer);
          },
        );
        onward.on('error', () => answer.destroy());
        onward.end(body);
      });
    });
    await new Promise<void>((resolve) => server.listen(0, OTHER_HOST, resolve));
    const address = server.address();
    const port = typeof address === 'object' && address ? address.port : 0;
    front.url = `http://${OTHER_HOST}:${port}/mcp`;
    front.server = server;
    return { ...front, count: () => front.redirected, stop: () => server.close() };
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
    // The paid server over Streamable HTTP on 127.0.0.1.
    const child = spawn(process.execPath, [X402_MCP_SERVER, 'http'], {
      env: { ...process.env, ...serverEnv() },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    const url = await new Promise<string>((resolve, reject) => {
      let out = '';
      child.stdout.on('data', (chunk: Buffer) => {
        out += chunk.toString();
        const found = /^listening (\S+)$/m.exec(out)?.[1];
        if (found) resolve(found);
      });
      child.once('exit', () => reject(new Error(`the paid server exited: ${out}`)));
    });
    paid = { url, process: child };
  });
  after(async () => {
    paid.process.kill();
    provider.destroy();
    await node.stop();
    rmSync(home, { recursive: true, force: true });
  });

  it('a server that redirects the paid call to another host: the payment is not sent there, allowed or not', async (t) => {
    const front = await redirectingFront('paid');
    t.after(() => {
      front.stop();
      writePolicy();
    });
    // The host redirected to is not listed, then listed too: a paying call goes to the server named only.
    for (const [index, allowed] of [[OTHER_HOST], [OTHER_HOST, '127.0.0.1']].entries()) {
      writePolicy(allowed);
      const before = await balances();
      const seen = calls().length;
      const { code, stdout, stderr } = await run(['--url', front.url, 'report', '--topic', 'moved', ...pay(), '--yes']);
      assert.equal(code, 1, stderr);
      assert.equal(stdout, '');
      assert.equal(front.count(), index + 1, 'the paid call came to the front, which redirected it');
      assert.deepEqual(calls().slice(seen), ['report unpaid'], 'the server redirected to never saw the payment');
      assert.deepEqual(await balances(), before, 'nothing moved');
      assert.match(
        stderr,
        new RegExp(
          `^error: POLICY_VIOLATION: A payment of ${CENT} base units of token ${token} to ${PAYEE} was signed and sent to tool report of server paid-tools, but the request failed \\(Refused: the server redirected the call to http://127\\.0\\.0\\.1:[0-9]+, another origin, and a call that may pay goes to the server named only: it was not sent there\\); the payment may be settled all the same\\.$`,
          'm',
        ),
      );
      assert.match(stderr, /^hint: 'wallet evm-balance-get --token …' shows whether it was paid/m);
      const line = paymentLines().at(-1);
      assert.deepEqual(
        [line?.outcome, line?.['host'], line?.['payment_signed'], line?.['amount'], line?.['error']?.code],
        ['error', OTHER_HOST, true, CENT.toString(), 'POLICY_VIOLATION'],
      );
    }
    // Called where it is, the server is paid.
    const [payer, payee] = await balances();
    const direct = await run(['--url', paid.url, 'report', '--topic', 'direct', ...pay(), '--yes', '--json']);
    assert.equal(direct.code, 0, direct.stderr);
    assert.deepEqual(JSON.parse(direct.stdout), { topic: 'direct', report: 'The report on direct.' });
    assert.deepEqual(await balances(), [payer - CENT, payee + CENT]);
  });

  it('a paid call answered with a 301, 302 or 303: not followed, to another origin or its own', async (t) => {
    writePolicy([OTHER_HOST]);
    t.after(() => writePolicy());
    // A POST is followed on a 307 or 308 within the origin only: a 301, 302 or 303 would turn it
    // into a GET, so not even its own origin gets the call again.
    const cases = [
      [301, 'server'],
      [302, 'server'],
      [303, 'server'],
      [303, 'self'],
    ] as const;
    for (const [status, to] of cases) {
      const front = await redirectingFront('paid', status, to);
      try {
        const before = await balances();
        const seen = calls().length;
        const { code, stdout, stderr } = await run([
          '--url',
          front.url,
          'report',
          '--topic',
          'moved',
          ...pay(),
          '--yes',
        ]);
        assert.equal(code, 1, stderr);
        assert.equal(stdout, '');
        assert.equal(front.count(), 1, `${status}: the paid call came to the front, which redirected it`);
        assert.deepEqual(calls().slice(seen), ['report unpaid'], `${status}: the payment went nowhere else`);
        assert.deepEqual(await balances(), before, 'nothing moved');
        const refused =
          to === 'server'
            ? 'Refused: the server redirected the call to http://127\\.0\\.0\\.1:[0-9]+, another origin, and a call that may pay goes to the server named only: it was not sent there'
            : `Refused: the server answered the call with a redirect \\(HTTP ${status}\\) within its own origin, which is not followed \\(it would make the call a GET\\): it was not sent again`;
        assert.match(
          stderr,
          new RegExp(
            `^error: POLICY_VIOLATION: A payment of ${CENT} base units of token ${token} to ${PAYEE} was signed and sent to tool report of server paid-tools, but the request failed \\(${refused}\\); the payment may be settled all the same\\.$`,
            'm',
          ),
          `${status} ${to}`,
        );
        const line = paymentLines().at(-1);
        assert.deepEqual(
          [line?.outcome, line?.['host'], line?.['payment_signed'], line?.['amount'], line?.['error']?.code],
          ['error', OTHER_HOST, true, CENT.toString(), 'POLICY_VIOLATION'],
        );
      } finally {
        front.stop();
      }
    }
  });

  it('a redirect of the first, unpaid call to another host: refused, nothing signed, a dry run too', async (t) => {
    const front = await redirectingFront('calls');
    t.after(() => {
      front.stop();
      writePolicy();
    });
    writePolicy([OTHER_HOST]);
    for (const more of [['--yes'], ['--pay-dry-run']]) {
      const before = await balances();
      const seen = calls().length;
      const { code, stdout, stderr } = await run(['--url', front.url, 'report', '--topic', 'x', ...pay(), ...more]);
      assert.equal(code, 1, stderr);
      assert.equal(stdout, '');
      assert.deepEqual(calls().slice(seen), [], 'the host redirected to was not called');
      assert.deepEqual(await balances(), before);
      assert.match(
        stderr,
        /^error: POLICY_VIOLATION: Refused: the server redirected the call to http:\/\/127\.0\.0\.1:[0-9]+, another origin, and a call that may pay goes to the server named only: it was not sent there\. Nothing was signed\.$/m,
      );
      assert.match(
        stderr,
        /^hint: If you trust the server it points to, call that one directly \(--url with its address\)/m,
      );
      const line = paymentLines().at(-1);
      assert.deepEqual(
        [line?.outcome, line?.['host'], line?.['payment_signed'], line?.['error']?.code],
        ['error', OTHER_HOST, undefined, 'POLICY_VIOLATION'],
      );
    }
  });

  it('a saved stdio server run with --env under an allowlist: refused before signing, a dry run too', async (t) => {
    t.after(() => writePolicy());
    const saved = Object.entries(serverEnv()).flatMap(([name, value]) => ['--env', `${name}=${value}`]);
    const added = await run(['servers', 'add', 'paid-tools', '--server', SERVER, ...saved]);
    assert.equal(added.code, 0, added.stderr);
    writePolicy(['stdio:paid-tools']);
    // NODE_OPTIONS could make the saved command run anything: what is listed is no longer what runs.
    for (const more of [['--yes'], ['--pay-dry-run']]) {
      const before = await balances();
      const seen = calls().length;
      const argv = ['--server', 'paid-tools', '--env', 'NODE_OPTIONS=--no-warnings', 'report', '--topic', 'env'];
      const { code, stdout, stderr } = await run([...argv, ...pay(), ...more]);
      assert.equal(code, 1, stderr);
      assert.equal(stdout, '');
      assert.match(
        stderr,
        /^error: POLICY_VIOLATION: Refused by policy evm\.networks\.local\.policy\.allowed_hosts: tool report of server paid-tools \(stdio:paid-tools\) is run with --env, which can change what the saved server runs; a server listed there is paid only as it is saved\. Nothing was signed\.$/m,
      );
      assert.match(stderr, /^hint: .*wallet servers add paid-tools .*--env NAME=value.*--overwrite/m);
      assert.ok(
        calls()
          .slice(seen)
          .every((line) => line.endsWith(' unpaid')),
        'no payment was sent',
      );
      assert.deepEqual(await balances(), before);
      const line = paymentLines().at(-1);
      assert.deepEqual(
        [line?.outcome, line?.['host'], line?.['payment_signed'], line?.['error']?.code],
        ['error', 'stdio:paid-tools', undefined, 'POLICY_VIOLATION'],
      );
    }
    // As saved (its environment with it): paid.
    const [payer, payee] = await balances();
    const ok = await run(['--server', 'paid-tools', 'report', '--topic', 'env', ...pay(), '--yes']);
    assert.equal(ok.code, 0, ok.stderr);
    assert.deepEqual(await balances(), [payer - CENT, payee + CENT]);
    // Without an allowlist, the command line is the owner's own: --env is paid as before.
    writePolicy();
    const free = await run([
      '--server',
      'paid-tools',
      '--env',
      'NODE_OPTIONS=--no-warnings',
      'report',
      '--topic',
      'env',
      ...pay(),
      '--yes',
    ]);
    assert.equal(free.code, 0, free.stderr);
    assert.deepEqual(await balances(), [payer - 2n * CENT, payee + 2n * CENT]);
  });

  it('a kept-alive server: the paid call is made by the caller’s own process, not the daemon', async (t) => {
    const env: NodeJS.ProcessEnv = {
      ...Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith('WALLET_'))),
      WALLET_HOME: home,
      WALLET_EVM_LOCAL_URL: node.url,
      NO_COLOR: '1',
    };
    /** `wallet <args>` as its own process, through bin/wallet.js (whose thin client reaches the daemon). */
    const bin = (args: string[]) =>
      new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve, reject) => {
        const child = spawn(process.execPath, [WALLET_BIN, ...args], { env, stdio: ['ignore', 'pipe', 'pipe'] });
        let stdout = '';
        let stderr = '';
        child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
        child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
        child.on('error', reject);
        child.on('close', (code) => resolve({ code, stdout, stderr }));
      });
    /** The calls the daemon made of the server; undefined while no daemon runs. */
    const daemonCalls = async (): Promise<number | undefined> => {
      const shown = await bin(['daemon', 'status', '--json']);
      assert.equal(shown.code, 0, shown.stderr);
      const status = JSON.parse(shown.stdout) as { running: boolean; servers?: { name: string; calls: number }[] };
      return status.running ? (status.servers?.find((server) => server.name === 'warm-tools')?.calls ?? 0) : undefined;
    };
    const saved = Object.entries(serverEnv()).flatMap(([name, value]) => ['--env', `${name}=${value}`]);
    const added = await run(['servers', 'add', 'warm-tools', '--server', SERVER, ...saved, '--keep-alive']);
    assert.equal(added.code, 0, added.stderr);
    t.after(async () => {
      await bin(['daemon', 'stop']);
    });
    // The first call starts the daemon (and is made directly); the next ones are the daemon's.
    assert.equal((await bin(['--server', 'warm-tools', 'free-echo', '--text', 'start'])).code, 0);
    for (let waited = 0; (await daemonCalls()) === undefined; waited += 100) {
      assert.ok(waited < 20_000, 'the daemon never started');
      await delay(100);
    }
    const warm = await bin(['--server', 'warm-tools', 'free-echo', '--text', 'warm', '--debug']);
    assert.equal(warm.code, 0, warm.stderr);
    assert.equal(warm.stdout.trim(), 'warm');
    assert.match(warm.stderr, /kept-alive: answered by the daemon/);
    const before = await daemonCalls();
    assert.ok(before !== undefined && before >= 1, 'the daemon made the warm call');
    const [payer, payee] = await balances();
    const paidCall = await bin(['--server', 'warm-tools', 'report', '--topic', 'warm', ...pay(), '--yes', '--debug']);
    assert.equal(paidCall.code, 0, paidCall.stderr);
    assert.match(paidCall.stdout, /The report on warm\./);
    assert.doesNotMatch(paidCall.stderr, /answered by the daemon/);
    assert.deepEqual(await balances(), [payer - CENT, payee + CENT]);
    assert.deepEqual(calls().slice(-2), ['report unpaid', 'report paid']);
    assert.equal(await daemonCalls(), before, 'the daemon made neither the unpaid nor the paid call');
    const line = paymentLines().at(-1);
    assert.deepEqual([line?.outcome, line?.['host']], ['sent', 'stdio:warm-tools']);
  });
});
