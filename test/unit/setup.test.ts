import assert from 'node:assert/strict';
import {
  chmodSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, describe, it } from 'node:test';
import { parse as parseToml } from 'smol-toml';
import { reportFailure } from '../../src/cli/failure.js';
import { AGENTS, agentConfigFiles, type Agent } from '../../src/cli/servers/agent-configs.js';
import { runServers } from '../../src/cli/servers/command.js';
import { loadServers } from '../../src/cli/servers/config.js';
import { unifiedDiff } from '../../src/cli/setup/diff.js';
import { runSetup } from '../../src/cli/setup/command.js';
import { runsWalletServe } from '../../src/cli/setup/entry.js';
import { UsageError } from '../../src/cli/usage-error.js';
import { fakeIo } from '../helpers/fake-io.js';
import { ROOT } from '../helpers/paths.js';

const roots: string[] = [];
after(() => {
  for (const root of roots) rmSync(root, { recursive: true, force: true });
});

type Layout = { root: string; home: string; project: string; data: string };

/** A user home, a project folder in it and a data directory, all empty: never the real ones. */
function layout(): Layout {
  const root = mkdtempSync(join(tmpdir(), 'wallet-setup-'));
  roots.push(root);
  const home = join(root, 'home');
  const project = join(home, 'src', 'app');
  mkdirSync(project, { recursive: true });
  return { root, home, project, data: join(root, 'data') };
}

const NODE = '/usr/local/bin/node';
const PACKAGE = '/opt/wallet';
const NOW = new Date('2026-03-04T05:06:07.890Z');

/** `wallet setup <argv>` in-process; a UsageError becomes `error:`/`hint:` lines and exit 2, as runCli does. */
async function setup(place: Layout, argv: string[], env: Record<string, string> = {}) {
  const io = fakeIo();
  let code: number;
  try {
    code = await runSetup(['setup', ...argv], io, {
      home: place.home,
      cwd: place.project,
      platform: 'linux',
      env,
      nodePath: NODE,
      packageRoot: PACKAGE,
      now: () => NOW,
    });
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    code = reportFailure(error, io, false);
  }
  return { code, stdout: io.out(), stderr: io.err() };
}

function fileOf(place: Layout, agent: Agent, scope: 'user' | 'project' = 'user'): string {
  const found = agentConfigFiles({ home: place.home, cwd: place.project, platform: 'linux', env: {} }, agent).find(
    (file) => file.scope === scope,
  );
  assert.ok(found);
  return found.path;
}

function place(path: string, text: string, mode = 0o644): void {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, text);
  chmodSync(path, mode);
}

const fixture = (name: string): string => readFileSync(join(ROOT, 'test', 'fixtures', 'agent-configs', name), 'utf8');

/** A parsed TOML table as plain objects (smol-toml makes them without a prototype). */
const plain = (value: unknown): unknown => JSON.parse(JSON.stringify(value));

const SERVE = [join(PACKAGE, 'bin', 'wallet.js'), 'serve'];

/** `wallet servers import <file> --from <agent>` into a fresh data directory: what it saved. */
async function importBack(place: Layout, agent: Agent, file: string) {
  const io = fakeIo();
  const data = mkdtempSync(join(place.root, 'data-'));
  const code = await runServers(['servers', 'import', file, '--from', agent], io, data, {
    home: place.home,
    cwd: place.project,
    platform: 'linux',
  });
  assert.equal(code, 0, io.err());
  return loadServers(data);
}

