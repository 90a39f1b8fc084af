/**
 * Property-based fuzz of every tool the wallet lists, through a real SDK client on the real server
 * (in memory, the local catalogue: the served tools plus the local-only ones), with arguments made
 * from each tool's own input JSON Schema (test/hardening/json-schema-arbitrary.ts): valid ones,
 * often built from known-good values so calls reach deep code, and ones broken in exactly one way
 * (a required key missing, a wrong type, out of range, an unknown key, an own `__proto__` key,
 * arguments that are not an object). Every endpoint is a local stand-in that answers at once (a
 * fake Dash Core node and Insight explorer, a tiny EVM endpoint, an HTML page), so nothing hangs
 * and nothing real is touched; the data directory is a temporary one.
 *
 * For every call: success (structuredContent, the same JSON as text), or an isError result whose
 * `_meta["wallet/error"].code` is a typed WalletError code and never INTERNAL, or, only for
 * arguments that are not an object, JSON-RPC -32602; a broken argument object gets the precise
 * error (INVALID_PARAM naming the field, NETWORK_REQUIRED for a missing network); no stack frame,
 * no source path, no secret anywhere; Object.prototype untouched.
 *
 * Seeded: FUZZ_SEED=<n> replays a run (FUZZ_SEED=random picks one); each tool uses seed + its index.
 */
import assert from 'node:assert/strict';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it, type TestContext } from 'node:test';
import { ProtocolError, type Client } from '@modelcontextprotocol/client';
import { HDNodeWallet, TypedDataEncoder, verifyTypedData, Wallet, type TypedDataField } from 'ethers';
import fc from 'fast-check';
import { addressScript, encodeAddress, requireAddress } from '../../src/domain/dash/address.js';
import { ALL_TOOLS } from '../../src/tools/index.js';
import { startDashBackends, type DashBackends } from '../fixtures/dash-backends.js';
import { tempHome } from '../helpers/io.js';
import { localServer, type ToolCaller } from '../helpers/mcp.js';
import { startEvmStub, type EvmStub } from './evm-stub.js';
import {
  argumentsFor,
  satisfies,
  validObject,
  type Breakage,
  type Hints,
  type Json,
  type Schema,
} from './json-schema-arbitrary.js';
import { TYPED_TOOL_ERROR_CODES } from './jsonrpc-oracle.js';

const SEED = fuzzSeed();
const PASSPHRASE = 'tool-fuzz keystore passphrase 4Rt';
const MNEMONIC = 'legal winner thank year wave sausage worth useful legal winner thank yellow';
const SPARE_MNEMONIC = 'abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about';
const ACCOUNT = HDNodeWallet.fromPhrase(MNEMONIC, undefined, "m/44'/60'/0'/0/0");
const RPC_PASSWORD = 'Fuzz-Rpc-Password-z81';
const EVM_SECRET = 'Evm-Endpoint-Secret-q55';
const OTHER_EVM = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8';
/** A key for evm_account_import to take (fixed, so a seed replays the same calls). */
const IMPORTABLE_KEY = `0x${'5a'.repeat(32)}`;
/** Calls per tool: cheap tools more, tools that unlock the keystore (scrypt, ~0.5 s a call) fewer. */
const RUNS = { cheap: 40, network: 25, unlocking: 8 } as const;
/**
 * Tools that may unlock the keystore, from their definitions: whatever writes or signs (not
 * read-only) and whatever takes or gives a secret (local-only). A new tool is sized by its own
 * annotations, with no list to edit here.
 */
const UNLOCKING = new Set(
  ALL_TOOLS.filter((tool) => !tool.annotations.readOnlyHint || tool.localOnly === true).map((tool) => tool.name),
);
/**
 * Tools whose success reveals a secret by design: local-only (a secret in or out) and read-only
 * (so none is taken in to be stored): the exports. Never served by `wallet serve`.
 */
const REVEALING = new Set(
  ALL_TOOLS.filter((tool) => tool.localOnly === true && tool.annotations.readOnlyHint).map((tool) => tool.name),
);

function fuzzSeed(): number {
  const given = process.env['FUZZ_SEED'];
  if (given === 'random') return Date.now() % 2 ** 31;
  if (given !== undefined && given !== '') return Number(given);
  return 20_260_728;
}

type Listed = { name: string; inputSchema: Schema; required: string[]; secretFields: string[] };

type ArgsCase =
  | { kind: 'object'; args: Record<string, Json>; breakage: Breakage | undefined }
  | { kind: 'absent' }
  | { kind: 'not-object'; value: Json };

type Outcome =
  | { kind: 'result'; result: Record<string, unknown> }
  | { kind: 'protocol'; code: number; message: string }
  | { kind: 'thrown'; message: string };

