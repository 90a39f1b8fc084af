/**
 * The connection to Dash Platform: the official SDK (`@dashevo/evo-sdk`, about 27 MB of
 * JavaScript with its wasm), imported on the first Platform call only, one client per network
 * and process (the SDK refuses an answer older than one it has seen, so a client is kept), with
 * proof verification always on. Every SDK failure becomes a WalletError: an answer whose proof,
 * signature or time does not check is `BACKEND_INVALID` naming the check, never data.
 */
import type * as EvoSdkModule from '@dashevo/evo-sdk';
import type { EvoSDK } from '@dashevo/evo-sdk';
import { WalletError } from '../errors.js';
import { platformConfigKey, type PlatformNetwork } from './network.js';

const clients = new Map<string, Promise<EvoSDK>>();

/** The SDK's failures that mean "the answer does not prove itself", with the check each names. */
const INVALID_ANSWERS: readonly [RegExp, string][] = [
  [/invalid (time|height)|stale/i, 'the answer is stale (its signed time or height is not current)'],
  [/invalid proof|proof error|proof is missing|mismatch in .*hash|grovedb/i, 'the GroveDB proof does not verify'],
  [/signature/i, "the quorum's signature does not verify"],
  [/unknown quorum|quorum not found|no quorum/i, 'no known quorum signed it'],
  [/decod|deserializ|protocol version/i, 'the answer does not decode'],
];

/**
 * The SDK's failures that mean "nobody answered": checked first, on the whole message (the SDK
 * prefixes every failure with "no available addresses to retry, last error: …", so that says
 * nothing); a gRPC error status from a node, checked after the proof checks, means the same.
 */
const UNREACHABLE =
  /error sending request|fetch failed|ECONNREFUSED|ECONNRESET|ENOTFOUND|EHOSTUNREACH|ETIMEDOUT|timed? ?out|no available addresses to use/i;
/**
 * The SDK's refusals of the request itself, before any answer: an identifier that is no 32-byte
 * one, a document type the contract does not have, a query no index serves. The caller's input,
 * not a bad answer: INVALID_PARAM.
 */
const BAD_REQUEST =
  /identifier must be 32 bytes|invalid identifier|document type[^.]*not found|not found[^.]*document type|invalid (where|order by|query)|query[^.]*(invalid|not (allowed|supported))|InvalidArgument|where clause/i;
const NODE_ERROR = /grpc error|status code|unavailable/i;

function messageOf(error: unknown): string {
  if (error instanceof Error) return error.message;
  if (typeof error === 'object' && error !== null && 'message' in error) return String(error.message);
  return String(error);
}

/** The hint every Platform endpoint failure ends with: which settings decide where it asks. */
function endpointHint(network: PlatformNetwork): string {
  return network.source === 'public'
    ? `Platform ${network.network} is asked through the SDK's public nodes; for nodes of your own set ${platformConfigKey(network.network, 'dapi_addresses')} and ${platformConfigKey(network.network, 'quorum_url')}.`
    : `Check config keys ${platformConfigKey(network.network, 'dapi_addresses')} and ${platformConfigKey(network.network, 'quorum_url')}.`;
}

/**
 * A panic of the SDK's WebAssembly (Rust's `panic!`, surfacing as a `WebAssembly.RuntimeError`
 * such as "unreachable"): the SDK could not process an answer. Its instance may be left in a bad
 * state, so the clients are dropped and the next call starts afresh.
 */
function isWasmPanic(error: unknown): boolean {
  return (
    (error instanceof Error && error.name === 'RuntimeError') ||
    /\bpanicked at\b|unreachable executed/i.test(messageOf(error))
  );
}

