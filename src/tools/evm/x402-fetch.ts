import { z } from 'zod';
import { TOKEN_UNITS_PATTERN } from '../../domain/evm/amount.js';
import { WalletError } from '../../domain/errors.js';
import { ALIAS_PATTERN } from '../../domain/keystore/keystore-format.js';
import { defineTool } from '../define.js';
import { coinsOf, EvmAccount, EvmAddress, RequiredEvmNetwork, tokenUnits, tokenUnitsOf } from '../fields.js';
import { describedWithBrief } from '../lean-schema.js';
import { formatUnits } from '../../shared/amounts.js';

/** The x402 domain (viem and the x402 packages) loads on a call's first use. */
const x402 = () => import('../../domain/x402/payments.js');

const ADDRESS_SHAPE = /^0x[0-9a-fA-F]{40}$/;
/** Media types whose body is shown as text (when it is valid UTF-8). */
const TEXT_TYPES = /^(text\/|application\/(?:[\w.+-]*\+)?(?:json|xml|javascript|x-www-form-urlencoded)\b)/i;

function addressOrUndefined(text: string): string | undefined {
  return ADDRESS_SHAPE.test(text) ? text : undefined;
}

/** The host of a URL argument for the audit line (the audit log checks its shape again). */
function hostOfArgument(text: string): string | undefined {
  try {
    return new URL(text).hostname.toLowerCase().replace(/^\[(.*)\]$/, '$1') || undefined;
  } catch {
    return undefined;
  }
}

