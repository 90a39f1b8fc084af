/**
 * Secret-shaped text in every string field of every tool that signs or deletes never comes back
 * out: not in audit.log, not on stdout or stderr (the CLI's, or `wallet serve`'s log at debug
 * level), not in a tool result, not in an error. The secrets are real ones of each kind a caller
 * may paste into the wrong field: a 64-hex private key with and without 0x, WIFs for Dash mainnet
 * and testnet, an xprv and a tprv, 12- and 24-word BIP39 phrases.
 *
 * The tools come from the catalogue (every destructiveHint tool, plus the two message signers);
 * the fields from each tool's input schema, and for an object field (typed_data) every string
 * inside a valid value. Each call puts one secret into one field, the other arguments valid (a
 * wallet with anvil's funded account, a real anvil, a real unsigned and signed transaction), so
 * calls get as far as the secret lets them. Two surfaces: `wallet serve` spawned over stdio with
 * a real SDK client, and the CLI (runCli in-process, with --yes). The assertions do not depend on
 * how a call ends (a refusal, an approval asked for, a success): only on where the secret goes.
 * A call that succeeds may hand back what it was asked to sign under the same name (message,
 * data), and nothing else.
 *
 * Seeded: SECRET_FUZZ_SEED=<n> replays a run (the seed picks the secrets and which go where).
 */
import assert from 'node:assert/strict';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it, type TestContext } from 'node:test';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { HDKey } from '@scure/bip32';
import { entropyToMnemonic } from '@scure/bip39';
import { wordlist } from '@scure/bip39/wordlists/english.js';
import fc from 'fast-check';
import { z } from 'zod';
import { runCli } from '../../src/cli/main.js';
import { toWif } from '../../src/domain/dash/hd.js';
import { dashParams } from '../../src/domain/dash/params.js';
import { propertyToFlag, toolNameToCommand } from '../../src/shared/naming.js';
import { ALL_TOOLS, type AnyTool } from '../../src/tools/index.js';
import { ANVIL_FIRST_ACCOUNT, startAnvil, type AnvilNode } from '../helpers/anvil.js';
import { fakeIo, passphraseFileIn, tempHome } from '../helpers/io.js';
import { importAnvilAccount, localServer } from '../helpers/mcp.js';
import { WALLET_BIN } from '../helpers/paths.js';
import { seededRandom } from './seeded.js';

const SEED = secretFuzzSeed();
const PASSPHRASE = 'secret-fuzz keystore passphrase 9Qe';
const RECIPIENT = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8';
/** Runs per field: each draws a secret and how it is written. */
const RUNS_PER_FIELD = 2;
/** Tools that sign without being destructive (they move no value) but take a key all the same. */
const SIGNERS = ['evm_message_sign', 'core_message_sign'];

type Secret = { kind: string; text: string };
type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
/** Where a secret goes: a top-level field, or a string inside an object field's valid value. */
type Target = { path: readonly string[] };
type Fixture = { dashAddress: string; unsignedTx: string; signedTx: string };

const FUZZED: readonly AnyTool[] = ALL_TOOLS.filter(
  (tool) => tool.annotations.destructiveHint || SIGNERS.includes(tool.name),
);
const SECRETS = secretsFor(SEED);

function secretFuzzSeed(): number {
  const given = process.env['SECRET_FUZZ_SEED'];
  if (given !== undefined && /^\d+$/.test(given)) return Number(given);
  return 20_261_123;
}

/** One real secret of each kind, from the seed. */
function secretsFor(seed: number): Secret[] {
  const random = seededRandom(seed);
  const bytes = (length: number): Uint8Array => Uint8Array.from({ length }, () => Math.floor(random() * 256));
  const hex = (length: number): string => Buffer.from(bytes(length)).toString('hex');
  return [
    { kind: '64-hex key', text: hex(32) },
    { kind: '0x 64-hex key', text: `0x${hex(32)}` },
    { kind: 'WIF (mainnet)', text: toWif(bytes(32), 'mainnet') },
    { kind: 'WIF (testnet)', text: toWif(bytes(32), 'testnet') },
    { kind: 'xprv', text: HDKey.fromMasterSeed(bytes(32), dashParams('mainnet').bip32).privateExtendedKey },
    { kind: 'tprv', text: HDKey.fromMasterSeed(bytes(32), dashParams('testnet').bip32).privateExtendedKey },
    { kind: '12 words', text: entropyToMnemonic(bytes(16), wordlist) },
    { kind: '24 words', text: entropyToMnemonic(bytes(32), wordlist) },
  ];
}

