import { CallInterrupted, ClientRefusal, ConnectionError, RemoteProtocolError } from '../mcp/session.js';
import { Declined } from './confirm.js';
import type { CliIo } from './io.js';
import { terminalSafe } from './render.js';
import { PromptInterrupted } from './secrets.js';
import { BusyError, EXIT, UsageError } from './usage-error.js';
import { UnsafeFileError } from '../shared/private-files.js';

/**
 * The one place failures become stderr text and an exit code; stack traces only with --debug.
 * Every failure reads `error: <CODE>: <message>` then `hint: <what to do>`: a tool's error
 * carries its own code and hint (rendered by run-tool.ts); the CLI's own failures get theirs here.
 */
export function reportFailure(error: unknown, io: CliIo, debug: boolean): number {
  // A server's words may be in a message: never let its control characters reach the terminal.
  const say = (code: string, message: string, hint: string): void => {
    // A refusal passed through from the domain already names its code (`INVALID_PARAM: …`).
    const coded = /^[A-Z][A-Z_]+: /.test(message) ? message : `${code}: ${message}`;
    io.stderr.write(`error: ${terminalSafe(coded)}\n`);
    io.stderr.write(`hint: ${terminalSafe(hint)}\n`);
    if (debug && error instanceof Error && error.stack) io.stderr.write(`${error.stack}\n`);
  };
  if (error instanceof UsageError) {
    say(
      'USAGE',
      error.message,
      error.hint ?? "Run 'wallet --help', or '<command> --help', for the commands and flags.",
    );
    return EXIT.usage;
  }
  if (error instanceof UnsafeFileError) {
    say(error.code, error.message, error.hint);
    return EXIT.keystoreDamaged;
  }
  if (error instanceof BusyError) {
    say('BUSY', error.message, error.hint ?? 'Another wallet process holds the lock: run it again in a moment.');
    return EXIT.busy;
  }
  if (error instanceof ConnectionError) {
    say(
      'CONNECTION_FAILED',
      error.message,
      error.hint ?? 'Check the --server command or --url, or run the server by hand to see why it fails.',
    );
    return EXIT.connection;
  }
  if (error instanceof ClientRefusal) {
    say(
      'ANSWER_REFUSED',
      error.message,
      'The server was reached and answered; this client could not go on with the answer. --debug shows more.',
    );
    return EXIT.toolError;
  }
  if (error instanceof RemoteProtocolError) {
    say(
      'PROTOCOL_ERROR',
      `the server refused the request (${error.code}): ${error.message}`,
      error.code === -32602
        ? "The server found the arguments invalid: '<command> --help' shows what it takes."
        : 'The server refused the request itself, not the tool: --debug shows the exchange.',
    );
    return error.code === -32602 ? EXIT.usage : EXIT.toolError;
  }
  if (error instanceof Declined) {
    say('DECLINED', error.message, 'Run it again and answer y to go ahead, or pass --yes in a script.');
    return EXIT.toolError;
  }
  if (error instanceof CallInterrupted) {
    // Ctrl-C during a call: a task it made was cancelled first (tasks/cancel), and says so.
    io.stderr.write(`${terminalSafe(error.message, true)}\n`);
    return EXIT.interrupted;
  }
  if (error instanceof PromptInterrupted) {
    io.stderr.write('interrupted\n');
    return EXIT.interrupted;
  }
  say(
    'INTERNAL',
    `unexpected failure: ${error instanceof Error ? error.message : String(error)}`,
    'This is a bug of the wallet: run again with --debug, and report what it prints.',
  );
  return EXIT.toolError;
}
