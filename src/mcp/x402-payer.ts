/**
 * The wallet paying another MCP server's tool with x402 for the CLI (`wallet --server X <tool>
 * --pay-from …`): the wallet's own services, unlocked as the built-in server's are, run the
 * domain's payment (src/domain/x402/mcp-payment.ts) around the CLI's call, and the payment gets
 * its audit line, as a tool call of the wallet would. Its own module: a call that pays nothing
 * never loads viem or the x402 packages.
 */
import { parseEndpointOverride } from '../domain/config/endpoints.js';
import { asWalletError, WalletError } from '../domain/errors.js';
import { auditableFields, checkAuditLog, type AuditOutcome, type AuditRecord } from '../domain/policy/audit-log.js';
import { WalletServices } from '../domain/services.js';
import {
  allowlistNameOf,
  payToolCall,
  PaymentSentError,
  type McpPaymentQuote,
  type PaidServer,
  type PaidToolResult,
} from '../domain/x402/mcp-payment.js';
import type { X402Payment } from '../domain/x402/payments.js';
import { processStderr } from '../shared/std-output.js';
import { UsageError } from '../shared/usage-error.js';
import { errorResult } from './results.js';
import type { WalletServerSetup } from './setup.js';
import { CallInterrupted, ConnectionError, type ToolCallResult } from './session.js';

export type { McpPaymentQuote, PaidServer };

/** How the paying wallet is opened: the built-in server's environment, endpoints and passphrase. */
export type PayerSetup = Pick<WalletServerSetup, 'env' | 'endpoints' | 'passphrase'>;

/** The audit log's name for a payment the CLI made to another server's tool. */
const X402_MCP_AUDIT_TOOL = 'x402_mcp_payment';

/** What the owner chose to pay with (the CLI's `--pay-*` flags): account, token, price cap and network. */
export type PaymentChoice = {
  from: string;
  token: string;
  maxPrice: string;
  network: string;
  dryRun: boolean;
  terms: string | undefined;
};

export type ToolPayment = PaymentChoice & {
  /** Who asks, as messages name it: `tool report of server paid-tools`. */
  asker: string;
  /** The server the tool is on: the policy's allowed_hosts names it, and so does the audit line. */
  server: PaidServer;
  /** An HTTP server's origin (its URL's), which a redirect is told within or outside of. */
  origin?: string | undefined;
  /** Asks the owner before signing (or takes `--yes`); throws to stop. */
  confirm: (quote: McpPaymentQuote) => Promise<void>;
  signal?: AbortSignal | undefined;
};

export type PaidCall = {
  /** The tool's answer, or the wallet's refusal as an error result; null for a dry run. */
  result: ToolCallResult | null;
  /** What the tool asked for (and unless a dry run, what was paid); null when it asked nothing. */
  payment: McpPaymentQuote | null;
};

/**
 * Makes `call` and pays what it asks for under the owner's policy. The wallet's refusals come
 * back as error results with their code and hint (the CLI prints them as any tool's); the CLI's
 * own stops (a "no" at the question) pass through as they were thrown.
 */
export async function callPayingX402(
  setup: PayerSetup,
  payment: ToolPayment,
  call: (meta: Record<string, unknown> | undefined) => Promise<ToolCallResult>,
): Promise<PaidCall> {
  let endpointOverrides;
  try {
    endpointOverrides = (setup.endpoints ?? []).map(parseEndpointOverride);
  } catch (error) {
    if (error instanceof WalletError) throw new UsageError(`--endpoint: ${error.message}`, error.hint);
    throw error;
  }
  const services = new WalletServices({ env: setup.env, endpointOverrides, passphrase: setup.passphrase });
  try {
    // A payment whose audit line cannot be written safely is refused before anything is asked.
    try {
      checkAuditLog(services.dataDir);
    } catch (error) {
      throw asWalletError(error);
    }
    let toolResult: ToolCallResult | undefined;
    const outcome = await payToolCall(
      services,
      {
        from: payment.from,
        token: payment.token,
        maxPrice: payment.maxPrice,
        network: payment.network,
        dryRun: payment.dryRun,
        authority: 'terminal',
        asker: payment.asker,
        server: payment.server,
        expectTerms: payment.terms,
        confirm: payment.confirm,
        signal: payment.signal,
      },
      async (meta) => {
        try {
          toolResult = await call(meta);
        } catch (error) {
          throw redirectRefusal(error, meta !== undefined, payment.origin) ?? error;
        }
        return toolResult as PaidToolResult;
      },
    ).catch(async (error: unknown) => {
      const refusal = asWalletError(error);
      if (!(refusal instanceof WalletError)) throw error;
      // A payment signed and sent before the call failed: its line names what it paid.
      const sent = refusal instanceof PaymentSentError && isQuote(refusal.payment) ? refusal.payment : undefined;
      await audit(services, payment, sent, { error: refusal, signed: sent !== undefined });
      // Ctrl-C while the paid call ran: exit 130 as any interrupted call, saying what went out.
      if (sent && refusal.cause instanceof CallInterrupted)
        throw new CallInterrupted(refusal.message, { cause: refusal });
      return { result: null, payment: null, refusal };
    });
    if ('refusal' in outcome) return { result: errorResult(outcome.refusal) as ToolCallResult, payment: null };
    if (outcome.payment && outcome.result?.isError) {
      // The tool failed after its payment went out with the call: a failure, naming what it paid.
      const paid = outcome.payment;
      const error = new WalletError(
        'BACKEND_INVALID',
        `${payment.asker} answered the paid call with an error: a payment of ${paid.amount} base units of token ${paid.asset} to ${paid.payee} was signed and sent with it; it may be settled all the same.`,
      );
      await audit(services, payment, paid, { error, signed: true });
    } else if (outcome.payment) {
      await audit(services, payment, outcome.payment, undefined, payment.dryRun ? 'dry_run' : 'sent');
    }
    // The tool's own result object, as the session returned it (with a task, if it made one).
    return { result: outcome.result ? (toolResult ?? null) : null, payment: outcome.payment };
  } finally {
    await services.closeState();
  }
}

