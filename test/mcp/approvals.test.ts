/**
 * Safe by default: `wallet serve` under a real SDK client that cannot ask its user (no
 * elicitation), against a real anvil. Every call that signs or deletes waits for the owner's
 * out-of-band approval (`wallet approvals approve`, in another process on a real terminal) unless
 * the policy's `autonomous` caps cover it. What "nothing was sent" means is read off the node.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { serializeTransaction } from 'viem';
import { ERROR_META_KEY, type ToolErrorMeta } from '../../src/shared/protocol-meta.js';
import { ANVIL_FIRST_ACCOUNT, startAnvil, type AnvilNode } from '../helpers/anvil.js';
import { passphraseFileIn, tempHome, wallet } from '../helpers/io.js';
import { importAnvilAccount } from '../helpers/mcp.js';
import { auditLines, writeLocalPolicy } from '../helpers/policy.js';
import { WALLET_BIN } from '../helpers/paths.js';

const PASSPHRASE = 'approvals passphrase';
const RECIPIENT = '0x90F79bf6EB2c4f870365E785982E1f101E93b906';
const MILLI = 10n ** 15n;
/** EIP-712 typed data that is no token permit: a signature the policy cannot bound. */
const MAIL = {
  domain: { name: 'Mail', chainId: 31337 },
  types: { Mail: [{ name: 'contents', type: 'string' }] },
  primaryType: 'Mail',
  message: { contents: 'hello' },
};

type CallOutcome = { error?: ToolErrorMeta; result?: Record<string, unknown> };

/** `wallet serve` over stdio, and a client that declares no elicitation (most clients today). */
async function servedTo(
  home: string,
  node: AnvilNode,
): Promise<{ call: (name: string, args: object) => Promise<CallOutcome>; close: () => Promise<void> }> {
  const client = new Client({ name: 'no-elicitation', version: '1' });
  await client.connect(
    new StdioClientTransport({
      command: process.execPath,
      args: [WALLET_BIN, 'serve', '--passphrase-file', passphraseFileIn(home, PASSPHRASE, 'serve-pw')],
      env: { ...(process.env as Record<string, string>), WALLET_HOME: home, WALLET_EVM_LOCAL_URL: node.url },
      stderr: 'ignore',
    }),
  );
  return {
    call: async (name, args) => {
      const result = await client.callTool({ name, arguments: args as Record<string, unknown> });
      if (result.isError) return { error: result._meta?.[ERROR_META_KEY] as ToolErrorMeta };
      return { result: result.structuredContent as Record<string, unknown> };
    },
    close: () => client.close(),
  };
}

/** `wallet approvals approve <id>` in its own process, on a real pseudo-terminal, answering `answer`. */
function approveOnTerminal(home: string, id: string, answer = 'y'): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve) => {
    const child = spawn(
      'script',
      ['-qec', `"${process.execPath}" "${WALLET_BIN}" approvals approve ${id}`, '/dev/null'],
      {
        env: { ...process.env, WALLET_HOME: home, NO_COLOR: '1' },
        stdio: ['pipe', 'pipe', 'pipe'],
      },
    );
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      // Answer once the question is on the screen, as a person would.
      if (/Approve ap-[a-z2-7]{10}\? \[y\/N\]/.test(output) && !child.stdin.writableEnded)
        child.stdin.end(`${answer}\r`);
    });
    child.on('exit', (code) => resolve({ code, output }));
  });
}

