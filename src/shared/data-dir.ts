import { homedir } from 'node:os';
import { join } from 'node:path';

export type DataDirEnvironment = {
  env: Readonly<Record<string, string | undefined>>;
  platform: NodeJS.Platform;
  home: string;
};

const APP_DIR = 'wallet';

/**
 * Where the wallet keeps its config and keystore: `$WALLET_HOME`, else the platform's user data
 * directory (XDG on Linux, Application Support on macOS, %APPDATA% on Windows).
 *
 * @example
 * resolveDataDir({ env: { WALLET_HOME: '/tmp/w' }, platform: 'linux', home: '/root' }) // '/tmp/w'
 */
export function resolveDataDir(
  { env, platform, home }: DataDirEnvironment = {
    env: process.env,
    platform: process.platform,
    home: homedir(),
  },
): string {
  const explicit = env['WALLET_HOME'];
  if (explicit) return explicit;
  switch (platform) {
    case 'darwin':
      return join(home, 'Library', 'Application Support', APP_DIR);
    case 'win32':
      return join(env['APPDATA'] ?? join(home, 'AppData', 'Roaming'), APP_DIR);
    default:
      return join(env['XDG_DATA_HOME'] || join(home, '.local', 'share'), APP_DIR);
  }
}
