import { WalletError } from '../domain/errors.js';
import type { JsonSchema } from '../shared/json-schema.js';
import { commandToToolName, toolNameToCommand } from '../shared/naming.js';
import { describeTool, leanInputSchema, type ToolDescription } from './catalogue.js';
import type { AnyTool, ToolAnnotations } from './define.js';

import type { Profile } from '../shared/profiles.js';
import { COMPACT_GROUPS, COMPACT_MAX_TOOLS, COMPACT_META_TOOL, type CompactGroup } from './compact-groups.js';

export { type Profile } from '../shared/profiles.js';
export { COMPACT_META_TOOL } from './compact-groups.js';

/** The argument of a compact tool that names the action. */
export const ACTION_ARGUMENT = 'action';

/** One action of a compact tool: the tool it runs. */
type CompactAction = { action: string; tool: AnyTool };

/** A tool of the compact profile: several tools of one domain and object behind an `action` argument. */
export type CompactTool = {
  name: CompactGroup;
  /** At most 60 characters, listing the actions. */
  summary: string;
  actions: CompactAction[];
  /** The most dangerous of its actions': read-only only if all are, destructive if any is. */
  annotations: ToolAnnotations;
  inputSchema: JsonSchema;
};

/** The compact tools of a list of tools, in the order of their first tool; deterministic. */
export function compactTools(tools: readonly AnyTool[]): CompactTool[] {
  const groups = new Map<CompactGroup, CompactAction[]>();
  for (const tool of tools) {
    const { group, action } = placeOf(tool);
    const actions = groups.get(group) ?? [];
    actions.push({ action, tool });
    groups.set(group, actions);
  }
  return [...groups].map(([name, actions]) => ({
    name,
    summary: compactSummary(name, actions),
    actions,
    annotations: strongestAnnotations(actions.map(({ tool }) => tool.annotations)),
    inputSchema: {
      type: 'object',
      properties: { [ACTION_ARGUMENT]: { enum: actions.map(({ action }) => action) } },
      required: [ACTION_ARGUMENT],
    },
  }));
}

/** The compact tool of a tool (its declared group) and its action there. */
function placeOf(tool: AnyTool): { group: CompactGroup; action: string } {
  const { group, name } = tool;
  if (group === COMPACT_META_TOOL) return { group, action: name };
  const [, object = '', ...rest] = name.split('_');
  const groupObject = group.slice(group.indexOf('_') + 1);
  // The object is left out of the action when it is the group's own (core_wallets_list -> list).
  const own = [groupObject, `${groupObject}s`, `${groupObject}es`].includes(object);
  const action = own ? rest : [object, ...rest];
  return { group, action: action.join('_') };
}

/**
 * A compact tool's description: its label and every action, however long (an agent must see each
 * action it can ask for); the whole compact list's size is what is budgeted.
 */
function compactSummary(name: CompactGroup, actions: readonly CompactAction[]): string {
  return `${COMPACT_GROUPS[name]}: ${actions.map(({ action }) => action).join(', ')}`;
}

function strongestAnnotations(all: readonly ToolAnnotations[]): ToolAnnotations {
  return {
    readOnlyHint: all.every((hints) => hints.readOnlyHint),
    destructiveHint: all.some((hints) => hints.destructiveHint),
    idempotentHint: all.every((hints) => hints.idempotentHint),
    openWorldHint: all.some((hints) => hints.openWorldHint),
  };
}

/** What is wrong with the compact tools of a list, one sentence each. */
export function compactProblems(compact: readonly CompactTool[]): string[] {
  const problems: string[] = [];
  if (compact.length > COMPACT_MAX_TOOLS) {
    problems.push(
      `the compact profile has ${compact.length} tools (at most ${COMPACT_MAX_TOOLS}): declare fewer groups in src/tools/compact-groups.ts`,
    );
  }
  return problems;
}

/**
 * The tool and arguments a compact call stands for: the action picks the tool, the other
 * arguments are that tool's. An unknown action is INVALID_PARAM listing the valid ones (the
 * value given is not repeated: it has not validated).
 */
