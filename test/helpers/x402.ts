/**
 * A paid HTTP resource for the x402 tests, made only of the x402 packages' own parts: a Hono app
 * behind `@x402/hono`'s payment middleware (the resource server, `x402ResourceServer` with the
 * `exact` EVM scheme), whose facilitator is `@x402/core`'s `x402Facilitator` with `@x402/evm`'s
 * `exact` facilitator scheme, verifying and settling on anvil from an anvil account of its own
 * (it pays the gas). Listens on 127.0.0.1, port 0. Routes the tests add by hand (`raw`) answer
 * what no conforming server would, for the refusals; their 402 headers are still encoded by
 * `@x402/core/http`.
 */
import type { AddressInfo } from 'node:net';
import { createAdaptorServer } from '@hono/node-server';
import { x402Facilitator } from '@x402/core/facilitator';
import { encodePaymentRequiredHeader } from '@x402/core/http';
import { x402ResourceServer, type FacilitatorClient } from '@x402/core/server';
import type { Network, PaymentRequired, PaymentRequirements } from '@x402/core/types';
import { toFacilitatorEvmSigner } from '@x402/evm';
import { ExactEvmScheme as ExactEvmFacilitatorScheme } from '@x402/evm/exact/facilitator';
import { ExactEvmSchemeV1 as ExactEvmFacilitatorSchemeV1 } from '@x402/evm/exact/v1/facilitator';
import { ExactEvmScheme as ExactEvmServerScheme } from '@x402/evm/exact/server';
import { EVM_NETWORK_CHAIN_ID_MAP } from '@x402/evm/v1';
import { paymentMiddleware } from '@x402/hono';
import { Hono, type Context } from 'hono';
import { createWalletClient, defineChain, http, publicActions, type Address } from 'viem';
import { mnemonicToAccount } from 'viem/accounts';
import { ANVIL_MNEMONIC, type AnvilNode } from './anvil.js';

/** The anvil account the facilitator settles from (m/44'/60'/0'/0/9): it pays the gas. */
const FACILITATOR_ACCOUNT_INDEX = 9;

export type PaidRoute = {
  /** Token base units. */
  amount: bigint;
  payTo: Address;
  /** The token's EIP-712 domain name (EIP-3009 needs it); its version is "1". */
  tokenName: string;
  token: Address;
  /** The answer once paid. */
  body: string;
};

export type X402Server = {
  /** http://127.0.0.1:port */
  origin: string;
  /** How many payments the facilitator settled. */
  settled: () => number;
  close(): Promise<void>;
};

/** The x402 packages' parts a paid resource needs, settling on anvil. */
export type X402Settlement = {
  /** The chain as x402 names it: `eip155:<chain id>`. */
  network: Network;
  facilitator: x402Facilitator;
  /** The resource server's side: requirements, verification and settlement through the facilitator. */
  resourceServer: x402ResourceServer;
  /** How many payments the facilitator settled. */
  settled: () => number;
};

/**
 * The facilitator (`@x402/core`'s, with `@x402/evm`'s `exact` scheme, settling from an anvil
 * account of its own) and a resource server using it, for any transport: HTTP below, MCP in
 * test/fixtures/x402-mcp-server.ts.
 */
