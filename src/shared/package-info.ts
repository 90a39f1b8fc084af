import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export type PackageInfo = { name: string; version: string; description: string };

let cached: (PackageInfo & { root: string }) | undefined;

/**
 * This package's name, version and description, read from its package.json (found by walking up
 * from this file, so it works from `dist/` and from the test build alike).
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
      if (isPackageInfo(json) && json.name === 'wallet') {
        cached = { name: json.name, version: json.version, description: json.description, root: dir };
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

function isPackageInfo(value: unknown): value is PackageInfo {
  if (typeof value !== 'object' || value === null) return false;
  const record = value as Record<string, unknown>;
  return (
    typeof record['name'] === 'string' &&
    typeof record['version'] === 'string' &&
    typeof record['description'] === 'string'
  );
}
