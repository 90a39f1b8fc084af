// What the wallet's tool catalogue costs an agent's context: the bytes and tokens (OpenAI's
// o200k_base, from the gpt-tokenizer devDependency) of the `tools/list` result of `wallet serve`
// in each profile (full, the baseline; default; default --read-only; compact; compact
// --read-only), read over stdio as an agent reads it, per tool and in total, whole and
// model-visible, against the budgets of issue 18. Also enforces the summary limit: the MCP
// `description` of every tool is at most SUMMARY_MAX_LENGTH (60) characters; any longer (or
// missing) one is printed and the script exits 1.
//
//   node bench/context-cost.mjs [--json]
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { ROOT, WALLET_BIN, fail, startBench, temporaryDirectory, walletEnv } from './lib/common.mjs';
import { commandLine, machine, machineLines, table } from './lib/report.mjs';
import { StdioPeer } from './lib/jsonrpc.mjs';
import { encode } from 'gpt-tokenizer/encoding/o200k_base';

const options = await startBench(
  {},
  'Usage: node bench/context-cost.mjs [options]\n\nBytes and o200k tokens of the tools/list result of wallet serve in each profile.',
);

const summaryLimit = await summaryMaxLength();

// Tokens are counted with o200k_base (GPT-4o and later), the tokenizer of a model family agents
// use; other models' tokenizers (Claude's) differ by some percent, not by the order of magnitude.
const bytesOf = (value) => Buffer.byteLength(typeof value === 'string' ? value : JSON.stringify(value));
const tokensOf = (text) => encode(text).length;

/** The budgets of issue 18, per profile label: bytes per tool, model-visible bytes per tool, whole bytes. */
const BUDGETS = {
  'wallet serve': { perTool: 600, modelPerTool: 400 },
  'wallet serve --read-only': { perTool: 600, modelPerTool: 400 },
  'wallet serve --profile compact': { total: 4000, tools: 8 },
  'wallet serve --profile compact --read-only': { total: 4000, tools: 8 },
};

/** The summary limit of the build (dist/tools/catalogue.js), else the documented 60. */
async function summaryMaxLength() {
  const catalogue = join(ROOT, 'dist', 'tools', 'catalogue.js');
  if (existsSync(catalogue)) {
    try {
      const { SUMMARY_MAX_LENGTH } = await import(pathToFileURL(catalogue).href);
      if (Number.isInteger(SUMMARY_MAX_LENGTH)) return { value: SUMMARY_MAX_LENGTH, source: 'dist/tools/catalogue.js' };
    } catch {
      // A bundled build may not have this module: fall back to the documented value.
    }
  }
  return { value: 60, source: 'docs/ARCHITECTURE.md (dist/tools/catalogue.js not found)' };
}

/** One `wallet serve` variant: its initialize result and its whole tool list, over stdio. */
async function catalogueOf(args) {
  const home = temporaryDirectory('wallet-bench-context-');
  const peer = new StdioPeer(`wallet ${args.join(' ')}`, process.execPath, [WALLET_BIN, ...args], {
    env: walletEnv(home.path),
  });
  try {
    const initialize = await peer.initialize();
    const { tools, pages } = await peer.listTools();
    return { initialize, tools, pages };
  } finally {
    await peer.close();
    home.remove();
  }
}

function measureTool(tool) {
  const text = JSON.stringify(tool);
  // What most clients hand the model as the function definition: name, description, input schema.
  const modelFacing = JSON.stringify({
    name: tool.name,
    description: tool.description,
    input_schema: tool.inputSchema,
  });
  return {
    name: tool.name,
    bytes: bytesOf(text),
    tokens: tokensOf(text),
    summaryChars: typeof tool.description === 'string' ? tool.description.length : null,
    parts: {
      description: bytesOf(tool.description ?? ''),
      inputSchema: bytesOf(tool.inputSchema ?? {}),
      outputSchema: tool.outputSchema === undefined ? 0 : bytesOf(tool.outputSchema),
      meta: tool._meta === undefined ? 0 : bytesOf(tool._meta),
      annotations: tool.annotations === undefined ? 0 : bytesOf(tool.annotations),
    },
    modelFacingBytes: bytesOf(modelFacing),
    modelFacingTokens: tokensOf(modelFacing),
  };
}

