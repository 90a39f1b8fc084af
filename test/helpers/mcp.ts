import { rmSync } from 'node:fs';
import { Client } from '@modelcontextprotocol/client';
import { InMemoryTransport } from '@modelcontextprotocol/server';
import { createWalletServer } from '../../src/mcp/server.js';
import { walletServerOptions } from '../../src/mcp/setup.js';
import { ERROR_META_KEY } from '../../src/shared/protocol-meta.js';
import { ANVIL_MNEMONIC } from './anvil.js';

/** A tool failure as a test sees it: the error code and message the server returned. */
export class ToolFailure extends Error {
  constructor(
    readonly code: string | undefined,
    message: string,
  ) {
    super(`${code ?? 'no code'}: ${message}`);
  }
}

export type ToolCaller = {
  client: Client;
  /** Calls a tool; resolves to its structured result, or rejects with a {@link ToolFailure}. */
  call<T = Record<string, unknown>>(
    name: string,
    args: Record<string, unknown>,
    onprogress?: (message: string) => void,
  ): Promise<T>;
  close(): Promise<void>;
};

/**
 * A real SDK client on the real wallet server, in memory, with the local-only tools the CLI
 * has: the full MCP path, without a child process.
 */
export async function localServer(options: {
  env: Record<string, string>;
  passphrase?: string;
  localOnly?: boolean;
  /** Who calls: the owner (the local CLI's server, the default) or an agent (`wallet serve`'s). */
  caller?: 'owner' | 'agent';
}): Promise<ToolCaller> {
  const server = createWalletServer(
    walletServerOptions({
      localOnly: options.localOnly ?? true,
      caller: options.caller ?? 'owner',
      readOnly: false,
      // As the CLI's in-process server: the exact schemas (test/mcp/profiles.test.ts covers the others).
      profile: 'full',
      env: options.env,
      passphrase: options.passphrase,
    }),
  );
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const client = new Client({ name: 'test', version: '1' });
  await client.connect(clientSide);
  return {
    client,
    async call<T>(name: string, args: Record<string, unknown>, onprogress?: (message: string) => void): Promise<T> {
      const result = await client.callTool(
        { name, arguments: args },
        onprogress ? { onprogress: (progress) => onprogress(progress.message ?? '') } : undefined,
      );
      if (result.isError) {
        const code = (result._meta?.[ERROR_META_KEY] as { code?: string } | undefined)?.code;
        const text = result.content.map((block) => (block.type === 'text' ? block.text : '')).join('');
        throw new ToolFailure(code, text);
      }
      return result.structuredContent as T;
    },
    close: () => client.close(),
  };
}

/** The code a failed call rejected with. */
export async function failureCode(promise: Promise<unknown>): Promise<string | undefined> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof ToolFailure) return error.code;
    throw error;
  }
  throw new Error('expected the call to fail');
}

/**
 * Imports anvil's well-known mnemonic through the running server `wallet` as wallet `walletAlias`
 * (regtest, no discovery) and derives its first EVM account (anvil's funded 0xf39F…2266) as `accountAlias`.
 */
export async function importAnvilInto(
  wallet: ToolCaller,
  { walletAlias, accountAlias }: { walletAlias: string; accountAlias: string },
): Promise<void> {
  await importAnvilMnemonic(wallet, walletAlias);
  await wallet.call('evm_account_create', { wallet_id: walletAlias, alias: accountAlias });
}

/**
 * The owner's server and a remote agent's, both on the data directory and anvil node of `env`,
 * with anvil's wallet imported by the owner as `anvil` and its first account as `holder`.
 */
export async function ownerAndAgent(
  env: Record<string, string>,
  passphrase: string,
): Promise<{ owner: ToolCaller; agent: ToolCaller }> {
  const owner = await localServer({ env, passphrase });
  await importAnvilInto(owner, { walletAlias: 'anvil', accountAlias: 'holder' });
  const agent = await localServer({ env, passphrase, localOnly: false, caller: 'agent' });
  return { owner, agent };
}

/** Imports anvil's well-known mnemonic through the running server `wallet` as wallet `walletAlias` (regtest, no discovery). */
export async function importAnvilMnemonic(wallet: ToolCaller, walletAlias: string): Promise<void> {
  await wallet.call('core_wallet_import', {
    alias: walletAlias,
    network: 'regtest',
    mnemonic: ANVIL_MNEMONIC,
    discover: false,
  });
}

/**
 * Imports anvil's well-known mnemonic into the keystore at `home` as wallet `walletAlias` and
 * derives its first EVM account (anvil's funded 0xf39F…2266) as `accountAlias`.
 */
export async function importAnvilAccount(
  home: string,
  passphrase: string,
  { walletAlias, accountAlias }: { walletAlias: string; accountAlias: string },
): Promise<void> {
  const local = await localServer({ env: { WALLET_HOME: home }, passphrase });
  try {
    await importAnvilInto(local, { walletAlias, accountAlias });
  } finally {
    await local.close();
  }
}

/**
 * A server on `home` whose EVM network `local` is the anvil node at `url`, with anvil's mnemonic
 * imported as wallet `anvil` (regtest, no discovery) and its first account derived as `accountAlias`.
 */
export async function serveAnvilWallet(
  home: string,
  url: string,
  passphrase: string,
  accountAlias: string,
): Promise<ToolCaller> {
  const wallet = await localServer({ env: { WALLET_HOME: home, WALLET_EVM_LOCAL_URL: url }, passphrase });
  await importAnvilInto(wallet, { walletAlias: 'anvil', accountAlias });
  return wallet;
}

/** Ends what a test on anvil started, in order: its provider, its server, the node, its data directory. */
export async function closeAnvilTest(parts: {
  provider?: { destroy(): void };
  wallet: ToolCaller;
  node: { stop(): Promise<void> };
  home: string;
}): Promise<void> {
  parts.provider?.destroy();
  await parts.wallet.close();
  await parts.node.stop();
  rmSync(parts.home, { recursive: true, force: true });
}

/** Imports `mnemonic` into the server as wallet `main` on testnet, no discovery; gives its wallet id. */
export async function importTestnetMain(server: ToolCaller, mnemonic: string): Promise<string> {
  const { wallet_id } = await server.call<{ wallet_id: string }>('core_wallet_import', {
    alias: 'main',
    network: 'testnet',
    mnemonic,
    discover: false,
  });
  return wallet_id;
}