export function x402Settlement(node: Pick<AnvilNode, 'url' | 'chainId'>): X402Settlement {
  const network = `eip155:${node.chainId}` as const;
  const chain = defineChain({
    id: node.chainId,
    name: 'anvil',
    nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
    rpcUrls: { default: { http: [node.url] } },
  });
  const account = mnemonicToAccount(ANVIL_MNEMONIC, { addressIndex: FACILITATOR_ACCOUNT_INDEX });
  const viemClient = createWalletClient({ account, chain, transport: http(node.url) }).extend(publicActions);
  const signer = toFacilitatorEvmSigner({
    address: account.address,
    readContract: (args) => viemClient.readContract(args as Parameters<typeof viemClient.readContract>[0]),
    verifyTypedData: (args) => viemClient.verifyTypedData(args as Parameters<typeof viemClient.verifyTypedData>[0]),
    writeContract: (args) => viemClient.writeContract(args as Parameters<typeof viemClient.writeContract>[0]),
    sendTransaction: (args) => viemClient.sendTransaction(args),
    waitForTransactionReceipt: (args) => viemClient.waitForTransactionReceipt(args),
    getCode: (args) => viemClient.getCode(args),
  });
  const facilitator = new x402Facilitator().register(network, new ExactEvmFacilitatorScheme(signer));
  // x402 version 1 names networks; the chain's names, if it has any (84532: base-sepolia).
  const v1Names = Object.entries(EVM_NETWORK_CHAIN_ID_MAP)
    .filter(([, id]) => id === node.chainId)
    .map(([name]) => name);
  if (v1Names.length > 0) facilitator.registerV1(v1Names as Network[], new ExactEvmFacilitatorSchemeV1(signer));
  let settled = 0;
  facilitator.onAfterSettle(async () => {
    settled++;
  });
  const facilitatorClient: FacilitatorClient = {
    verify: (payload, requirements) => facilitator.verify(payload, requirements),
    settle: (payload, requirements) => facilitator.settle(payload, requirements),
    getSupported: async () => facilitator.getSupported() as Awaited<ReturnType<FacilitatorClient['getSupported']>>,
  };
  const resourceServer = new x402ResourceServer(facilitatorClient).register(network, new ExactEvmServerScheme());
  return { network, facilitator, resourceServer, settled: () => settled };
}

/**
 * Starts the paid resource server.
 *
 * @example
 * const server = await startX402Server(node, { paid: { '/report': { amount: 10_000n, payTo, token, tokenName: 'Permit Token', body: 'the report' } } });
 */
export async function startX402Server(
  node: AnvilNode,
  routes: {
    paid: Record<string, PaidRoute>;
    /**
     * Routes answered by hand (free ones, redirects, malformed requirements, x402 version 1),
     * with the facilitator at hand.
     */
    raw?: Record<string, (c: Context, facilitator: x402Facilitator) => Response | Promise<Response>>;
  },
): Promise<X402Server> {
  const { network, facilitator, resourceServer, settled } = x402Settlement(node);

  const app = new Hono();
  const config = Object.fromEntries(
    Object.entries(routes.paid).map(([path, route]) => [
      `GET ${path}`,
      {
        accepts: {
          scheme: 'exact',
          network,
          payTo: route.payTo,
          price: {
            amount: route.amount.toString(),
            asset: route.token,
            extra: { name: route.tokenName, version: '1' },
          },
          maxTimeoutSeconds: 120,
        },
        description: `test resource ${path}`,
        mimeType: 'application/json',
      },
    ]),
  );
  app.use(paymentMiddleware(config, resourceServer));
  for (const [path, route] of Object.entries(routes.paid)) {
    app.get(path, (c) => c.json({ resource: path, content: route.body }));
  }
  for (const [path, handler] of Object.entries(routes.raw ?? {})) app.all(path, (c) => handler(c, facilitator));

  const server = createAdaptorServer({ fetch: app.fetch, hostname: '127.0.0.1' });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    settled,
    close: () =>
      new Promise<void>((resolve) => {
        if ('closeAllConnections' in server) server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/**
 * A 402 answer with these requirements, encoded by `@x402/core/http` as a version 2 server
 * sends it (the PAYMENT-REQUIRED header), for routes that ask what no conforming server would;
 * `error`, why it asks (a payment it refused).
 */
export function paymentRequiredAnswer(url: string, accepts: PaymentRequirements[], error?: string): Response {
  const required: PaymentRequired = {
    x402Version: 2,
    ...(error === undefined ? {} : { error }),
    resource: { url, description: 'test', mimeType: 'application/json' },
    accepts,
  };
  return new Response('{}', {
    status: 402,
    headers: { 'content-type': 'application/json', 'PAYMENT-REQUIRED': encodePaymentRequiredHeader(required) },
  });
}