/** An SDK failure as the WalletError it means; `what` names the request ("identity 4vJ9…"). */
function platformError(error: unknown, network: PlatformNetwork, what: string): WalletError {
  if (error instanceof WalletError) return error;
  if (isWasmPanic(error)) {
    clients.clear();
    return new WalletError(
      'BACKEND_INVALID',
      `The Platform SDK failed on the answer for ${what} (a panic in its WebAssembly).`,
      {
        hint: `Nothing of it is shown as true. Try again; if it persists, the node's answer is one the SDK cannot read: ${endpointHint(network)}`,
        cause: error,
      },
    );
  }
  const message = messageOf(error);
  // The SDK sets a node aside for a minute (then longer) after a failed or refused answer; with
  // every node set aside it asks none, and says so.
  const setAside = /no available addresses to use/i.test(message);
  const unavailable = () =>
    new WalletError('BACKEND_UNAVAILABLE', `Platform ${network.network} did not answer for ${what}.`, {
      hint: setAside
        ? `After a failed or refused answer the SDK sets a node aside for a minute; none is left. Try again in a minute. ${endpointHint(network)}`
        : endpointHint(network),
      cause: error,
    });
  if (UNREACHABLE.test(message)) return unavailable();
  if (BAD_REQUEST.test(message)) {
    return new WalletError('INVALID_PARAM', `Platform refused the request for ${what}: ${message.slice(0, 200)}.`, {
      hint: 'Check the identifier (base58 of 32 bytes) and the query: platform_contract_get shows a contract’s document types and their indexes.',
      cause: error,
    });
  }
  for (const [pattern, check] of INVALID_ANSWERS) {
    if (pattern.test(message)) {
      return new WalletError('BACKEND_INVALID', `Platform's answer for ${what} was refused: ${check}.`, {
        hint: `Nothing of it is shown as true. ${endpointHint(network)}`,
        cause: error,
      });
    }
  }
  if (NODE_ERROR.test(message)) return unavailable();
  return new WalletError('BACKEND_INVALID', `Platform's answer for ${what} was refused: ${message.slice(0, 200)}.`, {
    hint: endpointHint(network),
    cause: error,
  });
}

/**
 * The SDK module, imported on first use. In the bundle bin/wallet.js runs (a vm.Script with a code
 * cache, where Node 20 cannot serve an `import()`), through the launcher's own `import()`.
 */
async function importSdk(): Promise<typeof EvoSdkModule> {
  const lent = (globalThis as Record<symbol, unknown>)[Symbol.for('wallet.importExternal')];
  if (typeof lent === 'function') return (await lent('@dashevo/evo-sdk')) as typeof EvoSdkModule;
  return import('@dashevo/evo-sdk');
}

/** The SDK, loaded and constructed: a failure here is no answer of anyone's but ours (INTERNAL). */
async function newClient(network: PlatformNetwork): Promise<EvoSDK> {
  try {
    const { EvoSDK } = await importSdk();
    return new EvoSDK({
      network: network.sdkNetwork,
      trusted: true,
      proofs: true,
      ...(network.dapiAddresses ? { addresses: [...network.dapiAddresses] } : {}),
      ...(network.quorumUrl ? { quorumUrl: network.quorumUrl } : {}),
      ...(network.sdkNetwork === 'devnet' ? { devnetName: network.network } : {}),
      settings: { retries: 1 },
    });
  } catch (error) {
    throw new WalletError('INTERNAL', `The Dash Platform SDK did not load: ${messageOf(error).slice(0, 200)}.`, {
      hint: 'Reinstall the wallet (its @dashevo/evo-sdk dependency), and report it if it persists.',
      cause: error,
    });
  }
}

async function connect(network: PlatformNetwork): Promise<EvoSDK> {
  const sdk = await newClient(network);
  try {
    await sdk.connect();
  } catch (error) {
    const failure = platformError(error, network, 'the quorum keys and masternode list');
    throw failure.code === 'BACKEND_INVALID'
      ? failure
      : new WalletError('BACKEND_UNAVAILABLE', `Cannot connect to Platform ${network.network}.`, {
          hint: endpointHint(network),
          cause: error,
        });
  }
  return sdk;
}

/**
 * Runs one read on Platform with a connected, proof-verifying client; an SDK failure becomes a
 * WalletError (see {@link platformError}).
 */
export async function platformRead<T>(
  network: PlatformNetwork,
  what: string,
  read: (sdk: EvoSDK) => Promise<T>,
): Promise<T> {
  const key = JSON.stringify([network.network, network.sdkNetwork, network.dapiAddresses, network.quorumUrl]);
  let client = clients.get(key);
  if (!client) {
    client = connect(network);
    clients.set(key, client);
    client.catch(() => clients.delete(key));
  }
  // One guard around the connection and the read: whatever the SDK throws, even a panic of its
  // WebAssembly, ends as a WalletError of this call, never as an exception that takes serve down.
  try {
    return await read(await client);
  } catch (error) {
    throw platformError(error, network, what);
  }
}
