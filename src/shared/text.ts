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

/**
 * A caller's value fit to quote in a message: quoted when it is too short to be a whole secret (a
 * WIF, the shortest of keys, xprvs and mnemonics, has 51 characters), else only its length. A key
 * or phrase pasted into the wrong field is never echoed, not even in part.
 *
 * @example
 * shownValue('mainet') // "'mainet'"
 * shownValue('test test test test test test test test test test test junk') // '(a value of 59 characters, not shown)'
 */
export function shownValue(text: string, max = 32): string {
  return text.length <= max ? `'${clipForDisplay(text, max)}'` : shownText(text, max);
}

/** {@link shownValue} unquoted, for a name inside a path or a type: `message.to`, `Mail[]`. */
export function shownText(text: string, max = 32): string {
  return text.length <= max ? clipForDisplay(text, max) : `(a value of ${text.length} characters, not shown)`;
}
