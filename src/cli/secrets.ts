import { closeSync, fstatSync, openSync, readFileSync } from 'node:fs';
import { MIN_PASSPHRASE_LENGTH } from '../shared/passphrase.js';
import { readAll, type CliIo } from './io.js';
import { UsageError } from './usage-error.js';

/**
 * A secret from a file, which must be owner-only (no group or other permission bits): a file
 * others can read is a leaked secret, so it is refused. Trailing newlines are not part of it.
 */
export async function readSecretFile(path: string, flag: string): Promise<string> {
  return withoutTrailingNewline(withSecretFile(path, flag, (fd) => readFileSync(fd, 'utf8')));
}

/**
 * Refuses a secret file as {@link readSecretFile} would (unreadable, not a regular file, or open to
 * others), without reading the secret: for a command that only passes the path on.
 */
export function checkSecretFile(path: string, flag: string): void {
  withSecretFile(path, flag, () => undefined);
}

function withSecretFile<T>(path: string, flag: string, use: (fd: number) => T): T {
  let fd;
  try {
    fd = openSync(path, 'r');
  } catch {
    throw new UsageError(`${flag}: cannot read ${path}.`);
  }
  try {
    const stats = fstatSync(fd);
    if (!stats.isFile()) throw new UsageError(`${flag}: ${path} is not a regular file.`);
    if (process.platform !== 'win32' && (stats.mode & 0o077) !== 0) {
      throw new UsageError(
        `${flag}: ${path} is readable by others (mode ${(stats.mode & 0o777).toString(8)}); refusing a secret from it.`,
        `Run: chmod 600 ${path}`,
      );
    }
    return use(fd);
  } finally {
    closeSync(fd);
  }
}

/** A secret from stdin (e.g. `pass show wallet | wallet … --mnemonic-stdin`). */
export async function readSecretStdin(io: CliIo, flag: string): Promise<string> {
  if (io.stdin.isTTY) throw new UsageError(`${flag} reads stdin, but stdin is a terminal.`, 'Pipe the secret in.');
  return withoutTrailingNewline(await readAll(io.stdin));
}

/** Asks on the terminal without echoing what is typed. Ctrl-C aborts (exit 130 upstream). */
export async function promptHidden(io: CliIo, question: string): Promise<string> {
  const stdin = io.stdin;
  if (!stdin.isTTY || !stdin.setRawMode) throw new UsageError('Cannot prompt for a secret: stdin is not a terminal.');
  io.stderr.write(question);
  stdin.setRawMode(true);
  stdin.resume();
  try {
    return await new Promise<string>((resolve, reject) => {
      let typed = '';
      const onData = (chunk: Buffer): void => {
        for (const char of chunk.toString('utf8')) {
          if (char === '\r' || char === '\n') {
            stdin.off('data', onData);
            resolve(typed);
            return;
          }
          if (char === '\u0003') {
            stdin.off('data', onData);
            reject(new PromptInterrupted());
            return;
          }
          typed = char === '\u007f' || char === '\b' ? typed.slice(0, -1) : typed + char;
        }
      };
      stdin.on('data', onData);
    });
  } finally {
    stdin.setRawMode(false);
    stdin.pause();
    io.stderr.write('\n');
  }
}

export class PromptInterrupted extends Error {
  override name = 'PromptInterrupted';
}

function withoutTrailingNewline(text: string): string {
  return text.replace(/\r?\n$/, '');
}

export type PassphrasePrompt = {
  /** Asks when the server first needs the passphrase; twice, to confirm, for a new wallet. */
  source: (purpose: 'unlock' | 'new') => Promise<string | undefined>;
  /** Whether the user pressed Ctrl-C at the prompt (the call then fails locked; exit 130). */
  interrupted: () => boolean;
};

/** The keystore passphrase from a hidden prompt on the terminal, asked only when a tool needs it. */
export function passphrasePrompt(io: CliIo): PassphrasePrompt {
  let interrupted = false;
  const ask = async (question: string): Promise<string | undefined> => {
    try {
      return await promptHidden(io, question);
    } catch (error) {
      if (error instanceof PromptInterrupted) interrupted = true;
      return undefined;
    }
  };
  return {
    interrupted: () => interrupted,
    source: async (purpose) => {
      if (purpose === 'unlock') return ask('Keystore passphrase (hidden): ');
      for (let attempt = 0; attempt < 3; attempt++) {
        const first = await ask(`New keystore passphrase (hidden, ${MIN_PASSPHRASE_LENGTH}+ characters): `);
        if (first === undefined) return undefined;
        if (first.length < MIN_PASSPHRASE_LENGTH) {
          io.stderr.write(`At least ${MIN_PASSPHRASE_LENGTH} characters; try again.\n`);
          continue;
        }
        const second = await ask('Repeat it: ');
        if (second === undefined) return undefined;
        if (first === second) return first;
        io.stderr.write('The two entries differ; try again.\n');
      }
      return undefined;
    },
  };
}
