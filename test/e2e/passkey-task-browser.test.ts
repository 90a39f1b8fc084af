/**
 * A passkey and an MCP task, end to end in a real browser: the owner enrolls a passkey (the
 * keystore passphrase at the terminal, the ceremony in Debian's headless chromium with a WebAuthn
 * virtual authenticator); an agent, a 2026-07-28 tasks requester (`@modelcontextprotocol/ext-tasks`)
 * of `wallet serve` over stdio, sends a payment above the autonomy the policy grants it and is
 * handed a task that waits with the approval page's URL in its status. The terminal's yes does
 * not move it (a passkey is enrolled: only an assertion approves); the owner's passkey yes on the
 * page does, and the task completes with the tool's result: one transaction on a real anvil,
 * read off the node (the payer's nonce, the recipient's balance) and the audit log.
 */
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import type { JsonValue } from '@modelcontextprotocol/ext-tasks/core';
import { ApprovalStore } from '../../src/domain/policy/approvals.js';
import { ANVIL_FIRST_ACCOUNT, type AnvilNode } from '../helpers/anvil.js';
import { skipWithoutChromium } from '../helpers/chromium.js';
import {
  approvalLinkIn,
  enrolPasskey,
  ownerBrowser,
  ownerHome,
  terminalApprove,
  type OwnerBrowser,
} from '../helpers/passkey-browser.js';
import { auditLines } from '../helpers/policy.js';
import { approvalIn, requester, taskOf, transactionsFrom } from '../helpers/tasks-requester.js';

const PASSPHRASE = 'passkey task passphrase';
const RECIPIENT = '0x90F79bf6EB2c4f870365E785982E1f101E93b906';
const MILLI = 10n ** 15n;

describe(
  'a passkey yes on the page completes an agent’s MCP task; the terminal’s does not',
  { skip: skipWithoutChromium('the passkey task browser test') },
  () => {
    let node: AnvilNode;
    let home: string;
    let passphraseFile: string;
    let owner: OwnerBrowser;

    const balanceOf = async (address: string) => BigInt(await node.rpc<string>('eth_getBalance', [address, 'latest']));
    const status = async (id: string) =>
      (await new ApprovalStore(home).list()).find((approval) => approval.id === id)?.status;
    const pay = (value: bigint): Record<string, JsonValue> => ({
      address: 'payer',
      to: RECIPIENT,
      value_wei: value.toString(),
      network: 'local',
    });

    before(async () => {
      // The agent alone may send up to 1 milli-ether a call: what is above waits for the owner.
      ({ node, home, passphraseFile } = await ownerHome(PASSPHRASE, {
        evm: {
          networks: {
            local: {
              policy: {
                max_per_tx_wei: (50n * MILLI).toString(),
                max_per_24h_wei: (90n * MILLI).toString(),
                autonomous: { max_per_tx_wei: MILLI.toString(), max_per_24h_wei: (2n * MILLI).toString() },
              },
            },
          },
        },
      }));
      owner = await ownerBrowser();
    });
    after(async () => {
      await owner?.browser.close();
      await node?.stop();
      rmSync(home, { recursive: true, force: true });
    });

    it('enrolled passkey → task waits with the page URL → terminal yes refused → passkey yes → one send', async () => {
      const { tab } = owner;
      const enrolled = await enrolPasskey(tab, home, passphraseFile, 'laptop');
      assert.equal(enrolled.done.code, 0, enrolled.done.stderr);
      assert.match(enrolled.shown, /Passkey enrolled/);

      const { session, port } = await requester('stdio', { home, node, passphraseFile });
      try {
        // Within its autonomy the agent's call runs at once: no task, no owner.
        const small = await session.callTool('evm_funds_send', pay(MILLI / 2n));
        assert.equal(small.kind, 'immediate', 'within autonomy: no task');
        const nonce = await transactionsFrom(node, ANVIL_FIRST_ACCOUNT);
        const balance = await balanceOf(RECIPIENT);

        // Above it: a task, waiting, that names the approval and its page.
        const value = 3n * MILLI;
        const execution = await session.callTool('evm_funds_send', pay(value));
        const task = session.task(taskOf(execution));
        const waiting = await task.snapshot();
        assert.equal(waiting.status, 'working');
        const id = approvalIn(waiting.statusMessage);
        assert.match(
          waiting.statusMessage ?? '',
          new RegExp(`approval page \\(http://localhost:\\d+/approvals/${id}\\)`),
          'the status message has the approval page URL',
        );

        // The terminal's yes: with a passkey enrolled it sends the owner to the page, approves nothing.
        const terminal = await terminalApprove(home, id);
        assert.match(terminal.stderr, /A passkey is enrolled/);
        assert.equal(await status(id), 'pending');
        // serve looks at the approval on each tasks/get: a yes, were there one, would run it here.
        assert.equal((await task.snapshot()).status, 'working', 'the task still waits');
        assert.equal(await transactionsFrom(node, ANVIL_FIRST_ACCOUNT), nonce, 'nothing sent');

        // The owner's yes on the page, with the passkey (the authenticator verifies the user).
        await tab.goto(await approvalLinkIn(id, () => port.stderr()));
        await tab.waitForSelector(`#approve-${id}`);
        await Promise.all([tab.waitForNavigation(), tab.click(`#approve-${id}`)]);
        assert.match(await tab.content(), /approved \(passkey\)/);

        const { outcome } = await execution.settle();
        assert.equal(outcome.status, 'completed', JSON.stringify(outcome));
        const result = (outcome as { result: { structuredContent?: Record<string, unknown> } }).result;
        assert.equal(result.structuredContent?.['sent'], true, JSON.stringify(result));
        const hash = String(result.structuredContent?.['hash']);
        assert.match(hash, /^0x[0-9a-f]{64}$/);
        const receipt = await node.mined<{ status: string; to: string }>(hash);
        assert.equal(receipt.status, '0x1', 'the result names the mined transaction');
        assert.equal(receipt.to.toLowerCase(), RECIPIENT.toLowerCase());
        assert.equal(await transactionsFrom(node, ANVIL_FIRST_ACCOUNT), nonce + 1n, 'exactly one transaction');
        assert.equal(await balanceOf(RECIPIENT), balance + value, 'the recipient got the value, once');

        // Polled again: the same result, nothing sent twice.
        assert.equal((await task.snapshot()).status, 'completed');
        assert.equal(await transactionsFrom(node, ANVIL_FIRST_ACCOUNT), nonce + 1n);
        const sent = auditLines(home).filter((line) => line['outcome'] === 'sent' && line['approval'] === id);
        assert.deepEqual(
          sent.map((line) => [line['tool'], line['authority']]),
          [['evm_funds_send', 'passkey']],
        );
      } finally {
        await session.close();
        await port.close();
      }
    });
  },
);
