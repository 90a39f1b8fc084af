/**
 * evm_x402_fetch end to end on anvil: the test PermitToken (EIP-3009), a paid resource server
 * built with `@x402/hono` and a facilitator of the x402 packages' own that verifies and settles on
 * anvil (test/helpers/x402.ts). The tool pays and the balances move by the price, on chain; every
 * refusal leaves them as they were and the facilitator idle; an agent pays alone within its token
 * autonomy, and above it only after the owner's approval, once. Balances are read with ethers.
 */
import assert from 'node:assert/strict';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import type { IncomingMessage } from 'node:http';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { ethers } from 'ethers';
import type { PaymentRequirements } from '@x402/core/types';
import type { Address } from 'viem';
import { ANVIL_FIRST_ACCOUNT, ANVIL_MNEMONIC, startAnvil, type AnvilNode } from '../../helpers/anvil.js';
import { approveAsOwner } from '../../helpers/approvals.js';
import { compilePermitToken, deployPermitToken } from '../../helpers/erc20.js';
import { tempHome, wallet } from '../../helpers/io.js';
import { localServer, ownerAndAgent, ToolFailure, type ToolCaller } from '../../helpers/mcp.js';
import { paymentRequiredAnswer, startX402Server, type X402Server } from '../../helpers/x402.js';
import { auditLines, writeLocalPolicy } from '../../helpers/policy.js';
import { readToolErrorMeta } from '../../../src/shared/protocol-meta.js';

const PASSPHRASE = 'x402 passphrase';
const account = (index: number) =>
  ethers.HDNodeWallet.fromPhrase(ANVIL_MNEMONIC, undefined, `m/44'/60'/0'/0/${index}`).address as Address;
const PAYEE = account(3);
const STRANGER = account(6);
const TOKEN = 10n ** 6n;
const CENT = TOKEN / 100n;

type FetchResult = {
  status: number;
  content_type: string | null;
  body: string;
  body_encoding: string;
  truncated: boolean;
  paid: boolean;
  settled: boolean;
  x402_version: number | null;
  payee: string | null;
  asset: string | null;
  amount: string | null;
  token_amount: string | null;
  token_symbol: string | null;
  hash: string | null;
  dry_run: boolean;
};