describe(`every tool, fuzzed with schema-aware arguments (FUZZ_SEED=${SEED})`, () => {
  let home: string;
  let dashTest: DashBackends;
  let dashRegtest: DashBackends;
  let evm: EvmStub;
  let wallet: ToolCaller;
  let client: Client;
  let tools: Listed[] = [];
  let hints: Hints = {};
  const tally = new Map<string, Map<string, number>>();
  const prototypeKeys = Object.getOwnPropertyNames(Object.prototype).sort().join(',');

  before(async () => {
    home = tempHome();
    dashTest = await startDashBackends({ chain: 'test', rpcPassword: RPC_PASSWORD });
    dashRegtest = await startDashBackends({ chain: 'regtest' });
    evm = await startEvmStub({ local: 31337, sepolia: 11155111, mainnet: 1 });
    // Platform's mainnet and testnet would ask the SDK's public nodes: point them at this machine
    // (https, as the SDK requires for them; the stub speaks plain HTTP, so nothing answers), so
    // no fuzzed call leaves loopback.
    const loopback = evm.url('/junk').replace('http://', 'https://');
    const platform = { dapi_addresses: [loopback], quorum_url: loopback };
    writeFileSync(
      join(home, 'config.json'),
      JSON.stringify({ platform: { networks: { mainnet: platform, testnet: platform } } }),
      { mode: 0o600 },
    );
    const env = {
      WALLET_HOME: home,
      WALLET_CORE_TESTNET_URL: dashTest.rpcUrl,
      WALLET_CORE_REGTEST_URL: `insight+${dashRegtest.insightUrl}`,
      WALLET_CORE_MAINNET_URL: evm.url('/junk'),
      WALLET_EVM_LOCAL_URL: evm.url('/evm/local'),
      WALLET_EVM_SEPOLIA_URL: evm.url('/evm/sepolia').replace('http://', `http://fuzz:${EVM_SECRET}@`),
      WALLET_EVM_MAINNET_URL: evm.url('/evm/mainnet'),
    };
    wallet = await localServer({ env, passphrase: PASSPHRASE });
    client = wallet.client;
    const listed = await client.listTools();
    tools = listed.tools.map((tool) => {
      const schema = tool.inputSchema as Schema;
      const props = Object.entries((schema['properties'] ?? {}) as Record<string, Schema>);
      return {
        name: tool.name,
        inputSchema: schema,
        required: Array.isArray(schema['required']) ? (schema['required'] as string[]) : [],
        secretFields: props
          .filter(([, value]) => value['format'] === 'password' || value['writeOnly'] === true)
          .map(([key]) => key),
      };
    });

    // A keystore worth fuzzing: a funded wallet with an EVM account, and a wallet that may be deleted.
    const main = await wallet.call<{ wallet_id: string }>('core_wallet_import', {
      alias: 'main',
      network: 'testnet',
      mnemonic: MNEMONIC,
      discover: false,
    });
    const victim = await wallet.call<{ wallet_id: string }>('core_wallet_create', {
      alias: 'victim',
      network: 'testnet',
    });
    const account = await wallet.call<{ address: string }>('evm_account_create', { wallet_id: 'main', alias: 'acct' });
    assert.equal(account.address, ACCOUNT.address, 'the wallet derives the account ethers derives');
    const { address: dashAddress } = await wallet.call<{ address: string }>('core_address_create', {
      wallet_id: 'main',
    });
    dashTest.chain.fund(dashAddress, addressScript(requireAddress(dashAddress, 'testnet')), 200_000_000n);
    dashTest.chain.mine(1);
    const stranger = encodeAddress(new Uint8Array(20).fill(7), 'p2pkh', 'testnet');
    const { psbt } = await wallet.call<{ psbt: string }>('core_tx_create', {
      wallet_id: 'main',
      network: 'testnet',
      outputs: [{ address: stranger, amount_duffs: '100000' }],
    });
    const { unsigned_tx: unsignedTx } = await wallet.call<{ unsigned_tx: string }>('evm_tx_create', {
      address: 'acct',
      to: OTHER_EVM,
      value_wei: '1000',
      network: 'local',
    });
    const signer = new Wallet(ACCOUNT.privateKey);
    const signedTx = await signer.signTransaction({
      chainId: 31337,
      to: OTHER_EVM,
      value: 1000n,
      nonce: 0,
      gasLimit: 21000n,
      maxFeePerGas: 2_000_000_000n,
      maxPriorityFeePerGas: 1_000_000_000n,
      type: 2,
    });
    const typedTypes: Record<string, TypedDataField[]> = { Mail: [{ name: 'contents', type: 'string' }] };
    const typedData = {
      domain: { name: 'Fuzz', version: '1', chainId: 31337 },
      types: typedTypes,
      primaryType: 'Mail',
      message: { contents: 'hello' },
    };
    const evmSignature = await signer.signMessage('hello');
    hints = {
      wallet_id: ['main', main.wallet_id, 'victim', victim.wallet_id, 'nosuch'],
      alias: ['main', 'victim', 'acct', 'fresh'],
      network: ['testnet', 'regtest', 'mainnet', 'nosuchnet'],
      'evm:network': ['local', 'sepolia', 'mainnet', 'nosuchnet'],
      chain: ['core', 'evm', 'receive', 'change'],
      address: [dashAddress, stranger, ACCOUNT.address],
      'evm:address': [ACCOUNT.address, 'acct', ACCOUNT.address.toLowerCase(), OTHER_EVM, dashAddress],
      to: [OTHER_EVM, ACCOUNT.address, 'acct'],
      token: [OTHER_EVM],
      value_wei: ['0', '1000', '100000000000000000000'],
      amount_duffs: ['1000', '100000', '1000000000000'],
      fee_rate_duffs_per_kb: ['1000', '0'],
      max_fee_duffs: ['1000000', '0'],
      max_fee_wei: ['10000000000000000', '0'],
      confirm_fingerprint: [victim.wallet_id],
      hash: [`0x${'22'.repeat(32)}`],
      psbt: [psbt],
      unsigned_tx: [unsignedTx],
      signed_tx: [signedTx],
      hex: [signedTx.slice(2)],
      data: ['0x', `0xa9059cbb${'00'.repeat(64)}`],
      message: ['hello'],
      signature: [evmSignature],
      name: tools.map((tool) => tool.name),
      mnemonic: [SPARE_MNEMONIC, MNEMONIC],
      private_key: [IMPORTABLE_KEY],
      typed_data: [typedData as unknown as Json],
      gas_limit: ['21000'],
      nonce: [0, 3],
      wait_seconds: [1],
      discover: [false, true],
      dry_run: [true, false],
    };
  });

  after(async () => {
    await wallet.close();
    await Promise.all([dashTest.close(), dashRegtest.close(), evm.close()]);
  });

  it('lists every registered tool, local-only ones included', () => {
    assert.deepEqual(
      tools.map((tool) => tool.name),
      ALL_TOOLS.map((tool) => tool.name),
    );
  });

  it("generates arguments each tool's own input schema accepts, and broken ones it refuses", () => {
    for (const [index, tool] of tools.entries()) {
      const definition = ALL_TOOLS.find((candidate) => candidate.name === tool.name);
      assert.ok(definition);
      for (const args of fc.sample(validObject(tool.inputSchema, hintsFor(tool.name)), {
        seed: SEED + index,
        numRuns: 15,
      })) {
        const wire: unknown = JSON.parse(JSON.stringify(args));
        assert.ok(satisfies(tool.inputSchema, wire as Json), `${tool.name}: own check of ${JSON.stringify(wire)}`);
        const parsed = definition.input.safeParse(wire);
        assert.ok(parsed.success, `${tool.name} refuses generated ${JSON.stringify(wire).slice(0, 300)}`);
      }
      for (const { args, breakage } of fc.sample(argumentsFor(tool.inputSchema, hintsFor(tool.name)), {
        seed: SEED + index,
        numRuns: 15,
      })) {
        if (breakage === undefined || breakage.kind === 'proto-key') continue;
        const wire: unknown = JSON.parse(JSON.stringify(args));
        assert.ok(
          !definition.input.safeParse(wire).success,
          `${tool.name} accepts ${breakage.kind} ${JSON.stringify(wire).slice(0, 300)}`,
        );
      }
    }
  });

  for (const [index, name] of ALL_TOOLS.map((tool) => tool.name).entries()) {
    it(name, async (t: TestContext) => {
      const tool = tools.find((candidate) => candidate.name === name);
      assert.ok(tool, `${name} is listed`);
      const definition = ALL_TOOLS.find((candidate) => candidate.name === name);
      const runs = UNLOCKING.has(name)
        ? RUNS.unlocking
        : definition?.annotations.openWorldHint
          ? RUNS.network
          : RUNS.cheap;
      const seed = SEED + index;
      t.diagnostic(`${name}: seed ${seed}, ${runs} runs (replay: FUZZ_SEED=${SEED})`);
      const counts = new Map<string, number>();
      tally.set(name, counts);
      const details = await fc.check(
        fc.asyncProperty(argsCase(tool), async (argsCase) => {
          const outcome = await call(client, name, argsCase);
          const label = outcomeLabel(outcome);
          counts.set(label, (counts.get(label) ?? 0) + 1);
          const problems = judge(tool, argsCase, outcome);
          if (Object.getOwnPropertyNames(Object.prototype).sort().join(',') !== prototypeKeys) {
            problems.push('Object.prototype was changed');
          }
          if (problems.length > 0) {
            throw new Error(`${problems.join('\n')}\noutcome: ${JSON.stringify(outcome).slice(0, 1500)}`);
          }
        }),
        { seed, numRuns: runs, endOnFailure: true },
      );
      t.diagnostic(`${name}: ${[...counts].map(([label, count]) => `${label} ×${count}`).join(', ')}`);
      assert.ok(!details.failed, `${name}, seed ${seed}: ${failureReport(details)}`);
      assert.equal(details.numRuns, runs);
    });
  }

  it('reached deep code: the stand-in nodes were asked, some calls succeeded', (t: TestContext) => {
    const successes = [...tally].filter(([, counts]) => (counts.get('ok') ?? 0) > 0).map(([name]) => name);
    t.diagnostic(`tools with at least one successful call: ${successes.join(', ')}`);
    assert.ok(evm.calls > 0, 'the EVM stand-in answered calls');
    assert.ok(dashTest.chain.requests.length > 0, 'the Dash stand-in answered calls');
    assert.ok(successes.length >= tools.length / 2, `only ${successes.length} tools ever succeeded`);
  });

  it('refuses EIP-712 typed data with any value that does not fit its type', async () => {
    const signed: string[] = [];
    for (const [type, values] of Object.entries(TYPED_MISFITS)) {
      for (const value of values) {
        const types: Record<string, TypedDataField[]> = {
          Mail: [{ name: 'a', type }],
          ...(type === 'Inner' ? { Inner: [{ name: 'x', type: 'uint8' }] } : {}),
        };
        const outcome = await call(client, 'evm_typed_data_sign', {
          kind: 'object',
          args: {
            address: 'acct',
            network: 'local',
            typed_data: {
              domain: { chainId: 31337 },
              types,
              primaryType: 'Mail',
              message: { a: value },
            } as unknown as Json,
          },
          breakage: undefined,
        });
        const code = outcome.kind === 'result' ? readCode(outcome.result) : outcome.kind;
        if (code !== 'INVALID_PARAM') signed.push(`${type} ← ${JSON.stringify(value)}: ${code ?? 'signed'}`);
      }
    }
    assert.deepEqual(signed, [], 'typed data a strict EIP-712 encoder (ethers) refuses must be INVALID_PARAM');
  });

  it('refuses what ethers refuses in the domain and in type names, signs integer text ethers reads', async () => {
    const sign = async (typedData: Record<string, unknown>): Promise<Record<string, unknown>> => {
      const outcome = await call(client, 'evm_typed_data_sign', {
        kind: 'object',
        args: { address: 'acct', network: 'local', typed_data: typedData as Json },
        breakage: undefined,
      });
      assert.equal(outcome.kind, 'result', JSON.stringify(outcome));
      return outcome.kind === 'result' ? outcome.result : {};
    };
    const mail = (type: string): Record<string, TypedDataField[]> => ({ Mail: [{ name: 'a', type }] });
    const refused: [string, Record<string, unknown>, Record<string, TypedDataField[]>, Record<string, unknown>][] = [
      ['a number for the name', { name: 5, chainId: 31337 }, mail('string'), { a: 'x' }],
      ['a bool for the version', { version: true, chainId: 31337 }, mail('string'), { a: 'x' }],
      ['a key EIP-712 does not define', { name: 'D', foo: 'x', chainId: 31337 }, mail('string'), { a: 'x' }],
      ['a short salt', { salt: '0x12', chainId: 31337 }, mail('string'), { a: 'x' }],
      ['a verifyingContract that is no address', { verifyingContract: 'nope' }, mail('string'), { a: 'x' }],
      ['uint7', { chainId: 31337 }, mail('uint7'), { a: 1 }],
      ['uint264', { chainId: 31337 }, mail('uint264'), { a: 1 }],
      ['int0', { chainId: 31337 }, mail('int0'), { a: 1 }],
      ['int08', { chainId: 31337 }, mail('int08'), { a: 1 }],
      ['bytes33', { chainId: 31337 }, mail('bytes33'), { a: '0x00' }],
      ['bytes01', { chainId: 31337 }, mail('bytes01'), { a: '0x00' }],
    ];
    for (const [why, domain, { Mail }, message] of refused) {
      const types = { Mail: Mail ?? [] };
      assert.throws(() => TypedDataEncoder.hash(domain, types, message), Error, `ethers refuses ${why}`);
      const result = await sign({ domain, types, primaryType: 'Mail', message });
      assert.equal(readCode(result), 'INVALID_PARAM', `${why}: ${JSON.stringify(result['structuredContent'])}`);
    }
    for (const text of ['010', '0X1f', ' 5', '+5', '-0x10']) {
      const domain = { name: 'D', chainId: 31337 };
      const types = { Mail: [{ name: 'a', type: 'int64' }] };
      const message = { a: text };
      const result = await sign({ domain, types, primaryType: 'Mail', message });
      const expected = TypedDataEncoder.hash(domain, types, message);
      const signed = result['structuredContent'] as { hash?: string } | undefined;
      // viem cannot read a negative hex text (BigInt('-0x10') throws): refused there, never misread.
      if (text === '-0x10' && signed?.hash === undefined) assert.equal(readCode(result), 'INVALID_PARAM', text);
      else assert.equal(signed?.hash, expected, `${JSON.stringify(text)} hashes as ethers reads it`);
    }
  });

  it('signs EIP-712 typed data exactly when every value fits its type, hashing as ethers does', async (t: TestContext) => {
    t.diagnostic(`typed data: seed ${SEED} (replay: FUZZ_SEED=${SEED})`);
    const domain = { name: 'Fuzz', version: '1', chainId: 31337, verifyingContract: OTHER_EVM };
    const details = await fc.check(
      fc.asyncProperty(typedDataCase(), async ({ fields, values }) => {
        const message = Object.fromEntries(fields.map((field, index) => [field.name, values[index]?.value ?? null]));
        const types: Record<string, TypedDataField[]> = {
          Mail: fields,
          ...(fields.some((field) => field.type === 'Inner') ? { Inner: [{ name: 'x', type: 'uint8' }] } : {}),
        };
        const typedData = JSON.parse(JSON.stringify({ domain, types, primaryType: 'Mail', message })) as Json;
        const outcome = await call(client, 'evm_typed_data_sign', {
          kind: 'object',
          args: { address: 'acct', network: 'local', typed_data: typedData },
          breakage: undefined,
        });
        assert.equal(outcome.kind, 'result', JSON.stringify(outcome));
        const result = outcome.kind === 'result' ? outcome.result : {};
        const misfits = fields.filter((_, index) => values[index]?.fits === false);
        if (misfits.length > 0) {
          assert.equal(
            readCode(result),
            'INVALID_PARAM',
            `signed typed data whose ${misfits.map((field) => `${field.name} (${field.type})`).join(', ')} does not fit: ${JSON.stringify(message).slice(0, 300)} → ${JSON.stringify(result['structuredContent'])}`,
          );
          return;
        }
        assert.notEqual(result['isError'], true, `refused well-typed ${JSON.stringify(message)}: ${messageOf(result)}`);
        const signed = result['structuredContent'] as { hash: string; signature: string };
        assert.equal(signed.hash, TypedDataEncoder.hash(domain, types, message), 'the EIP-712 hash ethers computes');
        assert.equal(
          verifyTypedData(domain, types, message, signed.signature),
          ACCOUNT.address,
          'signed by the account',
        );
      }),
      { seed: SEED, numRuns: 12, endOnFailure: true },
    );
    assert.ok(!details.failed, `seed ${SEED}: ${failureReport(details)}`);
  });

  it('an own __proto__ argument is never read and pollutes nothing', async () => {
    const proto = (args: string) => JSON.parse(args) as Record<string, unknown>;
    const described = await client.callTool({
      name: 'tool_describe',
      arguments: proto('{"__proto__":{"name":"network_info"}}'),
    });
    // An own __proto__ key is an unknown argument (refused), or at least not `name` (every tool described).
    const everyTool = (described.structuredContent as { tools?: unknown[] } | undefined)?.tools?.length ?? 0;
    assert.ok(
      described.isError === true ? readCode(described as Record<string, unknown>) === 'INVALID_PARAM' : everyTool > 1,
      'the name under __proto__ was not taken for the argument',
    );
    const info = await client.callTool({ name: 'network_info', arguments: proto('{"__proto__":{"chain":"evm"}}') });
    if (info.isError !== true) {
      const networks = (info.structuredContent as { networks: { chain: string }[] }).networks;
      assert.ok(
        networks.some((entry) => entry.chain === 'core'),
        'the chain under __proto__ was not used as a filter',
      );
    } else {
      assert.equal(readCode(info as Record<string, unknown>), 'INVALID_PARAM');
    }
    assert.equal(({} as Record<string, unknown>)['chain'], undefined);
    assert.equal(Object.getOwnPropertyNames(Object.prototype).sort().join(','), prototypeKeys);
  });

  it('wrote an audit line for destructive calls, with no secret in it', () => {
    const path = join(home, 'audit.log');
    assert.ok(existsSync(path), 'audit.log exists');
    const lines = readFileSync(path, 'utf8').trim().split('\n');
    assert.ok(lines.length > 0);
    for (const line of lines) {
      const record = JSON.parse(line) as Record<string, unknown>;
      assert.equal(typeof record['tool'], 'string');
      assert.equal(secretIn(line, false), undefined, line.slice(0, 300));
    }
  });

  /** The hints, with the `evm:`/`core:` ones of the tool's chain in place of the plain ones. */
  function hintsFor(name: string): Hints {
    const scope = `${name.split('_')[0] ?? ''}:`;
    const scoped = Object.entries(hints).filter(([key]) => key.startsWith(scope));
    return { ...hints, ...Object.fromEntries(scoped.map(([key, value]) => [key.slice(scope.length), value])) };
  }

  function argsCase(tool: Listed): fc.Arbitrary<ArgsCase> {
    return fc.oneof(
      {
        weight: 12,
        arbitrary: argumentsFor(tool.inputSchema, hintsFor(tool.name)).map<ArgsCase>((made) => ({
          kind: 'object',
          ...made,
        })),
      },
      { weight: 1, arbitrary: fc.constant<ArgsCase>({ kind: 'absent' }) },
      {
        weight: 1,
        arbitrary: fc
          .constantFrom<Json>([], [1, 2], 'arguments', 0, true, null)
          .map<ArgsCase>((value) => ({ kind: 'not-object', value })),
      },
    );
  }
});

