#!/usr/bin/env node
// `npm run bundle:mcpb`: builds wallet.mcpb, the MCP bundle (one-click install in Claude Desktop and
// other MCPB hosts), with the official tool (@anthropic-ai/mcpb: `validate`, then `pack`). The
// bundle holds what the npm package holds (`npm pack`'s own list, so the two never drift: the
// launcher, the bundles, their caches and records, the docs) and manifest.json, written here from
// package.json: the host runs `node bin/wallet.js serve` with the user's settings (user_config:
// the passphrase file, the default Dash network, the profile, read-only), the passphrase by path
// only. Run after `npm run build`.
//
//   node scripts/bundle-mcpb.mjs [output.mcpb]      (default: wallet.mcpb in the repository)
import { spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';

const ROOT = join(import.meta.dirname, '..');
const MCPB = join(ROOT, 'node_modules', '@anthropic-ai', 'mcpb', 'dist', 'cli', 'cli.js');
const output = resolve(process.argv[2] ?? join(ROOT, 'wallet.mcpb'));
const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'));

/** The manifest (MCPB manifest_version 0.3, checked by `mcpb validate`). */
export function manifestOf(pkg) {
  const repository = pkg.repository.url.replace(/^git\+/, '').replace(/\.git$/, '');
  return {
    manifest_version: '0.3',
    name: pkg.name,
    display_name: 'wallet (Dash and Ethereum)',
    version: pkg.version,
    description: 'A Dash and Ethereum wallet for agents: balances, payments and signatures under your spending policy.',
    long_description: pkg.description,
    author: { name: 'the wallet authors', url: repository },
    repository: { type: 'git', url: repository },
    homepage: pkg.homepage,
    documentation: `${repository}/blob/main/docs/MCP.md`,
    support: pkg.bugs,
    license: pkg.license,
    keywords: pkg.keywords,
    server: {
      type: 'node',
      entry_point: 'bin/wallet.js',
      mcp_config: {
        command: 'node',
        args: [
          '${__dirname}/bin/wallet.js',
          'serve',
          '--profile=${user_config.profile}',
          '--read-only=${user_config.read_only}',
        ],
        env: {
          // Empty when not set: `wallet serve` then starts locked and the default stays the config's.
          WALLET_PASSPHRASE_FILE: '${user_config.passphrase_file}',
          WALLET_CORE_DEFAULT_NETWORK: '${user_config.network}',
        },
      },
    },
    tools_generated: true,
    compatibility: { platforms: ['darwin', 'linux', 'win32'], runtimes: { node: pkg.engines.node } },
    user_config: {
      passphrase_file: {
        type: 'file',
        title: 'Passphrase file',
        description:
          "An owner-only file (mode 0600) holding the keystore's passphrase, to sign without asking. Leave empty to serve locked: reads work, signing asks for the wallet to be unlocked.",
        required: false,
        // A default, even empty, is what makes mcpb hosts substitute the variable when the user
        // leaves it unset (getMcpConfigForManifest substitutes only keys with a value or a default):
        // without one the server would get the literal `${user_config.passphrase_file}`.
        default: '',
      },
      network: {
        type: 'string',
        title: 'Default Dash network',
        description:
          'The Dash network a call uses when it names none: mainnet, testnet or regtest. Empty keeps the config file’s (else testnet).',
        required: false,
        // Empty, so that the config file's default_network applies unless the user picks one.
        default: '',
      },
      profile: {
        type: 'string',
        title: 'Tool profile',
        description:
          'How the tools are listed: default (every tool, lean), full (every tool with full descriptions and schemas) or compact (at most 8 tools, each taking an action).',
        required: false,
        default: 'default',
      },
      read_only: {
        type: 'boolean',
        title: 'Read-only',
        description: 'Serve only the tools that read: nothing can sign, send or delete.',
        required: false,
        default: false,
      },
    },
  };
}

function run(command, args, options = {}) {
  const result = spawnSync(command, args, { stdio: ['ignore', 'inherit', 'inherit'], ...options });
  if (result.status !== 0) {
    console.error(`bundle:mcpb: ${[command, ...args].join(' ')} failed (exit ${result.status})`);
    process.exit(result.status ?? 1);
  }
  return result;
}

const [packed] = JSON.parse(
  run('npm', ['pack', '--dry-run', '--json', '--ignore-scripts', '--loglevel=error'], {
    cwd: ROOT,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
  }).stdout,
);
const stage = mkdtempSync(join(tmpdir(), 'wallet-mcpb-'));
try {
  for (const { path } of packed.files) {
    mkdirSync(dirname(join(stage, path)), { recursive: true });
    cpSync(join(ROOT, path), join(stage, path));
  }
  writeFileSync(join(stage, 'manifest.json'), JSON.stringify(manifestOf(pkg), null, 2) + '\n');
  run(process.execPath, [MCPB, 'validate', join(stage, 'manifest.json')]);
  rmSync(output, { force: true });
  run(process.execPath, [MCPB, 'pack', stage, output]);
} finally {
  rmSync(stage, { recursive: true, force: true });
}
