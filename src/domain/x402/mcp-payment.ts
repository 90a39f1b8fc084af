/**
 * Paying another MCP server's tool with x402 (x402's MCP transport, version 2): a tool that wants
 * a payment answers `isError` with the `PaymentRequired` as its `structuredContent` (or, for
 * clients without structured content, as JSON in `content[0].text`); the client calls again with
 * a signed `PaymentPayload` in the request's `_meta["x402/payment"]`, and the server answers the
 * tool's result with the settlement in the result's `_meta["x402/payment-response"]`.
 *
 * The payment obeys what evm_x402_fetch's does (./payments.ts): the `exact` scheme with EIP-3009
 * on the network's chain, in the one token allowed, at most max_price, to a real payee, a balance
 * that covers it, and the spending policy before signing; the signature is signTypedData's, so the
 * ledger counts it. Knows nothing of MCP itself: the caller hands in a function that makes the call.
 */
import { createHash } from 'node:crypto';
import type { PaymentPayload, PaymentRequired } from '@x402/core/types';
import { isPaymentRequiredV2 } from '@x402/core/schemas';
import { z } from 'zod';
import { WalletError } from '../errors.js';
import { jsonOfText } from '../../shared/json-text.js';
import { resolveAccount } from '../evm/accounts.js';
import { parseEvmAddress, type EvmAddress } from '../evm/address.js';
import { evmNetwork, type EvmNetwork } from '../evm/network.js';
import type { Authority } from '../policy/authority.js';
import type { WalletServices } from '../services.js';
import {
  choose,
  firstLine,
  paidButFailed,
  parseMaxPrice,
  PaymentSentError,
  quote,
  shownWord,
  signingClient,
  verdictOf,
  x402NetworksOf,
  type ChosenRequirement,
  type X402Payment,
} from './payments.js';

export { PaymentSentError };

/** Where a client puts the payment: the retried request's `_meta`. */
const MCP_PAYMENT_META_KEY = 'x402/payment';
/** Where a server puts the settlement: the result's `_meta`. */
const MCP_PAYMENT_RESPONSE_META_KEY = 'x402/payment-response';

/** A tool's result, as much of it as the transport reads. */
export type PaidToolResult = {
  isError: boolean;
  structuredContent?: unknown;
  content: readonly { type: string; text?: string | undefined }[];
  _meta?: Record<string, unknown> | undefined;
};

/** Makes the tool call, with this `_meta` when one is given. */
export type PaidToolCaller = (meta: Record<string, unknown> | undefined) => Promise<PaidToolResult>;

/**
 * The server a paid tool is on, as the policy's `allowed_hosts` names it: an HTTP server by its
 * URL's host; a stdio server by `stdio:<name>`, the name it is saved under (`saved`), and a
 * command line that is no saved server not at all (it is paid only without an allowlist).
 */
export type PaidServer =
  | { kind: 'http'; host: string }
  | {
      kind: 'stdio';
      saved: string | undefined;
      /** Run with an environment of the call's own (the CLI's `--env`), not only the one it is saved with. */
      envChanged?: boolean | undefined;
    };

/** The name `allowed_hosts` lists a server by; undefined for a command line that is no saved server. */
export function allowlistNameOf(server: PaidServer): string | undefined {
  if (server.kind === 'http') return server.host;
  return server.saved === undefined ? undefined : `stdio:${server.saved}`;
}

/** What a server asks for one call, as the owner is shown it before paying. */
export type McpPaymentQuote = X402Payment & {
  /** The terms' digest: the same server asking the same payment gives the same digest. */
  terms: string;
  /** The paying account. */
  from: EvmAddress;
  network: string;
  chainId: number;
  /** What the server says the payment is for (its resource's description), cut short. */
  description: string | null;
};

export type McpPaymentRequest = {
  /** The paying keystore account: address or alias. */
  from: string;
  /** The only token the call may pay with. */
  token: string;
  /** The most it may pay, in the token's base units (digits). */
  maxPrice: string;
  network: string;
  /** Price only: the call is made once, unpaid, and nothing is signed. */
  dryRun: boolean;
  authority: Authority;
  /** Who asks, as a message names it: `tool report of server paid-tools`. */
  asker: string;
  /** The server the tool is on, as the policy's `allowed_hosts` may name it. */
  server: PaidServer;
  /** The terms' digest the owner was shown (a dry run's): other terms are refused unsigned. */
  expectTerms?: string | undefined;
  /** Asks the owner (or takes their standing yes) before signing; throws to stop. */
  confirm: (quote: McpPaymentQuote) => Promise<void>;
  signal?: AbortSignal | undefined;
};

export type McpPaymentOutcome = {
  /** The tool's answer: the paid one, the free one when none was asked, null for a dry run. */
  result: PaidToolResult | null;
  /** What was asked (and, unless a dry run, paid); null when the tool asked for nothing. */
  payment: McpPaymentQuote | null;
};