/** One tools/call, its arguments JSON round-tripped as on the wire. */
async function call(client: Client, name: string, argsCase: ArgsCase): Promise<Outcome> {
  const params: { name: string; arguments?: Record<string, unknown> } = { name };
  if (argsCase.kind === 'object')
    params.arguments = JSON.parse(JSON.stringify(argsCase.args)) as Record<string, unknown>;
  if (argsCase.kind === 'not-object') params.arguments = argsCase.value as unknown as Record<string, unknown>;
  try {
    const result = await client.callTool(params, { timeout: 30_000 });
    return { kind: 'result', result: result as Record<string, unknown> };
  } catch (error) {
    if (error instanceof ProtocolError) return { kind: 'protocol', code: error.code, message: error.message };
    return { kind: 'thrown', message: error instanceof Error ? `${error.name}: ${error.message}` : String(error) };
  }
}

function readCode(result: Record<string, unknown>): string | undefined {
  const meta = result['_meta'];
  if (typeof meta !== 'object' || meta === null) return undefined;
  const error = (meta as Record<string, unknown>)['wallet/error'];
  if (typeof error !== 'object' || error === null) return undefined;
  const code = (error as Record<string, unknown>)['code'];
  return typeof code === 'string' ? code : undefined;
}

function outcomeLabel(outcome: Outcome): string {
  if (outcome.kind === 'protocol') return `json-rpc ${outcome.code}`;
  if (outcome.kind === 'thrown') return 'thrown';
  return outcome.result['isError'] === true ? (readCode(outcome.result) ?? 'no code') : 'ok';
}

