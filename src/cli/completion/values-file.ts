import { join } from 'node:path';

/**
 * The kinds of value the completion scripts read from the values file: the EVM networks of
 * config.json, the aliases of the keystore's EVM accounts and the saved servers' names.
 */
export const COMPLETION_VALUE_KINDS = ['evm-network', 'evm-account', 'server'] as const;

export type CompletionValueKind = (typeof COMPLETION_VALUE_KINDS)[number];

/**
 * `<data dir>/cache/completion-values.tsv`: the values TAB offers for the flags whose kind is one
 * of COMPLETION_VALUE_KINDS, so a completion script never reads config.json or servers.json
 * itself (and never runs node). One record per line, `<kind>\t<value>`; the CLI rewrites it when
 * what it would hold changes (refresh-values.ts).
 */
export function completionValuesPath(dataDir: string): string {
  return join(dataDir, 'cache', 'completion-values.tsv');
}

/**
 * The file's text: values sorted and unique within each kind; a value a shell word cannot hold
 * alone (blank, a tab, a control character, a leading dash) is left out.
 *
 * @example
 * renderCompletionValues({ 'evm-network': ['sepolia', 'mainnet'], 'evm-account': ['agent'], server: ['github'] })
 * // 'evm-network\tmainnet\nevm-network\tsepolia\nevm-account\tagent\nserver\tgithub\n'
 */
export function renderCompletionValues(values: Readonly<Record<CompletionValueKind, readonly string[]>>): string {
  return COMPLETION_VALUE_KINDS.flatMap((kind) =>
    [...new Set(values[kind])]
      // eslint-disable-next-line no-control-regex
      .filter((value) => value !== '' && !value.startsWith('-') && !/[\s\u0000-\u001f\u007f-\u009f]/.test(value))
      .sort()
      .map((value) => `${kind}\t${value}\n`),
  ).join('');
}
