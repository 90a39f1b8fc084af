/**
 * Confirmation of destructive calls through elicitation, with the SDK's real client: over HTTP on
 * the 2026-07-28 protocol (the client answers the server's input request and retries), over stdio
 * on a 2025 connection (the server sends elicitation/create), and in memory for an answer that
 * never comes. anvil is real: what "nothing was sent" means is read off the node.
 */
import assert from 'node:assert/strict';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { InMemoryTransport } from '@modelcontextprotocol/server';
import { parseConfigText } from '../../src/domain/config/config-file.js';
import { createWalletServer } from '../../src/mcp/server.js';
import { walletServerOptions } from '../../src/mcp/setup.js';
import { ERROR_META_KEY } from '../../src/shared/protocol-meta.js';
import { ANVIL_FIRST_ACCOUNT, startAnvil, type AnvilNode } from '../helpers/anvil.js';
import { startHttpServe, type HttpServe } from '../helpers/http-serve.js';
import { passphraseFileIn, tempHome } from '../helpers/io.js';
import { importAnvilAccount } from '../helpers/mcp.js';
import { WALLET_BIN } from '../helpers/paths.js';

const PASSPHRASE = 'confirm passphrase';
const TOKEN = 'elicitation-test-token-0123456789';
const RECIPIENT = '0x90F79bf6EB2c4f870365E785982E1f101E93b906';
const PAYMENT = { address: 'payer', to: RECIPIENT, value_wei: '1000000000000000', network: 'local' };

type Answer = { action: 'accept' | 'decline' | 'cancel'; content?: Record<string, boolean> };
type Asked = { message: string; requestedSchema: { properties: Record<string, { type: string }> } };

/** A client that declares form elicitation and answers each question with `answer`, keeping the questions. */
function elicitingClient(answer: () => Answer | Promise<Answer>, mode: 'legacy' | 'auto') {
  const asked: Asked[] = [];
  const client = new Client(
    { name: 'confirming-client', version: '1' },
    { capabilities: { elicitation: { form: {} } }, versionNegotiation: { mode } },
  );
  client.setRequestHandler('elicitation/create', async (request) => {
    asked.push(request.params as unknown as Asked);
    return answer();
  });
  return { client, asked };
}

const codeOf = (result: {
  isError?: boolean | undefined;
  _meta?: Record<string, unknown> | undefined;
}): string | undefined =>
  result.isError ? (result._meta?.[ERROR_META_KEY] as { code?: string } | undefined)?.code : undefined;

