/** `text` as one single-quoted bash or zsh word: nothing inside is expanded. */
export function posixQuoted(text: string): string {
  return `'${text.replaceAll("'", `'\\''`)}'`;
}

/** `text` as one single-quoted fish word: fish reads `\\` and `\'` as escapes there. */
export function fishQuoted(text: string): string {
  return `'${text.replaceAll('\\', '\\\\').replaceAll("'", "\\'")}'`;
}
