import { parseTransaction, type Hex } from 'viem';
import { auditMessage } from '../policy/audit-log.js';
import { isEvmAddress, checksumEvmAddress } from './address.js';
import { tokenMovesOfCalldata, tokenMovesOfTypedData, type TokenMove, type TypedDataInput } from './token-moves.js';

/** The longest stretch of a message a question quotes. */
const MESSAGE_SHOWN = 200;

/**
 * What an EVM call's payload would do, as lines of the question a person answers before it is
 * signed (an elicitation, an approval): the token moves of its calldata or typed data (kind,
 * amount or "unlimited", token, spender or recipient), calldata the wallet cannot read (its
 * selector), typed data that is no recognised permit (its type and domain), a message (quoted,
 * clipped, secret-shaped runs hidden). Arguments that do not read are left out: the call itself
 * refuses them.
 */
export function payloadLines(args: Record<string, unknown>): string[] {
  const lines: string[] = [];
  const data = args['data'];
  const to = args['to'];
  if (typeof data === 'string' && /^0x([0-9a-fA-F]{2})+$/.test(data)) {
    lines.push(
      ...calldataLines(typeof to === 'string' && isEvmAddress(to) ? checksumEvmAddress(to) : null, data as Hex),
    );
  }
  for (const field of ['unsigned_tx', 'signed_tx']) {
    const hex = args[field];
    if (typeof hex !== 'string') continue;
    try {
      const transaction = parseTransaction(hex.trim() as Hex);
      if (transaction.data && transaction.data !== '0x') {
        const target = transaction.to ? checksumEvmAddress(transaction.to) : null;
        lines.push(...calldataLines(target, transaction.data));
      }
    } catch {
      // Not a transaction: the call refuses it.
    }
  }
  const typed = args['typed_data'];
  if (typeof typed === 'object' && typed !== null) lines.push(...typedDataLines(typed as TypedDataInput));
  const message = args['message'];
  if (typeof message === 'string') {
    const clipped =
      message.length > MESSAGE_SHOWN ? `${message.slice(0, MESSAGE_SHOWN)}… (${message.length} characters)` : message;
    lines.push(`  message: ${JSON.stringify(auditMessage(clipped))}`);
  }
  return lines;
}

function calldataLines(to: `0x${string}` | null, data: Hex): string[] {
  const { moves, readable, garbled, trailingBytes = 0 } = tokenMovesOfCalldata(to, data);
  if (garbled) {
    return [`  calldata: an ERC-20 call (selector ${data.slice(0, 10)}) whose arguments do not decode: refused`];
  }
  if (!readable) {
    return [
      `  calldata: a contract call the wallet cannot read (selector ${data.slice(0, 10)}, ${(data.length - 2) / 2} bytes)`,
    ];
  }
  const trailing =
    trailingBytes > 0 ? [`  calldata: ${trailingBytes} bytes after the arguments, ignored by the token contract`] : [];
  return [...moves.map(moveLine), ...trailing];
}

function typedDataLines(typed: TypedDataInput): string[] {
  let read;
  try {
    read = tokenMovesOfTypedData(typed);
  } catch {
    return [];
  }
  if (read.recognised) return read.moves.map(moveLine);
  const domain = typed.domain ?? {};
  const part = (key: string) =>
    typeof domain[key] === 'string' || typeof domain[key] === 'number' ? String(domain[key]) : 'none';
  return [
    `  typed data: ${String(typed.primaryType).slice(0, 64)}, not a permit the wallet recognises (domain ${part('name').slice(0, 64)}, chainId ${part('chainId').slice(0, 20)}, contract ${part('verifyingContract').slice(0, 42)})`,
  ];
}

function moveLine(move: TokenMove): string {
  const amount = move.unlimited ? 'UNLIMITED' : `${move.amount} base units`;
  return `  token ${move.kind}: ${amount} of token ${move.token} ${move.role === 'spender' ? 'to spender' : 'to'} ${move.counterparty}`;
}
