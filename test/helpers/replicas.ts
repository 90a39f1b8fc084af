/**
 * Replicas of `wallet serve --http` sharing one PostgreSQL state store, for the tests of
 * test/state/ and bench/replicas.mjs: each replica its own process and data directory, an MCP
 * client connected to it with the bearer token.
 */
import assert from 'node:assert/strict';
import { copyFileSync, cpSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { ERROR_META_KEY } from '../../src/shared/protocol-meta.js';
import { startHttpServe, type HttpServe } from './http-serve.js';
import { passphraseFileIn, tempHome, wallet } from './io.js';
import { importAnvilAccount, localServer } from './mcp.js';

export const REPLICA_PASSPHRASE = 'replica test passphrase';
export const REPLICA_TOKEN = 'replica-test-token-0123456789abcdef';
/** Aliases of anvil's first four accounts in {@link anvilKeystoreHome}'s keystore. */
export const REPLICA_ACCOUNTS = ['p0', 'p1', 'p2', 'p3'];
/** Their addresses: anvil's first four accounts, p0…p3. */
export const REPLICA_ADDRESSES = [
  '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266',
  '0x70997970C51812dc3A010C7d01b50e0d17dc79C8',
  '0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC',
  '0x90F79bf6EB2c4f870365E785982E1f101E93b906',
] as const;

export type CallResult = Awaited<ReturnType<Client['callTool']>>;

/** The WalletError code of a failed call, or undefined when it succeeded. */
export const errorCodeOf = (result: CallResult | undefined): string | undefined =>
  result?.isError ? (result._meta?.[ERROR_META_KEY] as { code?: string } | undefined)?.code : undefined;

export async function connectReplica(url: string): Promise<Client> {
  const client = new Client({ name: 'replica-test', version: '1' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(url), {
      requestInit: { headers: { authorization: `Bearer ${REPLICA_TOKEN}` } },
    }),
  );
  return client;
}

/** A data directory with anvil's mnemonic and its first four accounts (p0…p3), all funded on anvil. */
export async function anvilKeystoreHome(): Promise<string> {
  const home = tempHome();
  await importAnvilAccount(home, REPLICA_PASSPHRASE, { walletAlias: 'w', accountAlias: 'p0' });
  const local = await localServer({ env: { WALLET_HOME: home }, passphrase: REPLICA_PASSPHRASE });
  try {
    for (const alias of REPLICA_ACCOUNTS.slice(1)) await local.call('evm_account_create', { wallet_id: 'w', alias });
  } finally {
    await local.close();
  }
  return home;
}

/** Writes `home`/config.json with `config` (0600). */
export function writeReplicaConfig(home: string, config: Record<string, unknown>): void {
  writeFileSync(join(home, 'config.json'), JSON.stringify(config), { mode: 0o600 });
}

/**
 * Replicas of `source` on the state store at `store`, its schema migrated first (`wallet state
 * migrate`), each serving anvil at `nodeUrl` behind {@link REPLICA_TOKEN}; not started yet (the
 * caller keeps them before `start`, so that its clean-up stops what a failed start left running).
 */
export async function replicasOnStore(
  store: { url: string; password: string },
  nodeUrl: string,
  source: string,
): Promise<Replicas> {
  const env = {
    WALLET_STATE_URL: store.url,
    PGPASSWORD: store.password,
    WALLET_EVM_LOCAL_URL: nodeUrl,
    MCP_API_KEY: REPLICA_TOKEN,
  };
  const migrated = await wallet(['state', 'migrate'], { env });
  assert.equal(migrated.code, 0, migrated.stderr);
  return new Replicas(env, source);
}

/**
 * A cluster of replicas, one node. With a state store (`WALLET_STATE_URL` in `env`) the source's
 * keystore is imported into it (again: nothing twice) and each replica is an empty data directory
 * with the source's config.json; with the files backend each is a copy of the source.
 */
export class Replicas {
  served: HttpServe[] = [];
  clients: Client[] = [];
  homes: string[] = [];

  constructor(
    readonly env: Record<string, string>,
    readonly source: string,
  ) {}

  async start(count: number): Promise<void> {
    if (this.env['WALLET_STATE_URL'] !== undefined) {
      const imported = await wallet(['state', 'import'], { env: this.env, home: this.source });
      assert.equal(imported.code, 0, imported.stderr);
    }
    const homes = Array.from({ length: count }, () => this.newHome());
    this.served = await Promise.all(homes.map((home) => this.serve(home)));
    this.clients = await Promise.all(this.served.map((served) => connectReplica(served.url)));
  }

  /** A data directory for one more replica (removed by {@link stop}). */
  newHome(): string {
    const home = tempHome();
    if (this.env['WALLET_STATE_URL'] === undefined) cpSync(this.source, home, { recursive: true });
    else copyFileSync(join(this.source, 'config.json'), join(home, 'config.json'));
    this.homes.push(home);
    return home;
  }

  /** Starts (again) the replica of `home`. */
  serve(home: string): Promise<HttpServe> {
    return startHttpServe(['--passphrase-file', passphraseFileIn(home, REPLICA_PASSPHRASE)], { home, env: this.env });
  }

  async stop(): Promise<void> {
    await Promise.allSettled(this.clients.map((client) => client.close()));
    await Promise.allSettled(this.served.map((served) => served.stop()));
    for (const home of this.homes) rmSync(home, { recursive: true, force: true });
  }
}
