import { join } from 'node:path';
import type { Profile } from '../../shared/profiles.js';

/** What `wallet setup` puts in an agent's config: the command that runs `wallet serve`, and its arguments. */
export type ServeEntry = { command: string; args: string[] };

/** How the entry runs the wallet, and the `wallet serve` flags chosen. */
export type ServeChoices = {
  /** `absolute`: this Node and this package's bin/wallet.js, by path; `path`: `wallet`, found on PATH. */
  launcher: 'absolute' | 'path';
  nodePath: string;
  packageRoot: string;
  profile: Profile | undefined;
  readOnly: boolean;
  /** An absolute path: the passphrase itself never goes into an agent's config. */
  passphraseFile: string | undefined;
};

/**
 * The entry that runs `wallet serve` with the chosen flags.
 *
 * @example
 * serveEntry({ launcher: 'absolute', nodePath: '/usr/bin/node', packageRoot: '/opt/wallet', profile: 'compact', readOnly: true, passphraseFile: undefined })
 * // { command: '/usr/bin/node', args: ['/opt/wallet/bin/wallet.js', 'serve', '--profile', 'compact', '--read-only'] }
 */
export function serveEntry(choices: ServeChoices): ServeEntry {
  const flags = [
    ...(choices.profile === undefined ? [] : ['--profile', choices.profile]),
    ...(choices.readOnly ? ['--read-only'] : []),
    ...(choices.passphraseFile === undefined ? [] : ['--passphrase-file', choices.passphraseFile]),
  ];
  return choices.launcher === 'path'
    ? { command: 'wallet', args: ['serve', ...flags] }
    : { command: choices.nodePath, args: [join(choices.packageRoot, 'bin', 'wallet.js'), 'serve', ...flags] };
}

/**
 * Whether an agent's entry runs `wallet serve` (this setup's, written before with other flags or
 * from another place): `wallet serve …`, or `<node> …/bin/wallet.js serve …`. Such an entry is
 * updated in place; any other server of the name is only replaced with --overwrite.
 */
export function runsWalletServe(raw: unknown): boolean {
  if (typeof raw !== 'object' || raw === null) return false;
  const { command, args } = raw as Record<string, unknown>;
  if (typeof command !== 'string' || !Array.isArray(args)) return false;
  const [first, second] = args.map(String);
  // Exactly the two shapes setup writes: another package's `…/wallet serve` (npx -y @x/wallet
  // serve) is someone else's server, replaced only with --overwrite.
  if (/^(.*[\\/])?wallet(\.cmd|\.exe)?$/.test(command) && !command.includes('@')) return first === 'serve';
  return (
    /(^|[\\/])node(\.exe)?$/.test(command) && /(^|[\\/])bin[\\/]wallet\.js$/.test(first ?? '') && second === 'serve'
  );
}
