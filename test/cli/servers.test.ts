import assert from 'node:assert/strict';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { reportFailure } from '../../src/cli/failure.js';
import { agentConfigLocations } from '../../src/cli/servers/agent-configs.js';
import { runServers } from '../../src/cli/servers/command.js';
import { splitCommandLine } from '../../src/cli/servers/command-line.js';
import { loadServers, resolveNamedServer, saveServers, type NamedServers } from '../../src/cli/servers/config.js';
import { UsageError } from '../../src/cli/usage-error.js';
import { withNamedLock } from '../../src/domain/keystore/lock.js';
import { resolveDataDir } from '../../src/shared/data-dir.js';
import { fakeIo } from '../helpers/fake-io.js';
import { ROOT } from '../helpers/paths.js';

const FIXTURES = join(ROOT, 'test', 'fixtures', 'agent-configs');
/** The tokens written inline in the fixtures: never on stdout or stderr. */
const SECRETS = [
  'ghp_FIXTURESECRETdesktop0000000000000000',
  'sntrys_FIXTURESECRETcode000000000000',
  'ctx7sk_FIXTURESECRETcursor00000000',
  'sntrys_FIXTURESECRETbroken0000000000',
];

type Layout = { root: string; data: string; home: string; project: string };
type Result = { code: number; stdout: string; stderr: string };

const layouts: string[] = [];
after(() => {
  for (const root of layouts) rmSync(root, { recursive: true, force: true });
});

/** A data directory, a user home and a project folder, all empty. */
function emptyLayout(): Layout {
  const root = mkdtempSync(join(tmpdir(), 'wallet-servers-'));
  layouts.push(root);
  const layout = {
    root,
    data: join(root, 'data'),
    home: join(root, 'home'),
    project: join(root, 'home', 'src', 'webapp'),
  };
  mkdirSync(layout.project, { recursive: true });
  return layout;
}

/** The fixtures where the agents keep them on Linux, ~/.claude.json keyed by this project folder. */
function agentLayout(): Layout {
  const layout = emptyLayout();
  const place = (fixture: string, ...path: string[]): void => {
    mkdirSync(join(...path.slice(0, -1)), { recursive: true });
    copyFileSync(join(FIXTURES, fixture), join(...path));
  };
  place('claude-desktop/claude_desktop_config.json', layout.home, '.config', 'Claude', 'claude_desktop_config.json');
  place('claude-code/.mcp.json', layout.project, '.mcp.json');
  place('cursor/mcp.json', layout.home, '.cursor', 'mcp.json');
  const userConfig = readFileSync(join(FIXTURES, 'claude-code', 'claude.json'), 'utf8');
  writeFileSync(
    join(layout.home, '.claude.json'),
    userConfig.replace('"/home/alex/src/webapp"', JSON.stringify(layout.project)),
  );
  return layout;
}

/** `wallet servers <argv>` in-process; a UsageError becomes `error:`/`hint:` lines and exit 2, as runCli does. */
async function servers(layout: Layout, argv: string[], env: Record<string, string> = {}): Promise<Result> {
  const io = fakeIo({ WALLET_HOME: layout.data, ...env });
  const dataDir = resolveDataDir({ env: io.env, platform: process.platform, home: layout.home });
  let code: number;
  try {
    code = await runServers(['servers', ...argv], io, dataDir, {
      home: layout.home,
      cwd: layout.project,
      platform: 'linux',
    });
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    code = reportFailure(error, io, false);
  }
  const result = { code, stdout: io.out(), stderr: io.err() };
  for (const secret of SECRETS) {
    assert.ok(!result.stdout.includes(secret) && !result.stderr.includes(secret), `a token leaked: ${argv.join(' ')}`);
  }
  return result;
}

const serversFile = (layout: Layout): string => join(layout.data, 'servers.json');
const savedServers = (layout: Layout): NamedServers =>
  (JSON.parse(readFileSync(serversFile(layout), 'utf8')) as { mcpServers: NamedServers }).mcpServers;

type ImportJson = {
  read: { path: string; agent?: string }[];
  imported: { name: string; result: string; transport: string; ignoredKeys: string[]; source: string }[];
  skipped: { name: string; reason: string; source: string }[];
};