describe('safe by default: approvals out of band, autonomy by policy', () => {
  let node: AnvilNode;
  let home: string;
  let served: Awaited<ReturnType<typeof servedTo>>;
  const chainState = async () => [
    await node.rpc<string>('eth_getTransactionCount', [ANVIL_FIRST_ACCOUNT, 'latest']),
    await node.rpc<string>('eth_getBalance', [RECIPIENT, 'latest']),
  ];
  const pay = (value: bigint, extra: object = {}) =>
    served.call('evm_funds_send', {
      address: 'payer',
      to: RECIPIENT,
      value_wei: value.toString(),
      network: 'local',
      ...extra,
    });
  const approvalsFile = () => join(home, 'approvals.json');
  const approvalCount = (): number =>
    (JSON.parse(readFileSync(approvalsFile(), 'utf8')) as { approvals: unknown[] }).approvals.length;

  before(async () => {
    node = await startAnvil();
    home = tempHome();
    await importAnvilAccount(home, PASSPHRASE, { walletAlias: 'w', accountAlias: 'payer' });
    served = await servedTo(home, node);
  });
  after(async () => {
    await served.close();
    await node.stop();
    rmSync(home, { recursive: true, force: true });
  });

  it('with no policy, a payment waits for approval: its id, what it would sign, the command; nothing sent', async () => {
    const before = await chainState();
    const { error } = await pay(MILLI);
    assert.equal(error?.code, 'APPROVAL_REQUIRED', JSON.stringify(error));
    const details = error?.details ?? {};
    assert.match(String(details['approval_id']), /^ap-[a-z2-7]{10}$/);
    assert.equal(details['command'], `wallet approvals approve ${String(details['approval_id'])}`);
    assert.deepEqual(
      [details['tool'], details['network'], details['amount'], details['unit'], details['recipient']],
      ['evm_funds_send', 'local', MILLI.toString(), 'wei', RECIPIENT],
    );
    assert.match(String(details['fee']), /^\d+$/, 'the fee from the dry run');
    assert.match(error?.message ?? '', /0\.001 ether \(1000000000000000 wei\)/);
    assert.match(error?.hint ?? '', /wallet approvals approve ap-/);
    assert.deepEqual(await chainState(), before, 'nothing signed or sent');
    assert.equal(statSync(approvalsFile()).mode & 0o777, 0o600);

    const again = await pay(MILLI);
    assert.equal(again.error?.details?.['approval_id'], details['approval_id'], 'asking twice asks the owner once');

    const listed = await wallet(['approvals', '--json'], { home });
    assert.equal(listed.code, 0, listed.stderr);
    const pending = (JSON.parse(listed.stdout) as { approvals: Record<string, unknown>[] }).approvals;
    assert.deepEqual(
      pending.map((approval) => [approval['id'], approval['status'], approval['tool'], approval['amount']]),
      [[details['approval_id'], 'pending', 'evm_funds_send', MILLI.toString()]],
    );
    assert.ok(!('digest' in (pending[0] ?? {})));
  });

  it('approved on a terminal in another process, the same call goes through once; a third needs a new one', async () => {
    const id = String((await pay(MILLI)).error?.details?.['approval_id']);
    const noTerminal = await wallet(['approvals', 'approve', id], { home, stdin: 'y\n' });
    assert.equal(noTerminal.code, 2, 'a yes needs a person at a terminal');
    assert.match(noTerminal.stderr, /asks on a terminal, and there is none: nothing was approved/);

    const approved = await approveOnTerminal(home, id);
    assert.equal(approved.code, 0, approved.output);
    assert.match(approved.output, /Send ether|evm_funds_send/);
    assert.match(approved.output, /Approved ap-/);

    const before = await chainState();
    const other = await pay(2n * MILLI);
    assert.equal(other.error?.code, 'APPROVAL_REQUIRED', 'an approval is for its own arguments only');
    assert.notEqual(other.error?.details?.['approval_id'], id);
    assert.deepEqual(await chainState(), before);

    const paid = await pay(MILLI, { wait: false });
    assert.equal(paid.error, undefined, 'wait: false is the default: the same call');
    assert.equal(paid.result?.['sent'], true);
    const third = await pay(MILLI);
    assert.equal(third.error?.code, 'APPROVAL_REQUIRED', 'used once');
    assert.notEqual(third.error?.details?.['approval_id'], id);

    const audit = auditLines(home);
    const sent = audit.filter((line) => line['outcome'] === 'sent');
    assert.deepEqual(
      sent.map((line) => [line['tool'], line['authority'], line['approval']]),
      [['evm_funds_send', 'terminal', id]],
    );
    assert.ok(audit.some((line) => line['outcome'] === 'asked' && line['approval'] === id));
  });

  it('denied, expired: POLICY_VIOLATION with nothing signed; a denial holds for the same call', async () => {
    const denied = String((await pay(3n * MILLI)).error?.details?.['approval_id']);
    const answer = await wallet(['approvals', 'deny', denied], { home });
    assert.equal(answer.code, 0, answer.stderr);
    const before = await chainState();
    for (let attempt = 0; attempt < 2; attempt++) {
      const { error } = await pay(3n * MILLI);
      assert.equal(error?.code, 'POLICY_VIOLATION');
      assert.match(error?.message ?? '', new RegExp(`denied approval ${denied}`));
    }
    assert.equal((await wallet(['approvals', 'approve', denied], { home, tty: true, stdin: 'y\n' })).code, 2);

    const expiring = String((await pay(4n * MILLI)).error?.details?.['approval_id']);
    const approved = await wallet(['approvals', 'approve', expiring], { home, tty: true, stdin: 'y\n' });
    assert.equal(approved.code, 0, approved.stderr);
    // Fifteen minutes pass: the approval's expiry is moved into the past.
    const file = JSON.parse(readFileSync(approvalsFile(), 'utf8')) as { approvals: { id: string; expires: string }[] };
    for (const approval of file.approvals)
      if (approval.id === expiring) approval.expires = new Date(Date.now() - 1000).toISOString();
    writeFileSync(approvalsFile(), JSON.stringify(file), { mode: 0o600 });
    const late = await pay(4n * MILLI);
    assert.equal(late.error?.code, 'POLICY_VIOLATION');
    assert.match(late.error?.message ?? '', /has expired/);
    assert.equal((await pay(4n * MILLI)).error?.code, 'APPROVAL_REQUIRED', 'then it can be asked again');
    assert.deepEqual(await chainState(), before);
  });

  it('an approval survives a restart of serve', async () => {
    const id = String((await pay(5n * MILLI)).error?.details?.['approval_id']);
    assert.equal((await wallet(['approvals', 'approve', id], { home, tty: true, stdin: 'y\n' })).code, 0);
    await served.close();
    served = await servedTo(home, node);
    const paid = await pay(5n * MILLI);
    assert.equal(paid.result?.['sent'], true, JSON.stringify(paid.error));
  });

  it('deleting a wallet, signing a message or unrecognised typed data always waits for a human', async () => {
    const wallets = await served.call('core_wallets_list', {});
    const id = String((wallets.result?.['wallets'] as { wallet_id: string }[])[0]?.wallet_id);
    const deleted = await served.call('core_wallet_delete', {
      wallet_id: 'w',
      network: 'regtest',
      confirm_fingerprint: id,
    });
    assert.equal(deleted.error?.code, 'APPROVAL_REQUIRED');
    assert.equal((await served.call('core_wallets_list', {})).result?.['wallets'] !== undefined, true);
    // A deletion bound to fail is refused before anyone is asked: no approval is filed for it.
    const pendingBefore = approvalCount();
    const noSuch = await served.call('core_wallet_delete', {
      wallet_id: 'nope',
      network: 'regtest',
      confirm_fingerprint: id,
    });
    assert.equal(noSuch.error?.code, 'WALLET_NOT_FOUND', JSON.stringify(noSuch.error));
    const mismatch = await served.call('core_wallet_delete', {
      wallet_id: 'w',
      network: 'regtest',
      confirm_fingerprint: '00000000',
    });
    assert.equal(mismatch.error?.code, 'INVALID_PARAM', JSON.stringify(mismatch.error));
    assert.match(mismatch.error?.message ?? '', /confirm_fingerprint does not match/);
    // Nor a signature by an account or address the wallet does not hold.
    const strangerSigns = await served.call('evm_message_sign', { address: RECIPIENT, message: 'log me in' });
    assert.equal(strangerSigns.error?.code, 'WALLET_NOT_FOUND', JSON.stringify(strangerSigns.error));
    const notIssued = await served.call('core_message_sign', {
      wallet_id: 'w',
      network: 'regtest',
      address: 'yXGeNPQXYFXhLAN1ZKrAjxzzBnZ2JZNKnh',
      message: 'log me in',
    });
    assert.equal(notIssued.error?.code, 'INVALID_PARAM', JSON.stringify(notIssued.error));
    assert.match(notIssued.error?.message ?? '', /is not one of wallet 'w's issued addresses/);
    const typedByStranger = await served.call('evm_typed_data_sign', {
      address: RECIPIENT,
      network: 'local',
      typed_data: MAIL,
    });
    assert.equal(typedByStranger.error?.code, 'WALLET_NOT_FOUND', JSON.stringify(typedByStranger.error));
    assert.equal(approvalCount(), pendingBefore, 'no approval filed for a call bound to fail');
    // Refused before anyone was asked, and still on the audit log (a fingerprint guessed).
    const refusedLines = auditLines(home).filter(
      (line) => line.tool === 'core_wallet_delete' && line.outcome === 'error',
    );
    assert.deepEqual(
      refusedLines.map((line) => line.error?.code),
      ['WALLET_NOT_FOUND', 'INVALID_PARAM'],
    );
    const signed = await served.call('evm_message_sign', { address: 'payer', message: 'log me in' });
    assert.equal(signed.error?.code, 'APPROVAL_REQUIRED');
    const typed = await served.call('evm_typed_data_sign', {
      address: 'payer',
      network: 'local',
      typed_data: MAIL,
    });
    assert.equal(typed.error?.code, 'APPROVAL_REQUIRED');
    // The owner is shown what would be signed, not only who signs.
    const questions = (
      JSON.parse(readFileSync(approvalsFile(), 'utf8')) as { approvals: { summary: { text: string } }[] }
    ).approvals.map((approval) => approval.summary.text);
    assert.ok(
      questions.some((text) => text.includes('message: "log me in"')),
      questions.join('\n---\n'),
    );
    assert.ok(questions.some((text) => /typed data: Mail, not a permit the wallet recognises/.test(text)));
    const dry = await pay(MILLI, { dry_run: true });
    assert.equal(dry.result?.['status'], 'planned', 'a dry run signs nothing: no approval needed');
  });

  it('the CLI against serve waits for the approval as a task, then prints the result', async () => {
    const before = await chainState();
    // The CLI declares MCP tasks, so serve answers with a task that waits for the owner; the CLI
    // says on stderr what it waits on and polls until the owner approves out of band.
    const called = wallet(
      [
        '--server',
        `env WALLET_HOME="${home}" WALLET_EVM_LOCAL_URL=${node.url} "${process.execPath}" "${WALLET_BIN}" serve --passphrase-file "${passphraseFileIn(home, PASSPHRASE, 'cli-pw')}"`,
        'evm-funds-send',
        '--address',
        'payer',
        '--to',
        RECIPIENT,
        '--value-wei',
        (6n * MILLI).toString(),
        '--network',
        'local',
        '--yes',
      ],
      { home },
    );
    let id: string | undefined;
    for (let tries = 0; id === undefined && tries < 300; tries++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      const listed = await wallet(['approvals', 'list', '--json'], { home });
      // This call's approval (earlier tests leave others waiting): the payment of 6 milliether.
      id = (
        JSON.parse(listed.stdout || '{"approvals":[]}') as {
          approvals: { id: string; status: string; tool: string; amount?: string }[];
        }
      ).approvals.find(
        (approval) =>
          approval.status === 'pending' &&
          approval.tool === 'evm_funds_send' &&
          approval.amount === (6n * MILLI).toString(),
      )?.id;
    }
    assert.ok(id, 'the call waits on a pending approval');
    assert.deepEqual(await chainState(), before, 'nothing is sent before the yes');
    const approved = await wallet(['approvals', 'approve', id], { home, tty: true, stdin: 'y\n' });
    assert.equal(approved.code, 0, approved.stderr);
    const result = await called;
    assert.equal(result.code, 0, result.stderr);
    assert.match(result.stderr, new RegExp(`wallet approvals approve ${id}`));
    assert.match(result.stdout, /0x[0-9a-f]{64}/);
    const [nonceBefore] = before;
    const [nonceAfter] = await chainState();
    assert.equal(BigInt(nonceAfter ?? '0x0') - BigInt(nonceBefore ?? '0x0'), 1n, 'exactly one transaction');
  });

  it('an approved call signs with no more fee than the owner was shown: fees that rose since refuse it', async () => {
    const asked = await pay(7n * MILLI);
    const id = String(asked.error?.details?.['approval_id']);
    const shownFee = BigInt(String(asked.error?.details?.['fee']));
    assert.equal((await wallet(['approvals', 'approve', id], { home, tty: true, stdin: 'y\n' })).code, 0);
    // The base fee rises a hundredfold between the owner's yes and the run.
    const baseFee = BigInt(await node.rpc<string>('eth_gasPrice', []));
    await node.rpc('anvil_setNextBlockBaseFeePerGas', [`0x${(baseFee * 100n).toString(16)}`]);
    await node.rpc('evm_mine', []);
    try {
      const before = await chainState();
      const { error } = await pay(7n * MILLI);
      assert.equal(error?.code, 'POLICY_VIOLATION', JSON.stringify(error));
      assert.match(error?.message ?? '', new RegExp(`above max_fee_wei ${shownFee}`));
      assert.deepEqual(await chainState(), before, 'nothing signed with a fee the owner never saw');
    } finally {
      await node.rpc('anvil_setNextBlockBaseFeePerGas', [`0x${baseFee.toString(16)}`]);
      await node.rpc('evm_mine', []);
    }
  });
});