describe('wallet setup: each client in its own format', () => {
  it('writes an entry every client reads, and servers import reads it back', async () => {
    for (const agent of AGENTS) {
      for (const scope of agent === 'claude-desktop' ? (['user'] as const) : (['user', 'project'] as const)) {
        const here = layout();
        const result = await setup(here, [agent, '--scope', scope, '--profile', 'compact', '--read-only']);
        assert.equal(result.code, 0, `${agent} ${scope}: ${result.stderr}`);
        const file = fileOf(here, agent, scope);
        assert.match(result.stdout, new RegExp(`Added 'wallet' in ${file.replaceAll('.', '\\.')}`));
        assert.equal(statSync(file).mode & 0o777, 0o600, 'a new config is owner-only');
        const saved = await importBack(here, agent, file);
        assert.deepEqual(
          saved['wallet'],
          { command: NODE, args: [...SERVE, '--profile', 'compact', '--read-only'] },
          `${agent} ${scope}`,
        );
      }
    }
  });

  it('uses each client key and shape', async () => {
    const here = layout();
    for (const agent of AGENTS) assert.equal((await setup(here, [agent])).code, 0);
    const json = (agent: Agent): Record<string, Record<string, unknown>> =>
      JSON.parse(readFileSync(fileOf(here, agent), 'utf8')) as Record<string, Record<string, unknown>>;
    assert.deepEqual(json('claude-code')['mcpServers']?.['wallet'], { type: 'stdio', command: NODE, args: SERVE });
    assert.deepEqual(json('claude-desktop')['mcpServers']?.['wallet'], { command: NODE, args: SERVE });
    assert.deepEqual(json('cursor')['mcpServers']?.['wallet'], { command: NODE, args: SERVE });
    assert.deepEqual(json('vscode')['servers']?.['wallet'], { type: 'stdio', command: NODE, args: SERVE });
    assert.deepEqual(json('gemini')['mcpServers']?.['wallet'], { command: NODE, args: SERVE });
    assert.equal(
      readFileSync(fileOf(here, 'codex'), 'utf8'),
      `[mcp_servers.wallet]\ncommand = "${NODE}"\nargs = ["${SERVE[0]}", "serve"]\n`,
    );
    assert.equal(fileOf(here, 'vscode'), join(here.home, '.config', 'Code', 'User', 'mcp.json'));
  });

  it('keeps the rest of each file: other servers, settings, comments and tables', async () => {
    const here = layout();
    place(fileOf(here, 'codex'), fixture('codex/config.toml'));
    place(fileOf(here, 'vscode'), fixture('vscode/mcp.json'));
    place(fileOf(here, 'gemini'), fixture('gemini/settings.json'));
    place(fileOf(here, 'claude-desktop'), fixture('claude-desktop/claude_desktop_config.json'));
    for (const agent of ['codex', 'vscode', 'gemini', 'claude-desktop'] as const) {
      const before = readFileSync(fileOf(here, agent), 'utf8');
      const result = await setup(here, [agent, '--read-only']);
      assert.equal(result.code, 0, result.stderr);
      const text = readFileSync(fileOf(here, agent), 'utf8');
      // Every line of the old file is still there, in order (a comma may follow where a member came after it).
      const bare = (line: string): string => line.trim().replace(/,$/, '');
      const rest = text.split('\n').map(bare);
      let at = 0;
      for (const line of before.split('\n').map(bare)) {
        at = rest.indexOf(line, at);
        assert.ok(at !== -1, `${agent}: the line '${line}' went`);
      }
    }
    const toml = readFileSync(fileOf(here, 'codex'), 'utf8');
    assert.ok(
      toml.endsWith(
        'DOCS_TOKEN = "${DOCS_TOKEN}"\n\n[mcp_servers.wallet]\ncommand = "/usr/local/bin/node"\n' +
          'args = ["/opt/wallet/bin/wallet.js", "serve", "--read-only"]\n\n[profiles.fast]\nmodel = "gpt-5-mini"\n',
      ),
      'the new table follows the other servers',
    );
    const document = parseToml(toml) as { mcp_servers: Record<string, unknown>; profiles: unknown; model: string };
    assert.deepEqual(Object.keys(document.mcp_servers), ['context7', 'docs', 'wallet']);
    assert.deepEqual(plain(document.profiles), { fast: { model: 'gpt-5-mini' } });
    const vscode = readFileSync(fileOf(here, 'vscode'), 'utf8');
    assert.match(vscode, /\/\/ VS Code's mcp\.json is JSON with comments/);
    assert.match(vscode, /"inputs"/);
    const saved = await importBack(here, 'vscode', fileOf(here, 'vscode'));
    assert.deepEqual(Object.keys(saved), ['github', 'memory', 'wallet']);
    const codex = await importBack(here, 'codex', fileOf(here, 'codex'));
    assert.deepEqual(codex['docs'], { command: 'docs-mcp', args: [], env: { DOCS_TOKEN: '${DOCS_TOKEN}' } });
    assert.deepEqual(codex['wallet'], { command: NODE, args: [...SERVE, '--read-only'] });
  });
});

describe('wallet setup: idempotent, backed up, atomic', () => {
  it('changes nothing the second time, and says so', async () => {
    const here = layout();
    place(fileOf(here, 'cursor'), fixture('cursor/mcp.json'), 0o600);
    assert.equal((await setup(here, ['cursor'])).code, 0);
    const once = readFileSync(fileOf(here, 'cursor'), 'utf8');
    const backups = (): string[] =>
      readdirSync(dirname(fileOf(here, 'cursor'))).filter((name) => name.includes('.bak-'));
    assert.deepEqual(backups(), ['mcp.json.bak-20260304T050607Z']);
    const again = await setup(here, ['cursor']);
    assert.equal(again.code, 0);
    assert.match(again.stdout, /already has 'wallet' as asked; nothing changed/);
    assert.equal(readFileSync(fileOf(here, 'cursor'), 'utf8'), once);
    assert.equal(backups().length, 1, 'no backup when nothing changes');
  });

  it('backs the file up first, owner-only if it was, and keeps its mode', async () => {
    const here = layout();
    const file = fileOf(here, 'claude-desktop');
    place(file, fixture('claude-desktop/claude_desktop_config.json'), 0o600);
    await setup(here, ['claude-desktop']);
    const backup = `${file}.bak-20260304T050607Z`;
    assert.equal(readFileSync(backup, 'utf8'), fixture('claude-desktop/claude_desktop_config.json'));
    assert.equal(statSync(backup).mode & 0o777, 0o600);
    assert.equal(statSync(file).mode & 0o777, 0o600);
    const open = fileOf(here, 'gemini');
    place(open, fixture('gemini/settings.json'), 0o644);
    await setup(here, ['gemini']);
    assert.equal(statSync(open).mode & 0o777, 0o644, 'the file keeps its mode');
    assert.equal(statSync(`${open}.bak-20260304T050607Z`).mode & 0o777, 0o644);
    assert.deepEqual(
      readdirSync(dirname(open)).filter((name) => name.endsWith('.tmp')),
      [],
      'no temporary file is left',
    );
  });

  it('updates its own entry in place, keeping keys the user added; a second backup gets its own name', async () => {
    const here = layout();
    await setup(here, ['codex']);
    const file = fileOf(here, 'codex');
    writeFileSync(file, readFileSync(file, 'utf8') + '\n[mcp_servers.wallet.env]\nWALLET_LOG_LEVEL = "info"\n');
    const result = await setup(here, ['codex', '--profile', 'full']);
    assert.match(result.stdout, /Updated 'wallet'/);
    assert.deepEqual(plain((parseToml(readFileSync(file, 'utf8')) as { mcp_servers: unknown }).mcp_servers), {
      wallet: { command: NODE, args: [...SERVE, '--profile', 'full'], env: { WALLET_LOG_LEVEL: 'info' } },
    });
    await setup(here, ['codex', '--read-only']);
    assert.ok(readdirSync(dirname(file)).includes('config.toml.bak-20260304T050607Z-1'));
  });

  it('writes WALLET_HOME into the entry when set, by absolute path, merged with the env the user set', async () => {
    for (const agent of AGENTS) {
      const here = layout();
      const result = await setup(here, [agent], { WALLET_HOME: 'wallet-data' });
      assert.equal(result.code, 0, `${agent}: ${result.stderr}`);
      const saved = await importBack(here, agent, fileOf(here, agent));
      assert.deepEqual(
        saved['wallet'],
        { command: NODE, args: SERVE, env: { WALLET_HOME: join(here.project, 'wallet-data') } },
        agent,
      );
    }
    // Codex, whose entry has an [….env] table of the user's: one env, both variables.
    const here = layout();
    await setup(here, ['codex']);
    const file = fileOf(here, 'codex');
    writeFileSync(file, readFileSync(file, 'utf8') + '\n[mcp_servers.wallet.env]\nWALLET_LOG_LEVEL = "info"\n');
    const result = await setup(here, ['codex'], { WALLET_HOME: '/srv/wallet' });
    assert.equal(result.code, 0, result.stderr);
    assert.deepEqual(plain((parseToml(readFileSync(file, 'utf8')) as { mcp_servers: unknown }).mcp_servers), {
      wallet: { command: NODE, args: SERVE, env: { WALLET_LOG_LEVEL: 'info', WALLET_HOME: '/srv/wallet' } },
    });
    // JSON: the user's variables beside it stay.
    const json = layout();
    const cursor = fileOf(json, 'cursor');
    place(cursor, '{ "mcpServers": { "wallet": { "command": "wallet", "args": ["serve"], "env": { "A": "1" } } } }\n');
    assert.equal((await setup(json, ['cursor'], { WALLET_HOME: '/srv/wallet' })).code, 0);
    const written = JSON.parse(readFileSync(cursor, 'utf8')) as { mcpServers: { wallet: { env: unknown } } };
    assert.deepEqual(written.mcpServers.wallet.env, { A: '1', WALLET_HOME: '/srv/wallet' });
  });

  it('updates a Codex config with Windows line ends, keeping them', async () => {
    const here = layout();
    const file = fileOf(here, 'codex');
    const crlf = '# mine\r\nmodel = "o3"\r\n\r\n[mcp_servers.wallet]\r\ncommand = "wallet"\r\nargs = ["serve"]\r\n';
    place(file, crlf, 0o600);
    const result = await setup(here, ['codex', '--read-only']);
    assert.equal(result.code, 0, result.stderr);
    assert.match(result.stdout, /Updated 'wallet'/);
    const text = readFileSync(file, 'utf8');
    assert.equal(text.replace(/\r\n/g, ''), text.replace(/\r?\n/g, ''), 'every line ends in CRLF');
    assert.ok(text.startsWith('# mine\r\nmodel = "o3"\r\n'));
    assert.deepEqual(plain((parseToml(text) as { mcp_servers: unknown }).mcp_servers), {
      wallet: { command: NODE, args: [...SERVE, '--read-only'] },
    });
  });

  it('names the file a linked config leads to', async () => {
    const here = layout();
    const file = fileOf(here, 'cursor', 'project');
    const target = join(here.root, 'shared', 'mcp.json');
    place(target, '{}\n');
    mkdirSync(dirname(file), { recursive: true });
    symlinkSync(target, file);
    const result = await setup(here, ['cursor', '--scope', 'project']);
    assert.equal(result.code, 0, result.stderr);
    assert.equal(result.stdout, `Added 'wallet' in ${file} (a link to ${target}).\n`);
    assert.ok(lstatSync(file).isSymbolicLink(), 'the link stays a link');
    assert.match(readFileSync(target, 'utf8'), /"wallet"/);
    const json = await setup(here, ['cursor', '--scope', 'project', '--json']);
    assert.equal((JSON.parse(json.stdout) as { link_target?: string }).link_target, target);
  });

  it('--dry-run prints a unified diff and writes nothing', async () => {
    const here = layout();
    const file = fileOf(here, 'gemini');
    place(file, fixture('gemini/settings.json'));
    const result = await setup(here, ['gemini', '--dry-run', '--name', 'dash']);
    assert.equal(result.code, 0);
    assert.equal(readFileSync(file, 'utf8'), fixture('gemini/settings.json'));
    assert.deepEqual(readdirSync(dirname(file)), ['settings.json']);
    assert.match(
      result.stdout,
      new RegExp(`^--- ${file.replaceAll('.', '\\.')}\n\\+\\+\\+ .* \\(after\\)\n@@ -6,6 \\+6,13 @@\n`),
    );
    assert.match(result.stdout, /^\+ {4}"dash": \{$/m);
    assert.match(result.stderr, /Dry run: this would add 'dash'/);
  });

  it("--dry-run never prints another server's credentials, even from a one-line file", async () => {
    const here = layout();
    const file = fileOf(here, 'cursor');
    place(
      file,
      '{"mcpServers":{"gh":{"command":"gh-mcp","env":{"GITHUB_TOKEN":"ghp_SECRET123"},"headers":{"Authorization":"Bearer sk_live_abcdef"},"url":"https://u:hunter2@x.example/mcp"}}}',
    );
    for (const extra of [[], ['--json']]) {
      const result = await setup(here, ['cursor', '--dry-run', ...extra]);
      assert.equal(result.code, 0, result.stderr);
      for (const secret of ['ghp_SECRET123', 'sk_live_abcdef', 'hunter2']) {
        assert.ok(!result.stdout.includes(secret), `${secret} printed: ${result.stdout}`);
      }
      assert.match(result.stdout, /GITHUB_TOKEN\\?":\s*\\?"\*\*\*/);
    }
  });

  it('--remove takes the entry out, with a backup, and only its own', async () => {
    const here = layout();
    const file = fileOf(here, 'codex');
    place(file, fixture('codex/config.toml'));
    await setup(here, ['codex', '--passphrase-file', passphraseFile(here)]);
    const removed = await setup(here, ['codex', '--remove']);
    assert.equal(removed.code, 0);
    assert.match(removed.stdout, /Removed 'wallet'/);
    assert.equal(readFileSync(file, 'utf8').trimEnd(), fixture('codex/config.toml').trimEnd());
    const none = await setup(here, ['codex', '--remove']);
    assert.match(none.stdout, /has no server 'wallet'; nothing to remove/);
    const other = await setup(here, ['codex', '--remove', '--name', 'docs']);
    assert.equal(other.code, 2);
    assert.match(other.stderr, /already has a server 'docs' that does not run wallet serve/);
    assert.equal((await setup(here, ['codex', '--remove', '--name', 'docs', '--overwrite'])).code, 0);
    assert.deepEqual(Object.keys((parseToml(readFileSync(file, 'utf8')) as { mcp_servers: object }).mcp_servers), [
      'context7',
    ]);
  });
});

function passphraseFile(here: Layout, mode = 0o600): string {
  const path = join(here.root, `pass-${mode.toString(8)}`);
  writeFileSync(path, 'a passphrase of the test\n', { mode });
  chmodSync(path, mode);
  return path;
}

describe('wallet setup: refusals (exit 2, the file untouched)', () => {
  it('refuses an unknown client, with the closest name', async () => {
    const result = await setup(layout(), ['claude']);
    assert.equal(result.code, 2);
    assert.match(result.stderr, /^error: USAGE: Unknown client 'claude'\.\nhint: Did you mean /);
    assert.match((await setup(layout(), [])).stderr, /needs a client: claude-desktop, claude-code/);
  });

  it('never overwrites a file that does not parse', async () => {
    for (const [agent, text, problem] of [
      ['cursor', fixture('broken/mcp-with-comments.json'), /is not valid JSON \(line 2, column 3\)/],
      ['vscode', '{ "servers": { "a": ', /is not valid JSON \(line 1, column \d+: /],
      ['codex', '[mcp_servers.a\ncommand = 1\n', /is not valid TOML \(line 1, column \d+\)/],
      ['gemini', '[1, 2]', /is not an object/],
      ['claude-code', '{"mcpServers": []}', /has a "mcpServers" that is not an object/],
    ] as const) {
      const here = layout();
      const file = fileOf(here, agent);
      place(file, text);
      const result = await setup(here, [agent]);
      assert.equal(result.code, 2, agent);
      assert.match(result.stderr, problem);
      assert.match(result.stderr, /it was left as it is\.\nhint: Fix the file by hand/);
      assert.doesNotMatch(result.stderr, /FIXTURESECRET/, 'no value of the file is quoted');
      assert.equal(readFileSync(file, 'utf8'), text);
      assert.deepEqual(
        readdirSync(dirname(file)).filter((name) => /\.bak-|\.tmp$/.test(name)),
        [],
      );
    }
  });

  it('refuses a name taken by another server unless --overwrite', async () => {
    const here = layout();
    const file = fileOf(here, 'claude-desktop');
    place(file, fixture('claude-desktop/claude_desktop_config.json'));
    const taken = await setup(here, ['claude-desktop', '--name', 'github']);
    assert.equal(taken.code, 2);
    assert.match(taken.stderr, /hint: Choose another name with --name, or replace it with --overwrite\./);
    assert.equal(readFileSync(file, 'utf8'), fixture('claude-desktop/claude_desktop_config.json'));
    const replaced = await setup(here, ['claude-desktop', '--name', 'github', '--overwrite']);
    assert.equal(replaced.code, 0);
    const servers = (JSON.parse(readFileSync(file, 'utf8')) as { mcpServers: Record<string, unknown> }).mcpServers;
    assert.deepEqual(servers['github'], { command: NODE, args: SERVE }, 'replaced whole: no env of the old one');
  });

  it('takes the passphrase by owner-only file only', async () => {
    const here = layout();
    const value = await setup(here, ['claude-code', '--passphrase', 'hunter2hunter2']);
    assert.equal(value.code, 2);
    assert.match(value.stderr, /never writes a passphrase into a config/);
    assert.doesNotMatch(value.stderr, /hunter2/);
    assert.equal((await setup(here, ['claude-code', '--passphrase-stdin'])).code, 2);
    const open = await setup(here, ['claude-code', '--passphrase-file', passphraseFile(here, 0o644)]);
    assert.equal(open.code, 2);
    assert.match(open.stderr, /is readable by others \(mode 644\).*\nhint: Run: chmod 600 /);
    assert.equal((await setup(here, ['claude-code', '--passphrase-file', join(here.root, 'none')])).code, 2);
    const good = passphraseFile(here);
    assert.equal((await setup(here, ['claude-code', '--passphrase-file', good])).code, 0);
    const text = readFileSync(fileOf(here, 'claude-code'), 'utf8');
    assert.ok(text.includes(JSON.stringify(good)));
    assert.ok(!text.includes('a passphrase of the test'));
  });

  it('refuses a scope the client does not have, a bad name or profile, and --on-path without wallet on PATH', async () => {
    const here = layout();
    assert.match(
      (await setup(here, ['claude-desktop', '--scope', 'project'])).stderr,
      /Claude Desktop has no project config/,
    );
    assert.equal((await setup(here, ['cursor', '--scope', 'team'])).code, 2);
    assert.match((await setup(here, ['cursor', '--name', 'a b'])).stderr, /is not a server name/);
    assert.match((await setup(here, ['cursor', '--profile', 'tiny'])).stderr, /--profile must be one of/);
    assert.match((await setup(here, ['cursor', '--on-path'], { PATH: here.root })).stderr, /no 'wallet' on PATH/);
    const bin = join(here.root, 'bin');
    place(join(bin, 'wallet'), '#!/bin/sh\n', 0o755);
    assert.equal((await setup(here, ['cursor', '--on-path'], { PATH: bin })).code, 0);
    const saved = JSON.parse(readFileSync(fileOf(here, 'cursor'), 'utf8')) as { mcpServers: Record<string, unknown> };
    assert.deepEqual(saved.mcpServers['wallet'], { command: 'wallet', args: ['serve'] });
  });

  it('refuses a Codex entry written in a way it cannot edit safely', async () => {
    const here = layout();
    const file = fileOf(here, 'codex');
    const inline = 'mcp_servers = { wallet = { command = "wallet", args = ["serve"] } }\n';
    place(file, inline);
    const result = await setup(here, ['codex']);
    assert.equal(result.code, 2);
    assert.match(result.stderr, /cannot edit safely/);
    assert.equal(readFileSync(file, 'utf8'), inline);
  });
});

describe('wallet setup: pieces', () => {
  it('knows a wallet serve entry from another server', () => {
    assert.ok(runsWalletServe({ command: 'wallet', args: ['serve'] }));
    assert.ok(runsWalletServe({ command: '/usr/bin/node', args: ['/x/bin/wallet.js', 'serve', '--read-only'] }));
    assert.ok(runsWalletServe({ command: 'C:\\wallet.cmd', args: ['serve'] }));
    assert.ok(!runsWalletServe({ command: 'npx', args: ['-y', 'other', 'serve'] }));
    // Another package that ends in /wallet is someone else's server (review): --overwrite only.
    assert.ok(!runsWalletServe({ command: 'npx', args: ['-y', '@evil/wallet', 'serve'] }));
    assert.ok(!runsWalletServe({ command: '/usr/bin/node', args: ['/x/evil/wallet', 'serve'] }));
    assert.ok(!runsWalletServe({ command: 'wallet', args: ['tools'] }));
    assert.ok(!runsWalletServe({ url: 'http://127.0.0.1/mcp' }));
  });

  it('writes unified diffs as diff -u does', () => {
    assert.equal(unifiedDiff('a\n', 'a\n', 'x', 'y'), '');
    assert.equal(unifiedDiff('a\nb\n', 'a\nc\n', 'x', 'y'), '--- x\n+++ y\n@@ -1,2 +1,2 @@\n a\n-b\n+c\n');
    assert.equal(unifiedDiff('', 'a\n', 'x', 'y'), '--- x\n+++ y\n@@ -0,0 +1 @@\n+a\n');
    const long = Array.from({ length: 20 }, (_, index) => `line ${index}\n`);
    const changed = [...long];
    changed[2] = 'two\n';
    changed[17] = 'seventeen\n';
    const diff = unifiedDiff(long.join(''), changed.join(''), 'x', 'y');
    assert.deepEqual(
      diff.split('\n').filter((line) => line.startsWith('@@')),
      ['@@ -1,6 +1,6 @@', '@@ -15,6 +15,6 @@'],
    );
    assert.equal(
      unifiedDiff('a', 'b', 'x', 'y'),
      '--- x\n+++ y\n@@ -1 +1 @@\n-a\n\\ No newline at end of file\n+b\n\\ No newline at end of file\n',
    );
  });
});
