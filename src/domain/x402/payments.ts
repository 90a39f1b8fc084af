import { x402Client, x402HTTPClient } from '@x402/core/client';
import type { PaymentRequired, PaymentRequirements } from '@x402/core/types';
import { ExactEvmScheme } from '@x402/evm/exact/client';
import { EVM_NETWORK_CHAIN_ID_MAP, ExactEvmSchemeV1 } from '@x402/evm/v1';
import { wrapFetchWithPayment } from '@x402/fetch';
import { WalletError } from '../errors.js';
import { resolveAccount } from '../evm/accounts.js';
import { isEvmAddress, parseEvmAddress, type EvmAddress } from '../evm/address.js';
import { MAX_UINT256, TOKEN_UNITS_PATTERN } from '../evm/amount.js';
import { signTypedData, type TypedData } from '../evm/messages.js';
import { connectNode, evmNetwork, type EvmNetwork } from '../evm/network.js';
import { tokenMovesOfTypedData, type TypedDataInput } from '../evm/token-moves.js';
import { PLANNING, type ApprovedPlan, type Authority } from '../policy/authority.js';
import { checkBeforeSigning } from '../policy/spending-policy.js';
import type { WalletServices } from '../services.js';
import { formatUnits } from '../../shared/amounts.js';
import { jsonOfText } from '../../shared/json-text.js';
import {
  checkResourceUrl,
  FETCH_TIMEOUT_MS,
  fetchUnderRules,
  hostOf,
  MAX_BODY_BYTES,
  MAX_REDIRECTS,
  shownUrl,
  type FetchedAnswer,
  type FetchRules,
} from './resource-fetch.js';

export type PaidFetchRequest = {
  /** The paying keystore account: address or alias. */
  from: string;
  resourceUrl: string;
  /** The only token the call may pay with. */
  token: string;
  /** The most it may pay, in the token's base units (digits). */
  maxPrice: string;
  network: string;
  dryRun: boolean;
  authority: Authority;
  /**
   * The plan a human said yes to (payee, price, token), when the yes came with one: the server is
   * asked again on this call and may name another payee or price, which is then refused unsigned.
   */
  approved?: ApprovedPlan;
};

/** What the server asked for and, unless it was a dry run, what was paid. */
export type X402Payment = {
  x402Version: number;
  /** The requirement's network as x402 names it (`eip155:31337`, or a v1 name such as `base`). */
  x402Network: string;
  payee: EvmAddress;
  asset: EvmAddress;
  amount: bigint;
  decimals: number;
  symbol: string | null;
  /** The settlement transaction, when the server reported one. */
  hash: string | null;
  /** The server said the payment settled. */
  settled: boolean;
};

export type PaidFetch = {
  from: EvmAddress;
  network: string;
  chainId: number;
  /** The host of resource_url. */
  host: string;
  /** The answer; null for a dry run that stopped at the price. */
  answer: FetchedAnswer | null;
  /** Null when the resource asked for no payment. */
  payment: X402Payment | null;
};

/** The longest an authorization may stay valid: a server asking for longer is refused. */
const MAX_AUTHORIZATION_SECONDS = 3600;

const ZERO_ADDRESS = '0x0000000000000000000000000000000000000000';

/** A requirement the call may pay, or why not; `rank` says how close it came (the refusal shown is the closest one's). */
type Verdict =
  { ok: true; requirement: PaymentRequirements; amount: bigint } | { ok: false; rank: number; error: WalletError };

/** Thrown through the x402 client to end a dry run at the price, before anything is signed. */
class PriceSeen extends Error {
  constructor(readonly payment: X402Payment) {
    super('dry run: stopped before signing');
  }
}

/**
 * Fetches `resourceUrl` for the caller and, when it answers `402 Payment Required` (x402, version
 * 2 or 1), pays one of its requirements with a keystore account and fetches it again with the
 * payment attached, through the official x402 client (`@x402/fetch`, `@x402/evm`'s `exact`
 * scheme: an EIP-3009 `transferWithAuthorization` signature that the server's facilitator settles).
 *
 * Before anything is signed: the URL and every redirect obey {@link FetchRules}; the requirement
 * must be the `exact` scheme with EIP-3009 on this network's chain id, in `token`, at most
 * `maxPrice`, to a real address, valid at most {@link MAX_AUTHORIZATION_SECONDS}; the account must
 * hold the amount. The signature itself is `signTypedData`'s, so the policy counts it exactly as a
 * transfer of the token to the payee (allowlist, token caps, autonomy, ledger) and refuses or asks
 * for approval the same way. A dry run stops at the price: the request is sent once, unpaid.
 *
 * @example
 * const { answer, payment } = await fetchPaid(services, { from: 'agent', resourceUrl: 'https://api.example.com/report', token: usdc, maxPrice: '10000', network: 'base', dryRun: false, authority: 'terminal' });
 */
