// One tool call on another MCP server, spawned over stdio, spawn to exit: `wallet --server`
// against mcporter (`mcporter call --stdio`, a TypeScript CLI over MCP, installed in bench/tools/ on
// first use), on the same server and tool, interleaved in the same run. A raw JSON-RPC client
// (bench/lib/raw-call.mjs) is printed too, as the floor: the server's own start and answer. And the
// warm call: the same server saved with --keep-alive, called through the daemon that keeps it
// running, against `node -e 0` and mcporter's cold call.
//
//   node bench/server-call.mjs [--runs 15] [--warmup 2] [--json]
import { join } from 'node:path';
import { installTools } from '../scripts/install-tools.mjs';
import { spawn, spawnSync } from 'node:child_process';
import { setTimeout as delay } from 'node:timers/promises';
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
    ...roundOptions({ runs: 15, warmup: 2, minWarmup: 1 }),
  },
  'Usage: node bench/server-call.mjs [options]\n\nwallet --server <stdio server> <tool> against mcporter call --stdio, same server and tool.',
);

const NODE = process.execPath;
// mcporter lives in bench/tools/, out of the wallet's install (its package asks for Node >= 24).
installTools(join(ROOT, 'bench', 'tools'), 'mcporter, the baseline of this bench');
const MCPORTER = join(ROOT, 'bench', 'tools', 'node_modules', 'mcporter', 'dist', 'cli.js');
const RAW = join(ROOT, 'bench', 'lib', 'raw-call.mjs');
const EVERYTHING = join(ROOT, 'node_modules', '@modelcontextprotocol', 'server-everything', 'dist', 'index.js');
const ADDRESS = 'yRd4FhXfVGHXpsuZXPNkMrfD9GVj46pnjt';

const home = temporaryDirectory('wallet-bench-server-call-');
process.on('exit', () => home.remove());
const env = walletEnv(home.path);
const probe = await run(NODE, [MCPORTER, '--version'], { env });
if (probe.code !== 0) fail(`mcporter does not run here (bench/tools/, installed above):\n${probe.stderr}`);
const mcporterVersion = probe.stdout.trim();

// Each server: its command line (for all three clients), then one tool with its arguments.
const SERVERS = [
  {
    name: 'server-everything',
    server: `${NODE} ${EVERYTHING} stdio`,
    tool: 'echo',
    arguments: { message: 'hi' },
    walletArgs: ['echo', '--message', 'hi'],
    saved: 'warm-everything',
  },
  {
    name: 'wallet serve',
    server: `${NODE} ${WALLET_BIN} serve`,
    tool: 'core_address_validate',
    arguments: { address: ADDRESS },
    walletArgs: ['core-address-validate', '--address', ADDRESS],
    saved: 'warm-serve',
  },
];
const AIM = 0.5;
// The warm call's aims (issue 39): against `node -e 0`, and against mcporter's cold call.
const WARM_AIM_NODE = 1.2;
const WARM_AIM = 0.15;
const NODE_ROW = { name: 'node -e 0', server: null, args: ['-e', '0'], expect: /^$/ };
const COMMANDS = [
  NODE_ROW,
  ...SERVERS.flatMap((target) => [
    {
      name: `mcporter call · ${target.name}`,
      server: target.name,
      baseline: true,
      args: [MCPORTER, 'call', '--stdio', target.server, target.tool, '--args', JSON.stringify(target.arguments)],
    },
    {
      name: `wallet --server · ${target.name}`,
      server: target.name,
      aim: AIM,
      args: [WALLET_BIN, '--server', target.server, ...target.walletArgs],
    },
    {
      name: `raw JSON-RPC · ${target.name}`,
      server: target.name,
      args: [RAW, target.server, target.tool, JSON.stringify(target.arguments)],
    },
    {
      name: `wallet --server (kept alive) · ${target.name}`,
      server: target.name,
      aim: WARM_AIM,
      aimNode: WARM_AIM_NODE,
      warm: target.saved,
      args: [WALLET_BIN, '--server', target.saved, ...target.walletArgs],
    },
  ]),
];

/**
 * One run: milliseconds from spawn to 'close' (exited, stdout and stderr drained). Then, not
 * timed, until every process it started has ended (a server still exiting after its client, as
 * mcporter's and a direct call's do): the next command starts on a machine as quiet as a
 * person's next command would, not beside the last one's leftovers, which on two cores cost
 * most to the command that needs more than one process (the kept-alive call: client, daemon and
 * server). Each command runs in a process group of its own; the daemon detaches from it.
 */
