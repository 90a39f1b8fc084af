/**
 * The human renderer and the terminal QR code, against golden files.
 *
 * Each golden case renders a realistic result of a built-in tool with that tool's real output
 * schema (the one tools/list carries: `describeTool(tool).outputSchema`) and compares the text with
 * test/fixtures/render/<case>.txt. After a deliberate change to the output, rewrite the files with
 *
 *   npm run build:test && UPDATE_GOLDEN=1 node --test build/test/cli/render.test.js
 *
 * then read every changed file by eye (`git diff test/fixtures/render`): it must read well for a
 * person. The colour case holds raw escape codes: look at it with `cat`.
 */
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { stripVTControlCharacters } from 'node:util';
import { create } from 'qrcode';
import { QR_OPTIONS, renderQr } from '../../src/cli/qr.js';
import { createStyle, renderHuman, terminalSafe, type Style } from '../../src/cli/render.js';
import type { JsonSchema } from '../../src/shared/json-schema.js';
import { ALL_TOOLS, describeTool } from '../../src/tools/index.js';
import { ROOT } from '../helpers/paths.js';

const GOLDEN_DIR = join(ROOT, 'test', 'fixtures', 'render');
const UPDATE = process.env['UPDATE_GOLDEN'] === '1';
const PLAIN = await createStyle(false);
const COLOUR = await createStyle(true);

/** Compares `actual` with the golden file `<name>.txt`, or rewrites it under UPDATE_GOLDEN=1. */
function assertGolden(name: string, actual: string): void {
  const path = join(GOLDEN_DIR, `${name}.txt`);
  if (UPDATE) {
    mkdirSync(GOLDEN_DIR, { recursive: true });
    writeFileSync(path, actual);
    return;
  }
  let expected: string;
  try {
    expected = readFileSync(path, 'utf8');
  } catch {
    assert.fail(`no golden file ${path}: run the tests with UPDATE_GOLDEN=1 and review it`);
  }
  assert.equal(actual, expected, `${name}.txt differs (UPDATE_GOLDEN=1 rewrites it after a deliberate change)`);
}

/** The output schema exactly as the wallet's server lists it. */
function outputSchemaOf(toolName: string): JsonSchema {
  const tool = ALL_TOOLS.find((candidate) => candidate.name === toolName);
  assert.ok(tool, `no tool ${toolName}`);
  return describeTool(tool).outputSchema;
}

/** Renders a result of a built-in tool with its schema, after checking the result is one it can return. */
function renderToolResult(toolName: string, value: Record<string, unknown>, style: Style = PLAIN): string {
  const tool = ALL_TOOLS.find((candidate) => candidate.name === toolName);
  assert.ok(tool, `no tool ${toolName}`);
  const checked = tool.output.safeParse(value);
  assert.ok(checked.success, `the ${toolName} fixture does not match its output schema: ${checked.error?.message}`);
  return renderHuman(value, style, outputSchemaOf(toolName));
}

const TESTNET_XPUB =
  'tpubDC5FSnBiZDMmhiuCmWAYsLwgLYrrT9rAqvTySfuCCrgsWz8wxMXUS9Tb9iVMvcRbvFcAHGkMD5Kx8koh4GquNGNTfohfk7pgjhaPCdXpoba';
const MAINNET_XPUB =
  'xpub6BtGga2dUVSKHcV9ud3G11fnqsV79p7JXvs9UNCNU6J3FTQ1yYHAzW941CTUxmmSjNJuLTaBbYYkVQ3mjUz4stJA76YhRBQReqc6EfYVBt6';
const DASH = {
  receive0: 'yRd4FhXfVGHXpsuZXPNkMrfD9GVj46pnjt',
  receive1: 'yfd64jEpzzTLrHnR1wq3iiYXh68AiU8mcw',
  receive2: 'yTGFWr27HBYsb8tkLbGdxLxuKbspamdbnG',
  change0: 'yVJYGeMP3rTLYnMe5qNt5nXSpA8WUTcz49',
  payee: 'yWaYcixnr8bNodiMEL2fB5qEqgbHpAzhyc',
};
const TXIDS = [
  '5b0a6e3cd6a2a4bd3e8d76b27a4e0d9e6a1f3c2b8d7e6f5a4b3c2d1e0f9a8b7c',
  'e1c2d3f4a5b6c7d8e9f0a1b2c3d4e5f60718293a4b5c6d7e8f9a0b1c2d3e4f50',
  '0f1e2d3c4b5a69788796a5b4c3d2e1f00112233445566778899aabbccddeeff0',
];
const EVM = {
  savings: '0x9858EfFD232B4033E47d90003D41EC34EcaEda94',
  second: '0x6Fac4D18c912343BF86fa7049364Dd4E424Ab9C0',
  anvil: '0x70997970C51812dc3A010C7d01b50e0d17dc79C8',
  token: '0x5FbDB2315678afecb367f032d93F642f64180aa3',
  hash: '0x8d2f0b7f4a3e9c1d6b5a4f3e2d1c0b9a8f7e6d5c4b3a29180706f5e4d3c2b1a0',
};