describe('wallet servers import', () => {
  it('reads every known agent file that exists, says which, and saves their servers owner-only', async () => {
    const layout = agentLayout();
    const { code, stdout, stderr } = await servers(layout, ['import']);
    assert.equal(code, 0, stderr);
    const desktop = join(layout.home, '.config', 'Claude', 'claude_desktop_config.json');
    const mcpJson = join(layout.project, '.mcp.json');
    const claudeJson = join(layout.home, '.claude.json');
    const cursor = join(layout.home, '.cursor', 'mcp.json');
    assert.equal(
      stderr
        .split('\n')
        .filter((line) => line.startsWith('Read '))
        .join('\n'),
      [
        `Read ${desktop} (claude-desktop)`,
        `Read ${mcpJson} (claude-code)`,
        `Read ${claudeJson} (claude-code)`,
        `Read ${cursor} (cursor)`,
      ].join('\n'),
    );
    assert.match(stderr, /9 imported, 0 replaced, 3 skipped; saved in .*servers\.json/);

    if (process.platform !== 'win32') {
      assert.equal(statSync(serversFile(layout)).mode & 0o777, 0o600);
      assert.equal(statSync(layout.data).mode & 0o777, 0o700);
    }
    assert.deepEqual(savedServers(layout), {
      filesystem: {
        command: 'npx',
        args: ['-y', '@modelcontextprotocol/server-filesystem', '/Users/alex/Desktop', '/Users/alex/Downloads'],
      },
      github: {
        command: 'npx',
        args: ['-y', '@modelcontextprotocol/server-github'],
        env: { GITHUB_PERSONAL_ACCESS_TOKEN: 'ghp_FIXTURESECRETdesktop0000000000000000' },
      },
      weather: { command: 'uv', args: ['--directory', '/Users/alex/src/weather', 'run', 'weather.py'] },
      'api-server': {
        url: '${API_BASE_URL:-https://api.example.com}/mcp',
        headers: { Authorization: 'Bearer ${API_KEY}' },
      },
      sentry: {
        url: 'https://mcp.sentry.dev/mcp',
        headers: { 'X-Sentry-Token': 'sntrys_FIXTURESECRETcode000000000000' },
      },
      db: {
        command: 'npx',
        args: ['-y', '@bytebase/dbhub', '--dsn', '${DATABASE_URL}'],
        env: { LOG_LEVEL: '${LOG_LEVEL:-info}' },
      },
      playwright: { command: 'npx', args: ['@playwright/mcp@latest'] },
      memory: { command: 'npx', args: ['-y', '@modelcontextprotocol/server-memory'] },
      context7: {
        url: 'https://mcp.context7.com/mcp',
        headers: { CONTEXT7_API_KEY: 'ctx7sk_FIXTURESECRETcursor00000000' },
      },
    });

    const row = (name: string): string => stdout.split('\n').find((line) => line.startsWith(`${name} `)) ?? '';
    assert.match(row('weather'), /imported +stdio; left out: disabled +.*claude_desktop_config\.json$/);
    assert.match(row('asana'), /skipped +SSE is not supported here/);
    assert.match(
      stdout,
      new RegExp(`^github +skipped +the same name comes first in ${literal(desktop)} +${literal(cursor)}$`, 'm'),
    );
    assert.match(row('my server'), /skipped +not a server name here/);
    assert.match(row('playwright'), /imported +stdio +.*\.claude\.json projects\[/);
    assert.doesNotMatch(stdout, /not-this-project/);
  });

  it('keeps saved servers on a second import, and replaces them with --overwrite', async () => {
    const layout = agentLayout();
    await servers(layout, ['import']);
    const again = await servers(layout, ['import', '--json']);
    assert.equal(again.code, 0);
    const first = JSON.parse(again.stdout) as ImportJson;
    assert.deepEqual(first.imported, []);
    assert.ok(first.skipped.some((entry) => entry.name === 'db' && entry.reason === 'already saved, identical'));

    await servers(layout, ['add', 'db', '--server', 'my-db-server', '--overwrite']);
    const kept = JSON.parse((await servers(layout, ['import', '--json'])).stdout) as ImportJson;
    assert.match(kept.skipped.find((entry) => entry.name === 'db')?.reason ?? '', /--overwrite replaces it/);
    assert.deepEqual(savedServers(layout)['db'], { command: 'my-db-server', args: [] });

    const replaced = JSON.parse((await servers(layout, ['import', '--overwrite', '--json'])).stdout) as ImportJson;
    assert.deepEqual(
      replaced.imported.map((entry) => [entry.name, entry.result]),
      [['db', 'replaced']],
    );
    assert.equal((savedServers(layout)['db'] as { command: string }).command, 'npx');
  });

  it('--from reads only that agent; named files are read whatever their place', async () => {
    const layout = agentLayout();
    const cursorOnly = await servers(layout, ['import', '--from', 'cursor', '--json']);
    const result = JSON.parse(cursorOnly.stdout) as ImportJson;
    assert.deepEqual(result.read, [{ agent: 'cursor', path: join(layout.home, '.cursor', 'mcp.json') }]);
    assert.deepEqual(
      result.imported.map((entry) => entry.name),
      ['context7', 'github'],
    );
    assert.equal(
      (savedServers(layout)['github'] as { env: Record<string, string> }).env['GITHUB_PERSONAL_ACCESS_TOKEN'],
      '${env:GITHUB_TOKEN}',
    );

    const other = emptyLayout();
    copyFileSync(join(FIXTURES, 'claude-code', '.mcp.json'), join(other.project, 'team.mcp.json'));
    const named = await servers(other, ['import', 'team.mcp.json']);
    assert.equal(named.code, 0, named.stderr);
    assert.match(named.stderr, new RegExp(`Read ${literal(join(other.project, 'team.mcp.json'))}\n`));
    assert.deepEqual(Object.keys(savedServers(other)), ['api-server', 'sentry', 'db']);
  });

  it('skips a server whose URL carries a user or password, saying why (issue 41)', async () => {
    const layout = emptyLayout();
    const file = join(layout.project, 'creds.mcp.json');
    writeFileSync(
      file,
      JSON.stringify({
        mcpServers: {
          remote: { type: 'http', url: 'https://me:s3cr3t@mcp.example.com/mcp' },
          plain: { type: 'http', url: 'https://mcp.example.com/mcp' },
        },
      }),
    );
    const { code, stdout, stderr } = await servers(layout, ['import', 'creds.mcp.json', '--json']);
    assert.equal(code, 0, stderr);
    const result = JSON.parse(stdout) as ImportJson;
    assert.deepEqual(
      result.imported.map((entry) => entry.name),
      ['plain'],
    );
    assert.match(result.skipped.find((entry) => entry.name === 'remote')?.reason ?? '', /carries a user or password/);
    assert.deepEqual(Object.keys(savedServers(layout)), ['plain']);
    assert.doesNotMatch(stdout + stderr, /s3cr3t/);
  });

  it('says where it looked when no agent file exists, and writes nothing', async () => {
    const layout = emptyLayout();
    const { code, stdout, stderr } = await servers(layout, ['import']);
    assert.equal(code, 0);
    assert.equal(stdout, '');
    assert.match(stderr, /No agent config found\. Looked for:\n {2}.*\.config\/Claude\/claude_desktop_config\.json\n/);
    assert.match(stderr, /\.cursor\/mcp\.json\n/);
    assert.throws(() => statSync(serversFile(layout)), /ENOENT/);
  });
});

describe('wallet servers list', () => {
  it('shows names, transports and command lines or URLs, and only the names of env and headers', async () => {
    const layout = agentLayout();
    await servers(layout, ['import']);
    const human = await servers(layout, ['list']);
    assert.equal(human.code, 0);
    assert.match(human.stdout, /^name +transport +command \/ url +env \/ headers$/m);
    assert.match(
      human.stdout,
      /^github +stdio +npx -y @modelcontextprotocol\/server-github +env: GITHUB_PERSONAL_ACCESS_TOKEN$/m,
    );
    assert.match(human.stdout, /^sentry +http +https:\/\/mcp\.sentry\.dev\/mcp +headers: X-Sentry-Token$/m);
    assert.match(
      human.stdout,
      /^api-server +http +\$\{API_BASE_URL:-https:\/\/api\.example\.com\}\/mcp +headers: Authorization$/m,
    );
    assert.equal((await servers(layout, [])).stdout, human.stdout);

    const json = await servers(layout, ['list', '--json']);
    const listed = JSON.parse(json.stdout) as { servers: { name: string; env?: string[]; headers?: string[] }[] };
    assert.deepEqual(listed.servers.find((server) => server.name === 'context7')?.headers, ['CONTEXT7_API_KEY']);
    assert.deepEqual(listed.servers.find((server) => server.name === 'github')?.env, ['GITHUB_PERSONAL_ACCESS_TOKEN']);
  });

  it('hides a password or a key carried in a URL', async () => {
    const layout = emptyLayout();
    // `servers add` refuses a URL with a password; one written into servers.json by hand is listed masked.
    await saveServers(layout.data, { remote: { url: 'https://me:hunter2pw@mcp.example.com/mcp?api_key=k3yk3y&v=2' } });
    await servers(layout, ['add', 'pg', '--server', 'npx -y server-postgres postgresql://me:hunter2pw@db/app']);
    const { stdout } = await servers(layout, ['list']);
    assert.doesNotMatch(stdout, /hunter2pw|k3yk3y/);
    assert.match(stdout, /https:\/\/me:\*\*\*@mcp\.example\.com\/mcp\?api_key=\*\*\*&v=2/);
    assert.match(stdout, /postgresql:\/\/me:\*\*\*@db\/app/);
  });

  it('says how to add one when there are none', async () => {
    const { code, stdout, stderr } = await servers(emptyLayout(), ['list']);
    assert.equal(code, 0);
    assert.equal(stdout, '');
    assert.match(stderr, /No named servers yet/);
  });
});

describe('wallet servers add and remove', () => {
  it('adds a stdio server with env and an HTTP server with a header reference, and removes one', async () => {
    const layout = emptyLayout();
    const stdio = await servers(layout, [
      'add',
      'github',
      '--server',
      `npx -y "@modelcontextprotocol/server-github" --label 'two words' --token \${GH_TOKEN}`,
      '--env',
      'GITHUB_PERSONAL_ACCESS_TOKEN=${GITHUB_TOKEN}',
      '--env',
      'LOG_LEVEL=debug',
    ]);
    assert.equal(stdio.code, 0, stdio.stderr);
    assert.equal(stdio.stdout, "Added 'github' (stdio); use it with: wallet --server github <command>\n");
    assert.equal(stdio.stderr, '');
    const http = await servers(layout, [
      'add',
      'linear',
      '--url',
      'https://mcp.linear.app/mcp',
      '--header',
      'Authorization: Bearer ${LINEAR_TOKEN}',
    ]);
    assert.equal(http.code, 0, http.stderr);
    assert.deepEqual(savedServers(layout), {
      github: {
        command: 'npx',
        args: ['-y', '@modelcontextprotocol/server-github', '--label', 'two words', '--token', '${GH_TOKEN}'],
        env: { GITHUB_PERSONAL_ACCESS_TOKEN: '${GITHUB_TOKEN}', LOG_LEVEL: 'debug' },
      },
      linear: { url: 'https://mcp.linear.app/mcp', headers: { Authorization: 'Bearer ${LINEAR_TOKEN}' } },
    });
    const { stdout } = await servers(layout, ['list']);
    assert.match(
      stdout,
      /^github +stdio +npx -y @modelcontextprotocol\/server-github --label 'two words' --token \$\{GH_TOKEN\}/m,
    );

    const removed = await servers(layout, ['remove', 'github']);
    assert.equal(removed.code, 0);
    assert.equal(removed.stdout, "Removed 'github'.\n");
    assert.deepEqual(Object.keys(savedServers(layout)), ['linear']);
  });

  it('changes servers.json under its lock: a change made meanwhile by another process is kept', async () => {
    const layout = emptyLayout();
    await servers(layout, ['add', 'first', '--url', 'https://a.example.com/mcp']);
    let settled = false;
    let adding: Promise<Result> | undefined;
    // Another process's read-modify-write, holding the lock: it reads the file, then writes later.
    await withNamedLock(layout.data, 'servers-json', async () => {
      const snapshot = await loadServers(layout.data);
      adding = servers(layout, ['add', 'second', '--url', 'https://b.example.com/mcp']).finally(() => {
        settled = true;
      });
      // Without the lock the add is done in a few ms (in-process) and the write below loses it.
      await Promise.race([adding, new Promise((resolve) => setTimeout(resolve, 1000))]);
      assert.equal(settled, false, 'the add waits for the lock');
      await saveServers(layout.data, { ...snapshot, held: { url: 'https://c.example.com/mcp' } });
    });
    const added = await adding;
    assert.equal(added?.code, 0, added?.stderr);
    assert.deepEqual(Object.keys(await loadServers(layout.data)).sort(), ['first', 'held', 'second']);
  });

  it('refuses a saved name unless --overwrite, and warns when a token was typed inline', async () => {
    const layout = emptyLayout();
    await servers(layout, ['add', 'api', '--url', 'https://a.example.com/mcp']);
    const before = readFileSync(serversFile(layout));
    const refused = await servers(layout, ['add', 'api', '--url', 'https://b.example.com/mcp']);
    assert.equal(refused.code, 2);
    assert.match(refused.stderr, /error: USAGE: A server named 'api' is already saved\.\nhint: Add --overwrite/);
    assert.deepEqual(readFileSync(serversFile(layout)), before);

    const inline = 'Bearer inl1ne-t0ken';
    const replaced = await servers(layout, [
      'add',
      'api',
      '--url',
      'https://b.example.com/mcp',
      '--header',
      `Authorization: ${inline}`,
      '--overwrite',
    ]);
    assert.equal(replaced.code, 0, replaced.stderr);
    assert.match(replaced.stdout, /^Replaced 'api' \(http\)/);
    assert.match(replaced.stderr, /note: --header Authorization was typed inline, so it is in your shell history/);
    assert.ok(!replaced.stderr.includes(inline) && !replaced.stdout.includes(inline));
    assert.deepEqual(savedServers(layout)['api'], {
      url: 'https://b.example.com/mcp',
      headers: { Authorization: inline },
    });
  });

  const refusals: [string, string[], RegExp][] = [
    ['a bad name', ['add', 'my server', '--server', 'node s.js'], /'my server' is not a server name/],
    ['a name too long', ['add', 'x'.repeat(65), '--server', 'node s.js'], /is not a server name/],
    [
      'a URL that is not http(s)',
      ['add', 'x', '--url', 'ftp://example.com/mcp'],
      /--url: must be http or https, not ftp/,
    ],
    ['a URL that is not a URL', ['add', 'x', '--url', 'example.com/mcp'], /--url: not a URL/],
    [
      'a header without a colon',
      ['add', 'x', '--url', 'https://e.com/mcp', '--header', 'Authorization Bearer s3cr3t'],
      /--header takes 'Name: value'/,
    ],
    [
      'an empty header value',
      ['add', 'x', '--url', 'https://e.com/mcp', '--header', 'X-Key:'],
      /--header X-Key: the value is empty/,
    ],
    ['an env without =', ['add', 'x', '--server', 'node s.js', '--env', 'TOKEN'], /--env takes NAME=value/],
    ['a bad env name', ['add', 'x', '--server', 'node s.js', '--env', '1TOKEN=s3cr3t'], /the name '1TOKEN'/],
    ['both --server and --url', ['add', 'x', '--server', 'node s.js', '--url', 'https://e.com/mcp'], /one of them/],
    ['neither --server nor --url', ['add', 'x'], /one of them/],
    [
      '--header with --server',
      ['add', 'x', '--server', 'node s.js', '--header', 'A: b'],
      /--header is for an HTTP server/,
    ],
    ['--env with --url', ['add', 'x', '--url', 'https://e.com/mcp', '--env', 'A=b'], /--env is for a --server command/],
    [
      'a user and password in --url (issue 41)',
      ['add', 'x', '--url', 'http://user:s3cr3t@e.com/mcp'],
      /--url may not carry a user or password \(it would be shown and stored\); nothing was saved\.\nhint: Send credentials as a header/,
    ],
    [
      'a user alone in --url',
      ['add', 'x', '--url', 'https://user@e.com/mcp'],
      /--url may not carry a user or password/,
    ],
    ['shell syntax', ['add', 'x', '--server', 'node s.js | tee log'], /not shell syntax \('\|'\)/],
    ['an unclosed quote', ['add', 'x', '--server', 'node "s.js'], /unclosed double quote/],
    ['a flag of another subcommand', ['remove', 'a', '--overwrite'], /Unknown flag --overwrite for 'servers remove'/],
    [
      'an unknown flag',
      ['add', 'x', '--urll', 'https://e.com/mcp'],
      /Unknown flag --urll for 'servers add'\.\nhint: Did you mean --url\?/,
    ],
    [
      'an unknown subcommand',
      ['rmove', 'a'],
      /Unknown subcommand 'servers rmove'\.\nhint: Did you mean 'servers remove'\?/,
    ],
    ['an unknown server to remove', ['remove', 'linaer'], /No server named 'linaer'.*\nhint: Did you mean linear\?/],
    [
      '--from with an unknown agent',
      ['import', '--from', 'windsurf'],
      /--from must be one of claude-desktop, claude-code, cursor, vscode, codex, gemini; got 'windsurf'/,
    ],
    ['a missing import file', ['import', 'nope.json'], /nope\.json does not exist; nothing was imported/],
    [
      'an import file that is not JSON',
      ['import', join(FIXTURES, 'broken', 'mcp-with-comments.json')],
      /mcp-with-comments\.json is not valid JSON \(line 2, column 3\); nothing was imported/,
    ],
    [
      'an import file without mcpServers',
      ['import', join(FIXTURES, 'broken', 'preferences-only.json')],
      /preferences-only\.json has no servers \("mcpServers", "servers" or "mcp_servers"\); nothing was imported/,
    ],
    [
      'a good file with a bad one',
      ['import', join(FIXTURES, 'cursor', 'mcp.json'), join(FIXTURES, 'broken', 'mcp-with-comments.json')],
      /is not valid JSON/,
    ],
  ];
  for (const [label, argv, expected] of refusals) {
    it(`refuses ${label} with exit 2, leaving servers.json byte for byte`, async () => {
      const layout = emptyLayout();
      await servers(layout, [
        'add',
        'linear',
        '--url',
        'https://mcp.linear.app/mcp',
        '--header',
        'Authorization: Bearer ${T}',
      ]);
      const before = readFileSync(serversFile(layout));
      const { code, stdout, stderr } = await servers(layout, argv);
      assert.equal(code, 2, stderr);
      assert.equal(stdout, '');
      assert.match(stderr, expected);
      assert.doesNotMatch(stderr, /s3cr3t|\n {4}at /);
      assert.deepEqual(readFileSync(serversFile(layout)), before);
    });
  }
});

describe('a damaged servers.json', () => {
  const damaged: [string, string, RegExp][] = [
    [
      'not JSON',
      '{"mcpServers": {"a": {"command": "x", "env": {"T": "s3cr3t"}}}',
      /is damaged: not valid JSON \(line 1, column 63\)/,
    ],
    ['a cut-off file', '{"mcpServers": {"a": ', /is damaged: not valid JSON \(it ends too early\)/],
    [
      'a wrong type',
      '{"mcpServers": {"a": {"command": "x", "args": [1]}}}',
      /is damaged: mcpServers\.a\.args\[0\]: expected string, received number/,
    ],
    [
      'a bad name',
      '{"mcpServers": {"a b": {"command": "x"}}}',
      /is damaged: mcpServers\["a b"\]: not a valid server name/,
    ],
    [
      'an unknown key',
      '{"mcpServers": {"a": {"command": "x", "cwd": "/tmp"}}}',
      /is damaged: mcpServers\.a: Unrecognized key: "cwd"/,
    ],
    [
      'no mcpServers',
      '{"servers": {}}',
      /is damaged: Unrecognized key: "servers"|is damaged: mcpServers: expected record/,
    ],
    [
      'a bad URL',
      '{"mcpServers": {"a": {"url": "ws://e.com/mcp?token=s3cr3t"}}}',
      /is damaged: mcpServers\.a\.url: must be http or https, not ws/,
    ],
  ];
  for (const [label, text, expected] of damaged) {
    it(`(${label}) is named with its problem, never quoted, and never overwritten`, async () => {
      const layout = emptyLayout();
      mkdirSync(layout.data, { recursive: true });
      writeFileSync(serversFile(layout), text);
      for (const argv of [
        ['list'],
        ['add', 'b', '--server', 'node s.js'],
        ['remove', 'a'],
        ['import', join(FIXTURES, 'cursor', 'mcp.json')],
      ]) {
        const { code, stdout, stderr } = await servers(layout, argv);
        assert.equal(code, 2, `${argv.join(' ')}: ${stderr}`);
        assert.equal(stdout, '');
        assert.match(stderr, new RegExp(`error: USAGE: ${literal(serversFile(layout))} `));
        assert.match(stderr, expected);
        assert.doesNotMatch(stderr, /s3cr3t|\n {4}at /);
        assert.equal(readFileSync(serversFile(layout), 'utf8'), text);
      }
    });
  }

  it('a missing file is an empty list, and saving creates it owner-only', async () => {
    const layout = emptyLayout();
    assert.deepEqual(await loadServers(layout.data), {});
    await saveServers(layout.data, { a: { command: 'x' } });
    assert.deepEqual(await loadServers(layout.data), { a: { command: 'x', args: [] } });
    if (process.platform !== 'win32') assert.equal(statSync(serversFile(layout)).mode & 0o777, 0o600);
  });
});

describe('resolveNamedServer', () => {
  const saved: NamedServers = {
    api: {
      url: '${API_BASE_URL:-https://api.example.com}/mcp',
      headers: { Authorization: 'Bearer ${API_KEY}', 'X-Team': '${TEAM:-core}' },
    },
    db: {
      command: '${NODE_BIN:-node}',
      args: ['server.js', '--dsn', '${DATABASE_URL}', '$NOT_A_REFERENCE'],
      env: { LOG_LEVEL: '${LOG_LEVEL:-info}', TOKEN: '${env:GH_TOKEN}' },
    },
    ws: { url: '${WS_URL}' },
  };

  it('expands ${VAR}, ${VAR:-default} and ${env:VAR} in every value', () => {
    assert.deepEqual(resolveNamedServer(saved, 'api', { API_KEY: 'k-123', TEAM: '' }), {
      kind: 'http',
      name: 'api',
      url: 'https://api.example.com/mcp',
      headers: { Authorization: 'Bearer k-123', 'X-Team': 'core' },
    });
    assert.deepEqual(
      resolveNamedServer(saved, 'db', {
        DATABASE_URL: 'postgres://db',
        LOG_LEVEL: 'debug',
        GH_TOKEN: 'gh',
        NODE_BIN: '',
      }),
      {
        kind: 'stdio',
        name: 'db',
        command: 'node',
        args: ['server.js', '--dsn', 'postgres://db', '$NOT_A_REFERENCE'],
        env: { LOG_LEVEL: 'debug', TOKEN: 'gh' },
      },
    );
  });

  it('names the variable and the server when a variable without default is unset', () => {
    assert.throws(
      () => resolveNamedServer(saved, 'api', { API_BASE_URL: 'https://x.example.com' }),
      (error: unknown) =>
        error instanceof UsageError &&
        /^Server 'api' needs the environment variable API_KEY \(its header Authorization says \$\{API_KEY\}\), and it is not set\.$/.test(
          error.message,
        ),
    );
    assert.throws(() => resolveNamedServer(saved, 'db', {}), /Server 'db' needs the environment variable DATABASE_URL/);
  });

  it('refuses an unknown name with the closest ones, and a URL that is not http(s) once expanded', () => {
    assert.throws(
      () => resolveNamedServer(saved, 'apii', {}),
      (error: unknown) => error instanceof UsageError && error.hint === 'Did you mean api?',
    );
    assert.throws(() => resolveNamedServer(saved, 'toString', {}), /No server named 'toString'/);
    assert.throws(
      () => resolveNamedServer(saved, 'ws', { WS_URL: 'ws://e.com' }),
      /its url, once expanded, is wrong: must be http or https/,
    );
  });
});

describe('pieces', () => {
  it('splits a stored command line like a shell, keeping ${VAR} references and refusing operators', () => {
    assert.deepEqual(splitCommandLine(`node "a b" 'c d' e\\ f "\\"q\\"" \${X:-a b} '\${Y}' "\${Z}"`), {
      command: 'node',
      args: ['a b', 'c d', 'e f', '"q"', '${X:-a', 'b}', '${Y}', '${Z}'],
    });
    assert.deepEqual(splitCommandLine('  npx   -y  ""  '), { command: 'npx', args: ['-y', ''] });
    assert.throws(() => splitCommandLine('node s.js > out'), /not shell syntax/);
    assert.throws(() => splitCommandLine('   '), /needs a command/);
    assert.throws(() => splitCommandLine("node 's.js"), /unclosed single quote/);
    assert.throws(() => splitCommandLine('node `id`'), /not shell syntax \('`'\)/);
  });

  it('knows where each agent keeps its file on Linux, macOS and Windows', () => {
    const paths = (platform: NodeJS.Platform, home: string, cwd: string, env: Record<string, string> = {}): string[] =>
      agentConfigLocations({ home, cwd, platform, env }).map((location) => `${location.agent} ${location.path}`);
    assert.deepEqual(paths('linux', '/home/me', '/src/app'), [
      'claude-desktop /home/me/.config/Claude/claude_desktop_config.json',
      'claude-code /src/app/.mcp.json',
      'claude-code /home/me/.claude.json',
      'cursor /src/app/.cursor/mcp.json',
      'cursor /home/me/.cursor/mcp.json',
      'vscode /src/app/.vscode/mcp.json',
      'vscode /home/me/.config/Code/User/mcp.json',
      'codex /src/app/.codex/config.toml',
      'codex /home/me/.codex/config.toml',
      'gemini /src/app/.gemini/settings.json',
      'gemini /home/me/.gemini/settings.json',
    ]);
    assert.deepEqual(
      paths('linux', '/home/me', '/src', { CODEX_HOME: '/etc/codex', XDG_CONFIG_HOME: '/xdg' }).filter((line) =>
        /^(codex|vscode) \/(etc|xdg)/.test(line),
      ),
      ['vscode /xdg/Code/User/mcp.json', 'codex /etc/codex/config.toml'],
    );
    assert.equal(
      paths('darwin', '/Users/me', '/src')[0],
      'claude-desktop /Users/me/Library/Application Support/Claude/claude_desktop_config.json',
    );
    assert.equal(
      paths('win32', 'C:\\Users\\me', 'C:\\src', { APPDATA: 'C:\\Users\\me\\AppData\\Roaming' })[0],
      'claude-desktop C:\\Users\\me\\AppData\\Roaming\\Claude\\claude_desktop_config.json',
    );
    assert.deepEqual(
      paths('linux', '/home/me', '/home/me').filter((line) => line.startsWith('cursor')),
      ['cursor /home/me/.cursor/mcp.json'],
    );
  });

  it('prints help for every subcommand with --help, -h and help', async () => {
    const layout = emptyLayout();
    for (const argv of [['--help'], ['-h'], ['help'], ['add', '--help']]) {
      const { code, stdout } = await servers(layout, argv);
      assert.equal(code, 0);
      for (const usage of [
        'servers [list]',
        'servers add <name> --server',
        'servers add <name> --url',
        'servers remove <name>',
        'servers import [<file>…]',
      ]) {
        assert.ok(stdout.includes(`wallet ${usage}`), usage);
      }
      assert.match(stdout, /--header 'Authorization: Bearer \$\{LINEAR_TOKEN\}'/);
    }
  });
});

function literal(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
