// Server CPU per `tools/call` of a cheap read-only tool: `wallet serve --http` (a 2026-07-28
// stateless client and a 2025-era session) against `wallet serve` over stdio, in the same run.
// The client is the MCP SDK's own (its CPU is not counted): what is compared is the server
// process's user+system CPU time (/proc/<pid>/stat) over the calls, divided by the calls.
// Aim (issue 19): HTTP at most 3× stdio's CPU per call.
//
//   npm run build && node bench/http-throughput.mjs [--calls 2000] [--trials 3] [--json]
import { readFileSync } from 'node:fs';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { spawn } from 'node:child_process';
import { WALLET_BIN, fail, startBench, temporaryDirectory, walletEnv } from './lib/common.mjs';
import { fixed, machine, machineLines, summarize, table } from './lib/report.mjs';

const AIM_RATIO = 3;
const options = await startBench(
  {
    calls: { type: 'integer', default: 2000, env: 'BENCH_CALLS', help: 'calls per trial and transport' },
    trials: { type: 'integer', default: 3, env: 'BENCH_TRIALS', help: 'trials per transport' },
    warmup: { type: 'integer', default: 500, min: 0, help: 'untimed calls per transport first' },
  },
  'Usage: node bench/http-throughput.mjs [options]\n\nServer CPU per call: serve --http against serve over stdio.',
);
if (process.platform !== 'linux') fail('bench/http-throughput.mjs reads /proc: Linux only.');

const home = temporaryDirectory('wallet-bench-http-');
process.on('exit', () => home.remove());
const env = walletEnv(home.path);
const TICKS_PER_SECOND = 100;
const CALL = { name: 'core_address_validate', arguments: { address: 'yRd4FhXfVGHXpsuZXPNkMrfD9GVj46pnjt' } };

/** User + system CPU of a process, in µs (clock ticks of 10 ms: measure many calls). */
function cpuMicros(pid) {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return ((Number(fields[11]) + Number(fields[12])) * 1e6) / TICKS_PER_SECOND;
}

async function startHttp() {
  const child = spawn(
    process.execPath,
    [WALLET_BIN, 'serve', '--http', '--read-only', '--no-auth', '--listen', '127.0.0.1:0'],
    {
      env,
      stdio: ['ignore', 'ignore', 'pipe'],
    },
  );
  let stderr = '';
  const url = await new Promise((resolve, reject) => {
    child.stderr.setEncoding('utf8').on('data', (chunk) => {
      stderr += chunk;
      const match = /serving MCP at (\S+)/.exec(stderr);
      if (match) resolve(match[1]);
    });
    child.once('exit', (code) => reject(new Error(`serve --http exited ${code}: ${stderr}`)));
  });
  return { pid: child.pid, url, stop: () => child.kill('SIGTERM') };
}

const subjects = [];
{
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [WALLET_BIN, 'serve'],
    env,
    stderr: 'ignore',
  });
  const client = new Client({ name: 'bench', version: '1' }, { versionNegotiation: { mode: 'legacy' } });
  await client.connect(transport);
  subjects.push({ label: 'stdio (2025-11-25 session)', client, pid: transport.pid, stop: () => client.close() });
}
const http = await startHttp();
for (const [label, mode] of [
  ['HTTP, 2026-07-28 stateless', 'auto'],
  ['HTTP, 2025-11-25 session', 'legacy'],
]) {
  const client = new Client({ name: 'bench', version: '1' }, { versionNegotiation: { mode } });
  await client.connect(new StreamableHTTPClientTransport(new URL(http.url)));
  subjects.push({
    label: `${label} (${client.getNegotiatedProtocolVersion()})`,
    client,
    pid: http.pid,
    stop: () => client.close(),
  });
}

async function calls(subject, count) {
  for (let index = 0; index < count; index++) {
    const result = await subject.client.callTool(CALL);
    if (result.isError) fail(`${subject.label}: ${JSON.stringify(result.content)}`);
  }
}

for (const subject of subjects) await calls(subject, options.warmup);
const samples = subjects.map(() => []);
for (let trial = 0; trial < options.trials; trial++) {
  for (const [index, subject] of subjects.entries()) {
    const before = cpuMicros(subject.pid);
    await calls(subject, options.calls);
    samples[index].push((cpuMicros(subject.pid) - before) / options.calls);
  }
}
for (const subject of subjects) await subject.stop();
http.stop();

const stats = samples.map((list) => summarize(list));
const baseline = stats[0].median;
const rows = subjects.map((subject, index) => ({
  transport: subject.label,
  cpuMicrosPerCall: stats[index].median,
  ratio: stats[index].median / baseline,
}));
if (options.json) {
  console.log(JSON.stringify({ machine: machine(), calls: options.calls, trials: options.trials, rows }, null, 2));
} else {
  console.log(machineLines(machine()).join('\n'));
  console.log(
    `\n${CALL.name}, ${options.calls} calls per trial, ${options.trials} trials; server CPU (user+system) per call, median of trials.\n`,
  );
  console.log(
    table(
      ['transport', 'server CPU µs/call', 'ratio', `aim ≤ ${AIM_RATIO}× stdio`],
      rows.map((row, index) => [
        row.transport,
        fixed(row.cpuMicrosPerCall, 0),
        `${fixed(row.ratio, 2)}×`,
        index === 0 ? 'baseline' : row.ratio <= AIM_RATIO ? 'met' : 'NOT met',
      ]),
    ),
  );
}
