import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ListedTool } from '../mcp/session.js';
import { packageInfo, packageRoot } from '../shared/package-info.js';

/**
 * The built-in server's tools/list, as the build recorded it (`dist/builtin-tools.json`, written
 * by src/startup/bundle.mjs from a real in-process tools/list). The CLI's own list depends only on
 * the code, so help, completion and `--get-tool-definition` read it instead of loading the
 * server: that is most of a command's start-up. Calls still go to the live server.
 */
export const BUILTIN_TOOLS_FILE = join('dist', 'builtin-tools.json');

export type BuiltInToolList = { server: { name: string; version: string }; tools: ListedTool[] };

/** The recorded list, or undefined when there is none for this version (then the CLI asks the server). */
export async function readBuiltInTools(): Promise<BuiltInToolList | undefined> {
  let json: unknown;
  try {
    json = JSON.parse(readFileSync(join(packageRoot(), BUILTIN_TOOLS_FILE), 'utf8'));
  } catch {
    return undefined;
  }
  return isCurrent(json) ? json : undefined;
}

function isCurrent(json: unknown): json is BuiltInToolList {
  if (typeof json !== 'object' || json === null) return false;
  const { server, tools } = json as Partial<Record<keyof BuiltInToolList, unknown>>;
  if (typeof server !== 'object' || server === null || !Array.isArray(tools)) return false;
  const { name, version } = server as Partial<Record<'name' | 'version', unknown>>;
  const own = packageInfo();
  return (
    name === own.name &&
    version === own.version &&
    tools.every((tool: unknown) => typeof tool === 'object' && tool !== null && 'name' in tool && 'inputSchema' in tool)
  );
}
