import type { CliIo } from './io.js';
import { PromptInterrupted } from './secrets.js';
import { UsageError } from './usage-error.js';

/**
 * Asks before a destructive tool runs. On a terminal (stdin and stderr both), shows what is about
 * to happen and waits for `y`; anything else declines. Without a terminal there is nobody to ask:
 * it refuses unless `--yes` was given (exit 2), so a script never spends by accident.
 */
export async function confirmDestructive(
  io: CliIo,
  command: string,
  yes: boolean,
  showPlan: () => Promise<string>,
): Promise<void> {
  if (yes) return;
  if (!canAskOnTerminal(io)) {
    throw new UsageError(
      `'${command}' is destructive (it spends funds or deletes data) and there is no terminal to confirm on; nothing was done.`,
      'Check the arguments, then run it again with --yes.',
    );
  }
  io.stderr.write(await showPlan());
  const answer = await askLine(io, 'Proceed? [y/N] ');
  if (!/^(y|yes)$/i.test(answer.trim())) throw new Declined();
}

/** Whether a person can be asked: stdin and stderr are a terminal, and stdin is not used up. */
export function canAskOnTerminal(io: CliIo): boolean {
  // stdin already read to its end (--args-json -, a secret) cannot answer a prompt either.
  return io.stderr.isTTY === true && io.stdin.isTTY === true && !io.stdin.readableEnded;
}

/** The user said no at the confirmation prompt: nothing was sent (exit 1). */
export class Declined extends Error {
  override name = 'Declined';
  constructor() {
    super('Cancelled: nothing was sent.');
  }
}

/** One visible line from the terminal; Ctrl-C (as a byte in raw mode, or end of input) aborts. */
export async function askLine(io: CliIo, question: string): Promise<string> {
  const stdin = io.stdin;
  io.stderr.write(question);
  stdin.resume();
  try {
    return await new Promise<string>((resolve, reject) => {
      let typed = '';
      const finish = (settle: () => void): void => {
        stdin.off('data', onData);
        stdin.off('end', onEnd);
        settle();
      };
      const onData = (chunk: Buffer | string): void => {
        for (const char of chunk.toString()) {
          if (char === '\u0003') return finish(() => reject(new PromptInterrupted()));
          if (char === '\r' || char === '\n') return finish(() => resolve(typed));
          typed += char;
        }
      };
      const onEnd = (): void => finish(() => resolve(typed));
      stdin.on('data', onData);
      stdin.on('end', onEnd);
    });
  } finally {
    stdin.pause();
  }
}