describe('destructive calls ask the user through elicitation', () => {
  let node: AnvilNode;
  let home: string;
  let http: HttpServe;
  const nonce = () => node.rpc<string>('eth_getTransactionCount', [ANVIL_FIRST_ACCOUNT, 'latest']).then(Number);

  before(async () => {
    node = await startAnvil();
    home = tempHome();
    await importAnvilAccount(home, PASSPHRASE, { walletAlias: 'w', accountAlias: 'payer' });
    // The owner trusts a form yes over HTTP too (by default only over stdio: see below).
    writeFileSync(join(home, 'config.json'), JSON.stringify({ approvals: { trust_elicitation: 'always' } }), {
      mode: 0o600,
    });
    http = await startHttpServe(['--passphrase-file', passphraseFileIn(home, PASSPHRASE)], {
      home,
      env: { MCP_API_KEY: TOKEN, WALLET_EVM_LOCAL_URL: node.url },
    });
  });
  after(async () => {
    await http.stop();
    await node.stop();
    rmSync(home, { recursive: true, force: true });
  });

  async function overHttp(answer: () => Answer | Promise<Answer>) {
    const { client, asked } = elicitingClient(answer, 'auto');
    await client.connect(
      new StreamableHTTPClientTransport(new URL(http.url), {
        requestInit: { headers: { authorization: `Bearer ${TOKEN}` } },
      }),
    );
    assert.equal(client.getNegotiatedProtocolVersion(), '2026-07-28');
    return { client, asked };
  }

  it('2026-07-28 over HTTP: shows amount, recipient, network and fee, and pays once accepted', async () => {
    const before = await nonce();
    const { client, asked } = await overHttp(() => ({ action: 'accept', content: { confirm: true } }));
    try {
      const result = await client.callTool({ name: 'evm_funds_send', arguments: PAYMENT });
      assert.equal(result.isError, undefined, JSON.stringify(result.content));
      assert.equal((result.structuredContent as { sent: boolean }).sent, true);
    } finally {
      await client.close();
    }
    assert.equal(asked.length, 1);
    const [question] = asked;
    assert.ok(question);
    assert.match(question.message, /Send ether \(evm_funds_send\) on local:/);
    assert.match(question.message, /amount: 0\.001 ether \(1000000000000000 wei\)/);
    assert.match(question.message, new RegExp(`to: ${RECIPIENT}`));
    assert.match(question.message, /fee at most: [\d.]+ ether \(\d+ wei\)/);
    assert.deepEqual(Object.keys(question.requestedSchema.properties), ['confirm']);
    assert.equal(question.requestedSchema.properties['confirm']?.type, 'boolean', 'only a yes/no, never a secret');
    assert.ok(!question.message.includes(PASSPHRASE));
    assert.equal(await nonce(), before + 1);
  });

  it('a yes binds the fee shown: fees that rose while the user read the question refuse the call', async () => {
    const before = await nonce();
    const baseFee = BigInt(await node.rpc<string>('eth_gasPrice', []));
    const { client, asked } = await overHttp(async () => {
      // The base fee rises a hundredfold while the question is on the screen.
      await node.rpc('anvil_setNextBlockBaseFeePerGas', [`0x${(baseFee * 100n).toString(16)}`]);
      await node.rpc('evm_mine', []);
      return { action: 'accept', content: { confirm: true } };
    });
    try {
      const result = await client.callTool({ name: 'evm_funds_send', arguments: PAYMENT });
      assert.equal(codeOf(result), 'POLICY_VIOLATION', JSON.stringify(result.content));
      const shown = /fee at most: [\d.]+ ether \((\d+) wei\)/.exec(asked[0]?.message ?? '')?.[1];
      assert.ok(shown, asked[0]?.message);
      assert.match(JSON.stringify(result.content), new RegExp(`above max_fee_wei ${shown}`));
      assert.equal(await nonce(), before, 'nothing signed with a fee the user never saw');
    } finally {
      await client.close();
      await node.rpc('anvil_setNextBlockBaseFeePerGas', [`0x${baseFee.toString(16)}`]);
      await node.rpc('evm_mine', []);
    }
  });

  it('2026-07-28 over HTTP: a decline sends nothing (POLICY_VIOLATION) and is in the audit log', async () => {
    const before = await nonce();
    const { client, asked } = await overHttp(() => ({ action: 'decline' }));
    try {
      const result = await client.callTool({ name: 'evm_funds_send', arguments: PAYMENT });
      assert.equal(codeOf(result), 'POLICY_VIOLATION');
      assert.match(JSON.stringify(result.content), /declined evm_funds_send; nothing was signed or sent/);
      const unchecked = await client.callTool({ name: 'evm_funds_send', arguments: PAYMENT });
      assert.equal(codeOf(unchecked), 'POLICY_VIOLATION', 'asked again, declined again');
    } finally {
      await client.close();
    }
    assert.equal(asked.length, 2);
    assert.equal(await nonce(), before, 'nothing was sent');
    const text = readFileSync(join(home, 'audit.log'), 'utf8');
    assert.ok(!text.includes(PASSPHRASE));
    const declined = text
      .trim()
      .split('\n')
      .map(
        (line) => JSON.parse(line) as { tool: string; outcome: string; amount?: string; error?: { message: string } },
      )
      .filter((line) => line.error?.message.startsWith('Not confirmed'));
    assert.equal(declined.length, 2, 'each declined call has its audit line');
    const askedLines = text.split('\n').filter((line) => line.includes('"outcome":"asked"'));
    assert.ok(askedLines.length >= 2, 'each question has its audit line');
    assert.deepEqual(
      declined.map((line) => [line.tool, line.outcome, line.amount]),
      [
        ['evm_funds_send', 'error', '1000000000000000'],
        ['evm_funds_send', 'error', '1000000000000000'],
      ],
    );
  });

  it('does not ask for a dry run nor a read-only tool; a client without elicitation gets an approval request', async () => {
    const { client, asked } = await overHttp(() => ({ action: 'decline' }));
    try {
      const dry = await client.callTool({ name: 'evm_funds_send', arguments: { ...PAYMENT, dry_run: true } });
      assert.equal(dry.isError, undefined);
      const read = await client.callTool({
        name: 'evm_balance_get',
        arguments: { address: RECIPIENT, network: 'local' },
      });
      assert.equal(read.isError, undefined);
    } finally {
      await client.close();
    }
    assert.equal(asked.length, 0);

    const before = await nonce();
    const plain = new Client({ name: 'no-elicitation', version: '1' });
    await plain.connect(
      new StreamableHTTPClientTransport(new URL(http.url), {
        requestInit: { headers: { authorization: `Bearer ${TOKEN}` } },
      }),
    );
    try {
      const waiting = await plain.callTool({ name: 'evm_funds_send', arguments: PAYMENT });
      assert.equal(codeOf(waiting), 'APPROVAL_REQUIRED', 'a client that cannot ask gets an approval request instead');
    } finally {
      await plain.close();
    }
    assert.equal(await nonce(), before);
  });

  it('signing a transaction asks too (anyone could broadcast it), showing what the transaction pays', async () => {
    const { client, asked } = await overHttp(() => ({ action: 'accept', content: { confirm: true } }));
    try {
      const created = await client.callTool({
        name: 'evm_tx_create',
        arguments: { address: 'payer', to: RECIPIENT, value_wei: '2000000000000000', network: 'local' },
      });
      const unsigned = (created.structuredContent as { unsigned_tx: string }).unsigned_tx;
      const signed = await client.callTool({
        name: 'evm_tx_sign',
        arguments: { address: 'payer', unsigned_tx: unsigned, network: 'local' },
      });
      assert.equal(signed.isError, undefined, JSON.stringify(signed.content));
      const signedTx = (signed.structuredContent as { signed_tx: string }).signed_tx;
      const sent = await client.callTool({ name: 'evm_tx_send', arguments: { signed_tx: signedTx, network: 'local' } });
      assert.equal(sent.isError, undefined, JSON.stringify(sent.content));
    } finally {
      await client.close();
    }
    assert.equal(asked.length, 2, 'sign and send each asked once; create did not');
    for (const question of asked) {
      assert.match(question.message, /amount: 0\.002 ether \(2000000000000000 wei\)/);
      assert.match(question.message, new RegExp(`to: ${RECIPIENT}`));
      assert.match(question.message, /fee at most: [\d.]+ ether/);
    }
    assert.match(asked[0]?.message ?? '', /^Sign an EVM transaction \(evm_tx_sign\) on local:/);
    assert.match(asked[1]?.message ?? '', /^Send a signed EVM transaction \(evm_tx_send\) on local:/);
  });

  it('a policy refusal in the dry run ends the call before anyone is asked', async () => {
    const { client, asked } = await overHttp(() => ({ action: 'accept', content: { confirm: true } }));
    try {
      const result = await client.callTool({ name: 'evm_funds_send', arguments: { ...PAYMENT, max_fee_wei: '1' } });
      assert.equal(codeOf(result), 'POLICY_VIOLATION');
    } finally {
      await client.close();
    }
    assert.equal(asked.length, 0);
  });

  it('2025 over stdio: the server sends elicitation/create; accept pays, decline and "confirm: false" do not', async () => {
    const answers: Answer[] = [
      { action: 'accept', content: { confirm: false } },
      { action: 'cancel' },
      { action: 'accept', content: { confirm: true } },
    ];
    const { client, asked } = elicitingClient(() => answers.shift() ?? { action: 'decline' }, 'legacy');
    await client.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: [WALLET_BIN, 'serve', '--passphrase-file', passphraseFileIn(home, PASSPHRASE, 'pw2')],
        env: { PATH: process.env['PATH'] ?? '', WALLET_HOME: home, WALLET_EVM_LOCAL_URL: node.url },
        stderr: 'ignore',
      }),
    );
    const before = await nonce();
    try {
      assert.equal(client.getNegotiatedProtocolVersion(), '2025-11-25');
      const no = await client.callTool({ name: 'evm_funds_send', arguments: PAYMENT });
      assert.equal(codeOf(no), 'POLICY_VIOLATION');
      const cancelled = await client.callTool({ name: 'evm_funds_send', arguments: PAYMENT });
      assert.equal(codeOf(cancelled), 'POLICY_VIOLATION');
      assert.equal(await nonce(), before);
      const yes = await client.callTool({ name: 'evm_funds_send', arguments: PAYMENT });
      assert.equal(yes.isError, undefined, JSON.stringify(yes.content));
    } finally {
      await client.close();
    }
    assert.equal(asked.length, 3);
    assert.match(asked[0]?.message ?? '', /amount: 0\.001 ether/);
    assert.equal(await nonce(), before + 1);
  });

  it('an unanswered confirmation times out with nothing sent', async () => {
    const server = createWalletServer({
      ...walletServerOptions({
        localOnly: false,
        caller: 'agent',
        readOnly: false,
        env: { WALLET_HOME: home, WALLET_EVM_LOCAL_URL: node.url },
        passphrase: PASSPHRASE,
      }),
      confirmTimeoutMs: 300,
    });
    const { client, asked } = elicitingClient(() => new Promise<Answer>(() => undefined), 'legacy');
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await server.connect(serverSide);
    await client.connect(clientSide);
    const before = await nonce();
    try {
      const result = await client.callTool({ name: 'evm_funds_send', arguments: PAYMENT });
      assert.equal(result.isError, true, JSON.stringify(result));
    } finally {
      await client.close();
    }
    assert.equal(asked.length, 1);
    assert.equal(await nonce(), before);
  });
});

