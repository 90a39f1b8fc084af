import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export type PackageInfo = { name: string; version: string; description: string };

let cached: (PackageInfo & { root: string }) | undefined;

/**
 * The program's name (`wallet`, its binary and its MCP server's name, whatever the npm package is
 * called), version and description, read from its package.json (found by walking up from this
 * file, so it works from `dist/` and from the test build alike).
 */
export function packageInfo(): PackageInfo {
  const { name, version, description } = found();
  return { name, version, description };
}

/** The folder of this package's package.json (the folder that holds bin/ and dist/). */
export function packageRoot(): string {
  return found().root;
}

function found(): PackageInfo & { root: string } {
  if (cached) return cached;
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    try {
      const json: unknown = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));
      if (isPackageInfo(json) && isOurs(json)) {
        cached = { name: PROGRAM, version: json.version, description: json.description, root: dir };
        return cached;
      }
    } catch {
      // No package.json here: keep walking up.
    }
    const parent = dirname(dir);
    if (parent === dir) throw new Error('package.json of wallet not found above ' + fileURLToPath(import.meta.url));
    dir = parent;
  }
}

/** The program's name: the binary package.json declares, and the name its MCP server gives. */
const PROGRAM = 'wallet';

/**
 * Whether a package.json is this package's: the one whose `wallet` binary is bin/wallet.js (the npm
 * name is the registry's business, and a project that depends on this package has its own).
 */
function isOurs(json: object): boolean {
  const bin = (json as { bin?: unknown }).bin;
  return typeof bin === 'object' && bin !== null && (bin as Record<string, unknown>)[PROGRAM] === 'bin/wallet.js';
}

function isPackageInfo(value: unknown): value is PackageInfo {
  if (typeof value !== 'object' || value === null) return false;
  const record = value as Record<string, unknown>;
  return (
    typeof record['name'] === 'string' &&
    typeof record['version'] === 'string' &&
    typeof record['description'] === 'string'
  );
}
