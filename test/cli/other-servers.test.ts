import assert from 'node:assert/strict';
import { chmodSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { wallet } from '../helpers/io.js';
import { EVERYTHING_SERVER, FIXTURE_SERVER } from '../helpers/paths.js';

const everything = `"${process.execPath}" "${EVERYTHING_SERVER}" stdio`;
const fixture = `"${process.execPath}" "${FIXTURE_SERVER}"`;

describe('wallet --server: a server nobody here wrote (@modelcontextprotocol/server-everything)', () => {
  it('lists its tools as commands', async () => {
    const { code, stdout } = await wallet(['--server', everything, '--help']);
    assert.equal(code, 0);
    assert.match(stdout, /^wallet — Tools of mcp-servers\/everything /);
    assert.doesNotMatch(stdout, /Dash and Ethereum wallet/, "another server's help is not the wallet's");
    assert.match(stdout, / {2}echo +Echoes back the input string/);
    assert.match(stdout, / {2}get-sum +Returns the sum of two numbers/);
  });

  it('calls echo with a generated string flag, keeping 0x10 a string', async () => {
    const { code, stdout } = await wallet(['--server', everything, 'echo', '--message', '0x10']);
    assert.equal(code, 0);
    assert.equal(stdout, 'Echo: 0x10\n');
  });

  it('calls get-sum with generated number flags', async () => {
    const { code, stdout } = await wallet(['--server', everything, 'get-sum', '--a', '2', '--b', '3.5']);
    assert.equal(code, 0);
    assert.match(stdout, /The sum of 2 and 3\.5 is 5\.5\./);
    const bad = await wallet(['--server', everything, 'get-sum', '--a', 'two', '--b', '1']);
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /--a must be a number; got 'two'/);
  });

  it('prints structured content as JSON with --json', async () => {
    const { code, stdout } = await wallet([
      '--server',
      everything,
      'get-structured-content',
      '--location',
      'New York',
      '--json',
    ]);
    assert.equal(code, 0);
    assert.equal(typeof (JSON.parse(stdout) as { temperature: unknown }).temperature, 'number');
  });
});

