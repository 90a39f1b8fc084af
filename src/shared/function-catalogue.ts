import type { JsonSchema } from './json-schema.js';

export type FunctionSpec = { name: string; description: string; parameters: JsonSchema };

/** The document `get_tool_definition` and `wallet --get-tool-definition` print. */
export type ToolDefinitionDocument = {
  tool: { name: string; description: string; functions: FunctionSpec[] };
};

export const FUNCTION_DIALECTS = ['wallet', 'openai', 'anthropic'] as const;
export type FunctionDialect = (typeof FUNCTION_DIALECTS)[number];

/**
 * One JSON document describing every tool, shaped to paste into an agent's function-calling config.
 *
 * @example
 * toolDefinitionDocument({ name: 'wallet', description: '…' }, [{ name: 'network_info', description: '…', parameters: { type: 'object' } }])
 * // { tool: { name: 'wallet', description: '…', functions: [ … ] } }
 */
export function toolDefinitionDocument(
  server: { name: string; description: string },
  functions: readonly FunctionSpec[],
): ToolDefinitionDocument {
  return { tool: { name: server.name, description: server.description, functions: [...functions] } };
}

/** Whether a tool's result is such a document (so the CLI can print it in the `--format` dialect). */
export function isToolDefinitionDocument(value: unknown): value is ToolDefinitionDocument {
  if (typeof value !== 'object' || value === null) return false;
  const tool = (value as { tool?: unknown }).tool;
  if (typeof tool !== 'object' || tool === null) return false;
  const { name, description, functions } = tool as Record<string, unknown>;
  return (
    typeof name === 'string' &&
    typeof description === 'string' &&
    Array.isArray(functions) &&
    functions.every(
      (fn: unknown) =>
        typeof fn === 'object' &&
        fn !== null &&
        typeof (fn as FunctionSpec).name === 'string' &&
        typeof (fn as FunctionSpec).description === 'string' &&
        typeof (fn as FunctionSpec).parameters === 'object',
    )
  );
}

/**
 * The same functions in another dialect: OpenAI's `tools` array of `{type: "function", function}`
 * or Anthropic's `tools` array of `{name, description, input_schema}`.
 */
export function inDialect(document: ToolDefinitionDocument, dialect: FunctionDialect): unknown {
  const functions = document.tool.functions;
  switch (dialect) {
    case 'wallet':
      return document;
    case 'openai':
      return functions.map((fn) => ({ type: 'function', function: fn }));
    case 'anthropic':
      return functions.map((fn) => ({ name: fn.name, description: fn.description, input_schema: fn.parameters }));
  }
}