/** Everything wrong with one call's outcome. */
function judge(tool: Listed, argsCase: ArgsCase, outcome: Outcome): string[] {
  const problems: string[] = [];
  const leak = leakIn(outcome, tool, argsCase);
  if (leak) problems.push(leak);
  if (outcome.kind === 'thrown') return [...problems, `the client threw: ${outcome.message}`];
  if (argsCase.kind === 'not-object') {
    if (outcome.kind !== 'protocol' || outcome.code !== -32602) {
      problems.push('arguments that are not an object must be JSON-RPC -32602 (a malformed tools/call)');
    }
    return problems;
  }
  if (outcome.kind === 'protocol') {
    return [
      ...problems,
      `JSON-RPC ${outcome.code} for an argument object: argument problems are tool errors (SEP-1303)`,
    ];
  }
  const result = outcome.result;
  const code = readCode(result);
  if (result['isError'] === true) {
    const meta = (result['_meta'] as Record<string, Record<string, unknown>>)['wallet/error'];
    const message = meta?.['message'];
    const hint = meta?.['hint'];
    if (code === undefined || !TYPED_TOOL_ERROR_CODES.includes(code)) {
      problems.push(`error code ${JSON.stringify(code)}: expected a typed WalletError code, never INTERNAL`);
    }
    if (typeof message !== 'string' || message.includes('\n')) problems.push('the error message is not one line');
    const content = result['content'] as { type: string; text?: string }[] | undefined;
    const expectedText = `${String(code)}: ${String(message)}${typeof hint === 'string' ? `\nhint: ${hint}` : ''}`;
    if (content?.[0]?.text !== expectedText) problems.push('the error text is not "CODE: message" (+ hint)');
  } else {
    const structured = result['structuredContent'];
    const content = result['content'] as { type: string; text?: string }[] | undefined;
    if (typeof structured !== 'object' || structured === null) problems.push('a success without structuredContent');
    else if (!sameJson(content?.[0]?.text, structured)) problems.push('the text is not the structured JSON');
  }
  const expected = expectedFailure(tool, argsCase);
  if (expected) {
    if (result['isError'] !== true || code !== expected.code) {
      problems.push(`${expected.why}: expected ${expected.code}, got ${result['isError'] === true ? code : 'success'}`);
    } else if (expected.mentions && !expected.mentions.some((text) => messageOf(result).includes(text))) {
      problems.push(
        `${expected.why}: the message does not name ${expected.mentions.join(' or ')}: ${messageOf(result)}`,
      );
    }
  }
  return problems;
}

