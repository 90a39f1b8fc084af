/** The CLI's argv for the Dash calls the tests make again and again, written once. */

/** core-wallet-import: the mnemonic on stdin becomes wallet `alias` on `network`, then `extra`. */
export function importArgs(
  extra: readonly string[] = [],
  options: { alias?: string; network?: string } = {},
): string[] {
  const { alias = 'main', network = 'testnet' } = options;
  return ['core-wallet-import', '--alias', alias, '--network', network, '--mnemonic-stdin', ...extra];
}

/** core-funds-send: wallet `from` pays `to` `duffs` on `network`, then `extra`. */
export function fundsSendArgs(
  to: string,
  duffs: string,
  extra: readonly string[] = [],
  options: { from?: string; network?: string } = {},
): string[] {
  const { from = 'main', network = 'testnet' } = options;
  return [
    'core-funds-send',
    '--wallet-id',
    from,
    '--network',
    network,
    '--address',
    to,
    '--amount-duffs',
    duffs,
    ...extra,
  ];
}

/** core-tx-create: wallet `main` on testnet pays `to` `duffs` (one output), unsigned. */
export function txCreateArgs(to: string, duffs: string): string[] {
  return [
    'core-tx-create',
    '--wallet-id',
    'main',
    '--network',
    'testnet',
    '--outputs',
    JSON.stringify({ address: to, amount_duffs: duffs }),
  ];
}
