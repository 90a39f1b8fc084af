/**
 * `wallet --server X <tool> --pay-from <account> …`: a call of another server's tool that answers
 * that payment is required (x402 over MCP) is paid from the owner's EVM account, under the same
 * policy as evm_x402_fetch (src/mcp/x402-payer.ts, src/domain/x402/mcp-payment.ts). This module
 * is the CLI's side: the question before paying (or `--yes`), the dry run's printout, the receipt
 * on stderr, the wallet's refusals in the CLI's words.
 */
import type { McpPaymentQuote, PaidServer, PayerSetup } from '../mcp/x402-payer.js';
import type { ToolCallResult } from '../mcp/session.js';
import { ERROR_META_KEY, readToolErrorMeta } from '../shared/protocol-meta.js';
import { formatUnits } from '../shared/amounts.js';
import { jsonOfText } from '../shared/json-text.js';
import { askLine, canAskOnTerminal, Declined } from './confirm.js';
import type { PaymentFlags } from './global-flags.js';
import type { ToolCommand } from './help.js';
import { renderHuman, terminalSafe } from './render.js';
import type { ToolRun } from './run-tool.js';
import { EXIT, UsageError } from './usage-error.js';

/** Terms of a payment request as a hint may repeat them: only what has this shape. */
const ADDRESS = /^0x[0-9a-fA-F]{40}$/;
const DIGITS = /^[0-9]{1,78}$/;
const CAIP2_EVM = /^eip155:[0-9]{1,20}$/;

/** A name from the other server, as the wallet's messages and audit log may quote it. */
const SHOWN_NAME = /^[A-Za-z0-9._-]{1,64}$/;

/**
 * Calls the tool, paying what it asks under the policy; prints the result (`print`), or for a
 * dry run what would be paid. Returns the exit code.
 */
export async function runPaidCall(
  entry: ToolCommand,
  run: ToolRun,
  setup: PayerSetup,
  flags: PaymentFlags,
  call: (meta: Record<string, unknown> | undefined) => Promise<ToolCallResult>,
  print: (result: ToolCallResult) => Promise<number>,
): Promise<number> {
  const { io, globals, style, activity, connection } = run;
  const server = (await connection.open()).server.name;
  const asker = `tool ${shownName(entry.tool.name)} of server ${shownName(server)}`;
  const target = connection.target;
  // As the policy's allowed_hosts names it: an HTTP server by its URL's host, a saved stdio server
  // by its name (and whether --env changes what it runs).
  const paidServer: PaidServer =
    target.kind === 'http'
      ? {
          kind: 'http',
          host: target.address.url.hostname
            .toLowerCase()
            .replace(/\.$/, '')
            .replace(/^\[(.*)\]$/, '$1'),
        }
      : {
          kind: 'stdio',
          saved: target.kind === 'stdio' ? target.saved : undefined,
          envChanged: globals.env.length > 0,
        };
  const { callPayingX402 } = await import('../mcp/x402-payer.js');
  const { result, payment } = await callPayingX402(
    setup,
    {
      from: flags.from,
      token: flags.token,
      maxPrice: flags.maxPrice,
      network: flags.network,
      dryRun: flags.dryRun,
      terms: flags.terms,
      asker,
      server: paidServer,
      origin: target.kind === 'http' ? target.address.url.origin : undefined,
      confirm: async (quote) => {
        if (globals.yes) return;
        activity.pause();
        if (!canAskOnTerminal(io)) {
          throw new UsageError(
            `CONFIRMATION_REQUIRED: ${asker} asks ${priceText(quote)}, and there is no terminal to ask you on; nothing was signed.`,
            `Check it with --pay-dry-run, then run it again with --yes (and --pay-terms ${quote.terms} to pay only these terms).`,
          );
        }
        io.stderr.write(`${style.heading('Payment')} ${terminalSafe(quoteText(asker, quote))}\n`);
        const answer = await askLine(io, 'Pay? [y/N] ');
        if (!/^(y|yes)$/i.test(answer.trim())) throw new Declined();
      },
    },
    call,
  );
  if (result === null) {
    // A dry run that met a price: what would be paid is the result.
    if (!payment) return EXIT.ok;
    const shown = quoteRecord(payment);
    io.stdout.write(globals.json ? JSON.stringify(shown, null, 2) + '\n' : renderHuman(shown, style));
    io.stderr.write(
      `Nothing was signed. To pay these terms only: --pay-terms ${payment.terms} (with --yes in a script).\n`,
    );
    return EXIT.ok;
  }
  if (result.isError) {
    // The tool failed after the payment went out with the call: it may be settled all the same
    // (or was: a server may settle before its tool fails, and say so).
    if (payment) {
      io.stderr.write(
        `a payment of ${terminalSafe(priceText(payment))} to ${payment.payee} was signed and sent with the call; ` +
          (payment.settled && payment.hash
            ? `the server settled it in ${payment.hash}\n`
            : 'the server reported no settlement, and may still settle it until the authorization expires\n'),
      );
    }
    return print(inCliWords(result));
  }
  if (payment) {
    io.stderr.write(
      `paid ${terminalSafe(priceText(payment))} to ${payment.payee} from ${payment.from}; ` +
        (payment.settled && payment.hash
          ? `settled in ${payment.hash}\n`
          : 'the server did not report it settled; it may still settle it until the authorization expires\n'),
    );
  }
  return print(result);
}