/** The golden cases: a file name and the text it must hold. */
const GOLDEN_CASES: readonly { name: string; render: () => string }[] = [
  {
    name: 'core-wallets-list',
    render: () =>
      renderToolResult('core_wallets_list', {
        wallets: [
          {
            wallet_id: 'b8688df1',
            alias: 'cold',
            network: 'mainnet',
            account_path: "m/44'/5'/0'",
            account_xpub: MAINNET_XPUB,
            receive_addresses: 1,
            change_addresses: 0,
            created_at: '2026-11-02T09:14:27.512Z',
          },
          {
            wallet_id: '73c5da0a',
            alias: 'main',
            network: 'testnet',
            account_path: "m/44'/1'/0'",
            account_xpub: TESTNET_XPUB,
            receive_addresses: 4,
            change_addresses: 1,
            created_at: '2026-11-21T08:05:59.626Z',
          },
        ],
        unreadable_files: ['wallet-3f2a91c0.json'],
      }),
  },
  {
    name: 'core-address-create',
    render: () =>
      renderToolResult('core_address_create', {
        address: DASH.receive0,
        path: "m/44'/1'/0'/0/0",
        index: 0,
        wallet_id: '73c5da0a',
        network: 'testnet',
      }),
  },
  {
    name: 'core-balances-get',
    render: () => renderToolResult('core_balances_get', balances()),
  },
  {
    name: 'core-balances-get.colour',
    render: () => renderToolResult('core_balances_get', balances(), COLOUR),
  },
  {
    name: 'core-utxos-list',
    render: () => renderToolResult('core_utxos_list', utxos()),
  },
  {
    // On an 80-column terminal the utxo table would wrap: one block per row instead.
    name: 'core-utxos-list.width-80',
    render: () => renderHuman(utxos(), PLAIN, outputSchemaOf('core_utxos_list'), { width: 80 }),
  },
  {
    name: 'core-funds-send-dry-run',
    render: () =>
      renderToolResult('core_funds_send', {
        sent: false,
        txid: null,
        hex: null,
        fee_duffs: '374',
        size_bytes: 374,
        inputs: [
          { txid: TXIDS[0], vout: 1, address: DASH.receive0, amount_duffs: '150000000' },
          { txid: TXIDS[2], vout: 12, address: DASH.receive2, amount_duffs: '150000' },
        ],
        outputs: [
          { address: DASH.payee, amount_duffs: '120000000', change: false },
          { address: DASH.change0, amount_duffs: '30149626', change: true },
        ],
        change_address: DASH.change0,
      }),
  },
  {
    name: 'core-tx-sign',
    render: () =>
      renderToolResult('core_tx_sign', {
        hex:
          '03000000017c8b9a0f1e2d3c4b5a6f7e8d2b3c1f6a9e0d4e7ab2768d3ebda4a2d63c6e0a5b010000006a47304402203f1e' +
          '9a4c2b7d8e6f5a4b3c2d1e0f9a8b7c6d5e4f3a2b1c0d9e8f7a6b5c4d3e2f1a02204b3c2d1e0f9a8b7c6d5e4f3a2b1c0d9e8f' +
          '7a6b5c4d3e2f1a0b9c8d7e6f5a4b012102a1b2c3d4e5f60718293a4b5c6d7e8f9a0b1c2d3e4f5061728394a5b6c7d8e9f0a1' +
          'ffffffff0200a3e111000000001976a914f1e2d3c4b5a69788796a5b4c3d2e1f00112233488acfa0ccb01000000001976a9' +
          '14a1b2c3d4e5f60718293a4b5c6d7e8f9a0b1c2d388ac00000000',
        txid: 'c3d4e5f60718293a4b5c6d7e8f9a0b1c2d3e4f5061728394a5b6c7d8e9f0a1b2',
        fee_duffs: '226',
        size_bytes: 226,
      }),
  },
  {
    name: 'core-address-validate-invalid',
    render: () =>
      renderToolResult('core_address_validate', {
        valid: false,
        network: null,
        networks: [],
        type: null,
        problem: 'bad Base58Check checksum',
      }),
  },
  {
    name: 'core-message-sign-multiline',
    render: () =>
      renderToolResult('core_message_sign', {
        address: DASH.receive0,
        message: 'I own this address.\nSigned for invoice 2026-114,\nAlice',
        signature: 'IMktw4y/b+0+bBG2fTgQs6GyqN67rXWLxX8uxCzahJDmZ8NQYUwZZWjgOD0+obuIokXGJP4Ne8OK4qlHZA7dMZU=',
      }),
  },
  {
    name: 'evm-balance-get-native',
    render: () =>
      renderToolResult('evm_balance_get', {
        address: EVM.savings,
        network: 'sepolia',
        wei: '1500000000000000000',
        ether: '1.5',
        token: null,
        token_symbol: null,
        token_decimals: null,
        token_balance: null,
        token_amount: null,
      }),
  },
  {
    name: 'evm-balance-get-token',
    render: () =>
      renderToolResult('evm_balance_get', {
        address: EVM.anvil,
        network: 'local',
        wei: '9999979000000000000000',
        ether: '9999.979',
        token: EVM.token,
        token_symbol: 'USDC',
        token_decimals: 6,
        token_balance: '1234500000',
        token_amount: '1234.5',
      }),
  },
  {
    name: 'evm-account-create',
    render: () =>
      renderToolResult('evm_account_create', {
        address: EVM.savings,
        path: "m/44'/60'/0'/0/0",
        index: 0,
        wallet_id: '73c5da0a',
        alias: 'savings',
      }),
  },
  {
    name: 'evm-accounts-list-empty',
    render: () => renderToolResult('evm_accounts_list', { accounts: [], unreadable_files: [] }),
  },
  {
    name: 'evm-accounts-list',
    render: () =>
      renderToolResult('evm_accounts_list', {
        accounts: [
          {
            address: EVM.savings,
            alias: 'savings',
            source: 'derived',
            wallet_id: '73c5da0a',
            index: 0,
            path: "m/44'/60'/0'/0/0",
          },
          { address: EVM.anvil, alias: null, source: 'imported', wallet_id: null, index: null, path: null },
        ],
        unreadable_files: [],
      }),
  },
  {
    name: 'evm-tx-get',
    render: () =>
      renderToolResult('evm_tx_get', {
        hash: EVM.hash,
        status: 'success',
        block_number: 7_123_456,
        gas_used: '21000',
        fee_wei: '31500021000000',
        contract_address: null,
        network: 'sepolia',
        from: EVM.savings,
        to: EVM.anvil,
        value_wei: '250000000000000000',
        nonce: 7,
        data: '0x',
        confirmations: 12,
      }),
  },
  {
    name: 'evm-tx-get-not-found',
    render: () =>
      renderToolResult('evm_tx_get', {
        hash: EVM.hash,
        status: 'not_found',
        block_number: null,
        gas_used: null,
        fee_wei: null,
        contract_address: null,
        network: 'sepolia',
        from: null,
        to: null,
        value_wei: null,
        nonce: null,
        data: null,
        confirmations: null,
      }),
  },
  {
    name: 'evm-funds-send',
    render: () =>
      renderToolResult('evm_funds_send', {
        network: 'sepolia',
        chain_id: 11_155_111,
        from: EVM.savings,
        to: EVM.anvil,
        value_wei: '250000000000000000',
        value_ether: '0.25',
        data: '0x',
        nonce: 7,
        gas_limit: '21000',
        max_fee_per_gas: '3000000000',
        max_priority_fee_per_gas: '1000000000',
        max_fee_wei: '63000000000000',
        sent: true,
        hash: EVM.hash,
        status: 'success',
        block_number: 7_123_456,
        gas_used: '21000',
        fee_wei: '31500021000000',
      }),
  },
  {
    name: 'network-info',
    render: () =>
      renderToolResult('network_info', {
        default_core_network: 'testnet',
        default_evm_network: 'sepolia',
        default_platform_network: 'testnet',
        networks: [
          {
            chain: 'core',
            network: 'testnet',
            default: true,
            backend: 'core-rpc',
            chain_id: null,
            endpoint: 'http://127.0.0.1:19998',
            endpoint_source: 'default',
            quorum_url: null,
            env_var: 'WALLET_CORE_TESTNET_URL',
          },
          {
            chain: 'evm',
            network: 'sepolia',
            default: true,
            backend: 'evm-rpc',
            chain_id: 11_155_111,
            endpoint: null,
            endpoint_source: null,
            quorum_url: null,
            env_var: 'WALLET_EVM_SEPOLIA_URL',
          },
          {
            chain: 'platform',
            network: 'local',
            default: false,
            backend: 'dapi',
            chain_id: null,
            endpoint: 'http://127.0.0.1:2443 http://127.0.0.1:2444',
            endpoint_source: 'config',
            quorum_url: 'http://127.0.0.1:2445',
            env_var: 'platform.networks.local.dapi_addresses',
          },
        ],
      }),
  },
  {
    name: 'tool-describe-nested',
    render: () => {
      const tool = ALL_TOOLS.find((candidate) => candidate.name === 'core_message_verify');
      assert.ok(tool);
      const described = describeTool(tool);
      return renderToolResult('tool_describe', {
        tools: [
          {
            name: described.name,
            title: described.title,
            summary: described.summary,
            description: described.description,
            command: described.command,
            input_schema: described.inputSchema,
            output_schema: described.outputSchema,
            annotations: described.annotations,
          },
        ],
      });
    },
  },
  {
    // `wallet tools`: rows the CLI builds itself, no schema.
    name: 'wallet-tools',
    render: () =>
      renderHuman(
        [
          { command: 'core-address-create', tool: 'core_address_create', summary: 'Hand out the next receive address' },
          {
            command: 'core-funds-send',
            tool: 'core_funds_send',
            summary: 'Pay an address',
            badges: 'destructive network',
          },
          { command: 'network-info', tool: 'network_info', summary: 'List networks', badges: 'read-only' },
        ],
        PLAIN,
      ),
  },
  {
    // Another server's result: an escape sequence, a bell, a C1 CSI and a right-to-left override
    // must show as escapes, in keys, values and table cells alike.
    name: 'control-characters',
    render: () =>
      renderHuman(
        {
          note: 'paid\u001b[2J\u001b[31m in full\u0007\r\nsecond line\tend',
          'label\u001b]0;pwned\u0007': 'x',
          rows: [{ name: 'a\nb', to: 'yRd4\u202eHfXfV', code: '\u009b6n' }],
        },
        PLAIN,
      ),
  },
  {
    // Column order from the schema (a $ref to $defs, nullable): the first row lacks `memo`,
    // a second array is empty, and extra keys come after the declared ones.
    name: 'schema-order',
    render: () => renderHuman(schemaOrderValue(), PLAIN, SCHEMA_ORDER),
  },
];

