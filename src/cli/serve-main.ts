import { readCommandLine } from './command-line.js';
import { reportFailure } from './failure.js';
import { processIo, type CliIo } from './io.js';
import { runServe } from './serve.js';
import { UsageError } from './usage-error.js';

/**
 * `wallet serve …` (a command line whose first word is `serve`), run exactly as `runCli` runs it:
 * the entry of `dist/serve.cjs`, a bundle of only what serving needs, which `bin/wallet.js`
 * loads for such a command line. Without the CLI's commands, its MCP client and the rest, an
 * agent's server starts sooner (docs/PERFORMANCE.md).
 */
export async function runServeCli(argv: readonly string[], io: CliIo = processIo()): Promise<number> {
  let debug = argv.includes('--debug');
  try {
    const { globals, verb } = readCommandLine(argv);
    debug = globals.debug;
    if (verb !== 'serve') throw new UsageError(`'${verb ?? ''}' is no serve command line.`);
    return await runServe(argv, io);
  } catch (error) {
    return reportFailure(error, io, debug);
  }
}
