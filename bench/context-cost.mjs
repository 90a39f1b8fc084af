// What the wallet's tool catalogue costs an agent's context: the bytes (and estimated tokens) of
// the `tools/list` result of `wallet serve` and of `wallet serve --read-only`, read over stdio as
// an agent reads it, per tool and in total. Also enforces the summary limit: the MCP
// `description` of every tool is its summary, at most SUMMARY_MAX_LENGTH (60) characters; any
// longer (or missing) one is printed and the script exits 1.
//
//   node bench/context-cost.mjs [--json]
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import {
  ROOT,
  WALLET_BIN,
  commandLine,
  fail,
  machine,
  machineLines,
  readOptions,
  requireBuild,
  table,
  temporaryDirectory,
  walletEnv,
} from './lib/common.mjs';
import { StdioPeer } from './lib/jsonrpc.mjs';

const options = readOptions(
  { json: { type: 'boolean', help: 'print the figures as JSON instead of text' } },
  'Usage: node bench/context-cost.mjs [options]\n\nBytes and estimated tokens of the tools/list result of wallet serve (and --read-only).',
);
await requireBuild();

const summaryLimit = await summaryMaxLength();

// Token estimates. No model's tokenizer ships with this repository, so two honest approximations:
// - bytes / 4: the usual rule of thumb for English prose; JSON's punctuation and short keys
//   tokenize differently, so read it as an order of magnitude, not a count.
// - pieces: the text split by the pre-tokenizer pattern of OpenAI's cl100k_base. BPE never merges
//   across pieces, so each piece is at least one token: a lower bound for cl100k_base. Other
//   tokenizers (Claude's, o200k) split differently; read it as an estimate for them.
const CL100K_PIECES =
  /'(?:[sdmt]|ll|ve|re)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+/giu;
const bytesOf = (value) => Buffer.byteLength(typeof value === 'string' ? value : JSON.stringify(value));
const tokensByBytes = (text) => Math.ceil(Buffer.byteLength(text) / 4);
const tokensByPieces = (text) => text.match(CL100K_PIECES)?.length ?? 0;

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
    tokensBytes4: tokensByBytes(text),
    tokensPieces: tokensByPieces(text),
    summaryChars: typeof tool.description === 'string' ? tool.description.length : null,
    parts: {
      description: bytesOf(tool.description ?? ''),
      inputSchema: bytesOf(tool.inputSchema ?? {}),
      outputSchema: tool.outputSchema === undefined ? 0 : bytesOf(tool.outputSchema),
      meta: tool._meta === undefined ? 0 : bytesOf(tool._meta),
      annotations: tool.annotations === undefined ? 0 : bytesOf(tool.annotations),
    },
    modelFacingBytes: bytesOf(modelFacing),
    modelFacingTokensPieces: tokensByPieces(modelFacing),
  };
}

function measureCatalogue(label, args, { initialize, tools, pages }) {
  const result = pages.length === 1 ? pages[0].result : { tools };
  const text = JSON.stringify(result);
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
      tokensBytes4: tokensByBytes(text),
      tokensPieces: tokensByPieces(text),
      modelFacingBytes: sum((tool) => tool.modelFacingBytes),
      modelFacingTokensPieces: sum((tool) => tool.modelFacingTokensPieces),
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
    ['wallet serve', ['serve']],
    ['wallet serve --read-only', ['serve', '--read-only']],
  ];
  catalogues = [];
  for (const [label, args] of variants) catalogues.push(measureCatalogue(label, args, await catalogueOf(args)));
} catch (error) {
  fail(error.message);
}
const [full, readOnly] = catalogues;

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
const readOnlyShare = readOnly.total.bytes / full.total.bytes;
const info = machine();

if (options.json) {
  const report = {
    benchmark: 'context-cost',
    machine: info,
    tokenEstimators: {
      tokensBytes4: 'ceil(bytes / 4), the rule of thumb for English prose',
      tokensPieces: "pieces of cl100k_base's pre-tokenizer split: a lower bound for cl100k_base",
    },
    summaryLimit,
    catalogues,
    readOnlyBytesShare: Number(readOnlyShare.toFixed(3)),
    summaryViolations: violations,
  };
  process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
} else {
  const out = [
    'Context cost of the tool catalogue: tools/list over stdio (initialize 2025-11-25), bytes of compact JSON',
    ...machineLines(info),
    'Tokens are estimates: "≈tok" = bytes/4 (the rule of thumb for prose, not calibrated on JSON); "≥tok" = pieces of',
    "cl100k_base's pre-tokenizer split, a lower bound for that tokenizer (other models' tokenizers differ).",
    '"model B" = JSON of {name, description, input_schema}: what most clients pass to the model per tool.',
  ];
  for (const catalogue of catalogues) {
    out.push(
      '',
      `${catalogue.label}: ${catalogue.toolCount} tools, ${catalogue.total.bytes} bytes (≈${catalogue.total.tokensBytes4} / ≥${catalogue.total.tokensPieces} tokens) in ${catalogue.pages} page(s); initialize instructions ${catalogue.instructionsBytes} bytes`,
      table(
        ['#', 'tool', 'bytes', '≈tok', '≥tok', 'summary', 'input B', 'output B', '_meta B', 'model B'],
        [
          ...catalogue.tools.map((tool, index) => [
            index + 1,
            tool.name,
            tool.bytes,
            tool.tokensBytes4,
            tool.tokensPieces,
            tool.summaryChars ?? '-',
            tool.parts.inputSchema,
            tool.parts.outputSchema,
            tool.parts.meta,
            tool.modelFacingBytes,
          ]),
          [
            '',
            'total (the tools/list result)',
            catalogue.total.bytes,
            catalogue.total.tokensBytes4,
            catalogue.total.tokensPieces,
            '',
            catalogue.total.parts.inputSchema,
            catalogue.total.parts.outputSchema,
            catalogue.total.parts.meta,
            catalogue.total.modelFacingBytes,
          ],
        ],
        { align: 'rlrrrrrrrr', digits: 0 },
      ),
      `where the bytes are: ${Object.entries(catalogue.total.parts)
        .map(([part, bytes]) => `${part} ${bytes} (${((bytes / catalogue.total.bytes) * 100).toFixed(0)}%)`)
        .join(', ')}; the rest is names, titles and JSON punctuation`,
      `model-facing part: ${catalogue.total.modelFacingBytes} bytes, ≥${catalogue.total.modelFacingTokensPieces} tokens`,
    );
  }
  out.push(
    '',
    `read-only vs full (baseline): ${(readOnlyShare * 100).toFixed(1)}% of the bytes (${readOnly.toolCount} of ${full.toolCount} tools)`,
    `summary limit: ${summaryLimit.value} characters (from ${summaryLimit.source}); ${violations.length === 0 ? 'every summary is within it' : `${violations.length} violation(s):`}`,
    ...violations.map((violation) => `  VIOLATION ${violation.name}: ${violation.problem}`),
    '',
    'Command lines (cwd: the repository; $WALLET_HOME: an empty temp dir):',
    ...catalogues.map((catalogue) => `  ${catalogue.commandLine}    initialize, notifications/initialized, tools/list`),
  );
  process.stdout.write(`${out.join('\n')}\n`);
}
process.exitCode = violations.length > 0 ? 1 : 0;
