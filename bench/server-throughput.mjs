// `tools/call` requests per second over stdio, `wallet serve` against bench/minimal-server.mjs (the
// same SDK, one trivial tool) measured in the same run, with 1 and with 32 requests in flight; and
// the resident memory of both server processes. The client is raw newline-delimited JSON-RPC
// (bench/lib/jsonrpc.mjs), the same for both servers, so the difference is the servers'.
//
//   node bench/server-throughput.mjs [--calls 5000] [--trials 5] [--warmup 2000] [--concurrency 1,32] [--json]
import { join } from 'node:path';
import { setInterval, clearInterval } from 'node:timers';
import { setTimeout as delay } from 'node:timers/promises';
import { ROOT, WALLET_BIN, fail, memoryOf, startBench, temporaryDirectory, walletEnv } from './lib/common.mjs';
import { commandLine, fixed, machine, machineLines, summarize, table } from './lib/report.mjs';
import { DEFAULT_PROTOCOL_VERSION, StdioPeer } from './lib/jsonrpc.mjs';

const AIM_OVERHEAD_PERCENT = 20;
const BATCH_TIMEOUT_MS = 120_000;

const options = await startBench(
  {
    calls: { type: 'integer', default: 5000, env: 'BENCH_CALLS', help: 'calls per trial, per server and concurrency' },
    trials: { type: 'integer', default: 5, env: 'BENCH_TRIALS', help: 'trials per server and concurrency' },
    warmup: { type: 'integer', default: 2000, min: 0, env: 'BENCH_WARMUP_CALLS', help: 'warm-up calls per server' },
    concurrency: { type: 'integers', default: [1, 32], help: 'requests in flight, comma-separated' },
    tool: { type: 'string', default: 'network_info', help: 'the wallet tool to call (read-only, no network I/O)' },
    arguments: { type: 'string', default: '{}', help: "the tool's arguments, a JSON object" },
    minimal: {
      type: 'string',
      default: 'serve-stdio',
      choices: ['serve-stdio', 'connect'],
      help: "the baseline's entry: serveStdio (as wallet serve) or McpServer.connect",
    },
    'protocol-version': { type: 'string', default: DEFAULT_PROTOCOL_VERSION, help: 'the initialize protocol version' },
  },
  'Usage: node bench/server-throughput.mjs [options]\n\ntools/call per second over stdio: wallet serve against a minimal SDK server.',
);

let toolArguments;
try {
  toolArguments = JSON.parse(options.arguments);
} catch {
  fail(`--arguments is not JSON: ${options.arguments}`);
}

const NODE = process.execPath;
const home = temporaryDirectory('wallet-bench-serve-');
process.on('exit', () => home.remove());
const env = walletEnv(home.path);

const subjects = [
  {
    label: 'minimal SDK server',
    args: [join(ROOT, 'bench', 'minimal-server.mjs'), ...(options.minimal === 'connect' ? ['--connect'] : [])],
    env: process.env,
    tool: 'ping_reply_get',
    arguments: {},
  },
  { label: 'wallet serve', args: [WALLET_BIN, 'serve'], env, tool: options.tool, arguments: toolArguments },
];
const [minimal, wallet] = subjects;

/** Times `total` calls with `concurrency` in flight; resolves with seconds, latencies and response bytes. */
async function batch(subject, total, concurrency) {
  const latencies = [];
  let sent = 0;
  let responseBytes = 0;
  const params = { name: subject.tool, arguments: subject.arguments };
  const worker = async () => {
    while (sent < total) {
      sent += 1;
      const started = process.hrtime.bigint();
      const { message, bytes } = await subject.peer.request('tools/call', params);
      latencies.push(Number(process.hrtime.bigint() - started) / 1e6);
      if (message.result?.isError) {
        throw new Error(`${subject.label}: ${subject.tool} failed: ${JSON.stringify(message.result.content)}`);
      }
      responseBytes = bytes;
    }
  };
  const started = process.hrtime.bigint();
  const work = Promise.all(Array.from({ length: Math.min(concurrency, total) }, worker));
  const timedOut = delay(BATCH_TIMEOUT_MS, 'timeout', { ref: false });
  if ((await Promise.race([work, timedOut])) === 'timeout') {
    throw new Error(`${subject.label} did not answer ${total} calls within ${BATCH_TIMEOUT_MS / 1000} s`);
  }
  return { seconds: Number(process.hrtime.bigint() - started) / 1e9, latencies, responseBytes };
}

