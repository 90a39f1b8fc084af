// Wall time of one `wallet` CLI process, spawn to exit, against `node -e 0` measured in the same
// run: how much the CLI costs on top of starting Node itself. Each round runs every command once
// (in an order shuffled each round, bench/lib/common.mjs roundOrder: no command always runs first
// or after the same neighbour);
// warm-up rounds fill the OS page cache and are not counted.
//
//   node bench/cli-latency.mjs [--runs 20] [--warmup 3] [--json]
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { spawn } from 'node:child_process';
import {
  ROOT,
  WALLET_BIN,
  fail,
  roundOptions,
  roundOrder,
  run,
  startBench,
  temporaryDirectory,
  walletEnv,
} from './lib/common.mjs';
import { commandLine, fixed, machine, machineLines, summarize, table } from './lib/report.mjs';

const options = await startBench(
  {
    ...roundOptions({ runs: 20, warmup: 3 }),
  },
  'Usage: node bench/cli-latency.mjs [options]\n\nWall time of `node bin/wallet.js …` against `node -e 0`, in the same run.',
);

const NODE = process.execPath;
const wallet = (...args) => [WALLET_BIN, ...args];

// The data directory: one wallet, 'main', made by the CLI itself. Creating it is the only call
// here that needs the keystore passphrase (an owner-only file); handing out an address reads the
// account xpub stored in clear, and help, version and the tool definitions touch no keystore.
const home = temporaryDirectory('wallet-bench-cli-');
const secrets = temporaryDirectory('wallet-bench-secret-');
process.on('exit', () => {
  home.remove();
  secrets.remove();
});
const passphraseFile = join(secrets.path, 'passphrase');
writeFileSync(passphraseFile, 'bench-passphrase-not-secret\n', { mode: 0o600 });
const env = walletEnv(home.path);
const setupArgs = wallet(
  'core-wallet-create',
  '--alias',
  'main',
  '--network',
  'testnet',
  '--passphrase-file',
  passphraseFile,
  '--json',
);
const created = await run(NODE, setupArgs, { env });
if (created.code !== 0) fail(`setting up the wallet failed (exit ${created.code}):\n${created.stderr}`);

const TOOL_CALL = 2;
const HELP = 1.3;
const COMMANDS = [
  { name: 'node -e 0', args: ['-e', '0'], aim: undefined, baseline: true },
  { name: 'wallet --help', args: wallet('--help'), aim: HELP },
  { name: 'wallet --version', args: wallet('--version'), aim: HELP },
  { name: 'wallet --get-tool-definition', args: wallet('--get-tool-definition'), aim: undefined },
  {
    name: 'wallet core-address-create',
    args: wallet('core-address-create', '--wallet-id', 'main', '--network', 'testnet', '--json'),
    aim: TOOL_CALL,
  },
  {
    name: 'wallet core-address-validate',
    args: wallet('core-address-validate', '--address', 'yRd4FhXfVGHXpsuZXPNkMrfD9GVj46pnjt', '--json'),
    aim: TOOL_CALL,
  },
  { name: 'wallet network-info', args: wallet('network-info', '--json'), aim: TOOL_CALL },
  { name: 'wallet evm-accounts-list', args: wallet('evm-accounts-list', '--json'), aim: TOOL_CALL },
];

/** One run: milliseconds from spawn to 'close' (exited, stdout and stderr drained). */
function timeOnce(command) {
  return new Promise((resolve, reject) => {
    const started = process.hrtime.bigint();
    const child = spawn(NODE, command.args, { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdoutBytes = 0;
    let stderr = '';
    child.stdout.on('data', (chunk) => (stdoutBytes += chunk.length));
    child.stderr.setEncoding('utf8').on('data', (chunk) => (stderr = (stderr + chunk).slice(-4096)));
    child.on('error', reject);
    child.on('close', (code, signal) => {
      const ms = Number(process.hrtime.bigint() - started) / 1e6;
      if (code !== 0) reject(new Error(`${command.name} exited ${code ?? signal}:\n${stderr}`));
      else resolve({ ms, stdoutBytes });
    });
  });
}

const samples = new Map(COMMANDS.map((command) => [command, []]));
const outputBytes = new Map();
try {
  for (let round = 0; round < options.warmup + options.runs; round++) {
    for (const command of roundOrder(COMMANDS, round)) {
      const { ms, stdoutBytes } = await timeOnce(command);
      outputBytes.set(command, stdoutBytes);
      if (round >= options.warmup) samples.get(command).push(ms);
    }
  }
} catch (error) {
  fail(error.message);
}

const setupLine = commandLine(['node', ...setupArgs.map((arg) => arg.replace(`${ROOT}/`, ''))], {
  WALLET_HOME: '$WALLET_HOME',
}).replace(passphraseFile, '<0600 file>');
const baseline = summarize(samples.get(COMMANDS[0]));
const results = COMMANDS.map((command) => {
  const stats = summarize(samples.get(command));
  const ratio = stats.median / baseline.median;
  return {
    name: command.name,
    commandLine: commandLine(['node', ...command.args.map((arg) => arg.replace(`${ROOT}/`, ''))], {
      ...(command.baseline ? {} : { WALLET_HOME: '$WALLET_HOME' }),
    }),
    medianMs: fixed(stats.median, 1),
    p90Ms: fixed(stats.p90, 1),
    minMs: fixed(stats.min, 1),
    overBaselineMs: fixed(stats.median - baseline.median, 1),
    ratio: fixed(ratio, 2),
    aim: command.aim ?? null,
    meetsAim: command.aim === undefined ? null : ratio <= command.aim,
    stdoutBytes: outputBytes.get(command),
    samplesMs: samples.get(command).map((ms) => fixed(ms, 2)),
  };
});
const info = machine();

if (options.json) {
  process.stdout.write(
    `${JSON.stringify({ benchmark: 'cli-latency', machine: info, runs: options.runs, warmup: options.warmup, setup: setupLine, results }, null, 2)}\n`,
  );
} else {
  const verdict = (result) =>
    result.aim === null
      ? result.name === 'node -e 0'
        ? 'baseline'
        : '—'
      : `≤ ${result.aim}× ${result.meetsAim ? 'met' : 'NOT met'}`;
  const lines = [
    'wallet CLI latency: wall time spawn → exit, stdout/stderr piped and drained',
    ...machineLines(info),
    `${options.runs} measured rounds after ${options.warmup} warm-up rounds; each round runs every command once, order shuffled`,
    '',
    table(
      ['command', 'median ms', 'p90 ms', 'min ms', '+ms vs node', 'ratio of medians', 'aim'],
      results.map((result) => [
        result.name,
        result.medianMs,
        result.p90Ms,
        result.minMs,
        result.overBaselineMs,
        `${result.ratio.toFixed(2)}×`,
        verdict(result),
      ]),
      { align: 'lrrrrrl' },
    ),
    '',
    `Aims (the issue): --help and --version ≤ ${HELP}× node -e 0; an in-process tool call ≤ ${TOOL_CALL}× node -e 0.`,
    '',
    'Command lines (cwd: the repository; $WALLET_HOME: a temp dir holding one testnet wallet, alias main, made first by',
    `  ${setupLine}):`,
    ...results.map((result) => `  ${result.commandLine}`),
  ];
  process.stdout.write(`${lines.join('\n')}\n`);
}
