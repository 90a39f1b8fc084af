/**
 * What the passkey browser tests share: Debian's chromium, headless, driven by puppeteer-core,
 * with a WebAuthn virtual authenticator (CDP: ctap2, internal, user verification) standing in for
 * the owner's device; `wallet` run as its own process; and the enrolment ceremony of
 * `wallet approvals passkey add` (the passphrase at the terminal, the ceremony on the page).
 */
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import puppeteer, { type Browser, type CDPSession, type Page } from 'puppeteer-core';
import { startAnvil, type AnvilNode } from './anvil.js';
import { chromiumPath } from './chromium.js';
import { passphraseFileIn, tempHome } from './io.js';
import { importAnvilAccount } from './mcp.js';
import { WALLET_BIN } from './paths.js';

/**
 * The owner's setup: a fresh anvil, a data directory holding its first account (wallet `w`,
 * account `payer`) under `passphrase`, that passphrase in an owner-only file, and `config` as
 * config.json (0600).
 */
export async function ownerHome(
  passphrase: string,
  config: Record<string, unknown>,
): Promise<{ node: AnvilNode; home: string; passphraseFile: string }> {
  const node = await startAnvil();
  const home = tempHome();
  await importAnvilAccount(home, passphrase, { walletAlias: 'w', accountAlias: 'payer' });
  const passphraseFile = passphraseFileIn(home, passphrase, 'owner-pw');
  writeFileSync(join(home, 'config.json'), JSON.stringify(config), { mode: 0o600 });
  return { node, home, passphraseFile };
}

export type Run = { code: number | null; stdout: string; stderr: string };

/** Runs `wallet <args>` as its own process (no terminal), with `WALLET_HOME` = `home`. */
export function walletProcess(home: string, args: string[]) {
  const child = spawn(process.execPath, [WALLET_BIN, ...args], {
    env: { ...process.env, WALLET_HOME: home },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const run: Run = { code: null, stdout: '', stderr: '' };
  child.stdout.on('data', (chunk: Buffer) => (run.stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (run.stderr += chunk.toString()));
  const exited = new Promise<Run>((resolve) =>
    child.once('exit', (code) => {
      run.code = code;
      resolve(run);
    }),
  );
  return { child, run, exited };
}

/** Polls `probe` every 50 ms until it finds something; throws after 15 s. */
export async function waitFor<T>(what: string, probe: () => T | undefined): Promise<T> {
  for (let tries = 0; tries < 300; tries += 1) {
    const found = probe();
    if (found !== undefined) return found;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`timed out waiting for ${what}`);
}

/** The one-time link serve prints on stderr for approval `id` (`said` is what it said so far). */
export const approvalLinkIn = (id: string, said: () => string): Promise<string> =>
  waitFor(
    `serve's link for ${id}`,
    () => new RegExp(`approval ${id} waits for you; open it once at (\\S+)`).exec(said())?.[1],
  );

export type OwnerBrowser = { browser: Browser; tab: Page; cdp: CDPSession; authenticatorId: string };

/** Headless chromium with one tab holding a user-verifying platform authenticator (no credential yet). */
export async function ownerBrowser(): Promise<OwnerBrowser> {
  const browser = await puppeteer.launch({
    executablePath: chromiumPath() ?? 'chromium',
    headless: true,
    // Debian's chromium runs as root only without its sandbox (CI containers run as root).
    args: ['--no-sandbox', '--disable-dev-shm-usage', '--disable-gpu'],
  });
  const tab = await browser.newPage();
  const cdp = await tab.createCDPSession();
  await cdp.send('WebAuthn.enable');
  const { authenticatorId } = await cdp.send('WebAuthn.addVirtualAuthenticator', {
    options: {
      protocol: 'ctap2',
      transport: 'internal',
      hasResidentKey: true,
      hasUserVerification: true,
      isUserVerified: true,
      automaticPresenceSimulation: true,
    },
  });
  return { browser, tab, cdp, authenticatorId };
}

/**
 * `wallet approvals passkey add --name <name>` with the passphrase file, its ceremony done on
 * `tab`: resolves with the command's run once it exits, the enrolment link, and the page it left.
 */
export async function enrolPasskey(
  tab: Page,
  home: string,
  passphraseFile: string,
  name: string,
): Promise<{ done: Run; link: string; shown: string }> {
  const adding = walletProcess(home, [
    'approvals',
    'passkey',
    'add',
    '--name',
    name,
    '--no-browser',
    '--passphrase-file',
    passphraseFile,
  ]);
  const link = await waitFor(
    'the enrolment link',
    () => /(http:\/\/localhost:\d+\/approvals\/passkeys\/new\?t=\S+)/.exec(adding.run.stderr)?.[1],
  );
  await tab.goto(link);
  await tab.waitForSelector('#enrol');
  await Promise.all([tab.waitForNavigation(), tab.click('#enrol')]);
  const shown = await tab.content();
  return { done: await adding.exited, link, shown };
}

/**
 * The terminal's yes with a passkey enrolled: `wallet approvals approve <id>` (as its own
 * process) sends the owner to the page and approves nothing itself; stopped once it serves it.
 */
export async function terminalApprove(home: string, id: string): Promise<Run> {
  const approving = walletProcess(home, ['approvals', 'approve', id, '--no-browser']);
  await waitFor('approve to serve the page', () => (/\?t=/.test(approving.run.stdout) ? true : undefined));
  approving.child.kill('SIGTERM');
  return approving.exited;
}