function utxos(): Record<string, unknown> {
  return {
    wallet_id: '73c5da0a',
    network: 'testnet',
    tip_height: 1_184_522,
    total_duffs: '250150000',
    spendable_duffs: '150000000',
    utxos: [
      {
        txid: TXIDS[0],
        vout: 1,
        address: DASH.receive0,
        path: "m/44'/1'/0'/0/0",
        amount_duffs: '150000000',
        height: 1_184_310,
        spendable: true,
      },
      {
        txid: TXIDS[1],
        vout: 0,
        address: DASH.receive1,
        path: "m/44'/1'/0'/0/1",
        amount_duffs: '100000000',
        height: 1_184_480,
        spendable: false,
      },
      {
        txid: TXIDS[2],
        vout: 12,
        address: DASH.receive2,
        path: "m/44'/1'/0'/0/2",
        amount_duffs: '150000',
        height: null,
        spendable: true,
      },
    ],
  };
}

function balances(): Record<string, unknown> {
  return {
    wallet_id: '73c5da0a',
    network: 'testnet',
    confirmed_duffs: '250150000',
    unconfirmed_duffs: '-100000',
    total_duffs: '250050000',
    total_dash: '2.5005',
    backend: 'insight',
    addresses: [
      {
        address: DASH.receive0,
        path: "m/44'/1'/0'/0/0",
        confirmed_duffs: '150000000',
        unconfirmed_duffs: '-100000',
      },
      { address: DASH.receive1, path: "m/44'/1'/0'/0/1", confirmed_duffs: '100000000', unconfirmed_duffs: '0' },
      { address: DASH.receive2, path: "m/44'/1'/0'/0/2", confirmed_duffs: '150000', unconfirmed_duffs: '0' },
    ],
  };
}