/** The settlement a server reports; read defensively. */
const SettlementSchema = z.object({
  success: z.boolean(),
  transaction: z.string().max(256).optional(),
  network: z.string().max(128).optional(),
  errorReason: z.string().max(512).optional(),
});

/**
 * Calls the tool and, when it answers that payment is required, pays one of its requirements
 * and calls it again with the payment. A server that asks other terms on the paid call than the
 * ones paid is not paid again: its answer is refused. See the module's comment.
 *
 * @example
 * const { result, payment } = await payToolCall(services, { from: 'holder', token, maxPrice: '10000', network: 'base', dryRun: false, authority: 'terminal', asker: 'tool report', confirm: async () => {} }, (meta) => session.callTool('report', {}, { meta }));
 */
export async function payToolCall(
  services: WalletServices,
  request: McpPaymentRequest,
  call: PaidToolCaller,
): Promise<McpPaymentOutcome> {
  const network = await evmNetwork(services, request.network);
  const token = parseEvmAddress(request.token, 'token');
  const maxPrice = parseMaxPrice(request.maxPrice);
  const account = await resolveAccount(services, request.from);
  const networks = x402NetworksOf(network.chainId);

  const first = await call(undefined);
  const required = paymentRequiredOf(first, request.asker);
  if (!required) return { result: first, payment: null };
  checkAllowedServer(network, request.server, request.asker);
  const chosen = choose(required, token, maxPrice, networks, request.asker);
  const priced = await quote(services, network, account.address, chosen, {
    dryRun: request.dryRun,
    authority: request.authority,
    asker: request.asker,
    signal: request.signal,
  });
  const shown: McpPaymentQuote = {
    ...priced,
    terms: termsDigest(chosen),
    from: account.address,
    network: network.network,
    chainId: network.chainId,
    description: required.resource?.description?.slice(0, 200) ?? null,
  };
  if (request.expectTerms !== undefined && request.expectTerms !== shown.terms) {
    throw new WalletError(
      'POLICY_VIOLATION',
      `${request.asker} now asks ${shown.amount} base units of token ${shown.asset} for ${shown.payee} (terms ${shown.terms}), not the terms ${request.expectTerms} you were shown. Nothing was signed.`,
      { hint: 'Run it again with dry_run to see the new terms, then pay them if they are worth it.' },
    );
  }
  if (request.dryRun) return { result: null, payment: shown };
  await request.confirm(shown);

  const signing = signingClient(services, {
    from: account.address,
    chainId: network.chainId,
    network: request.network,
    authority: request.authority,
    planned: () => priced,
    accepts: (version, requirement) =>
      verdictOf(version, requirement, token, maxPrice, networks).ok && sameTerms(requirement, chosen),
    v1Networks: [],
  });
  let payload: PaymentPayload;
  try {
    payload = await signing.client.createPaymentPayload(required);
  } catch (error) {
    if (error instanceof WalletError) throw error;
    const refusal = signing.refusal();
    if (refusal) throw refusal;
    throw new WalletError(
      'BACKEND_INVALID',
      `${request.asker} asked for a payment the x402 client could not make: ${firstLine(error)}. Nothing was signed.`,
      { cause: error },
    );
  }

  // From here the signature is out: a failure says what it paid (the audit line too).
  let second: PaidToolResult;
  try {
    second = await call({ [MCP_PAYMENT_META_KEY]: payload });
  } catch (error) {
    throw paidButFailed(shown, request.asker, error);
  }
  let again: PaymentRequired | undefined;
  try {
    again = paymentRequiredOf(second, request.asker, true);
  } catch (error) {
    // A request this wallet cannot read answers a call that carried the signature: say it went out.
    throw paidButFailed(shown, request.asker, error);
  }
  if (again) throw new PaymentSentError(refusedPayment(again, chosen, priced, request.asker), shown);
  const settlement = SettlementSchema.safeParse(second._meta?.[MCP_PAYMENT_RESPONSE_META_KEY]);
  const transaction = settlement.success ? settlement.data.transaction : undefined;
  const hash = transaction !== undefined && /^0x[0-9a-fA-F]{64}$/.test(transaction) ? transaction : null;
  return {
    result: second,
    payment: { ...shown, hash, settled: settlement.success && settlement.data.success && hash !== null },
  };
}

/**
 * With `allowed_hosts` in the network's policy, only the servers it lists are paid, as only the
 * hosts it lists are fetched and paid by evm_x402_fetch: an HTTP server by its URL's host, a
 * stdio server by `stdio:<the name it is saved under>`. Checked before anything is signed (and
 * in a dry run, which is refused where the payment would be).
 */