export async function fetchPaid(
  services: WalletServices,
  request: PaidFetchRequest,
  options: { signal?: AbortSignal; lookup?: FetchRules['lookup'] } = {},
): Promise<PaidFetch> {
  const network = await evmNetwork(services, request.network);
  const token = parseEvmAddress(request.token, 'token');
  const maxPrice = parseMaxPrice(request.maxPrice);
  const url = parseResourceUrl(request.resourceUrl);
  const rules: FetchRules = {
    allowedHosts: network.policy?.allowedHosts ?? null,
    allowedHostsRule: `evm.networks.${network.network}.policy.allowed_hosts`,
    maxBytes: MAX_BODY_BYTES,
    timeoutMs: FETCH_TIMEOUT_MS,
    maxRedirects: MAX_REDIRECTS,
    ...(options.lookup ? { lookup: options.lookup } : {}),
  };
  checkResourceUrl(url, rules);
  const account = await resolveAccount(services, request.from);
  const x402Networks = x402NetworksOf(network.chainId);

  let planned: X402Payment | undefined;
  const signing = signingClient(services, {
    from: account.address,
    chainId: network.chainId,
    network: request.network,
    authority: request.authority,
    planned: () => planned,
    accepts: (version, requirement) => verdictOf(version, requirement, token, maxPrice, x402Networks).ok,
    v1Networks: x402Networks.v1,
  });
  const http = new x402HTTPClient(signing.client).onPaymentRequired(async ({ paymentRequired }) => {
    const chosen = choose(paymentRequired, token, maxPrice, x402Networks, shownUrl(url), 'answered 402');
    if (request.approved && !request.dryRun) checkApprovedPlan(request.approved, chosen, url);
    const payment = await quote(services, network, account.address, chosen, {
      dryRun: request.dryRun,
      authority: request.authority,
      asker: shownUrl(url),
      signal: options.signal,
    });
    if (request.dryRun) throw new PriceSeen(payment);
    planned = payment;
  });

  let last: FetchedAnswer | undefined;
  const paying = wrapFetchWithPayment(async (input: Request | string | URL, init?: RequestInit) => {
    const sent = new Request(input, init);
    const body = sent.body ? Buffer.from(await sent.arrayBuffer()) : undefined;
    const answer = await fetchUnderRules(
      url,
      { method: sent.method, headers: sent.headers, body },
      rules,
      options.signal,
    );
    if (answer.status === 402 && answer.truncated) {
      throw new WalletError(
        'BACKEND_INVALID',
        `${shownUrl(url)} answered 402 with a body over ${MAX_BODY_BYTES} bytes: its payment requirements were not read. Nothing was signed.`,
      );
    }
    last = answer;
    return responseOf(answer);
  }, http);

  const base = { from: account.address, network: network.network, chainId: network.chainId, host: hostOf(url) };
  let response: Response;
  try {
    response = await paying(url, { method: 'GET' });
  } catch (error) {
    if (error instanceof PriceSeen) return { ...base, answer: null, payment: error.payment };
    if (signing.signed() && planned) throw paidButFailed(planned, shownUrl(url), error);
    if (error instanceof WalletError) throw error;
    const refusal = signing.refusal();
    if (refusal) throw refusal;
    throw new WalletError(
      'BACKEND_INVALID',
      `${shownUrl(url)} asked for a payment the x402 client could not read or make: ${firstLine(error)}. Nothing was signed.`,
      { cause: error },
    );
  }
  const answer = last;
  if (!answer) throw new WalletError('INTERNAL', 'The x402 client returned no answer.');
  // The settlement receipt of a paid request (PAYMENT-RESPONSE, or X-PAYMENT-RESPONSE in v1).
  let settlement: { success: boolean; transaction: string } | undefined;
  if (planned) {
    try {
      settlement = http.getPaymentSettleResponse((name) => response.headers.get(name));
    } catch {
      settlement = undefined;
    }
  }
  const hash = settlement && /^0x[0-9a-fA-F]{64}$/.test(settlement.transaction) ? settlement.transaction : null;
  // The payment went out with the request; an error status instead of the resource is a failure,
  // which keeps what the server said (why it refused) and any settlement it reported.
  if (planned && answer.status >= 400) {
    const paid = { ...planned, hash, settled: settlement?.success === true && hash !== null };
    // A 402 says why it did not take the payment in its request's `error` (a header in version 2).
    let reason: string | undefined;
    if (answer.status === 402) {
      try {
        const asked = http.getPaymentRequiredResponse(
          (name) => answer.headers.get(name),
          jsonOfText(answer.body.toString('utf8')),
        );
        reason = typeof asked.error === 'string' ? asked.error : undefined;
      } catch {
        reason = undefined;
      }
    }
    throw paidButRefused(paid, shownUrl(url), answer, reason);
  }
  if (!planned) {
    if (answer.status === 402) {
      throw new WalletError(
        'BACKEND_INVALID',
        `${shownUrl(url)} answered 402 without an x402 payment request this wallet can read. Nothing was signed.`,
      );
    }
    return { ...base, answer, payment: null };
  }
  return { ...base, answer, payment: { ...planned, hash, settled: settlement?.success === true && hash !== null } };
}