function sameJson(text: string | undefined, value: unknown): boolean {
  try {
    return text !== undefined && JSON.stringify(JSON.parse(text)) === JSON.stringify(value);
  } catch {
    return false;
  }
}

function messageOf(result: Record<string, unknown>): string {
  const meta = (result['_meta'] as Record<string, Record<string, unknown>> | undefined)?.['wallet/error'];
  return typeof meta?.['message'] === 'string' ? meta['message'] : '';
}

/** What the server must answer for arguments broken on purpose; undefined when any answer may do. */
function expectedFailure(
  tool: Listed,
  argsCase: ArgsCase,
): { code: string; why: string; mentions?: string[] } | undefined {
  const missing = (key: string) =>
    key === 'network'
      ? { code: 'NETWORK_REQUIRED', why: 'network left out' }
      : { code: 'INVALID_PARAM', why: `required '${key}' left out`, mentions: [`'${key}'`] };
  if (argsCase.kind === 'absent') {
    const first = Object.keys((tool.inputSchema['properties'] ?? {}) as object).find((key) =>
      tool.required.includes(key),
    );
    return first === undefined ? undefined : missing(first);
  }
  if (argsCase.kind !== 'object' || argsCase.breakage === undefined) return undefined;
  const breakage = argsCase.breakage;
  switch (breakage.kind) {
    case 'missing':
      return missing(breakage.key);
    case 'wrong-type':
    case 'out-of-range':
      return {
        code: 'INVALID_PARAM',
        why: `'${breakage.key}' ${breakage.kind}`,
        mentions: [`'${breakage.key}'`, `'${breakage.key}.`],
      };
    case 'unknown-key':
      return { code: 'INVALID_PARAM', why: 'an unknown argument', mentions: ['Unknown argument'] };
    case 'proto-key':
      return undefined;
  }
}