function checkAllowedServer(network: EvmNetwork, server: PaidServer, asker: string): void {
  const allowed = network.policy?.allowedHosts;
  if (!allowed) return;
  const name = allowlistNameOf(server);
  // A host as allowed_hosts keeps it (lower case); a saved server's name exactly as it is saved.
  const rule = `evm.networks.${network.network}.policy.allowed_hosts`;
  const tail = 'Nothing was signed.';
  if (name !== undefined && allowed.has(server.kind === 'http' ? name.toLowerCase() : name)) {
    // A listed stdio server is the command saved under its name: an environment given with the
    // call (PATH, NODE_OPTIONS …) can make that command run something else.
    if (server.kind === 'stdio' && server.envChanged === true) {
      throw new WalletError(
        'POLICY_VIOLATION',
        `Refused by policy ${rule}: ${asker} (${name}) is run with environment variables of its call's own, which can change what the saved server runs; a server listed there is paid only as it is saved. ${tail}`,
        {
          hint: `Save the variables with the server (wallet servers add ${server.saved ?? '<name>'}, its entry overwritten with them), then call it without them.`,
        },
      );
    }
    return;
  }
  if (name === undefined) {
    throw new WalletError(
      'POLICY_VIOLATION',
      `Refused by policy ${rule}: ${asker} is run from a command line, and only a saved server listed there as "stdio:<name>" is paid. ${tail}`,
      {
        hint: `If you trust it, save it under a name (wallet servers add) and add "stdio:<name>" to ${rule} in the config file.`,
      },
    );
  }
  const where = server.kind === 'http' ? `is at ${name}, which is not an allowed host` : `(${name}) is not listed`;
  throw new WalletError('POLICY_VIOLATION', `Refused by policy ${rule}: ${asker} ${where}. ${tail}`, {
    hint: `Pay only the servers listed there, or add "${name}" to ${rule} in the config file if you trust it.`,
  });
}

/**
 * The digest of the terms a payment is bound to: scheme, network, asset, payee, amount and how
 * long the authorization stays valid, as the server stated them. 16 hex digits.
 */
export function termsDigest(chosen: ChosenRequirement): string {
  const { requirement } = chosen;
  const terms = [
    requirement.scheme,
    requirement.network,
    chosen.asset.toLowerCase(),
    chosen.payee.toLowerCase(),
    chosen.amount.toString(),
    String(requirement.maxTimeoutSeconds),
  ].join('\n');
  return createHash('sha256').update(terms).digest('hex').slice(0, 16);
}

/**
 * The payment a result asks for: its `structuredContent` when that is an x402 payment request,
 * else the JSON of its first text block; undefined when the result asks for none. A request in a
 * form this wallet cannot pay (version 1 over MCP, a malformed one) is refused.
 */
function paymentRequiredOf(result: PaidToolResult, asker: string, paid = false): PaymentRequired | undefined {
  if (!result.isError) return undefined;
  const candidates = [result.structuredContent, jsonOfText(result.content[0]?.text)];
  const asked = candidates.find(
    (value): value is Record<string, unknown> =>
      typeof value === 'object' && value !== null && 'x402Version' in value && 'accepts' in value,
  );
  if (asked === undefined) return undefined;
  const tail = paid ? '' : ' Nothing was signed.';
  if (asked['x402Version'] !== 2) {
    throw new WalletError(
      'BACKEND_INVALID',
      `${asker} asks for an x402 payment of version ${shownWord(asked['x402Version'])}; over MCP this wallet pays version 2.${tail}`,
    );
  }
  if (!isPaymentRequiredV2(asked)) {
    throw new WalletError('BACKEND_INVALID', `${asker} asks for a payment this wallet cannot read.${tail}`);
  }
  return asked as PaymentRequired;
}

/** The server answered the paid call by asking again: with other terms (refused), or the same (it did not take the payment). */
function refusedPayment(
  again: PaymentRequired,
  chosen: ChosenRequirement,
  paid: X402Payment,
  asker: string,
): WalletError {
  const same = (again.accepts ?? []).some((requirement) => sameTerms(requirement, chosen));
  const why = again.error ? ` (${shownWord(again.error).slice(1, -1)})` : '';
  const signed = `A payment of ${paid.amount} base units of token ${paid.asset} to ${paid.payee} was signed and sent`;
  if (!same) {
    return new WalletError(
      'POLICY_VIOLATION',
      `${asker} answered the paid call by asking other terms than the ones paid${why}: they are refused, nothing more is signed. ${signed}; it may be settled all the same.`,
      {
        hint: 'evm_balance_get with token shows whether it was paid; run it again with dry_run to see the new terms.',
      },
    );
  }
  return new WalletError(
    'BACKEND_INVALID',
    `${asker} did not take the payment${why}. ${signed}; it may be settled all the same.`,
    {
      hint: 'evm_balance_get with token shows whether it was paid; the signature expires within the time the server asked for.',
    },
  );
}

/** The requirement is the one chosen: the same scheme, network, asset, payee, amount and validity. */
function sameTerms(requirement: PaymentRequired['accepts'][number], chosen: ChosenRequirement): boolean {
  const stated = chosen.requirement;
  return (
    requirement.scheme === stated.scheme &&
    requirement.network === stated.network &&
    requirement.asset.toLowerCase() === stated.asset.toLowerCase() &&
    requirement.payTo.toLowerCase() === stated.payTo.toLowerCase() &&
    requirement.amount === stated.amount &&
    requirement.maxTimeoutSeconds === stated.maxTimeoutSeconds
  );
}