/**
 * The payment a chosen requirement makes, checked as its signature will be before anything is
 * signed: the account holds the amount, and the spending policy (allowlist, token caps, ledger,
 * autonomy) allows it; a dry run is checked as the owner's, as evm_token_transfer's is, so it is
 * refused where the payment would be.
 */
export async function quote(
  services: WalletServices,
  network: EvmNetwork,
  from: EvmAddress,
  chosen: ChosenRequirement,
  options: { dryRun: boolean; authority: Authority; asker: string; signal?: AbortSignal | undefined },
): Promise<X402Payment> {
  const node = await connectNode(network, options.signal);
  const held = await node.token(chosen.asset, from);
  if (held.balance < chosen.amount) {
    throw new WalletError(
      'INSUFFICIENT_FUNDS',
      `${from} holds ${formatUnits(held.balance, held.decimals)} ${held.symbol ?? 'tokens'} (${held.balance} base units) of token ${chosen.asset}; ${options.asker} asks ${chosen.amount}. Nothing was signed.`,
      { hint: 'Fund the account with the token first.' },
    );
  }
  await checkBeforeSigning(services.ledgers, network.policy, {
    amount: 0n,
    recipients: [],
    tokens: [
      {
        kind: 'transferWithAuthorization',
        token: chosen.asset,
        counterparty: chosen.payee,
        role: 'recipient',
        amount: chosen.amount,
        unlimited: false,
      },
    ],
    authority: options.dryRun ? PLANNING : options.authority,
  });
  return {
    x402Version: chosen.x402Version,
    x402Network: chosen.x402Network,
    payee: chosen.payee,
    asset: chosen.asset,
    amount: chosen.amount,
    decimals: held.decimals,
    symbol: held.symbol,
    hash: null,
    settled: false,
  };
}

/** An x402 client that signs only the payment planned, through the wallet's signTypedData. */
type SigningClient = {
  client: x402Client;
  /** A payment was signed (and so may be settled by whoever holds it). */
  signed: () => boolean;
  /** The wallet's own refusal raised inside the x402 client, which would wrap it in a plain Error. */
  refusal: () => WalletError | undefined;
};

/**
 * The official x402 client (`@x402/core`) with `@x402/evm`'s `exact` scheme, signing with a
 * keystore account: it may choose only requirements `accepts` allows, must choose the one
 * `planned` names, and its signature is refused unless it is exactly that EIP-3009 authorization;
 * the signature is `signTypedData`'s, which the policy counts as a transfer of the token.
 */