const SCHEMA_ORDER: JsonSchema = {
  type: 'object',
  $defs: {
    Payment: {
      type: 'object',
      properties: {
        address: { type: 'string' },
        memo: { type: ['string', 'null'] },
        amount_duffs: { type: 'string', 'x-unit': 'duffs' },
      },
      required: ['address', 'amount_duffs'],
    },
  },
  properties: {
    title: { type: 'string' },
    payments: { anyOf: [{ type: 'array', items: { $ref: '#/$defs/Payment' } }, { type: 'null' }] },
    refunds: { type: 'array', items: { $ref: '#/$defs/Payment' } },
    fee_duffs: { type: 'string', 'x-unit': 'duffs' },
  },
};

function schemaOrderValue(): Record<string, unknown> {
  return {
    extra: 'not in the schema',
    fee_duffs: '226',
    refunds: [],
    payments: [
      { amount_duffs: '100000000', address: DASH.payee },
      { amount_duffs: '5000', address: DASH.receive1, memo: 'coffee', tag: 7 },
    ],
    title: 'Payouts',
  };
}

describe('renderHuman: golden files', () => {
  for (const { name, render } of GOLDEN_CASES) {
    it(name, () => assertGolden(name, render()));
  }

  it('sends no raw control character to the terminal, and colour codes only when colour is on', () => {
    for (const { name, render } of GOLDEN_CASES) {
      const text = render();
      const coloured = name.endsWith('.colour');
      assert.equal(text.includes('\u001b'), coloured, `${name}: colour codes only when colour is on`);
      const shown = coloured ? stripVTControlCharacters(text) : text;
      assert.doesNotMatch(
        shown.replace(/[\n\t]/g, ''),
        /[\p{Cc}\p{Bidi_Control}]/u,
        `${name}: a raw control character`,
      );
    }
  });
});

