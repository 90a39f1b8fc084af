/**
 * What each profile's tools/list may cost an agent (issue 18), as problems, one sentence each, so
 * that the unit tier (over the real tools and a new one added by the recipe) and the served lists
 * of test/mcp/profiles.test.ts hold the same budgets. Deterministic: bytes, not tokens (tokens are
 * measured in bench/context-cost.mjs).
 */
import type { Client } from '@modelcontextprotocol/client';
import { COMPACT_MAX_TOOLS } from '../../src/tools/compact-groups.js';
import type { Profile } from '../../src/shared/profiles.js';

export type Listed = Awaited<ReturnType<Client['listTools']>>;

/** Bytes per tool of a default list, as a client receives it (less the SDK's own _meta). */
export const DEFAULT_BYTES_PER_TOOL = 600;
/** Bytes per tool of a default list that most clients hand the model: name, description, input schema. */
export const DEFAULT_MODEL_BYTES_PER_TOOL = 400;
/** Bytes of the whole compact list. */
export const COMPACT_MAX_BYTES = 4000;
/** Characters of a listed description in the default profile (a compact tool's names every action instead). */
export const LISTED_DESCRIPTION_MAX = 60;

/** The compact JSON of the tools/list result, as a client receives it. */
export function resultBytes(listed: Listed): number {
  return Buffer.byteLength(JSON.stringify({ tools: listed.tools }));
}

/** What most clients hand the model per tool: name, description, input schema. */
export function modelBytes(listed: Listed): number {
  return listed.tools.reduce(
    (sum, tool) =>
      sum +
      Buffer.byteLength(
        JSON.stringify({ name: tool.name, description: tool.description, input_schema: tool.inputSchema }),
      ),
    0,
  );
}

/** What breaks the budgets of a profile's list; empty when it keeps them. */
export function listingProblems(profile: Profile, listed: Listed): string[] {
  const problems: string[] = [];
  const count = listed.tools.length;
  if (profile === 'default') {
    const perTool = resultBytes(listed) / count;
    const modelPerTool = modelBytes(listed) / count;
    if (perTool > DEFAULT_BYTES_PER_TOOL) {
      problems.push(`default: ${perTool.toFixed(0)} B per tool (budget ${DEFAULT_BYTES_PER_TOOL})`);
    }
    if (modelPerTool > DEFAULT_MODEL_BYTES_PER_TOOL) {
      problems.push(
        `default: ${modelPerTool.toFixed(0)} model-visible B per tool (budget ${DEFAULT_MODEL_BYTES_PER_TOOL})`,
      );
    }
  }
  if (profile === 'compact') {
    if (count > COMPACT_MAX_TOOLS) problems.push(`compact: ${count} tools (at most ${COMPACT_MAX_TOOLS})`);
    const bytes = resultBytes(listed);
    if (bytes >= COMPACT_MAX_BYTES) problems.push(`compact: ${bytes} bytes (under ${COMPACT_MAX_BYTES})`);
    for (const tool of listed.tools) {
      const actions = (tool.inputSchema.properties?.['action'] as { enum?: string[] } | undefined)?.enum ?? [];
      for (const action of actions.filter((candidate) => !(tool.description ?? '').includes(candidate))) {
        problems.push(`compact: ${tool.name}'s description does not list its action ${action}`);
      }
    }
  }
  for (const tool of listed.tools) {
    const length = (tool.description ?? '').length;
    if (profile === 'default' && length > LISTED_DESCRIPTION_MAX) {
      problems.push(
        `${profile}: ${tool.name}'s description is ${length} characters (at most ${LISTED_DESCRIPTION_MAX})`,
      );
    }
  }
  return problems;
}
