import { z } from 'zod';
import { WalletError } from '../../domain/errors.js';
import { describeTool } from '../catalogue.js';
import { compactTools, describeCompact, describeForAgent, findServed } from '../profiles.js';
import { defineTool } from '../define.js';
import { JsonSchemaObject, ToolName } from '../fields.js';

const Annotations = z.object({
  readOnlyHint: z.boolean().describe('Changes nothing anywhere.'),
  destructiveHint: z.boolean().describe('Spends funds or deletes data.'),
  idempotentHint: z.boolean().describe('A repeated call with the same input has no further effect.'),
  openWorldHint: z.boolean().describe('Talks to a network.'),
});

const Described = {
  name: z.string().describe('The tool name.'),
  title: z.string().describe('A human label.'),
  summary: z.string().describe('One line, at most 60 characters.'),
  description: z.string().describe('The full description, with examples and caveats.'),
  input_schema: JsonSchemaObject.describe('The JSON Schema of the arguments, with every field described in full.'),
  output_schema: JsonSchemaObject.describe('The JSON Schema of the structured result.'),
  annotations: Annotations.describe('The MCP behaviour hints.'),
};

export const toolDescribe = defineTool({
  name: 'tool_describe',
  group: 'wallet_meta',
  title: 'Describe tools',
  summary: 'Full definition of a tool (or all): text, schemas, hints',
  description: [
    'Returns everything there is to know about one tool of this server, or about every tool when',
    'name is omitted: its name, title, one-line summary, full description, input and output JSON',
    'Schema (every field described in full), the four MCP annotation hints and the CLI command that',
    'runs it. tools/list keeps descriptions and schemas short to save context; call this when you',
    'need the details of a tool before using it. On a server run with --profile compact, a tool',
    "also lists its actions, each with the schemas of the tool it runs; a full-profile tool's name",
    'is described too.',
    '',
    'Examples: wallet tool-describe --name network_info',
    '          wallet tool-describe',
  ].join('\n'),
  input: () => z.strictObject({ name: ToolName.optional() }),
  output: () =>
    z.object({
      tools: z
        .array(
          z.object({
            ...Described,
            command: z.string().describe('The wallet CLI command that runs this tool.'),
            actions: z
              .array(
                z
                  .object({
                    action: z.string().describe('The value of the action argument.'),
                    tool: z.string().describe('The full-profile tool the action runs.'),
                    ...Described,
                  })
                  .omit({ name: true, title: true }),
              )
              .optional()
              .describe('Compact profile: the actions of the tool.'),
          }),
        )
        .describe('The tool asked for, or every tool of this server.'),
    }),
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  handler: async ({ name }, { catalogue }) => {
    const tools = catalogue.list();
    if (name === undefined) {
      return {
        tools:
          catalogue.profile === 'compact'
            ? compactTools(tools).map(describeCompact)
            : tools.map((tool) => describeForAgent(describeTool(tool))),
      };
    }
    const found = findServed(tools, catalogue.profile, name);
    if (!found) {
      const names =
        catalogue.profile === 'compact' ? compactTools(tools).map((tool) => tool.name) : tools.map((tool) => tool.name);
      throw new WalletError('INVALID_PARAM', 'No tool of this server has that name.', {
        hint: `Tools here: ${names.join(', ')}.`,
      });
    }
    return {
      tools: ['compact' in found ? describeCompact(found.compact) : describeForAgent(describeTool(found.tool))],
    };
  },
});