export function routeCompactCall(
  compact: CompactTool,
  args: Record<string, unknown>,
): { tool: AnyTool; args: Record<string, unknown> } {
  const { [ACTION_ARGUMENT]: action, ...rest } = args;
  const found = compact.actions.find((candidate) => candidate.action === action);
  if (!found) {
    const valid = compact.actions.map((candidate) => candidate.action).join(', ');
    throw new WalletError(
      'INVALID_PARAM',
      action === undefined ? `${compact.name} needs an action.` : `${compact.name} has no such action.`,
      { hint: `Pass action as one of: ${valid}. tool_describe shows each action's arguments.` },
    );
  }
  return { tool: found.tool, args: rest };
}

/** One action of a compact tool, as `tool_describe` describes it. */
type ActionDescription = {
  action: string;
  tool: string;
  summary: string;
  description: string;
  input_schema: JsonSchema;
  output_schema: JsonSchema;
  annotations: ToolAnnotations;
};

/** A tool as `tool_describe` returns it; a compact tool also lists its actions. */
export type ServedDescription = {
  name: string;
  title: string;
  summary: string;
  description: string;
  command: string;
  input_schema: JsonSchema;
  output_schema: JsonSchema;
  annotations: ToolAnnotations;
  actions?: ActionDescription[];
};

export function describeForAgent(described: ToolDescription): ServedDescription {
  return {
    name: described.name,
    title: described.title,
    summary: described.summary,
    description: described.description,
    command: described.command,
    input_schema: described.inputSchema,
    output_schema: described.outputSchema,
    annotations: described.annotations,
  };
}

export function describeCompact(compact: CompactTool): ServedDescription {
  const actions = compact.actions.map(({ action, tool }) => {
    const described = describeTool(tool);
    return {
      action,
      tool: tool.name,
      summary: described.summary,
      description: described.description,
      input_schema: described.inputSchema,
      output_schema: described.outputSchema,
      annotations: described.annotations,
    };
  });
  return {
    name: compact.name,
    title: compact.summary,
    summary: compact.summary,
    description: [
      `Takes ${ACTION_ARGUMENT} and that action's arguments, side by side, e.g.`,
      `{"${ACTION_ARGUMENT}": "${actions[0]?.action ?? ''}", …}. Each action runs one tool of the full profile,`,
      'with its confirmation and policy. Actions:',
      ...actions.map((action) => `  ${action.action}: ${action.summary} (${action.tool})`),
    ].join('\n'),
    command: toolNameToCommand(compact.name),
    input_schema: compact.inputSchema,
    output_schema: { type: 'object', description: "The result of the action's tool (see actions)." },
    annotations: compact.annotations,
    actions,
  };
}

/** A served tool found by name (or CLI command), in the profile's own terms. */
export function findServed(
  tools: readonly AnyTool[],
  profile: Profile,
  name: string,
): { tool: AnyTool } | { compact: CompactTool } | undefined {
  const wanted = [name, commandToToolName(name)];
  if (profile === 'compact') {
    const compact = compactTools(tools).find((candidate) => wanted.includes(candidate.name));
    if (compact) return { compact };
  }
  const tool = tools.find((candidate) => wanted.includes(candidate.name));
  return tool ? { tool } : undefined;
}

/** What a model sees of a served tool in this profile: name, description, input schema. */
export type ListedFunction = { name: string; description: string; parameters: JsonSchema };

/** The functions of a profile, in the order tools/list gives them. */
export function profileFunctions(tools: readonly AnyTool[], profile: Profile): ListedFunction[] {
  switch (profile) {
    case 'compact':
      return compactTools(tools).map((compact) => ({
        name: compact.name,
        description: compact.summary,
        parameters: compact.inputSchema,
      }));
    case 'full':
      return tools.map((tool) => {
        const described = describeTool(tool);
        return { name: tool.name, description: described.description, parameters: described.inputSchema };
      });
    case 'default':
      return tools.map((tool) => ({ name: tool.name, description: tool.summary, parameters: leanInputSchema(tool) }));
  }
}
