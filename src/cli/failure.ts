import { ClientRefusal, ConnectionError, RemoteProtocolError } from '../mcp/session.js';
import { Declined } from './confirm.js';
import type { CliIo } from './io.js';
import { terminalSafe } from './render.js';
import { PromptInterrupted } from './secrets.js';
import { BusyError, EXIT, UsageError } from './usage-error.js';
import { UnsafeFileError } from '../shared/private-files.js';

/** The one place failures become stderr text and an exit code; stack traces only with --debug. */
export function reportFailure(error: unknown, io: CliIo, debug: boolean): number {
  // A server's words may be in a message: never let its control characters reach the terminal.
  const say = (message: string, hint?: string): void => {
    io.stderr.write(`error: ${terminalSafe(message)}\n`);
    if (hint) io.stderr.write(`hint: ${terminalSafe(hint)}\n`);
    if (debug && error instanceof Error && error.stack) io.stderr.write(`${error.stack}\n`);
  };
  if (error instanceof UsageError) {
    say(error.message, error.hint);
    return EXIT.usage;
  }
  if (error instanceof UnsafeFileError) {
    say(error.message, error.hint);
    return EXIT.keystoreDamaged;
  }
  if (error instanceof BusyError) {
    say(error.message, error.hint);
    return EXIT.busy;
  }
  if (error instanceof ConnectionError) {
    say(
      error.message,
      error.hint ?? 'Check the --server command or --url, or run the server by hand to see why it fails.',
    );
    return EXIT.connection;
  }
  if (error instanceof ClientRefusal) {
    say(
      error.message,
      'The server was reached and answered; this client could not go on with the answer. --debug shows more.',
    );
    return EXIT.toolError;
  }
  if (error instanceof RemoteProtocolError) {
    say(`the server refused the request (${error.code}): ${error.message}`);
    return error.code === -32602 ? EXIT.usage : EXIT.toolError;
  }
  if (error instanceof Declined) {
    say(error.message);
    return EXIT.toolError;
  }
  if (error instanceof PromptInterrupted) {
    io.stderr.write('interrupted\n');
    return EXIT.interrupted;
  }
  say(
    `unexpected failure: ${error instanceof Error ? error.message : String(error)}`,
    'Run again with --debug for details.',
  );
  return EXIT.toolError;
}