const peakSampledKiB = new Map();
let sampler;
let failure;
try {
  for (const subject of subjects) {
    subject.peer = new StdioPeer(subject.label, NODE, subject.args, { env: subject.env, cwd: ROOT });
    const started = process.hrtime.bigint();
    await subject.peer.initialize(options['protocol-version']);
    subject.initializeMs = Number(process.hrtime.bigint() - started) / 1e6;
    const { tools } = await subject.peer.listTools();
    const tool = tools.find((candidate) => candidate.name === subject.tool);
    if (!tool)
      throw new Error(`${subject.label} has no tool ${subject.tool}; it has ${tools.map((t) => t.name).join(', ')}`);
    const hints = tool.annotations ?? {};
    if (hints.readOnlyHint !== true || hints.openWorldHint !== false) {
      throw new Error(
        `${subject.tool} is not read-only and closed-world (annotations ${JSON.stringify(hints)}): pick another`,
      );
    }
    subject.idle = memoryOf(subject.peer.pid);
  }
  sampler = setInterval(() => {
    for (const subject of subjects) {
      const rss = memoryOf(subject.peer.pid)?.rssKiB ?? 0;
      peakSampledKiB.set(subject, Math.max(peakSampledKiB.get(subject) ?? 0, rss));
    }
  }, 20);
  const warmupConcurrency = Math.max(...options.concurrency);
  for (const subject of subjects) if (options.warmup > 0) await batch(subject, options.warmup, warmupConcurrency);

  for (const subject of subjects) subject.results = new Map(options.concurrency.map((c) => [c, []]));
  for (const concurrency of options.concurrency) {
    for (let trial = 0; trial < options.trials; trial++) {
      // Alternate which server goes first, so drift and the neighbour's leftovers hit both alike.
      for (const subject of trial % 2 === 0 ? subjects : [...subjects].reverse()) {
        subject.results.get(concurrency).push(await batch(subject, options.calls, concurrency));
      }
    }
  }
  for (const subject of subjects) {
    subject.peak = memoryOf(subject.peer.pid);
    subject.peakSampledKiB = peakSampledKiB.get(subject);
  }
} catch (error) {
  failure = error;
} finally {
  clearInterval(sampler);
  for (const subject of subjects) if (subject.peer) subject.closed = await subject.peer.close();
}
if (failure) fail(failure.message);

const mib = (kib) => fixed(kib / 1024, 1);
const rows = options.concurrency.map((concurrency) => {
  const figures = Object.fromEntries(
    subjects.map((subject) => {
      const trials = subject.results.get(concurrency);
      const rates = summarize(trials.map(({ seconds }) => options.calls / seconds));
      const latency = summarize(trials.flatMap(({ latencies }) => latencies));
      return [
        subject === wallet ? 'wallet' : 'minimal',
        {
          reqPerSecMedian: fixed(rates.median, 0),
          reqPerSecMin: fixed(rates.min, 0),
          reqPerSecMax: fixed(rates.max, 0),
          latencyMedianMs: fixed(latency.median, 3),
          latencyP90Ms: fixed(latency.p90, 3),
          responseBytes: trials[0].responseBytes,
          reqPerSecTrials: trials.map(({ seconds }) => fixed(options.calls / seconds, 0)),
        },
      ];
    }),
  );
  const ratio = figures.wallet.reqPerSecMedian / figures.minimal.reqPerSecMedian;
  const overheadPercent = (1 / ratio - 1) * 100;
  return {
    concurrency,
    ...figures,
    ratio: fixed(ratio, 3),
    overheadPercent: fixed(overheadPercent, 1),
    meetsAim: overheadPercent <= AIM_OVERHEAD_PERCENT,
  };
});
const memory = Object.fromEntries(
  subjects.map((subject) => [
    subject === wallet ? 'wallet' : 'minimal',
    {
      idleRssMiB: mib(subject.idle?.rssKiB),
      peakRssMiB: mib(subject.peak?.hwmKiB),
      peakSampledRssMiB: mib(subject.peakSampledKiB),
      initializeMs: fixed(subject.initializeMs, 1),
    },
  ]),
);
const rssOverheadPercent = fixed((memory.wallet.peakRssMiB / memory.minimal.peakRssMiB - 1) * 100, 1);
const lines = (subject) => commandLine(['node', ...subject.args.map((arg) => arg.replace(`${ROOT}/`, ''))]);
const info = machine();
const report = {
  benchmark: 'server-throughput',
  machine: info,
  settings: {
    calls: options.calls,
    trials: options.trials,
    warmup: options.warmup,
    concurrency: options.concurrency,
    protocolVersion: options['protocol-version'],
  },
  servers: {
    minimal: { commandLine: lines(minimal), tool: minimal.tool, arguments: minimal.arguments, exit: minimal.closed },
    wallet: {
      commandLine: `WALLET_HOME=$WALLET_HOME ${lines(wallet)}`,
      tool: wallet.tool,
      arguments: wallet.arguments,
      exit: wallet.closed,
    },
  },
  throughput: rows,
  memory: { ...memory, rssOverheadPercent },
  aimOverheadPercent: AIM_OVERHEAD_PERCENT,
};