export const evmX402Fetch = defineTool({
  name: 'evm_x402_fetch',
  group: 'evm_message',
  title: 'Fetch a URL, paying x402',
  summary: 'Fetch a URL, pay its x402 price',
  description: [
    'Fetches resource_url and, when the server answers 402 Payment Required with x402 payment',
    'requirements (x402 version 2 or 1), pays one of them from a keystore account and fetches it again',
    'with the payment attached: it signs an EIP-3009 transferWithAuthorization of the token (the',
    '"exact" scheme on EVM networks) that the server\'s facilitator settles on chain. Returns the answer',
    '(status, content type, the body up to 64 KiB, truncated says when it was cut) and the settlement',
    'receipt (transaction hash, amount, asset, payee). Without a 402 it just returns the answer.',
    '',
    'It pays only in token, at most max_price base units, on network (the chain id must be the',
    "requirement's), to a payee the spending policy allows: the payment is a token spend to the payee",
    'exactly as evm-token-transfer is (allowed_recipients, the token caps per payment and per 24 hours,',
    'autonomy and approvals). Other schemes, networks, assets and higher prices are refused with nothing',
    'signed. What it may fetch: https only, public addresses only (a name resolving to a private or',
    "link-local address is refused), the hosts of the policy's allowed_hosts when set; a loopback host",
    '(http allowed) only when allowed_hosts lists it, for local development. Redirects under the same',
    'rules, 30 s and 64 KiB at most; GET only, with no headers of the caller. With dry_run the request',
    'is sent once unpaid and the price is shown; nothing is signed. A paid request that fails (an error',
    'status such as 500 or another 402, a dropped connection) is an error saying what was signed: the',
    'payment may be settled all the same. See docs/X402.md.',
    '',
    'Example: wallet evm-x402-fetch --address agent --resource-url https://api.example.com/report --token 0x036CbD53842c5426634e7929541eC2318f3dCF7e --max-price 10000 --network base-sepolia --dry-run',
  ].join('\n'),
  input: () =>
    z.strictObject({
      address: EvmAccount.describe('The paying account. A keystore address or alias.'),
      resource_url: describedWithBrief(
        z.string().min(1).max(2048),
        'The URL to fetch (GET): https, or http for a loopback host the policy lists.',
        '',
      ),
      token: describedWithBrief(
        EvmAddress,
        'The token to pay with: an EIP-3009 token such as USDC; the price must be in it.',
        '',
      ),
      max_price: describedWithBrief(
        tokenUnitsOf('token').regex(TOKEN_UNITS_PATTERN, 'a whole number of token base units in digits, e.g. "10000"'),
        'The most to pay, in token base units (digits): 0.01 of a 6-decimal token (USDC) is 10000.',
        'Token base units',
      ),
      network: RequiredEvmNetwork,
      dry_run: z.boolean().default(false).describe('Price only. Fetch once unpaid; sign and pay nothing.'),
    }),
  output: () =>
    z.object({
      network: z.string().describe('The EVM network.'),
      chain_id: z.int().describe('Its chain id.'),
      from: z.string().describe('The paying account.'),
      host: z.string().describe('The host of resource_url.'),
      status: z.int().describe('The HTTP status of the answer; 402 for a dry run stopped at the price.'),
      content_type: z.string().nullable().describe('The content type of the answer; null without one.'),
      body: z.string().describe('The body (at most 64 KiB): text, or base64 when body_encoding says so.'),
      body_encoding: z.enum(['utf8', 'base64']).describe('utf8 for text, base64 for anything else.'),
      truncated: z.boolean().describe('The body was longer than 64 KiB and is cut there.'),
      paid: z.boolean().describe('A payment was signed and sent with the request.'),
      settled: z.boolean().describe('The server reported the payment settled on chain (hash).'),
      x402_version: z.int().nullable().describe('The x402 version of the payment request; null without one.'),
      payee: z.string().nullable().describe('Who the price is paid to; null without a payment request.'),
      asset: z.string().nullable().describe('The token the price is in; null without a payment request.'),
      token_symbol: z.string().nullable().describe("The token's symbol; null if none or no payment request."),
      token_decimals: z.int().nullable().describe("The token's decimals; null without a payment request."),
      amount: tokenUnits('token_decimals', 'token_symbol')
        .nullable()
        .describe('The price, in token base units (digits); null without one.'),
      token_amount: coinsOf('amount').nullable().describe('The price in whole tokens (decimal); null without one.'),
      hash: z.string().nullable().describe('The settlement transaction hash; null when none was reported.'),
      dry_run: z.boolean().describe('Only priced: nothing was signed or paid.'),
    }),
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: true },
  consent: 'policy',
  // A payment signed and sent with the request is 'sent' (it may settle whatever the answer); a
  // fetch that was never asked to pay did nothing to audit but the fetch.
  outcome: (output) => (output.paid ? 'sent' : 'ok'),
  dryRunField: 'dry_run',
  handler: async (input, { services, signal, authority, approvedPlan }) => {
    const { fetchPaid } = await x402();
    const result = await fetchPaid(
      services,
      {
        from: input.address,
        resourceUrl: input.resource_url,
        token: input.token,
        maxPrice: input.max_price,
        network: input.network,
        dryRun: input.dry_run,
        authority,
        ...(approvedPlan ? { approved: approvedPlan } : {}),
      },
      { signal },
    );
    const { answer, payment } = result;
    const contentType = answer?.headers.get('content-type') ?? null;
    const text =
      answer && (contentType === null || TEXT_TYPES.test(contentType))
        ? utf8(answer.body, answer.truncated)
        : undefined;
    return {
      network: result.network,
      chain_id: result.chainId,
      from: result.from,
      host: result.host,
      status: answer?.status ?? 402,
      content_type: contentType,
      body: text ?? answer?.body.toString('base64') ?? '',
      body_encoding: text === undefined && answer ? ('base64' as const) : ('utf8' as const),
      truncated: answer?.truncated ?? false,
      paid: payment !== null && answer !== null,
      settled: payment?.settled ?? false,
      x402_version: payment?.x402Version ?? null,
      payee: payment?.payee ?? null,
      asset: payment?.asset ?? null,
      token_symbol: payment?.symbol ?? null,
      token_decimals: payment?.decimals ?? null,
      amount: payment ? payment.amount.toString() : null,
      token_amount: payment ? formatUnits(payment.amount, payment.decimals) : null,
      hash: payment?.hash ?? null,
      dry_run: input.dry_run,
    };
  },
  // Only what validated: the answer's checksummed addresses, the host of the URL (never the URL:
  // a path or query can carry a key), and never a header value or the signature. A call that
  // failed after its payment was signed says what was signed, from the error that says so.
  audit: async (input, output, failure) => {
    const signed = failure instanceof WalletError ? await signedPaymentOf(failure) : undefined;
    return {
      network: input.network,
      from: output?.from ?? (ALIAS_PATTERN.test(input.address) ? input.address : addressOrUndefined(input.address)),
      amount: output?.amount ?? signed?.amount.toString(),
      unit: 'token',
      token: output?.asset ?? signed?.asset ?? addressOrUndefined(input.token),
      recipient: output?.payee ?? signed?.payee,
      host: output?.host ?? hostOfArgument(input.resource_url),
      hash: output?.hash ?? signed?.hash ?? undefined,
      payment_signed: signed ? true : undefined,
      dry_run: input.dry_run || undefined,
    };
  },
});

/** The payment a failed call signed and sent before it failed, if it did. */
async function signedPaymentOf(failure: WalletError) {
  const { PaymentSentError } = await x402();
  return failure instanceof PaymentSentError ? failure.payment : undefined;
}

/** The bytes as text when they are valid UTF-8; a body cut short may end inside a character, which is left out. */
function utf8(bytes: Buffer, truncated: boolean): string | undefined {
  for (let cut = 0; cut <= (truncated ? 3 : 0); cut++) {
    try {
      return new TextDecoder('utf-8', { fatal: true }).decode(bytes.subarray(0, bytes.length - cut));
    } catch {
      // Not text there: try one byte shorter, for a body cut inside a character.
    }
  }
  return undefined;
}