/** How the secret is written into the field. */
const WRAPPINGS: Readonly<Record<string, (secret: string) => string>> = {
  bare: (secret) => secret,
  padded: (secret) => `  ${secret}\n`,
  embedded: (secret) => `my key is ${secret}, keep it`,
};

/**
 * Whether any part of `secret` long enough to matter is in `text`: any 3 consecutive words of a
 * phrase, any 16 characters of a key (hex compared without case), so a clipped or re-cased echo
 * counts as a leak too.
 */
function leaked(text: string, secret: string): boolean {
  if (secret.includes(' ')) {
    const words = secret.split(' ');
    const lower = text.toLowerCase();
    return words.slice(0, -2).some((_, at) => lower.includes(words.slice(at, at + 3).join(' ')));
  }
  const hexOnly = /^(0x)?[0-9a-f]+$/i.test(secret);
  const haystack = hexOnly ? text.toLowerCase() : text;
  const needle = hexOnly ? secret.toLowerCase().replace(/^0x/, '') : secret;
  for (let at = 0; at + 16 <= needle.length; at++) if (haystack.includes(needle.slice(at, at + 16))) return true;
  return false;
}

function assertNoSecret(where: string, text: string, secret: Secret, call: string): void {
  assert.ok(!leaked(text, secret.text), `${secret.kind} leaked into ${where} (${call}):\n${text.slice(0, 2000)}`);
}

/** A valid EIP-712 document for the anvil chain: its strings are the places a secret goes. */
function typedData(): { [key: string]: Json } {
  return {
    types: {
      EIP712Domain: [
        { name: 'name', type: 'string' },
        { name: 'version', type: 'string' },
        { name: 'chainId', type: 'uint256' },
      ],
      Note: [
        { name: 'to', type: 'address' },
        { name: 'contents', type: 'string' },
      ],
    },
    primaryType: 'Note',
    domain: { name: 'Secret fuzz', version: '1', chainId: 31337 },
    message: { to: RECIPIENT, contents: 'hello' },
  };
}

/** A valid value for each field the fuzzed tools take; a field not known here gets '1'. */
function baseValue(tool: string, field: string, fixture: Fixture): Json | undefined {
  const evm = tool.startsWith('evm_');
  const values: Record<string, Json> = {
    wallet_id: 'agent',
    network: evm ? 'local' : 'regtest',
    address: evm ? ANVIL_FIRST_ACCOUNT : fixture.dashAddress,
    to: RECIPIENT,
    // Wrong on purpose: a fuzzed delete must never delete.
    confirm_fingerprint: '00000000',
    amount_duffs: '100000',
    value_wei: '1000',
    message: 'hello',
    data: '0x',
    unsigned_tx: fixture.unsignedTx,
    signed_tx: fixture.signedTx,
    typed_data: typedData(),
    dry_run: false,
    wait: false,
    wait_seconds: 0,
  };
  return Object.hasOwn(values, field) ? values[field] : undefined;
}

type Schema = { type?: string; properties?: Record<string, Schema>; required?: string[] };

/** The tool's input schema as a client sees it (defaults optional). */
function inputSchema(tool: AnyTool): Schema {
  return z.toJSONSchema(tool.input, { io: 'input' }) as Schema;
}

/** Arguments with every required field valid, the optional ones left out. */
function baseArguments(tool: AnyTool, fixture: Fixture): { [key: string]: Json } {
  const schema = inputSchema(tool);
  const args: { [key: string]: Json } = {};
  for (const field of schema.required ?? []) {
    const type = schema.properties?.[field]?.type;
    args[field] = baseValue(tool.name, field, fixture) ?? (type === 'boolean' ? false : type === 'integer' ? 0 : '1');
  }
  return args;
}

/** Every place a string goes: each string field, and each string inside an object field's valid value. */
function targets(tool: AnyTool, fixture: Fixture): Target[] {
  const found: Target[] = [];
  for (const [field, schema] of Object.entries(inputSchema(tool).properties ?? {})) {
    if (schema.type === 'string') found.push({ path: [field] });
    const value = baseValue(tool.name, field, fixture);
    if (schema.type === 'object' && typeof value === 'object' && value !== null) {
      for (const path of stringPaths(value)) found.push({ path: [field, ...path] });
    }
  }
  return found;
}

function stringPaths(value: Json, at: readonly string[] = []): string[][] {
  if (typeof value === 'string') return [[...at]];
  if (typeof value !== 'object' || value === null) return [];
  return Object.entries(value).flatMap(([key, inner]) => stringPaths(inner, [...at, key]));
}

