/**
 * A wallet on the Dash backends of test/fixtures/dash-backends.ts (a Dash Core node's JSON-RPC
 * with the address index, without it, an Insight explorer: local stand-ins speaking the documented
 * response shapes), for test/core/backends.test.ts and the tools' own tests (test/tools/core/):
 * the wallet of BIP39's all-zero mnemonic, imported with discovery after its addresses were funded.
 */
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { rmSync } from 'node:fs';
import { after, before, describe } from 'node:test';
import { hex } from '@scure/base';
import { startDashBackends, type DashBackends } from '../fixtures/dash-backends.js';
import { txCreateArgs } from './core-argv.js';
import { passphraseFileIn, tempHome, wallet } from './io.js';

const require = createRequire(import.meta.url);
export type Dashcore = {
  Mnemonic: new (words: string) => {
    toHDPrivateKey(
      passphrase: string,
      network: string,
    ): { deriveChild(path: string): { privateKey: { toAddress(network: string): { toString(): string } } } };
  };
  Script: { fromAddress(address: string): { toHex(): string } };
  PrivateKey: new () => { toAddress(network: string): { toString(): string } };
};
export const dashcore = require('@dashevo/dashcore-lib') as Dashcore;

export const ABANDON = 'abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about';
const hd = new dashcore.Mnemonic(ABANDON).toHDPrivateKey('', 'testnet');
export const addressAt = (chain: 0 | 1, index: number): string =>
  hd.deriveChild(`m/44'/1'/0'/${chain}/${index}`).privateKey.toAddress('testnet').toString();
export const scriptOf = (address: string): Uint8Array => hex.decode(dashcore.Script.fromAddress(address).toHex());
export const STRANGER = new dashcore.PrivateKey().toAddress('testnet').toString();

export type Kind = {
  name: string;
  index: boolean | 'disabled';
  url: (backends: DashBackends) => string;
  readsMempool: boolean;
  marker: string;
  /** The backend kind reported, and the call that reads one address's balance. */
  backend: 'core-rpc' | 'insight';
  balanceMarker: string;
};
export const KINDS: Kind[] = [
  {
    name: 'core-rpc with -addressindex',
    index: true,
    url: (b) => b.rpcUrl,
    readsMempool: true,
    marker: 'getaddressutxos',
    backend: 'core-rpc',
    balanceMarker: 'getaddressbalance',
  },
  {
    name: 'core-rpc without the index (scantxoutset)',
    index: 'disabled',
    url: (b) => b.rpcUrl,
    readsMempool: false,
    marker: 'scantxoutset',
    backend: 'core-rpc',
    balanceMarker: 'scantxoutset',
  },
  {
    name: 'insight',
    index: true,
    url: (b) => `insight+${b.insightUrl}`,
    readsMempool: true,
    marker: 'POST /addrs/utxo',
    backend: 'insight',
    balanceMarker: 'GET /addr/:addr',
  },
];

/** The funding the wallet finds: receive 0 and 7, change 2, confirmed; 0.3 DASH in the mempool to receive 0. */
export function fundWallet(backends: DashBackends): void {
  const chain = backends.chain;
  for (const [address, duffs] of [
    [addressAt(0, 0), 200_000_000n],
    [addressAt(0, 7), 100_000_000n],
    [addressAt(1, 2), 50_000_000n],
  ] as const) {
    chain.fund(address, scriptOf(address), duffs);
  }
  chain.mine(2);
  chain.fund(addressAt(0, 0), scriptOf(addressAt(0, 0)), 30_000_000n, { confirmed: false });
}

export type BackendWallet = {
  backends: DashBackends;
  home: string;
  /** The environment naming the backends (WALLET_CORE_TESTNET_URL), for a CLI run of a test's own. */
  env: Record<string, string>;
  /** Runs the CLI with the passphrase, `--yes` and `--json`; asserts success and gives the result. */
  ok(argv: string[], stdin?: string): Promise<Record<string, unknown>>;
  /** Runs the CLI; asserts failure and gives its stderr. */
  fails(argv: string[]): Promise<string>;
  close(): Promise<void>;
};

/** Backends of `kind`, funded ({@link fundWallet}), and a data directory naming them; no wallet yet. */
export async function onBackends(kind: Kind): Promise<BackendWallet> {
  const backends = await startDashBackends({ chain: 'test', addressIndex: kind.index });
  const home = tempHome();
  const passphraseFile = passphraseFileIn(home, 'backend passphrase');
  const env = { WALLET_CORE_TESTNET_URL: kind.url(backends) };
  fundWallet(backends);
  return {
    backends,
    home,
    env,
    async ok(argv, stdin) {
      const result = await wallet([...argv, '--passphrase-file', passphraseFile, '--yes', '--json'], {
        home,
        env,
        ...(stdin === undefined ? {} : { stdin }),
      });
      assert.equal(result.code, 0, `${argv[0]}: ${result.stderr}`);
      return JSON.parse(result.stdout) as Record<string, unknown>;
    },
    async fails(argv) {
      const result = await wallet([...argv, '--passphrase-file', passphraseFile, '--yes'], { home, env });
      assert.notEqual(result.code, 0);
      return result.stderr;
    },
    async close() {
      await backends.close();
      rmSync(home, { recursive: true, force: true });
    },
  };
}

/**
 * For each backend kind, `describe(\`${tool}: ${kind.name}\`)` on backends of that kind with the
 * wallet of {@link ABANDON} imported as `main` on testnet (before the tests, closed after them).
 * `on` stands for that wallet from the tests' run on; reading it while `describe` is collecting throws.
 */
export function describeOnMainWallet(tool: string, body: (on: BackendWallet, kind: Kind) => void): void {
  for (const kind of KINDS) {
    describe(`${tool}: ${kind.name}`, () => {
      let live: BackendWallet | undefined;
      const current = (): BackendWallet => {
        assert.ok(live, 'the wallet is made in before(): read it from a test');
        return live;
      };
      before(async () => {
        live = await onBackends(kind);
        await live.ok(['core-wallet-import', '--alias', 'main', '--network', 'testnet', '--mnemonic-stdin'], ABANDON);
      });
      after(() => live?.close());
      body(
        {
          get backends() {
            return current().backends;
          },
          get home() {
            return current().home;
          },
          get env() {
            return current().env;
          },
          ok: (argv, stdin) => current().ok(argv, stdin),
          fails: (argv) => current().fails(argv),
          close: () => current().close(),
        },
        kind,
      );
    });
  }
}

/** core_tx_create's arguments for `main` paying {@link STRANGER} `amountDuffs` (0.01 DASH) on testnet. */
export const createToStranger = (amountDuffs = '1000000'): string[] => txCreateArgs(STRANGER, amountDuffs);