async function timeOnce(command) {
  let group;
  try {
    return await new Promise((resolve, reject) => {
      const started = process.hrtime.bigint();
      const child = spawn(NODE, command.args, { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
      group = child.pid;
      let stdout = '';
      let stderr = '';
      child.stdout.setEncoding('utf8').on('data', (chunk) => (stdout += chunk));
      child.stderr.setEncoding('utf8').on('data', (chunk) => (stderr = (stderr + chunk).slice(-4096)));
      child.on('error', reject);
      child.on('close', (code, signal) => {
        const ms = Number(process.hrtime.bigint() - started) / 1e6;
        if (code !== 0) reject(new Error(`${command.name} exited ${code ?? signal}:\n${stderr}`));
        else if (!(command.expect ?? /hi|valid/).test(stdout))
          reject(new Error(`${command.name} printed no answer:\n${stdout}`));
        else resolve(ms);
      });
    });
  } finally {
    if (group !== undefined) await groupEnded(group);
  }
}

/** Waits until no process of process group `group` is left (5 s at most). */
async function groupEnded(group) {
  for (const deadline = Date.now() + 5000; Date.now() < deadline; await delay(5)) {
    try {
      process.kill(-group, 0);
    } catch {
      return;
    }
  }
}

// The kept-alive servers: saved under a name with --keep-alive. The first warm-up round's call
// starts the daemon (and is made directly); once it listens, every call of theirs is warm.
for (const target of SERVERS) {
  const added = await run(
    NODE,
    [WALLET_BIN, 'servers', 'add', target.saved, '--server', target.server, '--keep-alive'],
    {
      env,
    },
  );
  if (added.code !== 0) fail(`wallet servers add ${target.saved} failed:\n${added.stderr}`);
}
// Before the temp dir goes (its 'exit' handler was added first): the daemon's socket is in it.
process.prependListener('exit', () => spawnSync(NODE, [WALLET_BIN, 'daemon', 'stop'], { env, stdio: 'ignore' }));
await timeOnce(COMMANDS.find((command) => command.warm !== undefined));
if (!(await daemonListens())) fail("the kept-alive servers' daemon did not start within 30 s");

/** Whether `wallet daemon status` says it runs, asked until it does (30 s at most). */
async function daemonListens() {
  for (const deadline = Date.now() + 30_000; Date.now() < deadline; await delay(100)) {
    const status = await run(NODE, [WALLET_BIN, 'daemon', 'status', '--json'], { env });
    if (status.code === 0 && JSON.parse(status.stdout).running === true) return true;
  }
  return false;
}

const samples = new Map(COMMANDS.map((command) => [command, []]));
try {
  for (let round = 0; round < options.warmup + options.runs; round++) {
    for (const command of roundOrder(COMMANDS, round)) {
      const ms = await timeOnce(command);
      if (round >= options.warmup) samples.get(command).push(ms);
    }
  }
} catch (error) {
  fail(error.message);
}

const nodeMedian = summarize(samples.get(NODE_ROW)).median;
const results = COMMANDS.map((command) => {
  const stats = summarize(samples.get(command));
  const baselineRow = COMMANDS.find((other) => other.baseline && other.server === command.server);
  const ratio = baselineRow ? stats.median / summarize(samples.get(baselineRow)).median : null;
  const ratioToNode = stats.median / nodeMedian;
  return {
    name: command.name,
    server: command.server,
    commandLine: commandLine(['node', ...command.args.map((arg) => arg.replaceAll(`${ROOT}/`, ''))], {
      WALLET_HOME: '$WALLET_HOME',
    }),
    medianMs: fixed(stats.median, 1),
    p90Ms: fixed(stats.p90, 1),
    minMs: fixed(stats.min, 1),
    ratio: ratio === null ? null : fixed(ratio, 2),
    ratioToNode: fixed(ratioToNode, 2),
    aim: command.aim ?? null,
    aimNode: command.aimNode ?? null,
    meetsAim:
      command.aim === undefined
        ? null
        : ratio <= command.aim && (command.aimNode === undefined || ratioToNode <= command.aimNode),
    samplesMs: samples.get(command).map((ms) => fixed(ms, 2)),
  };
});
const info = machine();

if (options.json) {
  process.stdout.write(
    `${JSON.stringify({ benchmark: 'server-call', machine: info, mcporter: mcporterVersion, runs: options.runs, warmup: options.warmup, results }, null, 2)}\n`,
  );
} else {
  const verdict = (result) => {
    if (result.aim === null) return result.name.startsWith('mcporter') ? 'baseline' : '—';
    const node = result.aimNode === null ? '' : `≤ ${result.aimNode}× node -e 0, `;
    return `${node}≤ ${result.aim}× mcporter ${result.meetsAim ? 'met' : 'NOT met'}`;
  };
  const lines = [
    'One tool call on a stdio MCP server: wall time spawn → exit, stdout/stderr piped and drained',
    ...machineLines(info),
    `mcporter ${mcporterVersion}; ${options.runs} measured rounds after ${options.warmup} warm-up rounds (they fill`,
    "wallet's tool-list cache, as a first call does); each round runs every command once, order shuffled",
    '',
    table(
      ['command', 'median ms', 'p90 ms', 'min ms', 'ratio to mcporter', 'to node -e 0', 'aim'],
      results.map((result) => [
        result.name,
        result.medianMs,
        result.p90Ms,
        result.minMs,
        result.ratio === null ? '—' : `${result.ratio.toFixed(2)}×`,
        `${result.ratioToNode.toFixed(2)}×`,
        verdict(result),
      ]),
      { align: 'lrrrrrl' },
    ),
    '',
    `Aims (the issues): wallet --server ≤ ${AIM}× mcporter's call of the same tool on the same server;`,
    `kept alive (issue 39: saved with --keep-alive, the daemon running) ≤ ${WARM_AIM_NODE}× node -e 0 and ≤ ${WARM_AIM}× mcporter.`,
    '',
    'Command lines (cwd: the repository; $WALLET_HOME: an empty temp dir):',
    ...results.map((result) => `  ${result.commandLine}`),
  ];
  process.stdout.write(`${lines.join('\n')}\n`);
}