if (options.json) {
  process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
} else {
  const aim = (met) => `≤ ${AIM_OVERHEAD_PERCENT}% ${met ? 'met' : 'NOT met'}`;
  const out = [
    'MCP server throughput: tools/call over stdio, raw JSON-RPC client, after initialize + notifications/initialized',
    ...machineLines(info),
    `${options.trials} trials × ${options.calls} calls per server and concurrency, after ${options.warmup} warm-up calls; servers alternate within each trial pair`,
    '',
    table(
      [
        'in flight',
        'server',
        'tool',
        'req/s median',
        'req/s min–max',
        'latency median ms',
        'latency p90 ms',
        'response B',
        'wallet/minimal',
        'overhead',
        'aim',
      ],
      rows.flatMap((row) =>
        [minimal, wallet].map((subject) => {
          const key = subject === wallet ? 'wallet' : 'minimal';
          const figures = row[key];
          const isWallet = subject === wallet;
          return [
            String(row.concurrency),
            key,
            subject.tool,
            figures.reqPerSecMedian.toFixed(0),
            `${figures.reqPerSecMin.toFixed(0)}–${figures.reqPerSecMax.toFixed(0)}`,
            figures.latencyMedianMs.toFixed(3),
            figures.latencyP90Ms.toFixed(3),
            String(figures.responseBytes),
            isWallet ? `${row.ratio.toFixed(2)}×` : '',
            isWallet ? `${row.overheadPercent.toFixed(1)}%` : '',
            isWallet ? aim(row.meetsAim) : '',
          ];
        }),
      ),
      { align: 'rllrrrrrrrl' },
    ),
    '',
    table(
      ['memory', 'RSS after initialize MiB', 'peak RSS (VmHWM) MiB', 'peak sampled VmRSS MiB', 'initialize ms'],
      ['minimal', 'wallet'].map((key) => [
        key,
        memory[key].idleRssMiB,
        memory[key].peakRssMiB,
        memory[key].peakSampledRssMiB,
        memory[key].initializeMs,
      ]),
    ),
    `peak RSS overhead (wallet vs minimal): ${rssOverheadPercent.toFixed(1)}%`,
    '',
    `Overhead = req/s(minimal) / req/s(wallet) − 1: the extra time per call. Aim (the issue): ≤ ${AIM_OVERHEAD_PERCENT}%.`,
    'Initialize ms is spawn → initialize answered (process start-up included), one sample: indicative only.',
    '',
    'Command lines (cwd: the repository; $WALLET_HOME: an empty temp dir):',
    `  ${report.servers.minimal.commandLine}    tools/call ${minimal.tool} ${JSON.stringify(minimal.arguments)}`,
    `  ${report.servers.wallet.commandLine}    tools/call ${wallet.tool} ${JSON.stringify(wallet.arguments)}`,
  ];
  for (const subject of subjects) {
    if (!subject.closed?.exitedOnStdinClose) out.push(`warning: ${subject.label} did not exit when stdin closed`);
  }
  process.stdout.write(`${out.join('\n')}\n`);
}
