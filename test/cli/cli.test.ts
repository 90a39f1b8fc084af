import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ALL_TOOLS } from '../../src/tools/index.js';
import { toolNameToCommand } from '../../src/shared/naming.js';
import { wallet } from '../helpers/io.js';

describe('wallet CLI on its own server (in-process)', () => {
  it('--help lists every tool command with its summary, grouped by domain, and the CLI verbs', async () => {
    const { code, stdout } = await wallet(['--help']);
    assert.equal(code, 0);
    for (const tool of ALL_TOOLS) {
      assert.match(stdout, new RegExp(`  ${toolNameToCommand(tool.name)} +${tool.summary.replace(/[()]/g, '.')}`));
    }
    assert.match(stdout, /Meta commands:/);
    assert.match(stdout, /CLI commands:\n {2}serve /);
    assert.match(stdout, /--get-tool-definition/);
  });

  it('<command> --help shows the full description, every flag with type and choices, and annotations', async () => {
    const { code, stdout } = await wallet(['network-info', '--help']);
    assert.equal(code, 0);
    assert.match(stdout, /Reads configuration only: it does not contact any node\./);
    assert.match(stdout, /--chain <core\|evm\|platform> +Only this chain/);
    assert.match(stdout, /--args-json <json\|->/);
    assert.match(stdout, /read-only: yes {2}destructive: no {2}idempotent: yes {2}open-world: no/);
    const required = await wallet(['core-address-validate', '--help']);
    assert.match(required.stdout, /--address <string> +A Dash address .*\[required\]/);
  });

  it('runs a tool and renders it for people; --json prints exactly the structured result', async () => {
    const human = await wallet(['network-info', '--chain', 'core']);
    assert.equal(human.code, 0);
    assert.match(human.stdout, /^default_core_network +testnet$/m);
    assert.match(human.stdout, /core +regtest +false +core-rpc/);
    const json = await wallet(['network-info', '--chain', 'core', '--json']);
    const parsed = JSON.parse(json.stdout) as { networks: unknown[] };
    assert.equal(parsed.networks.length, 3);
    assert.equal(json.stderr, '');
  });

  it('takes the whole argument object from --args-json, inline or on stdin', async () => {
    const nameOf = (stdout: string): string =>
      (JSON.parse(stdout) as { tools: { name: string }[] }).tools[0]?.name ?? '';
    const inline = await wallet(['tool-describe', '--args-json', '{"name":"network_info"}', '--json']);
    assert.equal(nameOf(inline.stdout), 'network_info');
    const piped = await wallet(['tool-describe', '--args-json', '-', '--json'], { stdin: '{"name":"tool_describe"}' });
    assert.equal(nameOf(piped.stdout), 'tool_describe');
    const overridden = await wallet([
      'tool-describe',
      '--args-json',
      '{"name":"nope"}',
      '--name',
      'network_info',
      '--json',
    ]);
    assert.equal(nameOf(overridden.stdout), 'network_info');
  });

  const usage: [string, string[], RegExp][] = [
    ['a missing required flag', ['core-address-validate'], /error: USAGE: Missing required flag: --address\./],
    [
      'an unknown flag',
      ['network-info', '--chian', 'evm'],
      /Unknown flag --chian for 'network-info'\.\nhint: Did you mean --chain\?/,
    ],
    [
      'a value outside the choices',
      ['network-info', '--chain', 'btc'],
      /--chain must be one of core, evm, platform; got 'btc'/,
    ],
    ['a stray positional', ['network-info', 'evm'], /Unexpected argument 'evm'/],
    ['an unknown command', ['netwrk-info'], /Unknown command 'netwrk-info'\.\nhint: Did you mean network-info\?/],
    ['bad --args-json', ['tool-describe', '--args-json', '{'], /--args-json is not valid JSON/],
    ['a bad --timeout', ['network-info', '--timeout', 'soon'], /--timeout takes milliseconds/],
    [
      'a --timeout longer than a timer holds',
      ['network-info', '--timeout', '2147483648'],
      /--timeout takes milliseconds, a positive integer up to 2147483647; got '2147483648'/,
    ],
    [
      'a malformed --endpoint',
      ['network-info', '--endpoint', 'nonsense'],
      /--endpoint: An endpoint override takes <chain>\.<network>=<url>/,
    ],
    // Issue 19: before the command these printed the root help and exited 0.
    [
      'an unknown flag before the command',
      ['--jsn', 'network-info'],
      /Unknown flag --jsn\.\nhint: Did you mean --json\?/,
    ],
    ['an unknown flag alone', ['--bogus'], /Unknown flag --bogus\./],
    ['an unknown short flag before the command', ['-q', 'network-info'], /Unknown flag -q\./],
    // Issue 19: a repeated single-value flag was silently joined or reduced to one value.
    [
      'a repeated --timeout',
      ['--timeout', '1000', '--timeout', '2000', 'network-info'],
      /--timeout was given more than once/,
    ],
    [
      'a repeated serve --listen',
      ['serve', '--http', '--listen', '127.0.0.1:0', '--listen', '127.0.0.1:1'],
      /--listen was given more than once/,
    ],
    [
      'a repeated serve --log-level',
      ['serve', '--log-level', 'debug', '--log-level', 'off'],
      /--log-level was given more than once/,
    ],
    [
      'a tool error for invalid input',
      ['tool-describe', '--name', 'nope'],
      /error: INVALID_PARAM: No tool of this server has that name\.\nhint: Tools here:/,
    ],
  ];
  for (const [label, argv, expected] of usage) {
    it(`exits 2 on ${label}, before or without any side effect`, async () => {
      const { code, stdout, stderr } = await wallet(argv);
      assert.equal(code, 2, stderr);
      assert.equal(stdout, '');
      assert.match(stderr, expected);
      // Every error has a code and a hint (issue 40): one line each.
      assert.match(stderr, /^error: [A-Z][A-Z_]+: [^\n]+\nhint: [^\n]+\n/);
      assert.ok(!stderr.includes('    at '), 'no stack trace without --debug');
    });
  }

  it('names a bad endpoint variable without echoing it (INVALID_PARAM, exit 2)', async () => {
    const { code, stderr } = await wallet(['network-info'], { env: { WALLET_CORE_TESTNET_URL: 'not a url pa55word' } });
    assert.equal(code, 2);
    assert.match(stderr, /WALLET_CORE_TESTNET_URL is not a valid URL/);
    assert.ok(!stderr.includes('pa55word'));
  });

  it('--get-tool-definition prints one function-calling document and exits 0', async () => {
    const { code, stdout } = await wallet(['--get-tool-definition']);
    assert.equal(code, 0);
    const document = JSON.parse(stdout) as {
      tool: {
        name: string;
        description: string;
        functions: { name: string; description: string; parameters: object }[];
      };
    };
    assert.equal(document.tool.name, 'wallet');
    // What wallet serve serves (test/cli/tool-definition.test.ts checks the flags).
    const served = ALL_TOOLS.filter((tool) => tool.localOnly !== true);
    assert.deepEqual(
      document.tool.functions.map((fn) => fn.name),
      served.map((tool) => tool.name),
    );
    assert.equal(document.tool.functions[0]?.description, served[0]?.summary);
    const openai = JSON.parse((await wallet(['--get-tool-definition', '--format', 'openai'])).stdout) as {
      type: string;
    }[];
    assert.equal(openai[0]?.type, 'function');
    const anthropic = JSON.parse((await wallet(['--get-tool-definition', '--format', 'anthropic'])).stdout) as {
      input_schema: object;
    }[];
    assert.ok(anthropic[0]?.input_schema);
  });

  it('wallet tools lists name, command, summary and badges', async () => {
    const { code, stdout } = await wallet(['tools', '--json']);
    assert.equal(code, 0);
    const { tools } = JSON.parse(stdout) as { tools: { command: string; tool: string; badges: string }[] };
    assert.deepEqual(
      tools.map((row) => row.tool),
      ALL_TOOLS.map((tool) => tool.name),
    );
    for (const tool of ALL_TOOLS) {
      const badges = tools.find((row) => row.tool === tool.name)?.badges ?? '';
      assert.equal(badges.includes('read-only'), tool.annotations.readOnlyHint, `${tool.name} read-only badge`);
      assert.equal(badges.includes('destructive'), tool.annotations.destructiveHint, `${tool.name} destructive badge`);
      assert.equal(badges.includes('network'), tool.annotations.openWorldHint, `${tool.name} network badge`);
    }
  });

  it('--version prints the version', async () => {
    const { code, stdout } = await wallet(['--version']);
    assert.equal(code, 0);
    assert.match(stdout, /^\d+\.\d+\.\d+\n$/);
  });

  it('refuses passphrase files others can read', async () => {
    const { mkdtempSync, writeFileSync, chmodSync } = await import('node:fs');
    const { join } = await import('node:path');
    const { tmpdir } = await import('node:os');
    const file = join(mkdtempSync(join(tmpdir(), 'wallet-test-')), 'pass');
    writeFileSync(file, 'hunter2\n');
    chmodSync(file, 0o644);
    const open = await wallet(['network-info', '--passphrase-file', file]);
    assert.equal(open.code, 2);
    assert.match(open.stderr, /readable by others \(mode 644\).*\nhint: Run: chmod 600/);
    assert.ok(!open.stderr.includes('hunter2'));
    chmodSync(file, 0o600);
    assert.equal((await wallet(['network-info', '--passphrase-file', file])).code, 0);
  });
});
