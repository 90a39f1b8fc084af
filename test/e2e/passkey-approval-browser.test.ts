/**
 * Passkeys in a real browser: Debian's chromium, headless, driven by puppeteer-core, with a
 * WebAuthn virtual authenticator (CDP: ctap2, internal, user verification) standing in for the
 * owner's device. The owner enrolls a passkey with `wallet approvals passkey add` (the keystore
 * passphrase at the terminal, the ceremony on the page); then a pending spend of a real
 * `wallet serve` (stdio) is approved on the page with the passkey and goes through once, on a real
 * anvil, audited `passkey`. What is not the owner's passkey yes is refused and signs nothing: a
 * plain POST with the session cookie and CSRF token, a missing token, another origin, an
 * assertion for another approval, the same assertion again, a cloned authenticator (its counter
 * set back), a terminal yes, and a self-answering elicitation client over stdio.
 */
import assert from 'node:assert/strict';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import type { Browser, CDPSession, HTTPRequest, Page } from 'puppeteer-core';
import { ApprovalStore } from '../../src/domain/policy/approvals.js';
import { ERROR_META_KEY, type ToolErrorMeta } from '../../src/shared/protocol-meta.js';
import { ANVIL_FIRST_ACCOUNT, type AnvilNode } from '../helpers/anvil.js';
import { skipWithoutChromium } from '../helpers/chromium.js';
import { passphraseFileIn } from '../helpers/io.js';
import { pageRequest, type PageResponse } from '../helpers/page-http.js';
import {
  approvalLinkIn,
  enrolPasskey,
  ownerBrowser,
  ownerHome,
  terminalApprove,
  walletProcess,
} from '../helpers/passkey-browser.js';
import { WALLET_BIN } from '../helpers/paths.js';
import { auditLines } from '../helpers/policy.js';

const PASSPHRASE = 'passkey browser passphrase';
const RECIPIENT = '0x90F79bf6EB2c4f870365E785982E1f101E93b906';
const MILLI = 10n ** 15n;

