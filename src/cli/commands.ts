import type { ListedTool } from '../mcp/client.js';
import { toolNameToCommand } from '../shared/naming.js';
import type { CliFlag } from './global-flags.js';
import { CLI_VERBS, type ToolCommand } from './help.js';
import type { FlagSpec } from './schema-flags.js';

/** One command per tool; a command that would clash with a CLI verb or another command gets `tool-` in front. */
export function toolCommands(tools: readonly ListedTool[]): ToolCommand[] {
  const taken = new Set(CLI_VERBS.map((verb) => verb.name));
  return tools.map((tool) => {
    let command = toolNameToCommand(tool.name);
    while (taken.has(command)) command = `tool-${command}`;
    taken.add(command);
    return { command, tool };
  });
}

/** The flags a tool command accepts: one per property, three per secret (the inline one only to refuse it). */
export function flagsOfCommand(specs: readonly FlagSpec[]): CliFlag[] {
  const flags: CliFlag[] = [{ name: 'args-json', type: 'string', description: '' }];
  for (const spec of specs) {
    const type = spec.array ? 'array' : spec.kind === 'boolean' ? 'boolean' : 'string';
    flags.push({
      name: spec.flag,
      type,
      description: spec.description,
      ...(spec.acceptsBoolean ? { bareMeansTrue: true } : {}),
    });
    if (spec.secret) {
      flags.push({ name: `${spec.flag}-stdin`, type: 'boolean', description: '' });
      flags.push({ name: `${spec.flag}-file`, type: 'string', description: '' });
    }
  }
  return flags;
}