/**
 * A call the server answered with a redirect the MCP SDK's transport did not follow: it follows one
 * only within the origin of the request (its `redirectPolicy`, 'same-origin' by default), and a
 * call (a POST) only on a 307 or 308, never on a 301, 302 or 303, which would make it a GET. So
 * the call, and the payment in it, went no further than the server named. Said as the wallet's
 * refusal, naming only the other origin (a path or query can carry a key); a redirect within
 * `origin` (the server's own) is told as one. Undefined for any other failure. `paid`: the call
 * carried the signed payment (the caller says so around it).
 */
function redirectRefusal(error: unknown, paid: boolean, origin: string | undefined): WalletError | undefined {
  if (!(error instanceof ConnectionError)) return undefined;
  const cause: unknown = error.cause;
  const status = typeof cause === 'object' && cause !== null && 'status' in cause ? cause.status : undefined;
  if (typeof status !== 'number' || status < 300 || status > 399) return undefined;
  // The SDK's words for a redirect it did not follow; a 3xx without a Location is no redirect.
  const text = cause instanceof Error ? cause.message : '';
  if (!/\bRedirect\b.* not followed/.test(text)) return undefined;
  const said = /Redirect to (\S+) not followed/.exec(text)?.[1];
  let where = 'another origin';
  try {
    if (said !== undefined) where = new URL(said).origin;
  } catch {
    // Not a URL: the redirect is named as "another origin".
  }
  const tail = paid ? '' : ' Nothing was signed.';
  if (origin !== undefined && where === origin) {
    return new WalletError(
      'POLICY_VIOLATION',
      `Refused: the server answered the call with a redirect (HTTP ${status}) within its own origin, which is not followed${status <= 303 ? ' (it would make the call a GET)' : ''}: it was not sent again.${tail}`,
      { hint: 'If the server now answers at the address it points to, call it there (--url with that address).' },
    );
  }
  return new WalletError(
    'POLICY_VIOLATION',
    `Refused: the server redirected the call to ${where}, another origin, and a call that may pay goes to the server named only: it was not sent there.${tail}`,
    {
      hint: 'If you trust the server it points to, call that one directly (--url with its address), its host listed in allowed_hosts when the policy has the list.',
    },
  );
}

/** A payment this module's call made (with its account and network), not another's. */
function isQuote(payment: X402Payment): payment is McpPaymentQuote {
  return 'terms' in payment && 'from' in payment && 'network' in payment;
}

/**
 * The payment's audit line, in the fields evm_x402_fetch's has (network, the paying account, the
 * amount in token base units, the token, the payee, the host, the settlement hash). Never throws:
 * a payment that went out stands when its line cannot be written, and stderr says so.
 */
async function audit(
  services: WalletServices,
  payment: ToolPayment,
  paid: McpPaymentQuote | undefined,
  failure?: { error: WalletError; signed?: boolean },
  done: AuditOutcome = 'ok',
): Promise<void> {
  const fields = auditableFields({
    network: paid?.network ?? payment.network,
    from: paid?.from ?? payment.from,
    amount: paid?.amount.toString(),
    unit: 'token',
    token: paid?.asset ?? payment.token,
    recipient: paid?.payee,
    host: allowlistNameOf(payment.server),
    hash: paid?.hash ?? undefined,
    payment_signed: failure?.signed || undefined,
    dry_run: payment.dryRun || undefined,
    authority: 'terminal',
  });
  const record: AuditRecord = {
    time: new Date().toISOString(),
    tool: X402_MCP_AUDIT_TOOL,
    outcome: failure ? 'error' : done,
    ...fields,
    ...(failure ? { error: { code: failure.error.code, message: failure.error.message } } : {}),
  };
  try {
    await services.appendAudit(record);
  } catch (writeError) {
    const reason = writeError instanceof Error && 'code' in writeError ? String(writeError.code) : 'unknown error';
    processStderr().write(
      `wallet: could not write the audit line of the x402 payment (${reason}); the call ${failure ? 'failed' : 'went through'} all the same.\n`,
    );
  }
}
