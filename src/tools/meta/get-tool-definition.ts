import { z } from 'zod';
import { toolDefinitionDocument } from '../../shared/function-catalogue.js';
import { packageInfo } from '../../shared/package-info.js';
import { profileFunctions } from '../profiles.js';
import { defineTool } from '../define.js';
import { JsonSchemaObject } from '../fields.js';

export const getToolDefinition = defineTool({
  name: 'get_tool_definition',
  group: 'wallet_meta',
  title: 'Tool definitions for function calling',
  summary: 'Every tool as one function-calling JSON document',
  description: [
    'Returns one JSON document that describes every tool of this server, shaped',
    '{"tool":{"name","description","functions":[{"name","description","parameters"}]}}, where',
    'parameters is the JSON Schema of the tool input, as tools/list shows it: lean by default, the',
    'full description and exact schema with --profile full, the action tools with --profile compact.',
    'Paste it into an agent function-calling config. The CLI prints the same document with',
    '`wallet --get-tool-definition` (honouring --read-only and --profile), and other dialects with',
    '`--format openai|anthropic`.',
  ].join('\n'),
  input: () => z.strictObject({}),
  output: () =>
    z.object({
      tool: z
        .object({
          name: z.string().describe('The server name.'),
          description: z.string().describe('What the server is for.'),
          functions: z
            .array(
              z.object({
                name: z.string().describe('The tool name.'),
                description: z.string().describe('The description of the tool, as tools/list gives it.'),
                parameters: JsonSchemaObject.describe('The JSON Schema of the tool input, as tools/list gives it.'),
              }),
            )
            .describe('One function per tool.'),
        })
        .describe('The server and its functions.'),
    }),
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  handler: async (_input, { catalogue }) => {
    const { name, description } = packageInfo();
    return toolDefinitionDocument({ name, description }, profileFunctions(catalogue.list(), catalogue.profile));
  },
});
