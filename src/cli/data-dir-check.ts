import { homedir } from 'node:os';
import { resolveDataDir } from '../shared/data-dir.js';
import { tightenPrivateDir } from '../shared/private-files.js';
import type { CliIo } from './io.js';

/**
 * The data directory of this run, made owner-only (0700) first if it exists looser, with a
 * warning on stderr; another user's folder is refused. Every command and `wallet serve` start
 * here, so a folder others could plant files or links in is closed before anything in it is read.
 */
export function privateDataDir(io: Pick<CliIo, 'env' | 'stderr'>): string {
  const dataDir = resolveDataDir({ env: io.env, platform: process.platform, home: homedir() });
  const warning = tightenPrivateDir(dataDir);
  if (warning !== undefined) io.stderr.write(`warning: ${warning}\n`);
  return dataDir;
}