export function signingClient(
  services: WalletServices,
  options: {
    from: EvmAddress;
    chainId: number;
    /** The network as the caller named it, for signTypedData. */
    network: string;
    authority: Authority;
    planned: () => X402Payment | undefined;
    accepts: (version: number, requirement: PaymentRequirements) => boolean;
    /** The x402 version 1 names of the chain to pay on (none: version 2 only). */
    v1Networks: readonly string[];
  },
): SigningClient {
  let signed = false;
  let refusal: WalletError | undefined;
  const signer = {
    address: options.from,
    signTypedData: async (typedData: {
      domain: Record<string, unknown>;
      types: Record<string, unknown>;
      primaryType: string;
      message: Record<string, unknown>;
    }): Promise<`0x${string}`> => {
      try {
        const planned = options.planned();
        if (!planned)
          throw new WalletError('INTERNAL', 'The x402 client asked for a signature before a price was chosen.');
        checkAuthorization(typedData as unknown as TypedDataInput, planned, options.from, options.chainId);
        const { signature } = await signTypedData(services, {
          from: options.from,
          network: options.network,
          typedData: typedData as unknown as TypedData,
          authority: options.authority,
        });
        signed = true;
        return signature;
      } catch (error) {
        refusal = error instanceof WalletError ? error : refusal;
        throw error;
      }
    },
  };
  const client = new x402Client()
    // The wallet's policy and the call's max_price bound every payment; the client's default
    // controls (a US-dollar cap on the assets it knows) know neither.
    .setSpendControls(false)
    .registerPolicy((version, requirements) =>
      requirements.filter((requirement) => options.accepts(version, requirement)),
    )
    .onBeforePaymentCreation(async ({ selectedRequirements }) => {
      const chosen = options.planned();
      if (!chosen || !sameRequirement(selectedRequirements, chosen)) {
        refusal = new WalletError('INTERNAL', 'The x402 client chose another requirement than the one checked.');
        return { abort: true, reason: refusal.message };
      }
      return undefined;
    });
  client.register(`eip155:${options.chainId}`, new ExactEvmScheme(signer));
  for (const name of options.v1Networks) client.registerV1(name, new ExactEvmSchemeV1(signer));
  return { client, signed: () => signed, refusal: () => refusal };
}

/**
 * A failure after a payment was signed and sent: the payment may be settled all the same (the
 * server or anyone holding the signature can settle it until it expires, and the 24-hour ledger
 * counts it), so the error carries what was signed, for the caller's audit line, and says it in
 * its details (payee, asset, amount, network), for whoever reads the error as data.
 */
export class PaymentSentError<Payment extends X402Payment = X402Payment> extends WalletError {
  constructor(
    error: WalletError,
    readonly payment: Payment,
  ) {
    super(error.code, error.message, {
      hint: error.hint,
      cause: error.cause,
      details: {
        ...error.details,
        payment_signed: true,
        payee: payment.payee,
        asset: payment.asset,
        amount: payment.amount.toString(),
        x402_network: payment.x402Network,
      },
    });
  }
}

const SETTLED_ALL_THE_SAME =
  'evm_balance_get with token shows whether it was paid; the signature expires within the time the server asked for.';

/**
 * The failure of a request sent with a signed payment: the error says what was signed, keeping
 * the code of what failed ({@link PaymentSentError}).
 */
export function paidButFailed<Payment extends X402Payment>(
  payment: Payment,
  sentTo: string,
  error: unknown,
): PaymentSentError<Payment> {
  const code = error instanceof WalletError ? error.code : 'BACKEND_INVALID';
  // Our own message is one line that quotes no secret; another library's is cut short. Neither
  // keeps a URL's path or query (a key can be there), nor a "nothing was signed" that is no longer true.
  const why = originsOnly(error instanceof WalletError ? error.message : firstLine(error))
    .replace(/\s*Nothing was signed(?: or sent)?\.\s*$/, '')
    .replace(/\.$/, '');
  return new PaymentSentError(
    new WalletError(
      code,
      `A payment of ${payment.amount} base units of token ${payment.asset} to ${payment.payee} was signed and sent to ${sentTo}, but the request failed (${why}); the payment may be settled all the same.`,
      { hint: SETTLED_ALL_THE_SAME, cause: error },
    ),
    payment,
  );
}

/**
 * A paid request the server answered with an error status (a 402 again, a 500): the resource was
 * not served, and the payment went out with the request ({@link PaymentSentError}).
 */
