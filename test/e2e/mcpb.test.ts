import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { delimiter, dirname, join, sep } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { getMcpConfigForManifest, vAny } from '@anthropic-ai/mcpb';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { z } from 'zod';
import { ALL_TOOLS } from '../../src/tools/index.js';
import { passphraseFileIn, tempHome } from '../helpers/io.js';
import { ROOT } from '../helpers/paths.js';

/**
 * The MCP bundle as a host installs it: built by scripts/bundle-mcpb.mjs (the official mcpb tool's
 * `validate` and `pack`), unpacked by the same tool, and its server started exactly as its
 * manifest says, `${__dirname}` and `${user_config.*}` replaced by mcpb's own code from what a user
 * would set (or the defaults), with a real MCP client listing the tools.
 */
const MCPB = join(ROOT, 'node_modules', '@anthropic-ai', 'mcpb', 'dist', 'cli', 'cli.js');
const PACKAGE = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { name: string; version: string };

const Manifest = z.object({
  name: z.string(),
  version: z.string(),
  server: z.object({
    type: z.literal('node'),
    entry_point: z.string(),
    mcp_config: z.object({ command: z.string(), args: z.array(z.string()), env: z.record(z.string(), z.string()) }),
  }),
  user_config: z.record(
    z.string(),
    z.object({ type: z.string(), required: z.boolean(), default: z.union([z.string(), z.boolean()]).optional() }),
  ),
});
type Manifest = z.infer<typeof Manifest>;

function mcpb(args: string[]) {
  const run = spawnSync(process.execPath, [MCPB, ...args], { encoding: 'utf8', timeout: 120_000 });
  assert.equal(run.status, 0, `mcpb ${args.join(' ')}: ${run.stdout}${run.stderr}`);
}

/**
 * The server's command line and environment as an MCPB host computes them: mcpb's own
 * `getMcpConfigForManifest` (what Claude Desktop uses), `${__dirname}` the unpacked bundle and
 * `settings` the user's choices over the manifest's defaults. A setting the user leaves unset is
 * simply absent from `settings`, as in a host.
 */
async function hostConfig(
  raw: unknown,
  dir: string,
  settings: Record<string, string | boolean>,
): Promise<{ command: string; args: string[]; env: Record<string, string> }> {
  const config = await getMcpConfigForManifest({
    manifest: vAny.McpbManifestSchema.parse(raw),
    extensionPath: dir,
    systemDirs: {},
    userConfig: settings,
    pathSeparator: sep,
  });
  assert.ok(config, 'mcpb gives the server a configuration');
  return { command: config.command, args: config.args ?? [], env: config.env ?? {} };
}

