import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { chmodSync, copyFileSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { serverCacheKey } from '../../src/cli/completion/index.js';
import { Connection, startServerAhead } from '../../src/cli/connection.js';
import { ToolListCache } from '../../src/cli/tool-cache.js';
import { spawnServer } from '../../src/mcp/stdio-child.js';
import { startBearerProxy, startEverythingHttp, type HttpServer } from '../helpers/everything-http.js';
import { passphraseFileIn, tempHome, wallet } from '../helpers/io.js';
import { FIXTURE_SERVER, WALLET_BIN } from '../helpers/paths.js';

const fixture = `"${process.execPath}" "${FIXTURE_SERVER}"`;

/** The `<event> <pid>` lines the fixture server logged (FIXTURE_EVENT_LOG), in order. */
const events = (log: string): string[] =>
  readFileSync(log, 'utf8')
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => `${line.split(' ')[0]} ${line.split(' ')[2]}`);

describe('wallet --url: any MCP server over Streamable HTTP', () => {
  let everything: HttpServer;
  let proxy: Awaited<ReturnType<typeof startBearerProxy>>;
  const token = 'test-token-0123456789abcdef';
  before(async () => {
    everything = await startEverythingHttp();
    proxy = await startBearerProxy(everything.url, token);
  });
  after(async () => {
    await proxy.stop();
    await everything.stop();
  });

  it('lists the tools and calls one', async () => {
    const help = await wallet(['--url', everything.url, '--help']);
    assert.equal(help.code, 0, help.stderr);
    assert.match(help.stdout, / {2}echo +Echoes back the input string/);
    const echo = await wallet(['--url', everything.url, 'echo', '--message', '0012']);
    assert.equal(echo.code, 0, echo.stderr);
    assert.equal(echo.stdout, 'Echo: 0012\n');
  });

  it('sends --header on every request; without it (or with a wrong one) exits 3 naming HTTP 401', async () => {
    const ok = await wallet([
      '--url',
      proxy.url,
      '--header',
      `Authorization: Bearer ${token}`,
      'echo',
      '--message',
      'hi',
    ]);
    assert.equal(ok.code, 0, ok.stderr);
    assert.equal(ok.stdout, 'Echo: hi\n');
    assert.ok(proxy.seen.length > 1 && proxy.seen.every((value) => value === `Bearer ${token}`));
    // A token typed on the command line works, with a warning that does not repeat it.
    assert.match(ok.stderr, /^warning: --header Authorization is typed on the command line, .*\(ps\)/);
    assert.match(ok.stderr, /--header 'Authorization: Bearer \$\{TOKEN\}' in single quotes/);
    assert.ok(!ok.stderr.includes(token));
    for (const header of [[], ['--header', 'Authorization: Bearer wrong-token-but-long']]) {
      const refused = await wallet(['--url', proxy.url, ...header, 'echo', '--message', 'hi']);
      assert.equal(refused.code, 3);
      assert.match(refused.stderr, /401/);
      assert.doesNotMatch(refused.stderr + refused.stdout, /wrong-token/);
    }
  });

  it('--header reads ${VAR} from the environment: the token never on argv, no warning', async () => {
    proxy.seen.length = 0;
    const argv = [
      '--url',
      proxy.url,
      '--header',
      'Authorization: Bearer ${MCP_TEST_TOKEN}',
      'echo',
      '--message',
      'env',
    ];
    const ok = await wallet(argv, { env: { MCP_TEST_TOKEN: token } });
    assert.equal(ok.code, 0, ok.stderr);
    assert.equal(ok.stdout, 'Echo: env\n');
    assert.equal(ok.stderr, '');
    assert.ok(proxy.seen.length > 1 && proxy.seen.every((value) => value === `Bearer ${token}`));
    const unset = await wallet(argv);
    assert.equal(unset.code, 2);
    assert.match(
      unset.stderr,
      /--header Authorization says \$\{MCP_TEST_TOKEN\}, and the environment variable MCP_TEST_TOKEN is not set/,
    );
  });

  it('--header-file: headers from an owner-only file; a file others can read is refused', async () => {
    const home = tempHome();
    try {
      const file = join(home, 'headers');
      writeFileSync(file, `# for the proxy\n\nAuthorization: Bearer ${token}\nX-Trace: file\n`, { mode: 0o600 });
      proxy.seen.length = 0;
      const ok = await wallet(['--url', proxy.url, '--header-file', file, 'echo', '--message', 'file']);
      assert.equal(ok.code, 0, ok.stderr);
      assert.equal(ok.stdout, 'Echo: file\n');
      assert.equal(ok.stderr, '');
      assert.ok(proxy.seen.length > 1 && proxy.seen.every((value) => value === `Bearer ${token}`));
      const twice = await wallet(['--url', proxy.url, '--header-file', file, '--header', 'authorization: x', 'tools']);
      assert.equal(twice.code, 2);
      assert.match(twice.stderr, /--header authorization is also in --header-file/);
      const builtIn = await wallet(['--header-file', file, 'tools']);
      assert.equal(builtIn.code, 2);
      assert.match(builtIn.stderr, /not the built-in one/);
      chmodSync(file, 0o644);
      const loose = await wallet(['--url', proxy.url, '--header-file', file, 'tools']);
      assert.equal(loose.code, 2);
      assert.match(loose.stderr, /--header-file: .* is readable by others \(mode 644\); refusing a secret from it/);
      for (const result of [twice, builtIn, loose]) assert.ok(!result.stderr.includes(token));
      writeFileSync(file, 'Bearer only\n', { mode: 0o600 });
      chmodSync(file, 0o600);
      const bad = await wallet(['--url', proxy.url, '--header-file', file, 'tools']);
      assert.equal(bad.code, 2);
      assert.match(bad.stderr, /--header-file .*: takes 'Name: value'/);
      assert.doesNotMatch(bad.stderr, /Bearer only/);
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  });

  it('refuses a bad --url or --header before connecting, without echoing a header value', async () => {
    const cases: [string[], RegExp][] = [
      [['--url', 'ftp://127.0.0.1/mcp'], /--url must be an http\(s\) URL/],
      [['--url', 'not a url'], /--url must be an http\(s\) URL/],
      [['--url', everything.url, '--server', fixture], /--server or --url, not both/],
      [['--url', everything.url, '--header', 'Bearer secret-value-1'], /--header takes 'Name: value'/],
      [['--header', 'Authorization: Bearer secret-value-1'], /not the built-in one/],
      [['--url', everything.url, '--env', 'A=1'], /not with --url/],
      [['--url', everything.url, '--passphrase-stdin'], /not with --server or --url/],
    ];
    for (const [argv, message] of cases) {
      const { code, stderr } = await wallet([...argv, 'tools']);
      assert.equal(code, 2, argv.join(' '));
      assert.match(stderr, message);
      assert.doesNotMatch(stderr, /secret-value-1/);
    }
  });

  it('exits 3 quickly when nothing listens at the URL', async () => {
    const started = Date.now();
    const { code, stderr } = await wallet(['--url', 'http://127.0.0.1:9/mcp', 'tools']);
    assert.equal(code, 3);
    assert.match(stderr, /error: /);
    assert.ok(Date.now() - started < 10_000);
  });
});

describe('wallet --server: the tool-list cache', () => {
  it('answers --help, a command --help and tools from the cache once the server is gone', async () => {
    const home = tempHome();
    // A copy beside the original (so its imports resolve) that can be taken away.
    const copy = join(dirname(FIXTURE_SERVER), `fixture-copy-${process.pid}.js`);
    copyFileSync(FIXTURE_SERVER, copy);
    const server = `"${process.execPath}" "${copy}"`;
    try {
      const first = await wallet(['--server', server, 'tools'], { home });
      assert.equal(first.code, 0, first.stderr);
      const key = serverCacheKey('server', server);
      for (const extension of ['json', 'tsv']) {
        const file = join(home, 'cache', 'tools', `${key}.${extension}`);
        assert.equal(statSync(file).mode & 0o777, 0o600, file);
      }
      assert.match(readFileSync(join(home, 'cache', 'tools', `${key}.tsv`), 'utf8'), /shapes-echo/);

      rmSync(copy);
      const help = await wallet(['--server', server, '--help'], { home });
      assert.equal(help.code, 0, help.stderr);
      assert.match(help.stdout, / {2}shapes-echo +Echoes its arguments/);
      assert.match(help.stdout, /cached .*'wallet tools --refresh'/);
      const commandHelp = await wallet(['--server', server, 'shapes-echo', '--help'], { home });
      assert.equal(commandHelp.code, 0, commandHelp.stderr);
      assert.match(commandHelp.stdout, /--mode <fast\|safe>/);
      const tools = await wallet(['--server', server, 'tools'], { home });
      assert.equal(tools.code, 0);
      assert.match(tools.stdout, /funds-burn-now +funds_burn_now/);

      // Anything that needs the server itself still fails, as it must: exit 3.
      assert.equal((await wallet(['--server', server, 'tools', '--refresh'], { home })).code, 3);
      assert.equal((await wallet(['--server', server, 'shapes-echo', '--id', '1'], { home })).code, 3);
    } finally {
      rmSync(copy, { force: true });
      rmSync(home, { recursive: true, force: true });
    }
  });

  it('asks the server again for a command the cached list lacks', async () => {
    const home = tempHome();
    try {
      const cache = new ToolListCache(home);
      await cache.write(
        { kind: 'server', value: fixture },
        { name: 'fixture', version: '0.0.1' },
        [{ name: 'serve', inputSchema: { type: 'object' } }],
        { kind: 'legacy' },
      );
      const { code, stdout, stderr } = await wallet(['--server', fixture, 'shapes-echo', '--id', '0x10', '--json'], {
        home,
      });
      assert.equal(code, 0, stderr);
      assert.deepEqual(JSON.parse(stdout), { received: { id: '0x10' } });
      const refreshed = await cache.read({ kind: 'server', value: fixture });
      assert.ok(refreshed?.tools.some((tool) => tool.name === 'shapes-echo'));
      assert.equal(refreshed?.server.version, '9.9.9');
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  });

  it('remembers the protocol era per server: after the first contact, a call spawns the server once (no probe)', async () => {
    const home = tempHome();
    try {
      const log = join(home, 'events.log');
      const spec = { kind: 'server' as const, value: fixture };
      const starts = (): number => events(log).filter((event) => event.startsWith('start ')).length;
      const first = await wallet(['--server', fixture, '--env', `FIXTURE_EVENT_LOG=${log}`, 'tools'], { home });
      assert.equal(first.code, 0, first.stderr);
      const cached = await new ToolListCache(home).read(spec);
      assert.deepEqual(cached?.era?.verdict, { kind: 'legacy' }, 'a 2025-era server (it answers no server/discover)');
      const afterFirst = starts();
      assert.ok(afterFirst >= 1);
      const call = await wallet(
        ['--server', fixture, '--env', `FIXTURE_EVENT_LOG=${log}`, 'shapes-echo', '--id', '1'],
        {
          home,
        },
      );
      assert.equal(call.code, 0, call.stderr);
      assert.equal(starts() - afterFirst, 1, 'one spawn: the session, no probe sibling');
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  });

  it('starts a server spoken to before ahead of its session, which then speaks over that process', async () => {
    const home = tempHome();
    try {
      const log = join(home, 'events.log');
      const target = {
        kind: 'stdio' as const,
        spec: { kind: 'server' as const, value: fixture },
        command: { command: process.execPath, args: [FIXTURE_SERVER], env: { FIXTURE_EVENT_LOG: log } },
      };
      assert.equal(await startServerAhead(target, home, undefined), undefined, 'never met: no era, nothing spawned');
      assert.equal((await wallet(['--server', fixture, 'tools'], { home })).code, 0);
      const ahead = await startServerAhead(target, home, undefined);
      assert.deepEqual(ahead?.era, { kind: 'legacy' });
      const connection = new Connection(target, home, undefined, undefined, undefined, undefined, ahead);
      try {
        const { tools } = await connection.tools('refresh');
        assert.ok(tools.some((tool) => tool.name === 'shapes-echo'));
        assert.equal((await connection.open()).era.kind, 'legacy');
      } finally {
        await connection.close();
      }
      const starts = events(log).filter((event) => event.startsWith('start '));
      assert.deepEqual(starts, [`start ${ahead?.process.child?.pid}`], 'one process: the one spawned ahead');
      assert.equal(ahead?.process.closed(), true, 'ended with the session');
      // One that no session took over (the run failed first) is ended too.
      const unused = await startServerAhead(target, home, undefined);
      const child = unused?.process.child;
      assert.ok(child);
      const ended = new Promise((resolve) => child.once('close', (code, signal) => resolve(signal ?? code)));
      await new Connection(target, home, undefined, undefined, undefined, undefined, unused).close();
      // SIGTERM, or the fixture's exit on it (143) if it was quick enough to set its handler.
      assert.ok([143, 'SIGTERM'].includes((await ended) as number | string), 'signalled at once: it was asked nothing');
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  });

  it('spawns a server ahead only for a tool call: help, tools and definitions from the cache start none', async () => {
    const home = tempHome();
    try {
      const log = join(home, 'spawns.log');
      // The shell writes its line at once, before the fixture (a Node process) has even loaded.
      const logged = `sh -c 'echo spawned >> "${log}"; exec ${fixture}'`;
      assert.equal((await wallet(['--server', logged, 'tools'], { home })).code, 0);
      const spawns = (): number =>
        readFileSync(log, 'utf8')
          .split('\n')
          .filter((line) => line === 'spawned').length;
      const first = spawns();
      for (const args of [
        ['shapes-echo', '--help'],
        ['shapes-echo', '-h'],
        ['--help'],
        ['tools'],
        ['--get-tool-definition'],
      ]) {
        const run = await wallet(['--server', logged, ...args], { home });
        assert.equal(run.code, 0, `${args.join(' ')}: ${run.stderr}`);
        assert.equal(spawns(), first, `${args.join(' ')} started a server`);
      }
      const call = await wallet(['--server', logged, 'shapes-echo', '--id', '2'], { home });
      assert.equal(call.code, 0, call.stderr);
      assert.equal(spawns(), first + 1);
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  });

  it('a server spawned ahead and stopped lets go of its pipes when it exits, whoever else holds them', async () => {
    // SIGTERM ends the shell at once; the sleep it started keeps the pipes open for 3 s more.
    const server = spawnServer({ command: 'sh', args: ['-c', 'sleep 3; echo late'], stderr: 'capture' });
    await server.spawned;
    const child = server.child;
    assert.ok(child);
    const exited = new Promise((resolve) => child.once('exit', resolve));
    const stoppedAt = Date.now();
    server.stop();
    await exited;
    await new Promise((resolve) => setImmediate(resolve));
    assert.ok(child.stdout?.destroyed && child.stderr?.destroyed && child.stdin?.destroyed, 'pipes still held');
    assert.ok(Date.now() - stoppedAt < 2_000, 'waited for the helper');
  });

  it('a remembered server that is gone or dies at start: exit 3, the same message as at first contact', async () => {
    const home = tempHome();
    try {
      const failing = [
        [
          join(home, 'no-such-server'),
          /^error: CONNECTION_FAILED: Cannot connect to the MCP server: the server command was not found\n/,
        ],
        [
          `sh -c 'echo boom >&2; exit 1'`,
          /^error: CONNECTION_FAILED: Cannot connect to the MCP server: the server closed the connection .*boom/,
        ],
      ] as const;
      for (const [command, message] of failing) {
        const first = await wallet(['--server', command, 'echo'], { home });
        assert.equal(first.code, 3);
        assert.match(first.stderr, message);
        const spec = { kind: 'server' as const, value: command };
        await new ToolListCache(home).write(spec, { name: 'failing', version: '1' }, [], { kind: 'legacy' });
        const remembered = await wallet(['--server', command, 'echo'], { home });
        assert.equal(remembered.code, 3);
        assert.equal(remembered.stderr, first.stderr, command);
      }
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  });

  it('a line on stdout that is no JSON-RPC message is skipped, also over a server spawned ahead', async () => {
    const home = tempHome();
    try {
      const chatty = `sh -c 'echo {\\"ready\\":true}; exec ${fixture}'`;
      for (const run of ['first contact', 'remembered']) {
        const call = await wallet(['--server', chatty, 'shapes-echo', '--id', '7', '--json'], { home });
        assert.equal(call.code, 0, `${run}: ${call.stderr}`);
        assert.deepEqual(JSON.parse(call.stdout), { received: { id: '7' } });
      }
      assert.ok(await new ToolListCache(home).readEra({ kind: 'server', value: chatty }));
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  });

  it('a remembered 2026-era verdict the SDK refuses outright: the server spawned ahead is ended, the run exits', async () => {
    const home = tempHome();
    try {
      const log = join(home, 'events.log');
      const spec = { kind: 'server' as const, value: fixture };
      const cache = new ToolListCache(home);
      assert.equal((await wallet(['--server', fixture, 'tools'], { home })).code, 0);
      const cached = await cache.read(spec);
      assert.ok(cached);
      // No version in common: the SDK refuses it before it starts the transport.
      const discover = { supportedVersions: ['2099-01-01'], capabilities: { tools: {} } };
      await cache.write(spec, cached.server, cached.tools, { kind: 'modern', discover });
      // The binary, not runCli in this process: a process left running would keep it from exiting.
      const run = spawnSync(
        process.execPath,
        [WALLET_BIN, '--server', fixture, '--env', `FIXTURE_EVENT_LOG=${log}`, 'shapes-echo', '--id', '1', '--json'],
        { env: { ...process.env, WALLET_HOME: home }, encoding: 'utf8', timeout: 20_000 },
      );
      assert.equal(run.status, 0, `${run.signal ?? ''} ${run.stderr}`);
      assert.deepEqual(JSON.parse(run.stdout), { received: { id: '1' } });
      assert.deepEqual((await cache.read(spec))?.era?.verdict, { kind: 'legacy' }, 'negotiated again');
      const started = events(log)
        .filter((event) => event.startsWith('start '))
        .map((event) => event.slice('start '.length));
      for (const pid of started) assert.throws(() => process.kill(Number(pid), 0), /ESRCH/, `server ${pid} still runs`);
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  });

  it('negotiates again when a remembered 2026-era verdict no longer holds', async () => {
    const home = tempHome();
    try {
      const spec = { kind: 'server' as const, value: fixture };
      const cache = new ToolListCache(home);
      assert.equal((await wallet(['--server', fixture, 'tools'], { home })).code, 0);
      const cached = await cache.read(spec);
      assert.ok(cached);
      // As if the server had spoken 2026-07-28 before and been downgraded since.
      const discover = { supportedVersions: ['2026-07-28'], capabilities: { tools: {} } };
      await cache.write(spec, cached.server, cached.tools, { kind: 'modern', discover });
      const call = await wallet(['--server', fixture, 'shapes-echo', '--id', '1', '--json'], { home });
      assert.equal(call.code, 0, call.stderr);
      assert.deepEqual(JSON.parse(call.stdout), { received: { id: '1' } });
      assert.deepEqual((await cache.read(spec))?.era?.verdict, { kind: 'legacy' });
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  });

  it("after the answer, closes the server's stdin and signals it soon if it lingers (no 2 s wait)", async () => {
    const home = tempHome();
    try {
      const log = join(home, 'events.log');
      const call = await wallet(
        [
          '--server',
          fixture,
          '--env',
          `FIXTURE_EVENT_LOG=${log}`,
          '--env',
          'FIXTURE_LINGER=1',
          'shapes-echo',
          '--id',
          '1',
        ],
        { home },
      );
      assert.equal(call.code, 0, call.stderr);
      const events = new Map(
        readFileSync(log, 'utf8')
          .trim()
          .split('\n')
          .map((line) => line.split(' ') as [string, string]),
      );
      const stdinEnd = Number(events.get('stdin-end'));
      const sigterm = Number(events.get('sigterm'));
      assert.ok(stdinEnd > 0 && sigterm > 0, `events: ${[...events.keys()].join(', ')}`);
      // The SDK alone waits 2 s for a lingering server before it signals it.
      assert.ok(sigterm - stdinEnd < 1_500, `SIGTERM ${sigterm - stdinEnd} ms after stdin ended`);
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  });

  it('marks the cached list stale when the server announces a change, and re-reads it next time', async () => {
    const home = tempHome();
    try {
      const spec = { kind: 'server' as const, value: fixture };
      const cache = new ToolListCache(home);
      assert.equal((await wallet(['--server', fixture, 'tools'], { home })).code, 0);
      assert.equal((await cache.read(spec))?.stale, false);
      const grow = await wallet(['--server', fixture, 'tools-grow-now'], { home });
      assert.equal(grow.code, 0, grow.stderr);
      assert.equal((await cache.read(spec))?.stale, true);
      assert.equal((await wallet(['--server', fixture, '--help'], { home })).code, 0);
      assert.equal((await cache.read(spec))?.stale, false);
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  });
});

describe('wallet --server: a server that fails', () => {
  it("refuses a result that does not match the tool's own output schema (checked by the client)", async () => {
    const { code, stdout, stderr } = await wallet(['--server', fixture, 'output-mismatch-now']);
    assert.notEqual(code, 0);
    assert.equal(stdout, '');
    assert.match(stderr, /does not match the tool's output schema/);
  });

  it('exits 3 with a clear message when the server dies in the middle of a call', async () => {
    const { code, stderr } = await wallet(['--server', fixture, 'process-die-now']);
    assert.equal(code, 3);
    assert.match(stderr, /error: .*(closed the connection|Connection closed)/i);
  });

  it('exits 3 within --timeout when the server never answers a call, or never starts talking', async () => {
    for (const server of [fixture, `"${process.execPath}" -e "setInterval(() => {}, 1000)"`]) {
      const started = Date.now();
      const { code, stderr } = await wallet(['--server', server, '--timeout', '800', 'call-hang-now']);
      assert.equal(code, 3, stderr);
      assert.match(stderr, /did not answer in time/);
      assert.ok(Date.now() - started < 8_000, `took ${Date.now() - started} ms`);
    }
  });

  it('passes --env to the server process', async () => {
    const { code, stdout } = await wallet([
      '--server',
      fixture,
      '--env',
      'GREETING=hello there',
      'env-get-now',
      '--name',
      'GREETING',
    ]);
    assert.equal(code, 0);
    assert.equal(stdout, 'hello there\n');
    const bad = await wallet(['--server', fixture, '--env', '1X=2', 'tools']);
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /--env takes NAME=value/);
  });
});

describe('wallet --server: secrets and odd input', () => {
  it('treats an object holding a secret as a secret: never inline, read from stdin as JSON', async () => {
    const inline = await wallet(['--server', fixture, 'secret-nested-now', '--cfg', '{"password":"hunter2"}']);
    assert.equal(inline.code, 2);
    assert.match(inline.stderr, /--cfg is a secret/);
    assert.doesNotMatch(inline.stderr, /hunter2/);
    const piped = await wallet(['--server', fixture, 'secret-nested-now', '--cfg-stdin', '--json'], {
      stdin: '{"user":"ann","password":"hunter2"}\n',
    });
    assert.equal(piped.code, 0, piped.stderr);
    assert.deepEqual(JSON.parse(piped.stdout), { user: 'ann', has_password: true });
    const bad = await wallet(['--server', fixture, 'secret-nested-now', '--cfg-stdin'], { stdin: 'hunter2 {' });
    assert.equal(bad.code, 2);
    assert.doesNotMatch(bad.stderr, /hunter2/);
  });

  it('refuses a URL with a user or password, without showing it', async () => {
    const { code, stderr } = await wallet(['--url', 'http://ann:pa55word@127.0.0.1:9/mcp', 'tools']);
    assert.equal(code, 2);
    assert.match(stderr, /--header 'Authorization: Bearer \$\{TOKEN\}' \(single quotes\), or --header-file/);
    assert.doesNotMatch(stderr, /pa55word/);
  });

  it('still runs the command when the cache cannot be written', async () => {
    const home = tempHome();
    try {
      writeFileSync(join(home, 'cache'), 'not a folder');
      const { code, stdout, stderr } = await wallet(['--server', fixture, 'env-get-now', '--name', 'NOPE_X'], { home });
      assert.equal(code, 0, stderr);
      assert.equal(stdout, '(unset)\n');
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  });
});

describe('named servers (wallet servers)', () => {
  it('runs a named stdio server with ${VAR} expanded from the environment at connect time', async () => {
    const home = tempHome();
    try {
      const add = await wallet(['servers', 'add', 'fx', '--server', fixture, '--env', 'GREETING=${MY_GREETING}'], {
        home,
      });
      assert.equal(add.code, 0, add.stderr);
      const { code, stdout, stderr } = await wallet(['--server', 'fx', 'env-get-now', '--name', 'GREETING'], {
        home,
        env: { MY_GREETING: 'from the environment' },
      });
      assert.equal(code, 0, stderr);
      assert.equal(stdout, 'from the environment\n');
      const unset = await wallet(['--server', 'fx', 'tools'], { home });
      assert.equal(unset.code, 2);
      assert.match(unset.stderr, /MY_GREETING/);
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  });

  it('runs a named HTTP server with its stored header', async () => {
    const everything = await startEverythingHttp();
    const proxy = await startBearerProxy(everything.url, 'named-token-0123456789');
    const home = tempHome();
    try {
      const add = await wallet(
        ['servers', 'add', 'ev', '--url', proxy.url, '--header', 'Authorization: Bearer ${EV_TOKEN}'],
        {
          home,
        },
      );
      assert.equal(add.code, 0, add.stderr);
      const { code, stdout, stderr } = await wallet(['--server', 'ev', 'echo', '--message', 'named'], {
        home,
        env: { EV_TOKEN: 'named-token-0123456789' },
      });
      assert.equal(code, 0, stderr);
      assert.equal(stdout, 'Echo: named\n');
    } finally {
      rmSync(home, { recursive: true, force: true });
      await proxy.stop();
      await everything.stop();
    }
  });
});

describe('destructive tools: confirmation', () => {
  it('refuses without a terminal unless --yes (exit 2), and runs a dry run without asking', async () => {
    const refused = await wallet(['--server', fixture, 'funds-burn-now', '--amount', '5']);
    assert.equal(refused.code, 2);
    assert.match(refused.stderr, /'funds-burn-now' is destructive .* nothing was done/);
    assert.match(refused.stderr, /--yes/);
    const dryRun = await wallet(['--server', fixture, 'funds-burn-now', '--amount', '5', '--dry-run', '--json']);
    assert.equal(dryRun.code, 0, dryRun.stderr);
    assert.deepEqual(JSON.parse(dryRun.stdout), { amount: '5', fee: '7', dry_run: true, burns: 0 });
    const yes = await wallet(['--server', fixture, 'funds-burn-now', '--amount', '5', '--yes', '--json']);
    assert.equal(yes.code, 0, yes.stderr);
    assert.deepEqual(JSON.parse(yes.stdout), { amount: '5', fee: '7', dry_run: false, burns: 1 });
  });

  it('skips the question only for a real dry run: dry_run on a tool without one still needs --yes', async () => {
    // A destructive tool of the built-in server without a dry_run flag: core-wallet-delete.
    const refused = await wallet([
      'core-wallet-delete',
      '--args-json',
      '{"wallet_id":"x","network":"testnet","confirm_fingerprint":"00000000","dry_run":true}',
    ]);
    assert.equal(refused.code, 2);
    assert.match(refused.stderr, /'core-wallet-delete' is destructive/);
  });

  it('does not ask on a terminal whose stdin was already read (--args-json -): exit 2 unless --yes', async () => {
    const { code, stderr } = await wallet(['--server', fixture, 'funds-burn-now', '--args-json', '-'], {
      tty: true,
      stdin: '{"amount":"5"}',
      env: { NO_COLOR: '1' },
    });
    assert.equal(code, 2);
    assert.match(stderr, /no terminal to confirm on; nothing was done/);
  });

  it('on a terminal shows the arguments and the dry-run plan, and sends only after "y"', async () => {
    const declined = await wallet(['--server', fixture, 'funds-burn-now', '--amount', '5', '--json'], {
      tty: true,
      stdin: 'n\n',
      env: { NO_COLOR: '1' },
    });
    assert.equal(declined.code, 1);
    assert.match(declined.stderr, /funds-burn-now will run with:/);
    assert.match(declined.stderr, /amount +0\.00000005 DASH \(5 duffs\)/);
    assert.match(declined.stderr, /fee +7/);
    assert.match(declined.stderr, /Proceed\? \[y\/N\]/);
    assert.match(declined.stderr, /Cancelled: nothing was sent/);
    assert.equal(declined.stdout, '');

    const accepted = await wallet(['--server', fixture, 'funds-burn-now', '--amount', '5', '--json'], {
      tty: true,
      stdin: 'y\n',
      env: { NO_COLOR: '1' },
    });
    assert.equal(accepted.code, 0, accepted.stderr);
    // The dry run sent nothing: the one real call is the first burn.
    assert.deepEqual(JSON.parse(accepted.stdout), { amount: '5', fee: '7', dry_run: false, burns: 1 });
  });

  it('takes a coin amount for a flag declared in base units, converted exactly and echoed in both', async () => {
    const typed = await wallet(['--server', fixture, 'funds-burn-now', '--amount', '1.5dash', '--json'], {
      tty: true,
      stdin: 'y\n',
      env: { NO_COLOR: '1' },
    });
    assert.equal(typed.code, 0, typed.stderr);
    assert.match(typed.stderr, /amount +1\.5 DASH \(150000000 duffs\)/);
    assert.equal((JSON.parse(typed.stdout) as { amount: string }).amount, '150000000');
    const tooFine = await wallet(['--server', fixture, 'funds-burn-now', '--amount', '0.000000001dash', '--yes']);
    assert.equal(tooFine.code, 2);
    assert.match(tooFine.stderr, /--amount '0\.000000001dash' is finer than one duff/);
    const otherChain = await wallet(['--server', fixture, 'funds-burn-now', '--amount', '1ether', '--yes']);
    assert.equal(otherChain.code, 2);
    assert.match(otherChain.stderr, /--amount takes duffs, or a coin amount in duff, duffs, dash; got '1ether'/);
  });

  it('guards the built-in destructive tools the same way (core-wallet-delete keeps the wallet)', async () => {
    const home = tempHome();
    try {
      const pw = passphraseFileIn(home, 'correct horse battery');
      const created = await wallet(
        ['core-wallet-create', '--alias', 'keep', '--network', 'testnet', '--passphrase-file', pw, '--json'],
        { home },
      );
      assert.equal(created.code, 0, created.stderr);
      const { wallet_id: fingerprint } = JSON.parse(created.stdout) as { wallet_id: string };
      const refused = await wallet(
        [
          'core-wallet-delete',
          '--wallet-id',
          'keep',
          '--network',
          'testnet',
          '--confirm-fingerprint',
          fingerprint,
          '--passphrase-file',
          pw,
        ],
        { home },
      );
      assert.equal(refused.code, 2, refused.stderr);
      assert.match(refused.stderr, /'core-wallet-delete' is destructive/);
      const listed = await wallet(['core-wallets-list', '--json'], { home });
      assert.match(listed.stdout, /"keep"/);
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  });
});
