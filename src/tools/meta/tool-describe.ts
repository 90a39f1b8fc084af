import { z } from 'zod';
import { WalletError } from '../../domain/errors.js';
import { commandToToolName } from '../../shared/naming.js';
import { describeTool } from '../catalogue.js';
import { defineTool } from '../define.js';
import { JsonSchemaObject, ToolName } from '../fields.js';

const Annotations = z.object({
  readOnlyHint: z.boolean().describe('Changes nothing anywhere.'),
  destructiveHint: z.boolean().describe('Spends funds or deletes data.'),
  idempotentHint: z.boolean().describe('A repeated call with the same input has no further effect.'),
  openWorldHint: z.boolean().describe('Talks to a network.'),
});

export const toolDescribe = defineTool({
  name: 'tool_describe',
  title: 'Describe a tool',
  summary: 'Full definition of one tool: description, schemas, hints',
  description: [
    'Returns everything there is to know about one tool of this server: its name, title, one-line',
    'summary, full description, input and output JSON Schema, the four MCP annotation hints and the',
    'CLI command that runs it. tools/list keeps descriptions short to save context; call this when',
    'you need the details of a tool before using it.',
    '',
    'Example: wallet tool-describe --name network_info',
  ].join('\n'),
  input: z.strictObject({ name: ToolName }),
  output: z.object({
    name: z.string().describe('The tool name.'),
    title: z.string().describe('A human label.'),
    summary: z.string().describe('One line, at most 60 characters.'),
    description: z.string().describe('The full description, with examples and caveats.'),
    command: z.string().describe('The wallet CLI command that runs this tool.'),
    input_schema: JsonSchemaObject.describe('The JSON Schema of the arguments.'),
    output_schema: JsonSchemaObject.describe('The JSON Schema of the structured result.'),
    annotations: Annotations.describe('The MCP behaviour hints.'),
  }),
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  handler: async ({ name }, { catalogue }) => {
    const tool = catalogue.get(name) ?? catalogue.get(commandToToolName(name));
    if (!tool) {
      throw new WalletError('INVALID_PARAM', `Unknown tool '${name}'.`, {
        hint: `Tools here: ${catalogue
          .list()
          .map((t) => t.name)
          .join(', ')}.`,
      });
    }
    const described = describeTool(tool);
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
  },
});
