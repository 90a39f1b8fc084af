import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { SDK_PACKAGE, SDK_VERSION } from '../../src/domain/platform/sdk.js';
import { ALL_TOOLS } from '../../src/tools/index.js';
import { tempHome } from '../helpers/io.js';
import { ROOT } from '../helpers/paths.js';

/**
 * The package as npm publishes it: `npm pack`'s file list, then the tarball installed into an
 * empty folder (offline: it has no dependency to fetch) and run from there, with a clean HOME and
 * npm cache, as `npx -y dash-evm-wallet` would. Packed once (the list `npm pack --json` gives is
 * `--dry-run`'s), with --ignore-scripts: `prepare` would rebuild dist/, which the test run built.
 */
type PackedFile = { path: string; size: number };
type Packed = { name: string; version: string; filename: string; files: PackedFile[] };

const PACKAGE = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
  name: string;
  version: string;
  bin: Record<string, string>;
  dependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
  peerDependenciesMeta?: Record<string, { optional?: boolean }>;
};

/** What bin/wallet.js loads from dist/ (src/startup/bundle.mjs writes each): nothing else ships from it. */
const DIST_AT_RUN_TIME = [
  'dist/ahead.cjs',
  'dist/ahead.cjs.cache',
  'dist/builtin-tools.json',
  'dist/help.json',
  'dist/jose.cjs',
  'dist/ora.cjs',
  'dist/pg.cjs',
  'dist/qrcode.cjs',
  'dist/serve.cjs',
  'dist/serve.cjs.cache',
  'dist/tool-schemas.json',
  'dist/viem.cjs',
  'dist/wallet.cjs',
  'dist/wallet.cjs.cache',
  'dist/wallet.cjs.help.cache',
  'dist/wallet.cjs.remote.cache',
  'dist/webauthn.cjs',
  'dist/x402.cjs',
];

function npm(args: string[], cwd: string, cache: string) {
  const run = spawnSync('npm', [...args, '--cache', cache, '--no-audit', '--no-fund', '--loglevel=error'], {
    cwd,
    encoding: 'utf8',
    env: { ...process.env, npm_config_update_notifier: 'false' },
    timeout: 120_000,
  });
  assert.equal(run.status, 0, `npm ${args.join(' ')}: ${run.stderr}`);
  return run.stdout;
}

