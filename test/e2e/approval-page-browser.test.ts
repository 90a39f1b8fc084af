/**
 * The owner approves on the page in a real browser: Debian's chromium, headless, driven by
 * puppeteer-core, against a real `wallet serve` (stdio, the page on a loopback port of its own)
 * and a real anvil. The agent's call waits; the owner opens the single-use link serve printed,
 * reads the decoded spend and clicks Approve; the agent's repeated call then goes through once:
 * exactly one transaction on the node, audited with authority `page`.
 */
import assert from 'node:assert/strict';
import { readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import puppeteer, { type Browser } from 'puppeteer-core';
import { ERROR_META_KEY, type ToolErrorMeta } from '../../src/shared/protocol-meta.js';
import { ANVIL_FIRST_ACCOUNT, startAnvil, type AnvilNode } from '../helpers/anvil.js';
import { chromiumPath, skipWithoutChromium } from '../helpers/chromium.js';
import { passphraseFileIn, tempHome } from '../helpers/io.js';
import { importAnvilAccount } from '../helpers/mcp.js';
import { auditLines } from '../helpers/policy.js';
import { WALLET_BIN } from '../helpers/paths.js';

const PASSPHRASE = 'page browser passphrase';
const RECIPIENT = '0x90F79bf6EB2c4f870365E785982E1f101E93b906';
const MILLI = 10n ** 15n;

type CallOutcome = { error?: ToolErrorMeta; result?: Record<string, unknown> };

/** A page on another origin whose script posts a form at `action` as soon as it loads. */
async function attackerSite(action: string): Promise<{ url: string; close: () => Promise<void> }> {
  const server = createServer((_request, response) => {
    response.writeHead(200, { 'Content-Type': 'text/html' });
    response.end(
      `<form method="post" action="${action}"><input name="csrf" value="guess"></form><script>document.forms[0].submit()</script>`,
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/`,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

function statusOf(home: string, id: string): string | undefined {
  const file = JSON.parse(readFileSync(join(home, 'approvals.json'), 'utf8')) as {
    approvals: { id: string; status: string }[];
  };
  return file.approvals.find((approval) => approval.id === id)?.status;
}

describe(
  'the approval page in a real browser: approve a pending spend, the agent’s call goes through once',
  { skip: skipWithoutChromium('the approval page browser test') },
  () => {
    let node: AnvilNode;
    let home: string;
    let client: Client;
    let browser: Browser;
    let stderr = '';

    const pay = async (): Promise<CallOutcome> => {
      const result = await client.callTool({
        name: 'evm_funds_send',
        arguments: { address: 'payer', to: RECIPIENT, value_wei: MILLI.toString(), network: 'local' },
      });
      if (result.isError) return { error: result._meta?.[ERROR_META_KEY] as ToolErrorMeta };
      return { result: result.structuredContent as Record<string, unknown> };
    };
    const sentCount = async () =>
      BigInt(await node.rpc<string>('eth_getTransactionCount', [ANVIL_FIRST_ACCOUNT, 'latest']));
    /** The owner's single-use link for approval `id`, once serve has printed it. */
    const linkFor = async (id: string): Promise<string> => {
      const pattern = new RegExp(`approval ${id} waits for you; open it once at (\\S+)`);
      for (let tries = 0; tries < 100; tries += 1) {
        const link = pattern.exec(stderr)?.[1];
        if (link) return link;
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      throw new Error(`serve printed no link for ${id}: ${stderr}`);
    };

    before(async () => {
      node = await startAnvil();
      home = tempHome();
      await importAnvilAccount(home, PASSPHRASE, { walletAlias: 'w', accountAlias: 'payer' });
      const transport = new StdioClientTransport({
        command: process.execPath,
        args: [WALLET_BIN, 'serve', '--passphrase-file', passphraseFileIn(home, PASSPHRASE, 'serve-pw')],
        env: { ...(process.env as Record<string, string>), WALLET_HOME: home, WALLET_EVM_LOCAL_URL: node.url },
        stderr: 'pipe',
      });
      transport.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
      client = new Client({ name: 'no-elicitation', version: '1' });
      await client.connect(transport);
      browser = await puppeteer.launch({
        executablePath: chromiumPath() ?? 'chromium',
        headless: true,
        // Debian's chromium runs as root only without its sandbox (CI containers run as root).
        args: ['--no-sandbox', '--disable-dev-shm-usage', '--disable-gpu'],
      });
    });
    after(async () => {
      await browser?.close();
      await client?.close();
      await node?.stop();
      rmSync(home, { recursive: true, force: true });
    });

    it('opens with the owner’s link, shows the spend decoded, and a click on Approve lets it through once', async () => {
      const before = await sentCount();
      const { error } = await pay();
      assert.equal(error?.code, 'APPROVAL_REQUIRED', JSON.stringify(error));
      const id = String(error?.details?.['approval_id']);
      const url = String(error?.details?.['url']);
      assert.match(url, new RegExp(`^http://127\\.0\\.0\\.1:\\d+/approvals/${id}$`));
      assert.match(stderr, /wallet: approval page at http:\/\/127\.0\.0\.1:\d+\/approvals/);

      const tab = await browser.newPage();
      const violations: string[] = [];
      tab.on('console', (message) => {
        if (/Content Security Policy|Refused to/i.test(message.text())) violations.push(message.text());
      });
      tab.on('pageerror', (error) => violations.push(String(error)));
      const bare = await tab.goto(url);
      assert.equal(bare?.status(), 403, 'the address the agent got opens nothing without a session');
      assert.match(await tab.content(), /single-use link/);

      const link = await linkFor(id);
      await tab.goto(link);
      await tab.waitForSelector(`#approve-${id}`);
      assert.equal(new URL(tab.url()).search, '', 'the used token left the address bar');
      const shown = await tab.$eval(`#${id}`, (section) => section.textContent ?? '');
      assert.match(shown, /evm_funds_send/);
      assert.match(shown, /0\.001 ether \(1000000000000000 wei\)/);
      assert.match(shown, new RegExp(RECIPIENT));
      assert.match(shown, /Fee, at most/);
      assert.equal(await sentCount(), before, 'nothing sent while it waits');

      // Another site open in the same browser (here, another loopback port) posts the approve form
      // itself: the Strict cookie stays home and the Origin is not the page's; nothing is approved.
      const attacker = await attackerSite(`${new URL(url).origin}/approvals/${id}/approve`);
      try {
        const other = await browser.newPage();
        const posted = other.waitForResponse((response) => response.url().endsWith(`/${id}/approve`));
        await other.goto(attacker.url);
        assert.equal((await posted).status(), 403);
        await other.close();
      } finally {
        await attacker.close();
      }
      assert.equal(statusOf(home, id), 'pending', 'a cross-site form approves nothing');

      await tab.bringToFront();
      await Promise.all([tab.waitForNavigation(), tab.click(`#approve-${id}`)]);
      assert.match(await tab.content(), /approved \(page\)/);
      assert.deepEqual(violations, [], 'no CSP violation, no script error');

      const replay = await (await browser.createBrowserContext()).newPage();
      assert.equal((await replay.goto(link))?.status(), 403, 'the link worked once');

      const paid = await pay();
      assert.equal(paid.error, undefined, JSON.stringify(paid.error));
      assert.equal(paid.result?.['sent'], true);
      assert.equal(await sentCount(), before + 1n, 'exactly one transaction');
      const third = await pay();
      assert.equal(third.error?.code, 'APPROVAL_REQUIRED', 'used once');
      assert.notEqual(third.error?.details?.['approval_id'], id);
      assert.equal(await sentCount(), before + 1n);

      const sent = auditLines(home).filter((line) => line['outcome'] === 'sent');
      assert.deepEqual(
        sent.map((line) => [line['tool'], line['authority'], line['approval']]),
        [['evm_funds_send', 'page', id]],
      );
    });
  },
);