describe('renderHuman', () => {
  it('escapes C0 and C1 controls and bidi overrides, and keeps newlines and tabs in blocks', () => {
    assert.equal(terminalSafe('a\u001b[2Jb'), 'a\\x1b[2Jb');
    assert.equal(terminalSafe('\u0000\u0007\u007f\u009b\u202e\u2066'), '\\x00\\x07\\x7f\\x9b\\u202e\\u2066');
    assert.equal(terminalSafe('one\ntwo\tthree\r'), 'one\ntwo\tthree\\r');
    assert.equal(terminalSafe('one\ntwo\t', true), 'one\\ntwo\\t');
    assert.equal(renderHuman('Echo: \u001b[31mhi', PLAIN), 'Echo: \\x1b[31mhi\n');
  });

  it('shows colour codes only with colour on, and the same text once they are removed', () => {
    const value = balances();
    const schema = outputSchemaOf('core_balances_get');
    const plain = renderHuman(value, PLAIN, schema);
    const coloured = renderHuman(value, COLOUR, schema);
    assert.ok(!plain.includes('\u001b'));
    assert.ok(coloured.includes('\u001b[36mwallet_id'));
    assert.ok(coloured.includes('\u001b[32m2.5005 DASH\u001b[39m (250050000 duffs)'));
    assert.equal(stripVTControlCharacters(coloured), plain);
  });

  it('converts base units to coins exactly, by the declared unit, and leaves anything else alone', () => {
    const duffs = { type: 'string', 'x-unit': 'duffs' };
    const wei = { type: 'string', 'x-unit': 'wei' };
    const schema: JsonSchema = {
      type: 'object',
      properties: {
        fee: duffs,
        one_duffs: duffs,
        change: duffs,
        huge: wei,
        wei,
        zero_wei: { anyOf: [wei, { type: 'null' }] },
        not_digits_duffs: duffs,
        number_duffs: duffs,
        max_fee_per_gas: { type: 'string', 'x-unit': 'wei', 'x-per': 'gas' },
        fee_rate: { type: 'string', 'x-unit': 'duffs', 'x-per': 'kB' },
        held: { type: 'string', 'x-unit': { decimals: 'token_decimals', symbol: 'token_symbol' } },
        token_decimals: { type: 'integer' },
        token_symbol: { type: ['string', 'null'] },
        undeclared_duffs: { type: 'string' },
        unknown_unit: { type: 'string', 'x-unit': 'furlongs' },
      },
    };
    const lines = renderHuman(
      {
        fee: '226',
        one_duffs: '1',
        change: '-150000000',
        huge: '115792089237316195423570985008687907853269984665640564039457584007913129639935',
        wei: '1',
        zero_wei: '0',
        not_digits_duffs: '1.5',
        number_duffs: 226,
        max_fee_per_gas: '3500000000',
        fee_rate: '1000',
        held: '1',
        token_decimals: 0,
        token_symbol: null,
        undeclared_duffs: '226',
        unknown_unit: '7',
      },
      PLAIN,
      schema,
    ).split('\n');
    assert.deepEqual(lines, [
      'fee               0.00000226 DASH (226 duffs)',
      'one_duffs         0.00000001 DASH (1 duff)',
      'change            -1.5 DASH (-150000000 duffs)',
      'huge             ' +
        ' 115792089237316195423570985008687907853269984665640564039457.584007913129639935 ether' +
        ' (115792089237316195423570985008687907853269984665640564039457584007913129639935 wei)',
      'wei               0.000000000000000001 ether (1 wei)',
      'zero_wei          0 ether (0 wei)',
      'not_digits_duffs  1.5',
      'number_duffs      226',
      'max_fee_per_gas   3.5 gwei (3500000000 wei) per gas',
      'fee_rate          0.00001 DASH (1000 duffs) per kB',
      'held              1 tokens (1 base unit)',
      'token_decimals    0',
      'undeclared_duffs  226',
      'unknown_unit      7',
      '',
    ]);
  });

  it('folds a declared coin twin into its amount line only when it says the same', () => {
    const schema = (base: string, twin: string, unit: string): JsonSchema => ({
      type: 'object',
      properties: {
        [base]: { type: 'string', 'x-unit': unit },
        [twin]: { type: 'string', 'x-unit': { 'coins-of': base } },
      },
    });
    assert.equal(
      renderHuman(
        { value_wei: '1500000000000000000', value_ether: '1.50' },
        PLAIN,
        schema('value_wei', 'value_ether', 'wei'),
      ),
      'value_wei  1.5 ether (1500000000000000000 wei)\n',
    );
    assert.equal(
      renderHuman({ total_duffs: '150000000', total_dash: '1.4' }, PLAIN, schema('total_duffs', 'total_dash', 'duffs')),
      'total_duffs  1.5 DASH (150000000 duffs)\ntotal_dash   1.4\n',
    );
    // Without a declaration a twin is just another field, whatever its name.
    assert.equal(
      renderHuman({ value_wei: '1500000000000000000', value_ether: '1.5' }, PLAIN),
      'value_wei    1500000000000000000\nvalue_ether  1.5\n',
    );
  });

  it('keeps the schema order for keys and columns, even when the first row lacks a field', () => {
    const [title, payments, header, first, second] = renderHuman(schemaOrderValue(), PLAIN, SCHEMA_ORDER).split('\n');
    assert.match(title ?? '', /^title +Payouts$/);
    assert.equal(payments, 'payments');
    assert.deepEqual(header?.trim().split(/ +/), ['address', 'memo', 'amount_duffs', 'tag']);
    assert.match(first ?? '', new RegExp(`^  ${DASH.payee} {2,}1 DASH \\(100000000 duffs\\)$`));
    assert.match(second ?? '', new RegExp(`^  ${DASH.receive1} +coffee +0.00005 DASH \\(5000 duffs\\) +7$`));
  });

  it('keeps a table that fits the width, and stacks one that does not', () => {
    const schema = outputSchemaOf('core_utxos_list');
    const wide = renderHuman(utxos(), PLAIN, schema);
    const widest = Math.max(...wide.split('\n').map((line) => line.length));
    assert.equal(renderHuman(utxos(), PLAIN, schema, { width: widest }), wide);
    const stacked = renderHuman(utxos(), PLAIN, schema, { width: widest - 1 });
    assert.notEqual(stacked, wide);
    assert.match(stacked, /^ {2}- txid +5b0a6e3c/m);
  });

  it('renders a list of scalars, nested lists and an empty object', () => {
    assert.equal(renderHuman(['a', 'b'], PLAIN), '- a\n- b\n');
    assert.equal(renderHuman([{}, [1, 2], 'x'], PLAIN), '- (empty)\n- - 1\n  - 2\n- x\n');
    assert.equal(renderHuman({ nested: { deeper: { a: 1 } } }, PLAIN), 'nested\n  deeper\n    a  1\n');
  });

  it('leaves absent (null) fields out of a block, keeps them as - in a table', () => {
    assert.equal(renderHuman({ a: 1, b: null, c: 'x' }, PLAIN), 'a  1\nc  x\n');
    assert.equal(renderHuman({ only: null }, PLAIN), '(empty)\n');
    assert.equal(
      renderHuman(
        {
          rows: [
            { a: 1, b: null },
            { a: 2, b: 3 },
          ],
        },
        PLAIN,
      ),
      'rows\n  a  b\n  1  -\n  2  3\n',
    );
    assert.equal(renderHuman([null, 'x'], PLAIN), '- -\n- x\n');
  });
});