describe('whose yes counts: approvals.trust_elicitation (issue 36)', () => {
  let node: AnvilNode;
  let home: string;
  const nonce = () => node.rpc<string>('eth_getTransactionCount', [ANVIL_FIRST_ACCOUNT, 'latest']).then(Number);
  const accepting = () => ({ action: 'accept' as const, content: { confirm: true } });

  before(async () => {
    node = await startAnvil();
    home = tempHome();
    await importAnvilAccount(home, PASSPHRASE, { walletAlias: 'w', accountAlias: 'payer' });
  });
  after(async () => {
    await node.stop();
    rmSync(home, { recursive: true, force: true });
  });

  async function overStdio() {
    const { client, asked } = elicitingClient(accepting, 'legacy');
    await client.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: [WALLET_BIN, 'serve', '--passphrase-file', passphraseFileIn(home, PASSPHRASE, 'pw-trust')],
        env: { PATH: process.env['PATH'] ?? '', WALLET_HOME: home, WALLET_EVM_LOCAL_URL: node.url },
        stderr: 'ignore',
      }),
    );
    return { client, asked };
  }

  it('by default a client that says yes for itself over HTTP gets nothing signed: the call waits for the owner', async () => {
    const http = await startHttpServe(['--passphrase-file', passphraseFileIn(home, PASSPHRASE, 'pw-http')], {
      home,
      env: { MCP_API_KEY: TOKEN, WALLET_EVM_LOCAL_URL: node.url },
    });
    const before = await nonce();
    const { client, asked } = elicitingClient(accepting, 'auto');
    try {
      await client.connect(
        new StreamableHTTPClientTransport(new URL(http.url), {
          requestInit: { headers: { authorization: `Bearer ${TOKEN}` } },
        }),
      );
      const result = await client.callTool({ name: 'evm_funds_send', arguments: PAYMENT });
      assert.equal(codeOf(result), 'APPROVAL_REQUIRED', JSON.stringify(result.content));
      const again = await client.callTool({ name: 'evm_funds_send', arguments: PAYMENT });
      assert.equal(codeOf(again), 'APPROVAL_REQUIRED', 'still waiting: its own yes never counts');
    } finally {
      await client.close();
      await http.stop();
    }
    assert.equal(asked.length, 0, 'not even asked: its answer would not count');
    assert.equal(await nonce(), before, 'nothing was sent');
  });

  it('by default a client over stdio may say yes; with "never" it may not', async () => {
    const before = await nonce();
    const trusted = await overStdio();
    try {
      const paid = await trusted.client.callTool({ name: 'evm_funds_send', arguments: PAYMENT });
      assert.equal(paid.isError, undefined, JSON.stringify(paid.content));
    } finally {
      await trusted.client.close();
    }
    assert.equal(trusted.asked.length, 1);
    assert.equal(await nonce(), before + 1);
    const sent = readFileSync(join(home, 'audit.log'), 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { outcome: string; authority?: string })
      .filter((line) => line.outcome === 'sent');
    assert.deepEqual(
      sent.map((line) => line.authority),
      ['client'],
      "the audit line names the client's yes",
    );

    writeFileSync(join(home, 'config.json'), JSON.stringify({ approvals: { trust_elicitation: 'never' } }), {
      mode: 0o600,
    });
    const refused = await overStdio();
    try {
      const waiting = await refused.client.callTool({ name: 'evm_funds_send', arguments: PAYMENT });
      assert.equal(codeOf(waiting), 'APPROVAL_REQUIRED', JSON.stringify(waiting.content));
    } finally {
      await refused.client.close();
    }
    assert.equal(refused.asked.length, 0);
    assert.equal(await nonce(), before + 1, 'nothing more was sent');
  });

  it('a value other than stdio, never or always is refused at start, naming the key', () => {
    assert.throws(
      () => parseConfigText(JSON.stringify({ approvals: { trust_elicitation: 'http' } }), '/x/config.json'),
      /approvals\.trust_elicitation/,
    );
  });
});