/** The strings a call sent, raw and as JSON writes them: an answer may quote them back. */
function sentStrings(argsCase: ArgsCase): string[] {
  const strings: string[] = [];
  const walk = (value: unknown): void => {
    if (typeof value === 'string') {
      if (value.length >= 4) strings.push(value, JSON.stringify(value).slice(1, -1));
    } else if (Array.isArray(value)) value.forEach(walk);
    else if (typeof value === 'object' && value !== null) {
      for (const [key, item] of Object.entries(value)) {
        walk(key);
        walk(item);
      }
    }
  };
  walk(argsCase.kind === 'object' ? argsCase.args : argsCase.kind === 'not-object' ? argsCase.value : undefined);
  return strings.sort((a, b) => b.length - a.length);
}

/** A secret, stack frame or source path in what came back; undefined when there is none. */
function leakIn(outcome: Outcome, tool: Listed, argsCase: ArgsCase): string | undefined {
  const text = JSON.stringify(outcome);
  const revealing = REVEALING.has(tool.name) && outcome.kind === 'result' && outcome.result['isError'] !== true;
  const fixed = secretIn(text, revealing);
  if (fixed) return `${fixed} in the answer`;
  if (argsCase.kind === 'object') {
    const others = new Set(
      Object.entries(argsCase.args)
        .filter(([key]) => !tool.secretFields.includes(key))
        .flatMap(([, value]) => sentStrings({ kind: 'object', args: { value }, breakage: undefined })),
    );
    for (const field of tool.secretFields) {
      const value = argsCase.args[field];
      const distinctive = typeof value === 'string' && value.length >= 8 && new Set(value).size >= 5;
      if (distinctive && ![...others].some((other) => other.includes(value)) && text.includes(value)) {
        return `the secret argument '${field}' echoed`;
      }
    }
  }
  let stripped = text;
  for (const sent of sentStrings(argsCase)) stripped = stripped.split(sent).join('');
  if (/\\n\s+at\s|^\s+at\s/m.test(stripped)) return 'a stack frame in the answer';
  if (/\/(src|dist|build|node_modules)\/|\.(?:ts|js|mjs|cjs):\d+/.test(stripped)) return 'a source path in the answer';
  return undefined;
}