/** The relative links of a Markdown file that point at a file of this repository (anchors dropped). */
function localLinks(markdown: string): string[] {
  return [...markdown.matchAll(/\]\(([^)\s#]+)(#[^)]*)?\)/g)]
    .map((match) => match[1] ?? '')
    .filter((target) => !/^[a-z]+:/i.test(target));
}

describe('the published package', () => {
  const work = tempHome();
  const cache = join(work, 'npm-cache');
  let packed: Packed;
  before(() => {
    const [info] = JSON.parse(
      npm(['pack', '--json', '--ignore-scripts', '--pack-destination', work], ROOT, cache),
    ) as Packed[];
    assert.ok(info);
    packed = info;
  });
  after(() => rmSync(work, { recursive: true, force: true }));

  it('holds what runs and the docs the README links to, nothing twice, no source map', () => {
    const paths = packed.files.map((file) => file.path).sort();
    assert.equal(packed.name, PACKAGE.name);
    assert.deepEqual(
      paths.filter((path) => path.startsWith('dist/')),
      DIST_AT_RUN_TIME,
      'dist/ ships the bundles, their code caches and the records the launcher reads: no unbundled module',
    );
    assert.deepEqual(
      paths.filter((path) => path.endsWith('.map')),
      [],
    );
    assert.deepEqual(
      paths.filter((path) => /^(src|test|build|scripts|bench|conformance)\//.test(path)),
      [],
    );
    for (const bin of Object.values(PACKAGE.bin)) assert.ok(paths.includes(bin), bin);
    assert.ok(paths.includes('bin/package.json'), 'bin/package.json makes the launcher CommonJS');
    for (const doc of ['README.md', 'LICENSE', 'completions/README.md']) {
      assert.ok(paths.includes(doc), doc);
      for (const link of localLinks(readFileSync(join(ROOT, doc), 'utf8'))) {
        const target = join(doc, '..', link).replace(/\\/g, '/').replace(/\/$/, '');
        assert.ok(
          paths.includes(target) || paths.some((path) => path.startsWith(`${target}/`)),
          `${doc} links to ${link}, which the package does not hold`,
        );
      }
    }
  });

  it('depends on nothing the bundles carry; the Platform SDK is an optional peer', () => {
    assert.equal(PACKAGE.dependencies, undefined, 'every library is bundled into dist/*.cjs');
    assert.deepEqual(PACKAGE.peerDependencies, { [SDK_PACKAGE]: SDK_VERSION });
    assert.deepEqual(PACKAGE.peerDependenciesMeta, { [SDK_PACKAGE]: { optional: true } });
    // The one package the bundles leave out (src/startup/bundle-options.mjs) is that SDK.
    const options = readFileSync(join(ROOT, 'src', 'startup', 'bundle-options.mjs'), 'utf8');
    assert.match(options, /external: \['@dashevo\/evo-sdk'\]/);
  });

  describe('installed from its tarball into an empty folder', () => {
    const prefix = join(work, 'install');
    const home = join(work, 'home');
    let bin: string;
    before(() => {
      mkdirSync(prefix, { recursive: true });
      mkdirSync(home, { recursive: true });
      npm(['install', '--offline', '--prefix', prefix, join(work, packed.filename)], work, cache);
      bin = join(prefix, 'node_modules', '.bin', 'wallet');
    });
    const run = (args: string[]) =>
      spawnSync(bin, args, {
        encoding: 'utf8',
        env: { PATH: process.env['PATH'] ?? '', HOME: home, WALLET_HOME: join(home, '.wallet'), NO_COLOR: '1' },
        timeout: 30_000,
      });

    it('installs one package: no dependency, and not the Platform SDK', () => {
      assert.deepEqual(readdirSync(join(prefix, 'node_modules')).sort(), ['.bin', '.package-lock.json', PACKAGE.name]);
    });

    it('runs --help, --version and a tool call', () => {
      const help = run(['--help']);
      assert.equal(help.status, 0, help.stderr);
      assert.match(help.stdout, /network-info/);
      assert.equal(run(['--version']).stdout, `${PACKAGE.version}\n`);
      const info = run(['network-info', '--json']);
      assert.equal(info.status, 0, info.stderr);
      const networks = (JSON.parse(info.stdout) as { networks: { network: string }[] }).networks;
      assert.ok(networks.some((row) => row.network === 'testnet'));
    });

    it('says how to install the Platform SDK when a platform_* tool needs it', () => {
      const call = run([
        'platform-identity-balance-get',
        '--identity-id',
        '4vJ9JU1bJJE96FWSJKvHsmmFADCg4gpZQff4P3bkLKi',
        '--network',
        'testnet',
      ]);
      assert.notEqual(call.status, 0);
      assert.equal(call.stdout, '');
      assert.match(call.stderr, /BACKEND_UNAVAILABLE.*Platform SDK \(@dashevo\/evo-sdk\), which is not installed/);
      assert.ok(call.stderr.includes(`npm install -g ${SDK_PACKAGE}@${SDK_VERSION}`), call.stderr);
    });

    it("carries the passkey ceremonies' WebAuthn library in dist/webauthn.cjs", () => {
      const dist = join(prefix, 'node_modules', PACKAGE.name, 'dist');
      for (const bundle of ['wallet.cjs', 'serve.cjs']) {
        const source = readFileSync(join(dist, bundle), 'latin1');
        assert.ok(!source.includes('@simplewebauthn/'), `${bundle} requires no WebAuthn package by name`);
        assert.ok(source.includes('require("./webauthn.cjs")'), `${bundle} requires the library from beside it`);
      }
      // The file exports each entry point the bundles import, by name (src/startup/bundle-options.mjs).
      const script =
        "const { server, helpers } = require(process.argv[1]); server.generateRegistrationOptions({ rpName: 'wallet'," +
        " rpID: 'localhost', userName: 'owner' }).then((o) => console.log(o.rp.id, typeof helpers.isoBase64URL.fromBuffer));";
      const made = spawnSync(process.execPath, ['-e', script, join(dist, 'webauthn.cjs')], { encoding: 'utf8' });
      assert.equal(made.status, 0, made.stderr);
      assert.equal(made.stdout, 'localhost function\n');
    });

    it('carries viem in dist/viem.cjs, only what the wallet and x402 import of it', () => {
      const dist = join(prefix, 'node_modules', PACKAGE.name, 'dist');
      for (const bundle of ['wallet.cjs', 'serve.cjs']) {
        const source = readFileSync(join(dist, bundle), 'latin1');
        assert.ok(source.includes('require("./viem.cjs")'), `${bundle} requires viem from beside it`);
        assert.ok(source.includes('require("./x402.cjs")'), `${bundle} requires x402 from beside it`);
      }
      // Anvil's first well-known key and its address: the library runs from the installed file.
      const script =
        "const { accounts } = require(process.argv[1]); console.log(accounts.privateKeyToAccount('0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80').address);";
      const made = spawnSync(process.execPath, ['-e', script, join(dist, 'viem.cjs')], { encoding: 'utf8' });
      assert.equal(made.status, 0, made.stderr);
      assert.equal(made.stdout, '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266\n');
      // x402's viem is that file too, not a second copy.
      assert.ok(readFileSync(join(dist, 'x402.cjs'), 'latin1').includes('require("./viem.cjs")'));
    });

    it('serves every tool to a real MCP client', async () => {
      assert.ok(existsSync(bin));
      const client = new Client({ name: 'package-test', version: '1' });
      await client.connect(
        new StdioClientTransport({
          command: bin,
          args: ['serve'],
          env: { PATH: process.env['PATH'] ?? '', HOME: home, WALLET_HOME: join(home, '.wallet') },
          stderr: 'ignore',
        }),
      );
      try {
        assert.equal(client.getServerVersion()?.name, 'wallet');
        assert.equal(client.getServerVersion()?.version, PACKAGE.version);
        const { tools } = await client.listTools();
        assert.ok(tools.length > 0);
        const served = new Set(tools.map((tool) => tool.name));
        for (const name of served)
          assert.ok(
            ALL_TOOLS.some((tool) => tool.name === name),
            name,
          );
        assert.ok(served.has('network_info'));
        const result = await client.callTool({ name: 'network_info', arguments: {} });
        assert.notEqual(result.isError, true);
      } finally {
        await client.close();
      }
    });
  });
});