describe('wallet --server: schemas of every shape (fixture server)', () => {
  it('turns nested, array, union, nullable and $ref properties into flags', async () => {
    const { code, stdout, stderr } = await wallet([
      '--server',
      fixture,
      'shapes-echo',
      '--json',
      '--id',
      '0012',
      '--count',
      '3',
      '--ratio',
      '-1.5e2',
      '--verbose',
      '--mode',
      'fast',
      '--tags',
      'a',
      '--tags',
      '0x10',
      '--sizes',
      '1',
      '--sizes',
      '2',
      '--origin',
      '{"x":1,"y":2}',
      '--note',
      'null',
      '--limit',
      'null',
      '--target',
      '{"id":"t"}',
      '--arg-json',
      'x',
    ]);
    assert.equal(code, 0, stderr);
    assert.deepEqual((JSON.parse(stdout) as { received: unknown }).received, {
      id: '0012',
      count: 3,
      ratio: -150,
      verbose: true,
      mode: 'fast',
      tags: ['a', '0x10'],
      sizes: [1, 2],
      origin: { x: 1, y: 2 },
      note: 'null',
      limit: null,
      target: { id: 't' },
      json: 'x',
    });
  });

  it('supports --no-<flag> for booleans and shows defaults in help', async () => {
    const off = await wallet(['--server', fixture, 'shapes-echo', '--no-verbose', '--json']);
    assert.deepEqual((JSON.parse(off.stdout) as { received: unknown }).received, { verbose: false });
    const help = await wallet(['--server', fixture, 'shapes-echo', '--help']);
    assert.match(help.stdout, /--mode <fast\|safe> +The mode \[default: "safe"\]/);
    assert.match(help.stdout, /--tags <string> +Tags \[repeatable\]/);
    assert.match(help.stdout, /--\[no-\]verbose/);
  });

  it('follows tools/list pagination', async () => {
    const { stdout } = await wallet(['--server', fixture, 'tools', '--json']);
    const { tools } = JSON.parse(stdout) as { tools: { tool: string }[] };
    assert.deepEqual(
      tools.map((row) => row.tool),
      [
        'serve',
        'key_import_now',
        'always_fails_now',
        'output_mismatch_now',
        'secret_store_put',
        'shapes-echo',
        'funds_burn_now',
        'tools_grow_now',
        'env_get_now',
        'process_die_now',
        'secret_nested_now',
        'call_hang_now',
        'hostile_names_now',
      ],
    );
  });

  it('renames flags that would clash with global flags or negation, and reads allOf and scalar unions', async () => {
    const { code, stdout, stderr } = await wallet([
      '--server',
      fixture,
      'shapes-echo',
      '--json',
      '--arg-format',
      'csv',
      '--arg-no-verify',
      '--wrapped',
      'fast',
      '--multi',
      'abc',
    ]);
    assert.equal(code, 0, stderr);
    assert.deepEqual((JSON.parse(stdout) as { received: unknown }).received, {
      format: 'csv',
      no_verify: true,
      wrapped: 'fast',
      multi: 'abc',
    });
    const number = await wallet(['--server', fixture, 'shapes-echo', '--json', '--multi', '12']);
    assert.deepEqual((JSON.parse(number.stdout) as { received: unknown }).received, { multi: 12 });
    const badChoice = await wallet(['--server', fixture, 'shapes-echo', '--wrapped', 'slow']);
    assert.equal(badChoice.code, 2);
    assert.match(badChoice.stderr, /--wrapped must be one of fast, safe/);
  });

  it('gives a tool named like a CLI verb its own command', async () => {
    const { stdout } = await wallet(['--server', fixture, '--help']);
    assert.match(stdout, / {2}tool-serve +A tool named like a CLI verb/);
    assert.equal((await wallet(['--server', fixture, 'tool-serve'])).code, 0);
  });

  it("prints flag names made of a server's property or argument names terminal-safe in --help", async () => {
    // Nothing the server named reaches the terminal raw: no ESC, BEL or C1 CSI in the help.
    const raw = (text: string): boolean => ['\u0007', '\u001b', '\u009b'].some((char) => text.includes(char));
    const tool = await wallet(['--server', fixture, 'hostile-names-now', '--help']);
    assert.equal(tool.code, 0, tool.stderr);
    assert.ok(!raw(tool.stdout), tool.stdout);
    assert.match(tool.stdout, /--\\x1b\[41mred <string> +An SGR sequence in the name/);
    assert.match(tool.stdout, /--\[no-\]\\x1b\]0;pwned\\x07title +An OSC sequence in the name/);
    assert.match(tool.stdout, /--\\x9b31mcsi-stdin +A C1 CSI in a secret name/);
    const prompt = await wallet(['--server', fixture, 'prompt', 'hostile_prompt', '--help']);
    assert.equal(prompt.code, 0, prompt.stderr);
    assert.ok(!raw(prompt.stdout), prompt.stdout);
    assert.match(prompt.stdout, /--\\x1b\[41mtopic\\x1b\]8;;https:\/\/x\.invalid\\x07 <string>/);
  });

  it('keeps a tool name outside our pattern as its command', async () => {
    const { stdout } = await wallet(['--server', fixture, '--help']);
    assert.match(stdout, / {2}secret-store-put +Stores a secret/);
    assert.match(stdout, / {2}shapes-echo +Echoes its arguments/);
  });

  describe('secret fields (format: password / writeOnly)', () => {
    const words = 'abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about';

    it('refuses an inline secret, naming the safe flags', async () => {
      const { code, stderr } = await wallet([
        '--server',
        fixture,
        'secret-store-put',
        '--label',
        'l',
        '--mnemonic',
        words,
      ]);
      assert.equal(code, 2);
      assert.match(stderr, /--mnemonic is a secret and is never taken from the command line/);
      assert.match(stderr, /hint: Use --mnemonic-stdin, --mnemonic-file/);
      assert.ok(!stderr.includes('abandon'));
    });

    it('refuses a secret inside inline --args-json', async () => {
      const { code } = await wallet([
        '--server',
        fixture,
        'secret-store-put',
        '--args-json',
        JSON.stringify({ label: 'l', mnemonic: words }),
      ]);
      assert.equal(code, 2);
    });

    it('reads it from stdin', async () => {
      const { code, stdout } = await wallet(
        ['--server', fixture, 'secret-store-put', '--label', 'l', '--mnemonic-stdin', '--json'],
        {
          stdin: `${words}\n`,
        },
      );
      assert.equal(code, 0);
      assert.deepEqual(JSON.parse(stdout), { label: 'l', words: 12 });
    });

    it('reads it from an owner-only file, and refuses a file others can read', async () => {
      const file = join(mkdtempSync(join(tmpdir(), 'wallet-test-')), 'words');
      writeFileSync(file, words);
      chmodSync(file, 0o600);
      const ok = await wallet([
        '--server',
        fixture,
        'secret-store-put',
        '--label',
        'l',
        '--mnemonic-file',
        file,
        '--json',
      ]);
      assert.deepEqual(JSON.parse(ok.stdout), { label: 'l', words: 12 });
      chmodSync(file, 0o640);
      const refused = await wallet(['--server', fixture, 'secret-store-put', '--label', 'l', '--mnemonic-file', file]);
      assert.equal(refused.code, 2);
      assert.match(refused.stderr, /readable by others/);
    });

    it('says which flags supply a missing secret when there is no terminal to prompt on', async () => {
      const { code, stderr } = await wallet(['--server', fixture, 'secret-store-put', '--label', 'l']);
      assert.equal(code, 2);
      assert.match(stderr, /Missing required flag: --mnemonic-stdin or --mnemonic-file/);
    });

    it('allows only one reader of stdin', async () => {
      const { code, stderr } = await wallet(
        ['--server', fixture, 'secret-store-put', '--args-json', '-', '--mnemonic-stdin'],
        { stdin: '{}' },
      );
      assert.equal(code, 2);
      assert.match(stderr, /Only one input can come from stdin/);
    });
  });

  it("exits 1 on a tool's isError result without a code: TOOL_ERROR, the server's message, a hint", async () => {
    const { code, stdout, stderr } = await wallet(['--server', fixture, 'always-fails-now']);
    assert.equal(code, 1);
    assert.equal(stdout, '');
    assert.equal(
      stderr,
      "error: TOOL_ERROR: the fixture failed on purpose\nhint: The server gave no error code: its message is all it said. 'always-fails-now --help' shows what it takes.\n",
    );
  });

  it('exits 3 with a clear message when the server cannot be started', async () => {
    const { code, stderr } = await wallet(['--server', 'wallet-test-no-such-command', 'tools']);
    assert.equal(code, 3);
    assert.match(stderr, /Cannot connect to the MCP server: the server command was not found/);
  });

  it('exits 3 when the server exits before answering', async () => {
    const { code, stderr } = await wallet([
      '--server',
      `"${process.execPath}" -e "process.exit(0)"`,
      'tools',
      '--timeout',
      '5000',
    ]);
    assert.equal(code, 3);
    assert.match(stderr, /Cannot connect to the MCP server/);
  });
});