/** Which fixed secret `text` holds, if any; a revealing tool's success may hold the mnemonic and key. */
function secretIn(text: string, revealing: boolean): string | undefined {
  if (text.includes(PASSPHRASE)) return 'the keystore passphrase';
  if (text.includes(RPC_PASSWORD)) return 'the Dash RPC password';
  if (text.includes(EVM_SECRET)) return 'the EVM endpoint credential';
  if (revealing) return undefined;
  if (text.includes(MNEMONIC)) return 'the mnemonic';
  if (text.includes(ACCOUNT.privateKey.slice(2))) return 'the account private key';
  if (text.includes(IMPORTABLE_KEY.slice(2))) return 'an imported private key';
  return undefined;
}

function failureReport<T>(details: fc.RunDetails<T>): string {
  const error = details.errorInstance instanceof Error ? details.errorInstance.message : String(details.errorInstance);
  return `${error}\n${fc.defaultReportMessage(details) ?? ''}`.slice(0, 8000);
}

type Fitted = { value: Json; fits: boolean };

/**
 * Values that plainly do not fit an EIP-712 type. ethers' TypedDataEncoder (an independent
 * encoder) refuses every one but the bool ones (ethers makes a bool of anything; EIP-712's bool is
 * a JSON boolean). Readings that vary between implementations (0 or 1 for a bool, "5" for a
 * uint8) are left out.
 */