function measureCatalogue(label, args, { initialize, tools, pages }) {
  // The tools and the cursor; not the SDK's own result _meta (the server's name and version).
  const text = JSON.stringify({ tools });
  const perTool = tools.map(measureTool).sort((a, b) => b.bytes - a.bytes || a.name.localeCompare(b.name));
  const sum = (pick) => perTool.reduce((total, tool) => total + pick(tool), 0);
  return {
    label,
    commandLine: commandLine(['node', 'bin/wallet.js', ...args], { WALLET_HOME: '$WALLET_HOME' }),
    toolCount: tools.length,
    pages: pages.length,
    total: {
      bytes: bytesOf(text),
      responseLineBytes: pages.reduce((total, page) => total + page.bytes, 0),
      tokens: tokensOf(text),
      modelFacingBytes: sum((tool) => tool.modelFacingBytes),
      modelFacingTokens: sum((tool) => tool.modelFacingTokens),
      parts: Object.fromEntries(
        Object.keys(perTool[0]?.parts ?? {}).map((part) => [part, sum((tool) => tool.parts[part])]),
      ),
    },
    instructionsBytes: bytesOf(initialize.instructions ?? ''),
    tools: perTool,
  };
}

let catalogues;
try {
  const variants = [
    ['wallet serve --profile full', ['serve', '--profile', 'full']],
    ['wallet serve', ['serve']],
    ['wallet serve --read-only', ['serve', '--read-only']],
    ['wallet serve --profile compact', ['serve', '--profile', 'compact']],
    ['wallet serve --profile compact --read-only', ['serve', '--profile', 'compact', '--read-only']],
  ];
  catalogues = [];
  for (const [label, args] of variants) catalogues.push(measureCatalogue(label, args, await catalogueOf(args)));
} catch (error) {
  fail(error.message);
}
const [full] = catalogues;

/** Each budget of a catalogue: what it is, the figure, met or not. */
function budgetChecks(catalogue) {
  const budget = BUDGETS[catalogue.label];
  if (!budget) return [];
  const checks = [];
  const perTool = catalogue.total.bytes / catalogue.toolCount;
  const modelPerTool = catalogue.total.modelFacingBytes / catalogue.toolCount;
  if (budget.perTool) checks.push(['bytes per tool', perTool, budget.perTool, perTool <= budget.perTool]);
  if (budget.modelPerTool)
    checks.push([
      'model-visible bytes per tool',
      modelPerTool,
      budget.modelPerTool,
      modelPerTool <= budget.modelPerTool,
    ]);
  if (budget.total)
    checks.push(['bytes in all', catalogue.total.bytes, budget.total, catalogue.total.bytes < budget.total]);
  if (budget.tools) checks.push(['tools', catalogue.toolCount, budget.tools, catalogue.toolCount <= budget.tools]);
  return checks;
}

const violations = [];
const seen = new Set();
for (const catalogue of catalogues) {
  for (const tool of catalogue.tools) {
    if (seen.has(tool.name)) continue;
    seen.add(tool.name);
    if (tool.summaryChars === null || tool.summaryChars === 0) {
      violations.push({ name: tool.name, problem: 'has no description (its summary)' });
    } else if (tool.summaryChars > summaryLimit.value) {
      violations.push({ name: tool.name, problem: `summary is ${tool.summaryChars} characters` });
    }
  }
}
const info = machine();