/** The quote as a dry run prints it: flat, amounts as digits and in whole tokens. */
function quoteRecord(quote: McpPaymentQuote): Record<string, unknown> {
  return {
    dry_run: true,
    paid: false,
    terms: quote.terms,
    network: quote.network,
    chain_id: quote.chainId,
    from: quote.from,
    payee: quote.payee,
    asset: quote.asset,
    token_symbol: quote.symbol,
    token_decimals: quote.decimals,
    amount: quote.amount.toString(),
    token_amount: formatUnits(quote.amount, quote.decimals),
    description: quote.description,
  };
}

function priceText(quote: McpPaymentQuote): string {
  const symbol = quote.symbol && SHOWN_NAME.test(quote.symbol) ? quote.symbol : 'tokens';
  return `${formatUnits(quote.amount, quote.decimals)} ${symbol} (${quote.amount} base units of token ${quote.asset})`;
}

function quoteText(asker: string, quote: McpPaymentQuote): string {
  return [
    `${asker} asks ${priceText(quote)}`,
    `  to ${quote.payee}, from ${quote.from} on ${quote.network} (chain ${quote.chainId}); terms ${quote.terms}`,
    ...(quote.description ? [`  for: ${quote.description}`] : []),
  ].join('\n');
}

function shownName(name: string): string {
  return SHOWN_NAME.test(name) ? name : '(unnamed)';
}

/** The wallet's refusal, whose words name the payment's arguments (and the call's environment), in the flags they are here. */
function inCliWords(result: ToolCallResult): ToolCallResult {
  const meta = readToolErrorMeta(result._meta);
  if (!meta) return result;
  const words = (text: string): string =>
    text
      .replace(/\bdry_run\b/g, '--pay-dry-run')
      .replace(/\bmax_price\b/g, '--pay-max-price')
      .replace(/\bas token\b/g, 'as --pay-token')
      .replace(/\bevm_balance_get with token\b/g, "'wallet evm-balance-get --token …'")
      .replace(/\bwith environment variables of its call's own\b/g, 'with --env')
      .replace(
        /\(wallet servers add (\S+), its entry overwritten with them\), then call it without them\./g,
        '(wallet servers add $1 --server "<command>" --env NAME=value … --overwrite), then call it without --env.',
      );
  return {
    ...result,
    _meta: {
      ...result._meta,
      [ERROR_META_KEY]: { ...meta, message: words(meta.message), ...(meta.hint ? { hint: words(meta.hint) } : {}) },
    },
  };
}

/**
 * A tool's answer that asks for an x402 payment, when the call was made without `--pay-from`:
 * the error says so (PAYMENT_REQUIRED) and its hint how to pay, instead of the request's JSON.
 * Any other result is returned as it is.
 */
export function explainPaymentRequest(result: ToolCallResult, entry: ToolCommand): ToolCallResult {
  if (!result.isError || readToolErrorMeta(result._meta)) return result;
  const asked = [result.structuredContent, jsonOfText(result.content[0]?.text)].find(
    (value): value is { accepts: unknown[] } =>
      typeof value === 'object' &&
      value !== null &&
      'x402Version' in value &&
      'accepts' in value &&
      Array.isArray(value.accepts),
  );
  if (!asked) return result;
  const first = asked.accepts.find(
    (offer): offer is Record<string, unknown> => typeof offer === 'object' && offer !== null,
  );
  const field = (name: string, shape: RegExp): string | undefined => {
    const value = first?.[name];
    return typeof value === 'string' && shape.test(value) ? value : undefined;
  };
  const [asset, payTo, amount, network] = [
    field('asset', ADDRESS),
    field('payTo', ADDRESS),
    field('amount', DIGITS),
    field('network', CAIP2_EVM),
  ];
  const terms =
    asset && payTo && amount && network ? `: ${amount} base units of token ${asset} to ${payTo} on ${network}` : '';
  const chain = network ? `the network of chain ${network.slice('eip155:'.length)}` : 'network';
  const meta = {
    code: 'PAYMENT_REQUIRED',
    message: `${entry.command} asks for an x402 payment${terms}; nothing was paid.`,
    hint: `See the price with --pay-from <account> --pay-token ${asset ?? '<token>'} --pay-max-price ${amount ?? '<base units>'} --pay-network <${chain}> --pay-dry-run, then pay it without --pay-dry-run (docs/CLI.md, 'Paying for tools').`,
  };
  return { ...result, _meta: { ...result._meta, [ERROR_META_KEY]: meta } };
}