const TYPED_MISFITS: Readonly<Record<string, readonly Json[]>> = {
  string: [5, {}, [1], true, null],
  uint8: [[1], [], true, {}, null, 'abc', 1.5, 256, -1],
  uint256: [[1], true, {}, null, 'abc', 1.5, -1],
  int256: [[], true, {}, null, 'abc', 1.5],
  bool: [{}, [], 'true', null],
  address: ['nope', 5, '0x1234', null],
  bytes32: ['0x1234', 'nope', 5, null],
  bytes: ['nope', '0x123', 5, {}, null],
  'uint256[2]': [[], [1, 2, 3], {}, 'x'],
  'string[]': [[1], {}, 'x'],
  Inner: ['x', 5, [], null, {}],
};

/**
 * A Mail struct of one to three fields of assorted EIP-712 types, each value either one that fits
 * its type or one that plainly does not (a number for a string, three items for a [2] array,
 * text that is not hex for bytes …). Values whose reading varies between implementations (0 or 1
 * for a bool, "5" for a uint8) are left out of the misfits.
 */
function typedDataCase(): fc.Arbitrary<{ fields: TypedDataField[]; values: Fitted[] }> {
  const bytes = (length: number) =>
    fc.uint8Array({ minLength: length, maxLength: length }).map((raw) => `0x${Buffer.from(raw).toString('hex')}`);
  const fits: Record<string, fc.Arbitrary<Json>> = {
    string: fc.string({ maxLength: 30 }),
    uint8: fc.integer({ min: 0, max: 255 }),
    uint256: fc.oneof(fc.nat(), fc.bigInt(0n, 2n ** 256n - 1n).map(String)),
    int256: fc.oneof(fc.integer(), fc.bigInt(-(2n ** 255n), 2n ** 255n - 1n).map(String)),
    bool: fc.boolean(),
    address: fc.constantFrom(OTHER_EVM, OTHER_EVM.toLowerCase()),
    bytes32: bytes(32),
    bytes: fc.integer({ min: 0, max: 40 }).chain(bytes),
    'uint256[2]': fc.tuple(fc.nat(), fc.nat()),
    'string[]': fc.array(fc.string({ maxLength: 10 }), { maxLength: 3 }),
    Inner: fc.record({ x: fc.integer({ min: 0, max: 255 }) }),
  };
  const misfits = TYPED_MISFITS;
  const field = fc.record({ name: fc.constantFrom('a', 'b', 'c'), type: fc.constantFrom(...Object.keys(fits)) });
  return fc.uniqueArray(field, { minLength: 1, maxLength: 3, selector: (entry) => entry.name }).chain((fields) =>
    fc
      .tuple(
        ...fields.map((entry) =>
          fc.oneof(
            (fits[entry.type] ?? fc.constant(null)).map<Fitted>((value) => ({ value, fits: true })),
            fc.constantFrom(...(misfits[entry.type] ?? [null])).map<Fitted>((value) => ({ value, fits: false })),
          ),
        ),
      )
      .map((values) => ({ fields, values })),
  );
}