function withValue(args: { [key: string]: Json }, path: readonly string[], text: string): { [key: string]: Json } {
  const copy = structuredClone(args);
  let node: { [key: string]: Json } | Json[] = copy;
  for (const key of path.slice(0, -1)) {
    const inner: Json = Array.isArray(node) ? (node[Number(key)] ?? null) : (node[key] ?? null);
    if (typeof inner !== 'object' || inner === null) throw new Error(`no object at ${path.join('.')}`);
    node = inner;
  }
  const last = path[path.length - 1] ?? '';
  if (Array.isArray(node)) node[Number(last)] = text;
  else node[last] = text;
  return copy;
}

/**
 * A result as text for the leak check. A success may echo the fuzzed top-level field under its
 * own name (a signed message, a transaction's data): that one value is left out, nothing else.
 */
function checkedResult(result: unknown, echoed: string | undefined): string {
  if (echoed === undefined || typeof result !== 'object' || result === null) return JSON.stringify(result) ?? '';
  const { [echoed]: _echo, ...rest } = result as Record<string, unknown>;
  return JSON.stringify(rest);
}

/** The audit log's lines written since `from` characters. */
function auditSince(home: string, from: number): { text: string; tools: string[] } {
  const path = join(home, 'audit.log');
  const text = existsSync(path) ? readFileSync(path, 'utf8').slice(from) : '';
  const tools = text
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => (JSON.parse(line) as { tool: string }).tool);
  return { text, tools };
}

function auditLength(home: string): number {
  const path = join(home, 'audit.log');
  return existsSync(path) ? readFileSync(path, 'utf8').length : 0;
}

type Case = { secret: Secret; wrapping: string };

const caseArbitrary: fc.Arbitrary<Case> = fc.record({
  secret: fc.constantFrom(...SECRETS),
  wrapping: fc.constantFrom(...Object.keys(WRAPPINGS)),
});

/**
 * Runs `check` for every target of every fuzzed tool, RUNS_PER_FIELD times each with a secret
 * and wrapping drawn from the seed; one subtest per tool.
 */
async function fuzzEveryField(
  t: TestContext,
  fixture: () => Fixture,
  check: (tool: AnyTool, args: { [key: string]: Json }, target: Target, secret: Secret) => Promise<void>,
): Promise<void> {
  t.diagnostic(`seed ${SEED} (replay: SECRET_FUZZ_SEED=${SEED})`);
  for (const [index, tool] of FUZZED.entries()) {
    await t.test(tool.name, async () => {
      const base = baseArguments(tool, fixture());
      for (const target of targets(tool, fixture())) {
        const details = await fc.check(
          fc.asyncProperty(caseArbitrary, async ({ secret, wrapping }) => {
            const text = (WRAPPINGS[wrapping] ?? String)(secret.text);
            await check(tool, withValue(base, target.path, text), target, secret);
          }),
          { seed: SEED + index, numRuns: RUNS_PER_FIELD, endOnFailure: true },
        );
        assert.ok(
          !details.failed,
          `${tool.name}.${target.path.join('.')}, seed ${SEED}: ${String(details.errorInstance)}\n${fc.defaultReportMessage(details) ?? ''}`,
        );
      }
    });
  }
}

