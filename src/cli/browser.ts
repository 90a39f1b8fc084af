import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import type { LoopbackRedirect } from '../mcp/oauth/loopback.js';
import type { LoginPrompt } from '../mcp/oauth/login.js';
import type { CliIo } from './io.js';

/** How long a browser login may take before the CLI gives up. */
const LOGIN_TIMEOUT_MS = 5 * 60_000;

export type PromptOptions = {
  /** Open no browser: print the URL and wait for the redirect or a pasted one (a remote machine). */
  headless?: boolean | undefined;
  timeoutMs?: number | undefined;
};

/**
 * The CLI's side of an OAuth login: the authorization URL on stderr, opened with `$BROWSER` when
 * set (the usual convention; it also lets a script play the browser), else the platform's opener.
 * On a terminal the person may instead paste the address the browser ended on (headless: the
 * browser ran on another machine, where 127.0.0.1 is not this one). A login starts by itself
 * only where someone can answer: a terminal, or `$BROWSER`.
 */
export function loginPrompt(io: CliIo, loginCommand: string, options: PromptOptions = {}): LoginPrompt {
  const browser = io.env['BROWSER'];
  const terminal = io.stderr.isTTY === true && io.stdin.isTTY === true;
  return {
    interactive: terminal || (browser !== undefined && browser !== ''),
    loginCommand,
    async authorize(url: URL, redirect: LoopbackRedirect): Promise<URLSearchParams> {
      io.stderr.write(`This server needs a login. Open this address in a browser:\n\n  ${url.href}\n\n`);
      const opened = options.headless ? false : await openBrowser(url.href, io.env);
      if (opened) io.stderr.write('Opened it in your browser; waiting for the login to finish…\n');
      const waits: Promise<URLSearchParams>[] = [redirect.callback];
      let pasted: { promise: Promise<URLSearchParams>; stop: () => void } | undefined;
      if (terminal) {
        io.stderr.write(
          `If the browser is on another machine, log in there, then paste the address it ends on ` +
            `(${redirect.redirectUrl}?code=…) here and press Enter.\n`,
        );
        pasted = pastedRedirect(io);
        waits.push(pasted.promise);
      } else if (!opened) {
        io.stderr.write(`Waiting for the browser to come back to ${redirect.redirectUrl}…\n`);
      }
      let timer: NodeJS.Timeout | undefined;
      waits.push(
        new Promise((_resolve, reject) => {
          const ms = options.timeoutMs ?? LOGIN_TIMEOUT_MS;
          timer = setTimeout(() => reject(new Error(`the login did not finish within ${ms / 60_000} min`)), ms);
        }),
      );
      try {
        return await Promise.race(waits);
      } finally {
        clearTimeout(timer);
        pasted?.stop();
      }
    },
  };
}

/** The query of a redirect URL typed or pasted on the terminal (the whole address: its state is checked). */
function pastedRedirect(io: CliIo): { promise: Promise<URLSearchParams>; stop: () => void } {
  const lines = createInterface({ input: io.stdin, terminal: false });
  const promise = new Promise<URLSearchParams>((resolve) => {
    lines.on('line', (line) => {
      const text = line.trim();
      if (text === '') return;
      try {
        resolve(new URL(text).searchParams);
      } catch {
        // A bare code carries no state to tie it to this login (the CSRF check): the whole address.
        io.stderr.write('Paste the whole address the browser ended on (it starts with http://127.0.0.1).\n');
      }
    });
  });
  return {
    promise,
    stop: () => {
      lines.close();
      io.stdin.pause();
    },
  };
}

/**
 * Opens `url` with `$BROWSER` (entries separated by `:`, `%s` standing for the URL, else it is
 * appended), else `open` (macOS), `start` (Windows) or `xdg-open`. False when nothing could be
 * started; the URL has been printed anyway.
 */
export async function openBrowser(url: string, env: Readonly<Record<string, string | undefined>>): Promise<boolean> {
  const candidates: string[][] = [];
  for (const entry of (env['BROWSER'] ?? '').split(':')) {
    const words = entry.trim().split(/\s+/).filter(Boolean);
    if (words.length === 0) continue;
    candidates.push(words.includes('%s') ? words.map((word) => (word === '%s' ? url : word)) : [...words, url]);
  }
  if (candidates.length === 0) {
    if (process.platform === 'darwin') candidates.push(['open', url]);
    // Not `cmd /c start`: cmd.exe reads the URL's `&` as a command separator.
    else if (process.platform === 'win32') candidates.push(['rundll32', 'url.dll,FileProtocolHandler', url]);
    else candidates.push(['xdg-open', url]);
  }
  for (const [command, ...args] of candidates) {
    if (command !== undefined && (await started(command, args))) return true;
  }
  return false;
}

function started(command: string, args: string[]): Promise<boolean> {
  return new Promise((resolve) => {
    const child = spawn(command, args, { stdio: 'ignore', detached: process.platform !== 'win32' });
    child.once('error', () => resolve(false));
    child.once('spawn', () => {
      child.unref();
      resolve(true);
    });
  });
}