describe('renderQr', () => {
  const address = DASH.receive0;
  const BLOCKS: Readonly<Record<string, readonly [top: boolean, bottom: boolean]>> = {
    ' ': [false, false],
    '▀': [true, false],
    '▄': [false, true],
    '█': [true, true],
  };

  /** The picture read back into modules (true = dark), two per character cell, top then bottom. */
  function modulesOf(picture: string): boolean[][] {
    const rows: boolean[][] = [];
    for (const line of picture.replace(/\n$/, '').split('\n')) {
      const top: boolean[] = [];
      const bottom: boolean[] = [];
      for (const char of line) {
        const pair = BLOCKS[char];
        assert.ok(pair, `unexpected character ${JSON.stringify(char)} in the QR picture`);
        top.push(pair[0]);
        bottom.push(pair[1]);
      }
      rows.push(top, bottom);
    }
    return rows;
  }

  /** Asserts the picture is exactly the QR symbol of `text`, inside an all-light quiet zone. */
  function assertEncodes(picture: string, text: string): void {
    const symbol = create(text, QR_OPTIONS);
    const size = symbol.modules.size;
    const margin = QR_OPTIONS.margin;
    const modules = modulesOf(picture);
    // Half blocks: an odd-sized symbol leaves one light half row under it.
    assert.equal(modules.length, size + 2 * margin + 1);
    for (const [y, row] of modules.entries()) {
      assert.equal(row.length, size + 2 * margin, `row ${y} width`);
      for (const [x, dark] of row.entries()) {
        const inside = y >= margin && y < margin + size && x >= margin && x < margin + size;
        const expected = inside && symbol.modules.get(y - margin, x - margin) === 1;
        assert.equal(dark, expected, `module at row ${y}, column ${x}`);
      }
    }
  }

  it('draws exactly the modules of the QR symbol of the plain Dash address', async () => {
    const picture = await renderQr(address);
    assert.ok(picture.endsWith('\n') && !picture.endsWith('\n\n'));
    assertEncodes(picture, address);
    assert.equal(create(address, QR_OPTIONS).version, 3);
    const lines = picture.slice(0, -1).split('\n');
    // Version 3: 29 modules, plus a quiet zone of 4 on each side; two rows per line.
    assert.deepEqual([lines.length, ...new Set(lines.map((line) => [...line].length))], [19, 37]);
    assertGolden('qr-dash-address', picture);
  });

  it('is deterministic', async () => {
    assert.equal(await renderQr(address), await renderQr(address));
  });

  it('draws the plain checksummed 0x address for an EVM account', async () => {
    assertEncodes(await renderQr(EVM.savings), EVM.savings);
  });

  it('paints every line dark on light when colour is on, and nothing when it is off', async () => {
    const plain = await renderQr(address, PLAIN);
    const coloured = await renderQr(address, COLOUR);
    assert.equal(plain, await renderQr(address));
    assert.equal(stripVTControlCharacters(coloured), plain);
    for (const line of coloured.slice(0, -1).split('\n')) assert.ok(line.startsWith('\u001b[30m\u001b[107m'));
  });
});