describe('secret-shaped arguments never leak (audit log, logs, results, errors)', () => {
  let anvil: AnvilNode;
  let home: string;
  let passphraseFile: string;
  let env: Record<string, string>;
  const fixture: Fixture = { dashAddress: '', unsignedTx: '', signedTx: '' };

  before(async () => {
    anvil = await startAnvil();
    home = tempHome();
    passphraseFile = passphraseFileIn(home, PASSPHRASE);
    // The Dash backend is never reached with a secret in a field; anvil answers (with errors) if it were.
    env = { WALLET_HOME: home, WALLET_EVM_LOCAL_URL: anvil.url, WALLET_CORE_REGTEST_URL: anvil.url };
    await importAnvilAccount(home, PASSPHRASE, { walletAlias: 'agent', accountAlias: 'payer' });
    const local = await localServer({ env, passphrase: PASSPHRASE });
    try {
      fixture.dashAddress = (
        await local.call<{ address: string }>('core_address_create', { wallet_id: 'agent' })
      ).address;
      fixture.unsignedTx = (
        await local.call<{ unsigned_tx: string }>('evm_tx_create', {
          address: ANVIL_FIRST_ACCOUNT,
          to: RECIPIENT,
          value_wei: '1',
          network: 'local',
        })
      ).unsigned_tx;
      fixture.signedTx = (
        await local.call<{ signed_tx: string }>('evm_tx_sign', {
          address: ANVIL_FIRST_ACCOUNT,
          unsigned_tx: fixture.unsignedTx,
          network: 'local',
        })
      ).signed_tx;
    } finally {
      await local.close();
    }
  });
  after(async () => {
    await anvil?.stop();
    if (home) rmSync(home, { recursive: true, force: true });
  });

  it('covers every destructive tool and both signers of the catalogue, and every kind of secret', () => {
    const destructive = ALL_TOOLS.filter((tool) => tool.annotations.destructiveHint).map((tool) => tool.name);
    assert.ok(destructive.length >= 8, `destructive tools: ${destructive.join(', ')}`);
    for (const name of [...destructive, ...SIGNERS])
      assert.ok(
        FUZZED.some((tool) => tool.name === name),
        name,
      );
    for (const secret of SECRETS) assert.ok(leaked(`…${secret.text}…`, secret.text), `${secret.kind} is detected`);
    assert.match(SECRETS.find((secret) => secret.kind === 'tprv')?.text ?? '', /^tprv/);
    assert.match(SECRETS.find((secret) => secret.kind === 'xprv')?.text ?? '', /^xprv/);
    assert.equal(SECRETS.find((secret) => secret.kind === '24 words')?.text.split(' ').length, 24);
  });

  it('over MCP: a real SDK client against wallet serve on stdio', async (t) => {
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [WALLET_BIN, 'serve', '--passphrase-file', passphraseFile, '--log-level', 'debug'],
      env: { PATH: process.env['PATH'] ?? '', ...env },
      stderr: 'pipe',
    });
    let serveLog = '';
    transport.stderr?.on('data', (chunk: Buffer) => (serveLog += chunk.toString('utf8')));
    const client = new Client({ name: 'secret-fuzz', version: '1' });
    await client.connect(transport);
    try {
      const served = new Set((await client.listTools()).tools.map((tool) => tool.name));
      for (const tool of FUZZED) {
        if (tool.localOnly !== true) assert.ok(served.has(tool.name), `${tool.name} is served`);
      }
      await fuzzEveryField(
        t,
        () => fixture,
        async (tool, args, target, secret) => {
          if (!served.has(tool.name)) return;
          const call = `${tool.name}.${target.path.join('.')}`;
          const auditFrom = auditLength(home);
          const result = await client.callTool({ name: tool.name, arguments: args });
          const echoed = result.isError !== true && target.path.length === 1 ? target.path[0] : undefined;
          const { structuredContent, content, ...rest } = result;
          assertNoSecret('the result', checkedResult(structuredContent, echoed), secret, call);
          for (const block of content) {
            const text = block.type === 'text' ? block.text : JSON.stringify(block);
            assertNoSecret('the result text', echoed ? checkedResult(parsedOrText(text), echoed) : text, secret, call);
          }
          assertNoSecret('the result _meta', JSON.stringify(rest), secret, call);
          const audit = auditSince(home, auditFrom);
          if (tool.annotations.destructiveHint) assert.ok(audit.tools.includes(tool.name), `${call}: no audit line`);
          assertNoSecret('audit.log', audit.text, secret, call);
          assertNoSecret("wallet serve's log", serveLog, secret, call);
        },
      );
    } finally {
      await client.close();
    }
    assert.match(serveLog, /tools\/call/, 'the debug log was captured');
    const audit = auditSince(home, 0).text;
    for (const secret of SECRETS) {
      assertNoSecret('audit.log', audit, secret, 'the whole run');
      assertNoSecret("wallet serve's log", serveLog, secret, 'the whole run');
    }
  });

  it('over the CLI: runCli in-process with --yes', async (t) => {
    await fuzzEveryField(
      t,
      () => fixture,
      async (tool, args, target, secret) => {
        const call = `${tool.name}.${target.path.join('.')}`;
        const auditFrom = auditLength(home);
        const io = fakeIo({ env });
        const code = await runCli(
          [toolNameToCommand(tool.name), ...flagsFor(args), '--yes', '--json', '--passphrase-file', passphraseFile],
          io,
        );
        const echoed = code === 0 && target.path.length === 1 ? target.path[0] : undefined;
        assertNoSecret('stdout', echoed ? checkedResult(parsedOrText(io.out()), echoed) : io.out(), secret, call);
        assertNoSecret('stderr', io.err(), secret, call);
        // A flag the CLI refuses never reaches the server, so a line is not always written: only checked.
        assertNoSecret('audit.log', auditSince(home, auditFrom).text, secret, call);
      },
    );
  });
});

function parsedOrText(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

/** Arguments as the CLI's flags: strings as they are, booleans as --x / --no-x, objects as JSON. */
function flagsFor(args: { [key: string]: Json }): string[] {
  return Object.entries(args).flatMap(([field, value]) => {
    const flag = `--${propertyToFlag(field)}`;
    if (typeof value === 'boolean') return [value ? flag : `--no-${propertyToFlag(field)}`];
    return [flag, typeof value === 'string' ? value : JSON.stringify(value)];
  });
}