if (options.json) {
  const report = {
    benchmark: 'context-cost',
    machine: info,
    tokenizer: 'o200k_base (gpt-tokenizer)',
    summaryLimit,
    catalogues: catalogues.map((catalogue) => ({
      ...catalogue,
      shareOfFull: Number((catalogue.total.bytes / full.total.bytes).toFixed(3)),
      budgets: budgetChecks(catalogue).map(([what, value, limit, met]) => ({ what, value, limit, met })),
    })),
    summaryViolations: violations,
  };
  process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
} else {
  const out = [
    'Context cost of the tool catalogue: tools/list over stdio (initialize 2025-11-25), bytes of compact JSON of {tools}',
    ...machineLines(info),
    "Tokens: o200k_base (gpt-tokenizer), the tokenizer of GPT-4o and later; other models' tokenizers differ by some percent.",
    '"model" = JSON of {name, description, input_schema}: what most clients pass to the model per tool.',
  ];
  for (const catalogue of catalogues) {
    out.push(
      '',
      `${catalogue.label}: ${catalogue.toolCount} tools, ${catalogue.total.bytes} bytes, ${catalogue.total.tokens} tokens (${((catalogue.total.bytes / full.total.bytes) * 100).toFixed(1)}% of the full profile's bytes) in ${catalogue.pages} page(s); initialize instructions ${catalogue.instructionsBytes} bytes`,
      table(
        ['#', 'tool', 'bytes', 'tokens', 'summary', 'input B', 'output B', '_meta B', 'model B', 'model tok'],
        [
          ...catalogue.tools.map((tool, index) => [
            index + 1,
            tool.name,
            tool.bytes,
            tool.tokens,
            tool.summaryChars ?? '-',
            tool.parts.inputSchema,
            tool.parts.outputSchema,
            tool.parts.meta,
            tool.modelFacingBytes,
            tool.modelFacingTokens,
          ]),
          [
            '',
            'total (the tools/list result)',
            catalogue.total.bytes,
            catalogue.total.tokens,
            '',
            catalogue.total.parts.inputSchema,
            catalogue.total.parts.outputSchema,
            catalogue.total.parts.meta,
            catalogue.total.modelFacingBytes,
            catalogue.total.modelFacingTokens,
          ],
        ],
        { align: 'rlrrrrrrrr', digits: 0 },
      ),
      `where the bytes are: ${Object.entries(catalogue.total.parts)
        .map(([part, bytes]) => `${part} ${bytes} (${((bytes / catalogue.total.bytes) * 100).toFixed(0)}%)`)
        .join(', ')}; the rest is names, titles and JSON punctuation`,
      `per tool: ${(catalogue.total.bytes / catalogue.toolCount).toFixed(0)} bytes, ${(catalogue.total.tokens / catalogue.toolCount).toFixed(0)} tokens; model-visible ${catalogue.total.modelFacingBytes} bytes, ${catalogue.total.modelFacingTokens} tokens (${(catalogue.total.modelFacingBytes / catalogue.toolCount).toFixed(0)} bytes, ${(catalogue.total.modelFacingTokens / catalogue.toolCount).toFixed(0)} tokens per tool)`,
      ...budgetChecks(catalogue).map(
        ([what, value, limit, met]) => `budget: ${what} ${value.toFixed(0)} (aim ${limit}): ${met ? 'met' : 'NOT met'}`,
      ),
    );
  }
  out.push(
    '',
    `summary limit: ${summaryLimit.value} characters (from ${summaryLimit.source}); ${violations.length === 0 ? 'every summary is within it' : `${violations.length} violation(s):`}`,
    ...violations.map((violation) => `  VIOLATION ${violation.name}: ${violation.problem}`),
    '',
    'Command lines (cwd: the repository; $WALLET_HOME: an empty temp dir):',
    ...catalogues.map((catalogue) => `  ${catalogue.commandLine}    initialize, notifications/initialized, tools/list`),
  );
  process.stdout.write(`${out.join('\n')}\n`);
}
process.exitCode = violations.length > 0 ? 1 : 0;