describe('the MCP bundle (wallet.mcpb)', () => {
  const work = tempHome();
  const unpacked = join(work, 'unpacked');
  let manifest: Manifest;
  let raw: unknown;
  before(() => {
    const bundle = join(work, 'wallet.mcpb');
    const built = spawnSync(process.execPath, [join(ROOT, 'scripts', 'bundle-mcpb.mjs'), bundle], {
      encoding: 'utf8',
      timeout: 180_000,
    });
    assert.equal(built.status, 0, built.stdout + built.stderr);
    mcpb(['unpack', bundle, unpacked]);
    raw = JSON.parse(readFileSync(join(unpacked, 'manifest.json'), 'utf8'));
    manifest = Manifest.parse(raw);
  });
  after(() => rmSync(work, { recursive: true, force: true }));

  it('is the npm package, asking for the passphrase file, network, profile and read-only', () => {
    assert.equal(manifest.name, PACKAGE.name);
    assert.equal(manifest.version, PACKAGE.version);
    assert.deepEqual(Object.keys(manifest.user_config).sort(), ['network', 'passphrase_file', 'profile', 'read_only']);
    assert.equal(manifest.user_config['passphrase_file']?.type, 'file');
    assert.equal(manifest.user_config['read_only']?.type, 'boolean');
    // The passphrase goes by path only: no setting holds a secret.
    assert.ok(Object.values(manifest.user_config).every((setting) => !('sensitive' in setting)));
  });

  /** The environment the host starts the server in: the manifest's, `node` on PATH, the test's home. */
  function hostEnv(env: Record<string, string>, home: string): Record<string, string> {
    // `node` as the host finds it; the wallet's data in a folder of the test's.
    return { ...env, PATH: [dirname(process.execPath), process.env['PATH'] ?? ''].join(delimiter), WALLET_HOME: home };
  }

  /** The server the manifest describes, with `settings` as the user's choices over the defaults. */
  async function serve(settings: Record<string, string | boolean>, home: string): Promise<Client> {
    const { command, args, env } = await hostConfig(raw, unpacked, settings);
    const client = new Client({ name: 'mcpb-host', version: '1' });
    await client.connect(new StdioClientTransport({ command, args, env: hostEnv(env, home), stderr: 'ignore' }));
    return client;
  }

  it('substitutes every setting, even those left unset (no literal ${user_config...} reaches the server)', async () => {
    const { args, env } = await hostConfig(raw, unpacked, {});
    for (const value of [...args, ...Object.values(env)]) assert.doesNotMatch(value, /\$\{/, value);
    assert.equal(env['WALLET_PASSPHRASE_FILE'], '');
    assert.equal(env['WALLET_CORE_DEFAULT_NETWORK'], '');
  });

  it('serves when a host passes an unset setting through literally, warning', () => {
    const home = join(work, 'home-literal');
    mkdirSync(home);
    // A host that substitutes only what the user set: the env's `${user_config.*}` stay as written.
    const { command, args, env } = manifest.server.mcp_config;
    const run = spawnSync(
      command,
      args.map((arg) =>
        arg
          .replace('${__dirname}', unpacked)
          .replace(/\$\{user_config\.(\w+)\}/, (_, key: string) => String(manifest.user_config[key]?.default ?? '')),
      ),
      { encoding: 'utf8', input: '', env: hostEnv(env, home), timeout: 30_000 },
    );
    assert.equal(run.status, 0, run.stderr);
    assert.equal(run.stdout, '');
    assert.match(
      run.stderr,
      /\$WALLET_PASSPHRASE_FILE holds an unsubstituted MCP bundle setting; treating it as unset/,
    );
    assert.match(run.stderr, /\$WALLET_CORE_DEFAULT_NETWORK holds an unsubstituted/);
  });

  it('serves every tool with the defaults', async () => {
    const home = join(work, 'home-defaults');
    mkdirSync(home);
    // Nothing set: no passphrase file (served locked), and config.json's default network applies.
    writeFileSync(join(home, 'config.json'), JSON.stringify({ core: { default_network: 'regtest' } }));
    const client = await serve({}, home);
    try {
      assert.equal(client.getServerVersion()?.name, 'wallet');
      const { tools } = await client.listTools();
      assert.ok(tools.length > 8);
      assert.ok(
        tools.some((tool) => tool.annotations?.readOnlyHint !== true),
        'a tool that writes',
      );
      for (const tool of tools)
        assert.ok(
          ALL_TOOLS.some((defined) => defined.name === tool.name),
          tool.name,
        );
      const info = await client.callTool({ name: 'network_info', arguments: {} });
      assert.equal((info.structuredContent as { default_core_network: string }).default_core_network, 'regtest');
    } finally {
      await client.close();
    }
  });

  it("serves the user's choices: read-only, compact, mainnet, a passphrase file it accepts", async () => {
    const home = join(work, 'home-chosen');
    mkdirSync(home);
    const client = await serve(
      {
        read_only: true,
        profile: 'compact',
        network: 'mainnet',
        passphrase_file: passphraseFileIn(home, 'a passphrase of the test'),
      },
      home,
    );
    try {
      const { tools } = await client.listTools();
      assert.ok(tools.length > 0 && tools.length <= 8, `compact: ${tools.length} tools`);
      assert.ok(tools.every((tool) => tool.annotations?.readOnlyHint === true));
      // Compact: network_info is an action of wallet_meta.
      const info = await client.callTool({ name: 'wallet_meta', arguments: { action: 'network_info' } });
      assert.notEqual(info.isError, true, JSON.stringify(info.content));
      assert.equal((info.structuredContent as { default_core_network: string }).default_core_network, 'mainnet');
    } finally {
      await client.close();
    }
  });

  it('refuses a passphrase file others can read, naming where it came from', async () => {
    const home = join(work, 'home-open');
    mkdirSync(home);
    const file = join(home, 'open-pw');
    writeFileSync(file, 'an open secret\n', { mode: 0o644 });
    const { command, args, env } = await hostConfig(raw, unpacked, { passphrase_file: file });
    const run = spawnSync(command, args, { encoding: 'utf8', input: '', env: hostEnv(env, home), timeout: 30_000 });
    assert.notEqual(run.status, 0);
    assert.equal(run.stdout, '');
    assert.match(run.stderr, /\$WALLET_PASSPHRASE_FILE/);
    assert.ok(!run.stderr.includes('an open secret'));
  });
});
