import { InMemoryTransport } from '@modelcontextprotocol/server';
import { tuneForOneShotProcess } from '../shared/one-shot.js';
import { connectInProcess } from './in-process-client.js';
import { createWalletServer } from './server.js';
import type { McpSession } from './session.js';
import { walletServerOptions, type WalletServerSetup } from './setup.js';

/**
 * Connects to the wallet's own server in this process, over an in-memory transport: the full MCP
 * path (handshake, tools/list, tools/call) without a child process. Local-only tools are served
 * here, and only here. The process is taken to be a short one (a CLI command): see
 * {@link tuneForOneShotProcess}.
 *
 * Its own module, apart from client.ts: a `--server` or `--url` run must not initialise the
 * built-in server, its tools and their libraries.
 */
export async function openInProcessSession(
  setup: Omit<WalletServerSetup, 'localOnly' | 'readOnly' | 'caller' | 'profile'> = {},
): Promise<McpSession> {
  tuneForOneShotProcess();
  const server = createWalletServer(
    walletServerOptions({ ...setup, localOnly: true, readOnly: false, caller: 'owner', profile: 'full' }),
  );
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  // invokeValidated checks every result against the tool's output schema before it leaves the server,
  // so this client need not check it again.
  return connectInProcess(clientSide);
}