describe('evm_x402_fetch: paying for HTTP resources under the policy (anvil, x402)', () => {
  let node: AnvilNode;
  let home: string;
  let token: Address;
  let otherToken: Address;
  let contract: ethers.Contract;
  let provider: ethers.JsonRpcProvider;
  let server: X402Server;
  let owner: ToolCaller;
  let agent: ToolCaller;
  let baitServer: { price: bigint; requests: number; signed: number };
  const env = () => ({ WALLET_HOME: home, WALLET_EVM_LOCAL_URL: node.url });
  const balanceOf = async (who: Address) => (await contract.getFunction('balanceOf').staticCall(who)) as bigint;
  const balances = async (): Promise<[bigint, bigint, bigint]> => [
    await balanceOf(ANVIL_FIRST_ACCOUNT),
    await balanceOf(PAYEE),
    await balanceOf(STRANGER),
  ];
  const args = (path: string, extra: Record<string, unknown> = {}) => ({
    address: 'holder',
    resource_url: `${server.origin}${path}`,
    token,
    max_price: (TOKEN / 10n).toString(),
    network: 'local',
    ...extra,
  });
  const fetchAs = (caller: ToolCaller, path: string, extra: Record<string, unknown> = {}) =>
    caller.call<FetchResult>('evm_x402_fetch', args(path, extra));
  /** A refusal: its code and message, with nothing signed (balances as they were, no settlement). */
  const refusedWith = async (call: () => Promise<unknown>, code: string, message: RegExp) => {
    const before = [await balances(), server.settled()];
    const error = await call().then(
      () => assert.fail('expected a refusal'),
      (failure: unknown) => failure,
    );
    assert.ok(error instanceof ToolFailure, String(error));
    assert.equal(error.code, code, error.message);
    assert.match(error.message, message);
    assert.match(error.message, /Nothing was signed/);
    assert.deepEqual([await balances(), server.settled()], before, 'nothing signed, nothing moved');
  };
  const x402AuditLines = () => auditLines(home).filter((line) => line.tool === 'evm_x402_fetch');

  before(async () => {
    node = await startAnvil();
    provider = new ethers.JsonRpcProvider(node.url, 31337, { staticNetwork: true, cacheTimeout: -1 });
    const parameters = { name: 'Permit Token', symbol: 'PTK', decimals: 6, supply: 1000n * TOKEN };
    token = ethers.getAddress(await deployPermitToken(node, parameters)) as Address;
    otherToken = ethers.getAddress(await deployPermitToken(node, { ...parameters, symbol: 'OTH' })) as Address;
    contract = new ethers.Contract(token, compilePermitToken().abi as ethers.InterfaceAbi, provider);
    const paid = (amount: bigint, payTo: Address = PAYEE) => ({
      amount,
      payTo,
      token,
      tokenName: 'Permit Token',
      body: `paid ${amount}`,
    });
    const requirement = (overrides: Partial<PaymentRequirements>): PaymentRequirements => ({
      scheme: 'exact',
      network: 'eip155:31337',
      asset: token,
      amount: CENT.toString(),
      payTo: PAYEE,
      maxTimeoutSeconds: 60,
      extra: { name: 'Permit Token', version: '1' },
      ...overrides,
    });
    // What /bait asks: 5 cents until the test raises it (after the owner approved 5); each request counted.
    const bait = { price: 5n * CENT, requests: 0, signed: 0 };
    baitServer = bait;
    server = await startX402Server(node, {
      paid: {
        '/report': paid(CENT),
        '/dear': paid(5n * CENT),
        '/pricey': paid(3n * TOKEN),
        '/stranger': paid(CENT, STRANGER),
      },
      raw: {
        '/free': (c) => c.text('free for all'),
        '/big': (c) => c.text('x'.repeat(100_000)),
        '/big-402': (c) => c.body('x'.repeat(100_000), 402),
        '/wrong-network': (c) => paymentRequiredAnswer(c.req.url, [requirement({ network: 'eip155:1' })]),
        '/wrong-asset': (c) => paymentRequiredAnswer(c.req.url, [requirement({ asset: otherToken })]),
        '/other-scheme': (c) => paymentRequiredAnswer(c.req.url, [requirement({ scheme: 'upto' })]),
        '/no-offer': (c) => paymentRequiredAnswer(c.req.url, []),
        '/to-private': (c) => c.redirect('https://10.20.30.40/report', 302),
        '/to-metadata': (c) => c.redirect('http://169.254.169.254/latest/meta-data', 302),
        '/to-report': (c) => c.redirect('/report', 307),
        // Shows one price while the owner is asked, then (raised by the test once the owner said yes) asks more.
        '/bait': (c) => {
          bait.requests++;
          if (c.req.header('PAYMENT-SIGNATURE')) bait.signed++;
          return paymentRequiredAnswer(c.req.url, [requirement({ amount: bait.price.toString() })]);
        },
        // Ask a valid price, then fail the paid request: an error status, a dropped connection,
        // a 402 too long to read.
        '/pay-then-500': (c) =>
          c.req.header('PAYMENT-SIGNATURE')
            ? c.text(`the server broke\non api_key=${c.req.query('api_key') ?? ''}`, 500)
            : paymentRequiredAnswer(c.req.url, [requirement({})]),
        // Asks a valid price, then refuses the payment, saying why in its 402 (version 2: a header).
        '/pay-then-refuse': (c) =>
          paymentRequiredAnswer(
            c.req.url,
            [requirement({})],
            c.req.header('PAYMENT-SIGNATURE') ? 'invalid_exact_evm_payload_signature' : undefined,
          ),
        '/pay-then-drop': (c) => {
          if (!c.req.header('PAYMENT-SIGNATURE')) return paymentRequiredAnswer(c.req.url, [requirement({})]);
          (c.env as { incoming: IncomingMessage }).incoming.socket.destroy();
          return new Promise<Response>(() => undefined);
        },
        '/pay-then-big-402': (c) =>
          c.req.header('PAYMENT-SIGNATURE')
            ? c.body('x'.repeat(100_000), 402)
            : paymentRequiredAnswer(c.req.url, [requirement({})]),
        // Asks a valid price, then answers the paid request with redirects to itself, for ever.
        '/pay-then-loop': (c) =>
          c.req.header('PAYMENT-SIGNATURE')
            ? c.redirect('/pay-then-loop', 307)
            : paymentRequiredAnswer(c.req.url, [requirement({})]),
      },
    });
    home = tempHome();
    writeLocalPolicy(home, {
      allowed_recipients: [PAYEE],
      // The resource server runs on this machine: loopback is fetched only when listed.
      allowed_hosts: ['127.0.0.1'],
      autonomous: { max_per_tx_wei: '0', max_per_24h_wei: '0' },
      tokens: {
        [token.toLowerCase()]: {
          max_per_tx: TOKEN.toString(),
          max_per_24h: (2n * TOKEN).toString(),
          autonomous: { max_per_tx: (2n * CENT).toString(), max_per_24h: (10n * CENT).toString() },
        },
      },
    });
    ({ owner, agent } = await ownerAndAgent(env(), PASSPHRASE));
  });
  after(async () => {
    provider.destroy();
    await owner.close();
    await agent.close();
    await server.close();
    await node.stop();
    rmSync(home, { recursive: true, force: true });
  });

  it('pays the price and gets the resource: the balances move by it, the settlement is on chain', async () => {
    const [payer, payee] = await balances();
    const result = await fetchAs(owner, '/report');
    assert.equal(result.status, 200);
    assert.match(result.content_type ?? '', /application\/json/);
    assert.deepEqual(JSON.parse(result.body), { resource: '/report', content: `paid ${CENT}` });
    assert.deepEqual(
      [
        result.paid,
        result.settled,
        result.x402_version,
        result.payee,
        result.asset,
        result.amount,
        result.token_amount,
      ],
      [true, true, 2, PAYEE, token, CENT.toString(), '0.01'],
    );
    assert.equal(result.token_symbol, 'PTK');
    assert.deepEqual(await balances(), [payer - CENT, payee + CENT, 0n]);
    const receipt = await provider.getTransactionReceipt(result.hash ?? '');
    assert.equal(receipt?.status, 1, 'the settlement transaction is mined');
    assert.equal(receipt?.to, token, 'a call of the token contract (transferWithAuthorization)');
    const line = x402AuditLines().at(-1);
    assert.deepEqual(
      [line?.['outcome'], line?.['recipient'], line?.['amount'], line?.['token'], line?.['host'], line?.['hash']],
      ['sent', PAYEE, CENT.toString(), token, '127.0.0.1', result.hash],
    );
  });

  it('follows a redirect under the same rules, and fetches a free resource without paying', async () => {
    const redirected = await fetchAs(owner, '/to-report');
    assert.equal(redirected.status, 200);
    assert.equal(redirected.paid, true);
    const free = await fetchAs(owner, '/free');
    assert.deepEqual(
      [free.status, free.body, free.paid, free.payee, free.amount, free.truncated],
      [200, 'free for all', false, null, null, false],
    );
    const big = await fetchAs(owner, '/big');
    assert.equal(big.truncated, true);
    assert.equal(big.body.length, 64 * 1024);
  });

  it('a dry run shows the price and the payee, and pays nothing', async () => {
    const before = [await balances(), server.settled()];
    const planned = await fetchAs(owner, '/dear', { dry_run: true });
    assert.deepEqual(
      [
        planned.dry_run,
        planned.paid,
        planned.status,
        planned.payee,
        planned.amount,
        planned.token_amount,
        planned.hash,
      ],
      [true, false, 402, PAYEE, (5n * CENT).toString(), '0.05', null],
    );
    assert.deepEqual([await balances(), server.settled()], before);
    assert.equal(x402AuditLines().at(-1)?.['outcome'], 'dry_run');
  });

  it('refuses, with nothing signed: price above max_price, above the token cap, payee not allowed', async () => {
    await refusedWith(
      () => fetchAs(owner, '/dear', { max_price: '49999' }),
      'POLICY_VIOLATION',
      /above max_price 49999/,
    );
    await refusedWith(
      () => fetchAs(owner, '/pricey', { max_price: (5n * TOKEN).toString() }),
      'POLICY_VIOLATION',
      /Refused by policy evm\.networks\.local\.policy\.tokens\.0x[0-9a-fA-F]{40}\.max_per_tx: /,
    );
    await refusedWith(
      () => fetchAs(owner, '/stranger'),
      'POLICY_VIOLATION',
      new RegExp(`Refused by policy evm\\.networks\\.local\\.policy\\.allowed_recipients: ${STRANGER}`),
    );
    const refusal = x402AuditLines().at(-1);
    assert.equal(refusal?.['outcome'], 'error');
    assert.equal(refusal?.['host'], '127.0.0.1');
  });

  it('refuses, with nothing signed: another network, another asset, another scheme', async () => {
    await refusedWith(() => fetchAs(owner, '/wrong-network'), 'NETWORK_MISMATCH', /on "eip155:1", not on this network/);
    await refusedWith(() => fetchAs(owner, '/wrong-asset'), 'INVALID_PARAM', new RegExp(`asset "${otherToken}"`));
    await refusedWith(() => fetchAs(owner, '/other-scheme'), 'INVALID_PARAM', /scheme "upto"/);
  });

  it('refuses, with nothing signed: a non-https URL, a redirect to a private address, an oversized 402', async () => {
    await refusedWith(
      () => owner.call('evm_x402_fetch', args('', { resource_url: 'http://example.com/report' })),
      'INVALID_PARAM',
      /must be an https URL/,
    );
    await refusedWith(
      () => owner.call('evm_x402_fetch', args('', { resource_url: 'file:///etc/passwd' })),
      'INVALID_PARAM',
      /must be an https URL/,
    );
    await refusedWith(() => fetchAs(owner, '/to-private'), 'POLICY_VIOLATION', /10\.20\.30\.40, a private/);
    await refusedWith(() => fetchAs(owner, '/to-metadata'), 'INVALID_PARAM', /must be an https URL/);
    await refusedWith(() => fetchAs(owner, '/big-402'), 'BACKEND_INVALID', /body over 65536 bytes/);
    await refusedWith(
      () => fetchAs(owner, '/no-offer'),
      'BACKEND_INVALID',
      /http:\/\/127\.0\.0\.1:\d+ answered 402 but offers no way to pay\. Nothing was signed\./,
    );
  });

  it('a paid request that then fails says the payment was signed and may be settled', async () => {
    const error = await fetchAs(owner, '/pay-then-loop').then(
      () => assert.fail('expected a failure'),
      (failure: unknown) => failure,
    );
    assert.ok(error instanceof ToolFailure, String(error));
    assert.equal(error.code, 'BACKEND_INVALID');
    assert.match(
      error.message,
      new RegExp(
        `A payment of ${CENT} base units of token ${token} to ${PAYEE} was signed and sent to http://127\\.0\\.0\\.1:\\d+, but the request failed \\(.*redirected more than 5 times\\); the payment may be settled all the same\\.$`,
        'm',
      ),
    );
    const line = x402AuditLines().at(-1);
    assert.deepEqual(
      [line?.['outcome'], line?.['payment_signed'], line?.['recipient'], line?.['amount'], line?.['token']],
      ['error', true, PAYEE, CENT.toString(), token],
    );
  });

  it('a paid request that fails leaves an audit line with what was signed, never the URL or signature', async () => {
    const cases = [
      ['/pay-then-500', 'BACKEND_INVALID', /which answered status 500 instead of serving the resource/],
      ['/pay-then-refuse', 'BACKEND_INVALID', /which asked for payment again \(it did not take this one\)/],
      ['/pay-then-drop', 'BACKEND_UNAVAILABLE', /but the request failed \(Cannot reach http:\/\/127\.0\.0\.1:\d+\)/],
      ['/pay-then-big-402', 'BACKEND_INVALID', /but the request failed \(.*answered 402 with a body over 65536 bytes/],
    ] as const;
    for (const [path, code, message] of cases) {
      const before = [await balances(), server.settled()];
      const lines = x402AuditLines().length;
      // A query that carries a key, as some resources take one.
      const error = await fetchAs(owner, `${path}?api_key=sekret-query-value`).then(
        () => assert.fail(`expected ${path} to fail`),
        (failure: unknown) => failure,
      );
      assert.ok(error instanceof ToolFailure, String(error));
      assert.equal(error.code, code, error.message);
      assert.match(error.message, message);
      assert.match(
        error.message,
        new RegExp(
          `: A payment of ${CENT} base units of token ${token} to ${PAYEE} was signed and sent to http://127\\.0\\.0\\.1:\\d+[, ]`,
        ),
      );
      assert.match(error.message, /the payment may be settled all the same\.$/m);
      assert.doesNotMatch(error.message, /Nothing was signed/);
      if (path === '/pay-then-500') {
        // What the server said (why it failed) reaches the caller, on one line, in the hint.
        assert.match(error.message, /\nhint: It said: "the server broke on api_key=sekret-query-value"\. /);
      }
      if (path === '/pay-then-refuse') {
        // Why it refused, from its payment request (version 2: the PAYMENT-REQUIRED header).
        assert.match(error.message, /\nhint: It said: "invalid_exact_evm_payload_signature"\. /);
      }
      assert.deepEqual([await balances(), server.settled()], before, 'signed, not settled');
      const added = x402AuditLines().slice(lines);
      assert.equal(added.length, 1, JSON.stringify(added));
      const line = added[0];
      assert.deepEqual(
        [line?.['outcome'], line?.['payment_signed'], line?.['network'], line?.['from'], line?.['authority']],
        ['error', true, 'local', 'holder', 'terminal'],
      );
      assert.deepEqual(
        [line?.['amount'], line?.['unit'], line?.['token'], line?.['recipient'], line?.['host'], line?.['hash']],
        [CENT.toString(), 'token', token, PAYEE, '127.0.0.1', undefined],
      );
      assert.equal((line?.['error'] as { code?: string } | undefined)?.code, code);
      const text = JSON.stringify(line);
      assert.doesNotMatch(text, /sekret|api_key|pay-then/, 'neither the query nor the path');
      assert.doesNotMatch(text, /[0-9a-fA-F]{130}/, 'no signature');
    }
  });

  it('an agent pays alone within its autonomy; above it, only once the owner approved, once', async () => {
    const [payer, payee] = await balances();
    const alone = await fetchAs(agent, '/report');
    assert.equal(alone.paid, true);
    assert.deepEqual(await balances(), [payer - CENT, payee + CENT, 0n]);

    const call = () => agent.client.callTool({ name: 'evm_x402_fetch', arguments: args('/dear') });
    const asked = await call();
    const settledBefore = server.settled();
    assert.deepEqual(await balances(), [payer - CENT, payee + CENT, 0n], 'nothing paid before the approval');
    await approveAsOwner(home, asked);
    const approved = await call();
    assert.ok(!approved.isError, JSON.stringify(approved.content));
    assert.equal((approved.structuredContent as FetchResult).paid, true);
    assert.equal(server.settled(), settledBefore + 1);
    assert.deepEqual(await balances(), [payer - 6n * CENT, payee + 6n * CENT, 0n], 'paid once');
    const again = await call();
    assert.ok(again.isError, 'the approval is used up: the same call asks again');
    assert.deepEqual(await balances(), [payer - 6n * CENT, payee + 6n * CENT, 0n]);
  });

  it('an agent above its autonomy is planned once: one request, the owner asked, nothing signed as its own', async () => {
    // The gate decides on one plan (a dry run) and never runs the call as the agent's to see
    // whether the policy refuses it: the resource is requested once, unpaid, before the owner is
    // asked, and no line of the audit log says the agent signed. (The old gate requested it twice
    // here; the test below counted on that and so read the owner's approved payment as the agent's.)
    const before = [await balances(), server.settled()];
    const { requests, signed } = baitServer;
    const lines = x402AuditLines().length;
    const asked = await agent.client.callTool({ name: 'evm_x402_fetch', arguments: args('/bait') });
    assert.ok(asked.isError, 'above autonomy (5 cents, the agent may pay 2 alone): the owner is asked');
    assert.equal(readToolErrorMeta(asked._meta)?.code, 'APPROVAL_REQUIRED');
    assert.deepEqual([baitServer.requests - requests, baitServer.signed - signed], [1, 0], 'one plan, nothing signed');
    const added = x402AuditLines().slice(lines);
    assert.deepEqual(
      added.map((line) => [line['outcome'], line['amount'], line['authority']]),
      [['asked', (5n * CENT).toString(), undefined]],
    );
    assert.deepEqual([await balances(), server.settled()], before, 'nothing paid');
    // Withdrawn, so the next test asks afresh: the owner denies it.
    const id = String(readToolErrorMeta(asked._meta)?.details?.['approval_id']);
    const denied = await wallet(['approvals', 'deny', id], { home });
    assert.equal(denied.code, 0, denied.stderr);
    const again = await agent.client.callTool({ name: 'evm_x402_fetch', arguments: args('/bait') });
    assert.equal(readToolErrorMeta(again._meta)?.code, 'POLICY_VIOLATION', 'denied: refused, not run as the agent');
    assert.deepEqual([await balances(), server.settled()], before, 'nothing paid');
  });

  it('an approved payment is the one the owner saw: a server that then asks more gets nothing', async () => {
    const before = await balances();
    baitServer.price = 5n * CENT;
    const call = () =>
      agent.client.callTool({ name: 'evm_x402_fetch', arguments: args('/bait', { max_price: '99999' }) });
    const asked = await call();
    assert.ok(asked.isError, 'above autonomy: the owner is asked');
    await approveAsOwner(home, asked);
    // The owner saw and approved 5 cents; now the server asks 6.
    baitServer.price = 6n * CENT;
    const switched = await call();
    assert.ok(switched.isError, JSON.stringify(switched.structuredContent));
    const error = (switched._meta as Record<string, { code: string; message: string }>)['wallet/error'];
    assert.equal(error?.code, 'POLICY_VIOLATION');
    assert.match(
      error?.message ?? '',
      new RegExp(
        `now asks ${6n * CENT} base units .* the human approved ${5n * CENT} base units to ${PAYEE}\\. Nothing was signed`,
      ),
    );
    assert.deepEqual(await balances(), before, 'nothing paid');
  });

  it('the CLI: --dry-run shows the price in token units; without it, it asks on a terminal', async () => {
    const flags = [
      'evm-x402-fetch',
      '--address',
      'holder',
      '--resource-url',
      `${server.origin}/dear`,
      '--token',
      token,
      '--max-price',
      '100000',
      '--network',
      'local',
    ];
    const before = await balances();
    const dry = await wallet([...flags, '--dry-run'], { home, env: env() });
    assert.equal(dry.code, 0, dry.stderr);
    assert.match(dry.stdout, /\bamount\s+0\.05 PTK \(50000 base units\)\n/);
    assert.match(dry.stdout, new RegExp(`payee\\s+${PAYEE}`));
    const declined = await wallet(flags, { home, env: { ...env(), NO_COLOR: '1' }, tty: true, stdin: 'n\n' });
    // The plan first (the price in token units, the payee), then the question; "n" pays nothing.
    assert.match(declined.stderr, /Plan[^]*\bamount\s+0\.05 PTK \(50000 base units\)[^]*Proceed\? \[y\/N\]/);
    assert.match(declined.stderr, /Cancelled: nothing was sent/);
    assert.equal(declined.code, 1);
    assert.deepEqual(await balances(), before, 'nothing paid');
  });

  it("with the policy's allowed_hosts, only those hosts are fetched", async (t) => {
    const path = join(home, 'config.json');
    const config = JSON.parse(readFileSync(path, 'utf8')) as { evm: { networks: { local: { policy: object } } } };
    config.evm.networks.local.policy = { ...config.evm.networks.local.policy, allowed_hosts: ['localhost'] };
    writeFileSync(path, JSON.stringify(config));
    // A server reads the config when it starts.
    const restarted = await localServer({ env: env(), passphrase: PASSPHRASE });
    t.after(() => restarted.close());
    await refusedWith(
      () => fetchAs(restarted, '/free'),
      'POLICY_VIOLATION',
      /Refused by policy evm\.networks\.local\.policy\.allowed_hosts: 127\.0\.0\.1 /,
    );
    const byName = await restarted.call<FetchResult>(
      'evm_x402_fetch',
      args('', { resource_url: `${server.origin.replace('127.0.0.1', 'localhost')}/free` }),
    );
    assert.equal(byName.body, 'free for all');
  });
});