type CallOutcome = { error?: ToolErrorMeta; result?: Record<string, unknown> };
/** A page on another origin whose script posts a form at `action` as soon as it loads. */
async function attackerSite(action: string): Promise<{ url: string; close: () => Promise<void> }> {
  const server = createServer((_request, response) => {
    response.writeHead(200, { 'Content-Type': 'text/html' });
    response.end(
      `<form method="post" action="${action}"><input name="csrf" value="guess"><input name="credential" value="{}"></form><script>document.forms[0].submit()</script>`,
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/`,
    close: () =>
      new Promise((resolve) => {
        // The browser keeps its connection alive: close would wait for it.
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

describe(
  'passkeys in a real browser: enroll, approve a spend with one, refuse everything else',
  { skip: skipWithoutChromium('the passkey browser test') },
  () => {
    let node: AnvilNode;
    let home: string;
    let passphraseFile: string;
    let client: Client;
    let browser: Browser;
    let tab: Page;
    let cdp: CDPSession;
    let authenticatorId: string;
    let serveStderr = '';

    const pay = async (wei: bigint, caller = client): Promise<CallOutcome> => {
      const result = await caller.callTool({
        name: 'evm_funds_send',
        arguments: { address: 'payer', to: RECIPIENT, value_wei: wei.toString(), network: 'local' },
      });
      if (result.isError) return { error: result._meta?.[ERROR_META_KEY] as ToolErrorMeta };
      return { result: result.structuredContent as Record<string, unknown> };
    };
    const sentCount = async () =>
      BigInt(await node.rpc<string>('eth_getTransactionCount', [ANVIL_FIRST_ACCOUNT, 'latest']));
    const linkFor = (id: string) => approvalLinkIn(id, () => serveStderr);
    const status = async (id: string) =>
      (await new ApprovalStore(home).list()).find((approval) => approval.id === id)?.status;
    const storedPasskeys = () =>
      (
        JSON.parse(readFileSync(join(home, 'passkeys.json'), 'utf8')) as {
          passkeys: { name: string; counter: number }[];
        }
      ).passkeys;

    before(async () => {
      // A policy with caps, so the page has today's spending to show; a form yes would count over
      // stdio and HTTP alike, were no passkey enrolled.
      ({ node, home, passphraseFile } = await ownerHome(PASSPHRASE, {
        approvals: { trust_elicitation: 'always' },
        evm: {
          networks: {
            local: { policy: { max_per_tx_wei: '50000000000000000', max_per_24h_wei: '90000000000000000' } },
          },
        },
      }));
      ({ browser, tab, cdp, authenticatorId } = await ownerBrowser());
    });
    after(async () => {
      await browser?.close();
      await client?.close();
      await node?.stop();
      rmSync(home, { recursive: true, force: true });
    });

    it('passkey add refuses without the keystore passphrase, or with a wrong one', async () => {
      const none = await walletProcess(home, ['approvals', 'passkey', 'add', '--no-browser']).exited;
      assert.notEqual(none.code, 0);
      assert.match(none.stderr, /only with the keystore passphrase/);
      const wrong = await walletProcess(home, [
        'approvals',
        'passkey',
        'add',
        '--no-browser',
        '--passphrase-file',
        passphraseFileIn(home, 'not the passphrase', 'wrong-pw'),
      ]).exited;
      assert.notEqual(wrong.code, 0);
      assert.match(wrong.stderr, /not the keystore passphrase/);
      assert.equal(existsSync(join(home, 'passkeys.json')), false, 'nothing enrolled');
    });

    it('enrolls a passkey: passphrase at the terminal, ceremony on the page (user verified)', async () => {
      const { done, link, shown } = await enrolPasskey(tab, home, passphraseFile, 'laptop');
      assert.match(shown, /Passkey enrolled/);
      assert.equal(done.code, 0, done.stderr);
      assert.match(done.stdout, /Enrolled the passkey laptop/);
      // Enrolled, the command stops serving the page: its link leads nowhere any more.
      await assert.rejects(tab.goto(link), /ERR_CONNECTION_REFUSED/);

      const { credentials } = await cdp.send('WebAuthn.getCredentials', { authenticatorId });
      assert.equal(credentials.length, 1);
      const stored = storedPasskeys();
      assert.deepEqual(
        stored.map((passkey) => passkey.name),
        ['laptop'],
      );
      assert.equal(
        (JSON.parse(readFileSync(join(home, 'passkeys.json'), 'utf8')) as { passkeys: { id: string }[] }).passkeys[0]
          ?.id,
        credentials[0]?.credentialId.replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, ''),
      );
      if (process.platform !== 'win32') {
        const { statSync } = await import('node:fs');
        assert.equal(statSync(join(home, 'passkeys.json')).mode & 0o077, 0, 'owner-only');
      }
      const listed = await walletProcess(home, ['approvals', 'passkey', 'list', '--json']).exited;
      assert.equal(listed.code, 0, listed.stderr);
      assert.doesNotMatch(listed.stdout, /public_key/);
      assert.deepEqual(
        (JSON.parse(listed.stdout) as { passkeys: { name: string }[] }).passkeys.map((passkey) => passkey.name),
        ['laptop'],
      );
    });

    it('with a passkey, a yes on the page is a passkey assertion; the spend goes through once', async () => {
      const transport = new StdioClientTransport({
        command: process.execPath,
        args: [WALLET_BIN, 'serve', '--passphrase-file', passphraseFile],
        env: { ...(process.env as Record<string, string>), WALLET_HOME: home, WALLET_EVM_LOCAL_URL: node.url },
        stderr: 'pipe',
      });
      transport.stderr?.on('data', (chunk: Buffer) => (serveStderr += chunk.toString()));
      client = new Client({ name: 'no-elicitation', version: '1' });
      await client.connect(transport);

      const before = await sentCount();
      const { error } = await pay(MILLI);
      assert.equal(error?.code, 'APPROVAL_REQUIRED', JSON.stringify(error));
      const id = String(error?.details?.['approval_id']);
      assert.match(String(error?.details?.['url']), new RegExp(`^http://localhost:\\d+/approvals/${id}$`));

      const violations: string[] = [];
      tab.on('console', (message) => {
        if (/Content Security Policy|Refused to/i.test(message.text())) violations.push(message.text());
      });
      tab.on('pageerror', (failure) => violations.push(String(failure)));
      await tab.goto(await linkFor(id));
      await tab.waitForSelector(`#approve-${id}`);
      const shown = await tab.$eval('body', (body) => body.textContent ?? '');
      assert.match(shown, /0\.001 ether \(1000000000000000 wei\)/);
      assert.match(shown, /Spent in the last 24 hours/);
      assert.match(shown, /0\.09 ether \(90000000000000000 wei\)/, "the 24-hour cap beside today's spending");
      assert.equal(await sentCount(), before, 'nothing sent while it waits');

      await Promise.all([tab.waitForNavigation(), tab.click(`#approve-${id}`)]);
      assert.match(await tab.content(), /approved \(passkey\)/);
      assert.deepEqual(violations, [], 'no CSP violation, no script error');

      const paid = await pay(MILLI);
      assert.equal(paid.error, undefined, JSON.stringify(paid.error));
      assert.equal(paid.result?.['sent'], true);
      assert.equal(await sentCount(), before + 1n, 'exactly one transaction');
      const sent = auditLines(home).filter((line) => line['outcome'] === 'sent');
      assert.deepEqual(
        sent.map((line) => [line['tool'], line['authority'], line['approval']]),
        [['evm_funds_send', 'passkey', id]],
      );
      assert.ok((storedPasskeys()[0]?.counter ?? 0) > 0, 'the counter moved on');

      await tab.goto(tab.url());
      const after = await tab.$eval('#spending', (table) => table.textContent ?? '');
      assert.match(after, /0\.001 ether \(1000000000000000 wei\)/, "today's spending counts the spend");
    });

    it('refuses a cookie-and-CSRF POST, a missing token, another origin, another approval’s or a replayed assertion', async () => {
      const before = await sentCount();
      const first = await pay(2n * MILLI);
      const second = await pay(3n * MILLI);
      const a = String(first.error?.details?.['approval_id']);
      const b = String(second.error?.details?.['approval_id']);
      assert.notEqual(a, b);
      const origin = new URL(await linkFor(a)).origin;
      const port = new URL(origin).port;
      await tab.goto(`${origin}/approvals`);
      await tab.waitForSelector(`#approve-${a}`);
      const cookie = (await tab.cookies()).find((each) => each.name === `wallet_approvals_${port}`);
      assert.ok(cookie);
      /** A raw POST in the owner's session, to 127.0.0.1 but named as the page's host. */
      const post = (target: string, body: string, headers: Record<string, string> = {}): Promise<PageResponse> =>
        pageRequest(`http://127.0.0.1:${port}/approvals/${target}/approve`, {
          method: 'POST',
          headers: { Host: `localhost:${port}`, Origin: origin, Cookie: `${cookie.name}=${cookie.value}`, ...headers },
          body,
        });

      // The browser's real assertion for `a`, taken off the wire instead of sent.
      await tab.setRequestInterception(true);
      const captured = new Promise<string>((resolve) => {
        const onRequest = (request: HTTPRequest): void => {
          if (request.method() === 'POST' && request.url().endsWith(`/${a}/approve`)) {
            tab.off('request', onRequest);
            resolve(request.postData() ?? '');
            void request.abort();
          } else void request.continue();
        };
        tab.on('request', onRequest);
      });
      await tab.click(`#approve-${a}`);
      const assertion = await captured;
      await tab.setRequestInterception(false);
      const form = new URLSearchParams(assertion);
      assert.ok(form.get('credential'), 'the page sent an assertion');
      const csrf = String(form.get('csrf'));

      const plain = await post(a, `csrf=${encodeURIComponent(csrf)}`);
      assert.equal(plain.status, 403, 'session cookie and CSRF token approve nothing without a passkey');
      assert.match(plain.body, /No passkey answer/);
      assert.equal(
        (await post(a, `credential=${encodeURIComponent(String(form.get('credential')))}`)).status,
        403,
        'no CSRF token',
      );
      assert.equal((await post(a, assertion, { Origin: 'http://evil.example' })).status, 403, 'another origin');
      const elsewhere = await post(b, assertion);
      assert.equal(elsewhere.status, 403, 'an assertion for another approval');
      assert.match(elsewhere.body, /did not verify/);
      const replay = await post(a, assertion);
      assert.equal(replay.status, 403, 'the same assertion again (its challenge was taken)');

      // Another site in the same browser posts the form itself: refused, nothing approved.
      const attacker = await attackerSite(`${origin}/approvals/${a}/approve`);
      try {
        const other = await browser.newPage();
        const posted = other.waitForResponse((response) => response.url().endsWith(`/${a}/approve`));
        await other.goto(attacker.url);
        assert.equal((await posted).status(), 403);
        await other.close();
      } finally {
        await attacker.close();
      }

      assert.equal(await status(a), 'pending');
      assert.equal(await status(b), 'pending');
      assert.equal(await sentCount(), before, 'nothing sent');
    });

    it('refuses a cloned authenticator (its counter set back), a terminal yes, and a stdio client answering itself', async () => {
      const before = await sentCount();
      const { error } = await pay(4n * MILLI);
      const id = String(error?.details?.['approval_id']);

      // The same key in an authenticator whose counter starts again: what a clone looks like.
      const { credentials } = await cdp.send('WebAuthn.getCredentials', { authenticatorId });
      const [credential] = credentials;
      assert.ok(credential);
      await cdp.send('WebAuthn.removeCredential', { authenticatorId, credentialId: credential.credentialId });
      await cdp.send('WebAuthn.addCredential', { authenticatorId, credential: { ...credential, signCount: 0 } });
      await tab.goto(await linkFor(id));
      await tab.waitForSelector(`#approve-${id}`);
      const [response] = await Promise.all([tab.waitForNavigation(), tab.click(`#approve-${id}`)]);
      assert.equal(response?.status(), 403);
      assert.match(await tab.content(), /cloned/);
      assert.equal(await status(id), 'pending');

      // The terminal's yes: `approve` sends the owner to the page and approves nothing itself.
      const approved = await terminalApprove(home, id);
      assert.match(approved.stderr, /A passkey is enrolled/);
      await assert.rejects(new ApprovalStore(home).decide(id, 'approved', 'terminal'), /A passkey is enrolled/);
      assert.equal(await status(id), 'pending');

      // A client that answers the server's question itself, over stdio, with trust_elicitation
      // "always": with a passkey enrolled, it is never asked and nothing is signed.
      const asked: unknown[] = [];
      const selfAnswering = new Client(
        { name: 'self-answering', version: '1' },
        { capabilities: { elicitation: { form: {} } }, versionNegotiation: { mode: 'legacy' } },
      );
      selfAnswering.setRequestHandler('elicitation/create', async (request) => {
        asked.push(request.params);
        return { action: 'accept', content: { confirm: true } };
      });
      await selfAnswering.connect(
        new StdioClientTransport({
          command: process.execPath,
          args: [WALLET_BIN, 'serve', '--passphrase-file', passphraseFile],
          env: { ...(process.env as Record<string, string>), WALLET_HOME: home, WALLET_EVM_LOCAL_URL: node.url },
          stderr: 'pipe',
        }),
      );
      try {
        const answered = await pay(5n * MILLI, selfAnswering);
        assert.equal(answered.error?.code, 'APPROVAL_REQUIRED', JSON.stringify(answered));
        assert.deepEqual(asked, [], 'no question was put to the client');
      } finally {
        await selfAnswering.close();
      }
      assert.equal(await sentCount(), before, 'nothing sent');
    });
  },
);
