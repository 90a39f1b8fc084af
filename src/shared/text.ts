/**
 * Untrusted text (a tool name from the wire) made safe to echo in a message or log line:
 * printable ASCII only, at most `max` characters.
 *
 * @example
 * clipForDisplay('a\nb'.repeat(40), 8) // 'a?ba?ba?…'
 */
export function clipForDisplay(text: string, max = 64): string {
  const printable = text.replace(/[^\x20-\x7e]/g, '?');
  return printable.length > max ? `${printable.slice(0, max)}…` : printable;
}