describe('autonomy: what the policy lets an agent do alone', () => {
  let node: AnvilNode;
  let home: string;
  let served: Awaited<ReturnType<typeof servedTo>>;

  before(async () => {
    node = await startAnvil({ chainId: 31337 });
    home = tempHome();
    await importAnvilAccount(home, PASSPHRASE, { walletAlias: 'w', accountAlias: 'payer' });
    writeLocalPolicy(
      home,
      {
        max_per_tx_wei: (100n * MILLI).toString(),
        // Room for the fees too (an agent's spend counts the most its fee can be; a few
        // hundredths of a milli-ether on anvil).
        autonomous: {
          max_per_tx_wei: ((105n * MILLI) / 10n).toString(),
          max_per_24h_wei: (27n * MILLI).toString(),
        },
      },
      {
        // A second name for the same chain: the same policy, the same ledger.
        local2: { url: node.url, chain_id: 31337 },
      },
    );
    served = await servedTo(home, node);
  });
  after(async () => {
    await served.close();
    await node.stop();
    rmSync(home, { recursive: true, force: true });
  });

  it('within the caps nobody is asked; above, approval; racing calls: exactly the allowed number pass', async () => {
    const pay = (value: bigint, network = 'local') =>
      served.call('evm_funds_send', { address: 'payer', to: RECIPIENT, value_wei: value.toString(), network });
    const alone = await pay(10n * MILLI);
    assert.equal(alone.result?.['sent'], true, JSON.stringify(alone.error));
    const above = await pay(11n * MILLI);
    assert.equal(above.error?.code, 'APPROVAL_REQUIRED');
    assert.match(String(above.error?.details?.['reason']), /autonomous\.max_per_tx_wei/);
    // 10 (and fees) of 27 spent; racing payments of 5 each through both names: exactly three fit.
    const racing = await Promise.all([1, 2, 3, 4, 5].map((i) => pay(5n * MILLI, i % 2 === 0 ? 'local2' : 'local')));
    assert.deepEqual(
      racing.map((outcome) => (outcome.result?.['sent'] === true ? 'sent' : outcome.error?.code)).sort(),
      ['APPROVAL_REQUIRED', 'APPROVAL_REQUIRED', 'sent', 'sent', 'sent'],
    );
    const over = racing.find((outcome) => outcome.error)?.error;
    assert.match(String(over?.details?.['reason']), /what an agent spent alone in the last 24 hours/);
    const ledger = JSON.parse(readFileSync(join(home, 'ledger', 'evm-chain-31337.json'), 'utf8')) as {
      entries: { by: string }[];
    };
    assert.deepEqual(
      ledger.entries.map((entry) => entry.by),
      ['agent', 'agent', 'agent', 'agent'],
    );
  });

  it('fees count against autonomy: a zero-value transaction with a huge fee waits for approval', async () => {
    const nonce = Number(await node.rpc<string>('eth_getTransactionCount', [ANVIL_FIRST_ACCOUNT, 'pending']));
    // 21000 gas at 1 milli-ether per gas: a fee of 21 ether, value 0.
    const unsigned = serializeTransaction({
      type: 'eip1559',
      chainId: 31337,
      nonce,
      to: RECIPIENT,
      value: 0n,
      gas: 21000n,
      maxFeePerGas: MILLI,
      maxPriorityFeePerGas: MILLI,
    });
    const signed = await served.call('evm_tx_sign', {
      address: 'payer',
      unsigned_tx: unsigned,
      network: 'local',
      max_fee_wei: (10n ** 20n).toString(),
    });
    assert.equal(signed.error?.code, 'APPROVAL_REQUIRED', JSON.stringify(signed));
    assert.match(String(signed.error?.details?.['reason']), /fee included/);
  });

  it('a second policy for the same chain id is refused with a clear error', async () => {
    const other = tempHome();
    try {
      writeFileSync(
        join(other, 'config.json'),
        JSON.stringify({
          evm: {
            networks: {
              local: { policy: { max_per_tx_wei: '1' } },
              local2: { url: node.url, chain_id: 31337, policy: { max_per_tx_wei: '2' } },
            },
          },
        }),
      );
      const result = await wallet(['network-info'], { home: other });
      assert.equal(result.code, 2);
      assert.match(result.stderr, /sets a policy on EVM networks 'local' and 'local2', which share chain id 31337/);
    } finally {
      rmSync(other, { recursive: true, force: true });
    }
  });
});