function paidButRefused<Payment extends X402Payment>(
  payment: Payment,
  sentTo: string,
  answer: FetchedAnswer,
  reason: string | undefined,
): PaymentSentError<Payment> {
  const { status } = answer;
  const what = status === 402 ? 'asked for payment again (it did not take this one)' : `answered status ${status}`;
  // What the server said (often why it refused: a reason, an expired or invalid payment): its
  // start in the hint, which every client shows and the audit log does not keep (a server may
  // echo a request's key); the body, as text, in the details.
  const text = utf8Text(answer.body);
  const said = oneLine(reason ?? '') ?? (text === undefined ? undefined : oneLine(text));
  const settled = payment.settled && payment.hash ? ` and reported it settled in ${payment.hash}` : '';
  return new PaymentSentError(
    new WalletError(
      'BACKEND_INVALID',
      `A payment of ${payment.amount} base units of token ${payment.asset} to ${payment.payee} was signed and sent to ${sentTo}, which ${what} instead of serving the resource${settled}; the payment may be settled all the same.`,
      {
        hint: `${said ? `It said: "${said}". ` : ''}${SETTLED_ALL_THE_SAME}`,
        details: {
          status,
          content_type: answer.headers.get('content-type'),
          ...(text === undefined ? {} : { body: text, truncated: answer.truncated }),
          ...(payment.hash ? { hash: payment.hash, settled: payment.settled } : {}),
        },
      },
    ),
    payment,
  );
}

/** The longest excerpt of a refusal's body that its message quotes. */
const SAID_CHARACTERS = 200;

/** The body as text, when it is UTF-8 (a body cut short may end inside a character, left out). */
function utf8Text(bytes: Buffer): string | undefined {
  for (let cut = 0; cut <= 3 && cut <= bytes.length; cut++) {
    try {
      return new TextDecoder('utf-8', { fatal: true }).decode(bytes.subarray(0, bytes.length - cut));
    } catch {
      // Not text there: one byte shorter, for a body cut inside a character.
    }
  }
  return undefined;
}

/** Text on one line, without control characters or a URL's path and query, cut to {@link SAID_CHARACTERS}. */
function oneLine(text: string): string | undefined {
  // eslint-disable-next-line no-control-regex -- control characters are what is taken out.
  const flat = originsOnly(text.replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029]+/g, ' '))
    .replace(/\s+/g, ' ')
    .replace(/"/g, "'")
    .trim();
  if (flat === '') return undefined;
  return flat.length > SAID_CHARACTERS ? `${flat.slice(0, SAID_CHARACTERS)}…` : flat;
}

