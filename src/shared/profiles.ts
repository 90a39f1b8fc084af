/**
 * What `tools/list` shows of the same tool definitions (`wallet serve --profile`):
 * - `default`: every tool, lean (summary, lean input schema, hints); the full text and the exact
 *   schemas through `tool_describe`;
 * - `full`: every tool with everything (full description in `_meta`, exact input and output schemas);
 * - `compact`: a few tools, one per domain and object, each taking an `action` and its arguments.
 */
export const PROFILES = ['default', 'full', 'compact'] as const;
export type Profile = (typeof PROFILES)[number];

export function isProfile(value: unknown): value is Profile {
  return typeof value === 'string' && (PROFILES as readonly string[]).includes(value);
}