/** Text with each URL in it cut to its scheme, host and port. */
function originsOnly(text: string): string {
  return text.replace(/\b([a-z][a-z0-9+.-]*:\/\/[^\s/?#]*)[^\s]*/gi, '$1');
}

/** The x402 names of a chain id: `eip155:<id>` (v2) and its v1 names, if any. */
export function x402NetworksOf(chainId: number): { v2: string; v1: string[] } {
  const v1 = Object.entries(EVM_NETWORK_CHAIN_ID_MAP)
    .filter(([, id]) => id === chainId)
    .map(([name]) => name);
  return { v2: `eip155:${chainId}`, v1 };
}

/** What a server asks, before the token's decimals and symbol are read. */
export type ChosenRequirement = Omit<X402Payment, 'decimals' | 'symbol' | 'hash' | 'settled'> & {
  /** The requirement as the server sent it. */
  requirement: PaymentRequirements;
};

/**
 * The requirement to pay: the first the call may pay, else the refusal of the one that came
 * closest. `asker` names who asks, as a message shows it (a URL, a server's tool), and `asked`
 * how it asked (`answered 402` for a URL).
 */
export function choose(
  required: PaymentRequired,
  token: EvmAddress,
  maxPrice: bigint,
  networks: { v2: string; v1: string[] },
  asker: string,
  asked = 'asks for a payment',
): ChosenRequirement {
  const verdicts = (required.accepts ?? []).map((requirement) =>
    verdictOf(required.x402Version, requirement, token, maxPrice, networks),
  );
  const good = verdicts.find((verdict) => verdict.ok);
  if (good?.ok) {
    return {
      x402Version: required.x402Version,
      x402Network: good.requirement.network,
      payee: parseEvmAddress(good.requirement.payTo, 'payTo'),
      asset: parseEvmAddress(good.requirement.asset, 'asset'),
      amount: good.amount,
      requirement: good.requirement,
    };
  }
  const closest = verdicts.filter((verdict) => !verdict.ok).sort((a, b) => (b.ok || a.ok ? 0 : b.rank - a.rank))[0];
  if (closest && !closest.ok) throw closest.error;
  throw new WalletError('BACKEND_INVALID', `${asker} ${asked} but offers no way to pay. Nothing was signed.`);
}

/**
 * Whether the call may pay this requirement: x402's `exact` scheme with EIP-3009 (the default
 * transfer method), on the network's chain, in `token`, at most `maxPrice`, to a real payee,
 * valid for at most {@link MAX_AUTHORIZATION_SECONDS}.
 */
export function verdictOf(
  version: number,
  requirement: PaymentRequirements,
  token: EvmAddress,
  maxPrice: bigint,
  networks: { v2: string; v1: string[] },
): Verdict {
  const fields = requirement as PaymentRequirements & { maxAmountRequired?: unknown };
  const refuse = (rank: number, error: WalletError): Verdict => ({ ok: false, rank, error });
  const tail = 'Nothing was signed.';
  if (fields.scheme !== 'exact') {
    return refuse(
      0,
      new WalletError(
        'INVALID_PARAM',
        `The resource asks for x402 scheme ${shownWord(fields.scheme)}; this wallet pays only "exact" (EIP-3009) on EVM networks. ${tail}`,
      ),
    );
  }
  const method = fields.extra?.['assetTransferMethod'];
  if (method !== undefined && method !== 'eip3009') {
    return refuse(
      1,
      new WalletError(
        'INVALID_PARAM',
        `The resource asks to be paid through ${shownWord(method)}; this wallet pays only by EIP-3009 transferWithAuthorization. ${tail}`,
      ),
    );
  }
  const onNetwork = version === 1 ? networks.v1.includes(String(fields.network)) : fields.network === networks.v2;
  if (!onNetwork) {
    return refuse(
      2,
      new WalletError(
        'NETWORK_MISMATCH',
        `The resource asks for payment on ${shownWord(fields.network)}, not on this network (${networks.v2}). ${tail}`,
        { hint: 'Pass the network the resource is paid on (its chain id must match), or fetch another resource.' },
      ),
    );
  }
  if (
    typeof fields.asset !== 'string' ||
    !isEvmAddress(fields.asset) ||
    parseEvmAddress(fields.asset, 'asset') !== token
  ) {
    return refuse(
      3,
      new WalletError(
        'INVALID_PARAM',
        `The resource asks for payment in asset ${shownWord(fields.asset)}, not in token ${token}. ${tail}`,
        { hint: 'Pass the token the resource is priced in as token, with a max_price in its base units.' },
      ),
    );
  }
  const payTo =
    typeof fields.payTo === 'string' && isEvmAddress(fields.payTo) ? parseEvmAddress(fields.payTo, 'payTo') : null;
  if (payTo === null || payTo === ZERO_ADDRESS || payTo === token) {
    return refuse(
      4,
      new WalletError('INVALID_PARAM', `The resource names no payee address a payment could go to. ${tail}`),
    );
  }
  const amountText = version === 1 ? fields.maxAmountRequired : fields.amount;
  if (typeof amountText !== 'string' || !TOKEN_UNITS_PATTERN.test(amountText) || BigInt(amountText) === 0n) {
    return refuse(
      5,
      new WalletError('INVALID_PARAM', `The resource's price is not a whole number of base units. ${tail}`),
    );
  }
  const amount = BigInt(amountText);
  if (amount > maxPrice) {
    return refuse(
      6,
      new WalletError(
        'POLICY_VIOLATION',
        `Refused by max_price: the resource asks ${amount} base units of token ${token} for ${payTo}, above max_price ${maxPrice}. ${tail}`,
        { hint: 'Raise max_price if the price is worth it, or fetch another resource.' },
      ),
    );
  }
  const seconds = fields.maxTimeoutSeconds;
  if (!Number.isSafeInteger(seconds) || seconds <= 0 || seconds > MAX_AUTHORIZATION_SECONDS) {
    return refuse(
      7,
      new WalletError(
        'INVALID_PARAM',
        `The resource asks for an authorization valid ${shownWord(seconds)} seconds; the wallet signs one valid 1 to ${MAX_AUTHORIZATION_SECONDS} seconds. ${tail}`,
      ),
    );
  }
  return { ok: true, requirement, amount };
}

function sameRequirement(requirement: PaymentRequirements, payment: X402Payment): boolean {
  const fields = requirement as PaymentRequirements & { maxAmountRequired?: unknown };
  const amount = payment.x402Version === 1 ? fields.maxAmountRequired : fields.amount;
  return (
    requirement.network === payment.x402Network &&
    isEvmAddress(requirement.payTo) &&
    parseEvmAddress(requirement.payTo, 'payTo') === payment.payee &&
    isEvmAddress(requirement.asset) &&
    parseEvmAddress(requirement.asset, 'asset') === payment.asset &&
    amount === payment.amount.toString()
  );
}

/**
 * Refuses typed data that is not exactly the authorization checked: one EIP-3009 transfer of the
 * amount, of the asset, from the account to the payee, on this chain.
 */
function checkAuthorization(typed: TypedDataInput, payment: X402Payment, from: EvmAddress, chainId: number): void {
  const { moves, recognised, chainId: signedChain } = tokenMovesOfTypedData(typed);
  const [move] = moves;
  const fromField = typed.message['from'];
  const signer = typeof fromField === 'string' && isEvmAddress(fromField) ? parseEvmAddress(fromField, 'from') : null;
  if (
    !recognised ||
    moves.length !== 1 ||
    !move ||
    move.kind !== 'transferWithAuthorization' ||
    move.token !== payment.asset ||
    move.counterparty !== payment.payee ||
    move.amount !== payment.amount ||
    signedChain !== chainId ||
    signer !== from
  ) {
    throw new WalletError(
      'INTERNAL',
      'The x402 client asked to sign something other than the transfer authorization checked. Nothing was signed.',
    );
  }
}

export function parseMaxPrice(text: string): bigint {
  if (!TOKEN_UNITS_PATTERN.test(text) || BigInt(text) === 0n || BigInt(text) > MAX_UINT256) {
    throw new WalletError('INVALID_PARAM', 'max_price must be a whole number of token base units above 0, in digits.', {
      hint: 'Base units: 0.01 of a token with 6 decimals (USDC) is "10000".',
    });
  }
  return BigInt(text);
}

function parseResourceUrl(text: string): URL {
  try {
    return new URL(text.trim());
  } catch {
    throw new WalletError('INVALID_PARAM', 'resource_url is not a URL.', {
      hint: 'Pass an absolute https URL, e.g. https://api.example.com/report.',
    });
  }
}

/** The answer as the x402 client reads it (its status, headers and body). */
function responseOf(answer: FetchedAnswer): Response {
  if (answer.status < 200 || answer.status > 599) {
    throw new WalletError('BACKEND_INVALID', `${shownUrl(answer.url)} answered with status ${answer.status}.`);
  }
  const empty = answer.status === 204 || answer.status === 205 || answer.status === 304;
  return new Response(empty ? null : new Uint8Array(answer.body), { status: answer.status, headers: answer.headers });
}

/** A word from the server or the caller, as a message shows it: short, printable, quoted. */
export function shownWord(value: unknown): string {
  const text = typeof value === 'string' ? value : typeof value === 'number' ? String(value) : typeof value;
  const clean = text.replace(/[^\x20-\x7e]/g, '?');
  return `"${clean.length > 48 ? `${clean.slice(0, 47)}…` : clean}"`;
}

export function firstLine(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return shownWord(message.split('\n')[0] ?? '').slice(1, -1);
}

/**
 * A payment a human approved must be the one they were shown: the server is asked again on the
 * approved call, and a payee, price or token other than the approved ones is refused unsigned.
 */
function checkApprovedPlan(
  approved: ApprovedPlan,
  chosen: { payee: EvmAddress; asset: EvmAddress; amount: bigint },
  url: URL,
): void {
  const same = (a: string | undefined, b: string) => a !== undefined && a.toLowerCase() === b.toLowerCase();
  if (
    same(approved.recipient, chosen.payee) &&
    same(approved.token, chosen.asset) &&
    approved.amount === chosen.amount.toString()
  ) {
    return;
  }
  const was =
    approved.recipient && approved.amount ? `${approved.amount} base units to ${approved.recipient}` : 'no payment';
  throw new WalletError(
    'POLICY_VIOLATION',
    `${shownUrl(url)} now asks ${chosen.amount} base units of token ${chosen.asset} for ${chosen.payee}; the human approved ${was}. Nothing was signed.`,
    { hint: 'Repeat the call to have the new price and payee approved, or fetch another resource.' },
  );
}
