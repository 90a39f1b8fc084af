import { isSecretSchema, requiredProperties, schemaProperties, type JsonSchema } from '../shared/json-schema.js';
import { propertyToFlag } from '../shared/naming.js';
import { describeTool } from './catalogue.js';
import type { AnyTool } from './define.js';

/**
 * docs/TOOLS.md, generated from the registry: per tool its command, summary, description,
 * parameters and annotations. `npm run generate` writes it; a test fails when it is stale.
 */
export function renderToolsMarkdown(tools: readonly AnyTool[]): string {
  const lines = [
    '# Tools',
    '',
    '<!-- Generated from src/tools by `npm run generate`. Do not edit by hand. -->',
    '',
    'Every tool is a command of the `wallet` CLI and, unless marked local-only (it reveals or accepts a',
    'secret), an MCP tool of `wallet serve`.',
    '',
    'Hints and contracts at a glance (a change to any shows here, in review): the four MCP hints;',
    'local-only; consent, what `wallet serve` needs before the tool signs or deletes (`policy`: the',
    "owner's policy may let an agent do it alone within caps, else a human yes; `human`: always a human",
    'yes); network, whether the call must name its network.',
    '',
    '| tool | command | summary | read-only | destructive | idempotent | open-world | local-only | consent | network |',
    '|---|---|---|---|---|---|---|---|---|---|',
    ...tools.map((tool) => {
      const { readOnlyHint, destructiveHint, idempotentHint, openWorldHint } = tool.annotations;
      const mark = (value: boolean): string => (value ? 'yes' : 'no');
      const { command, inputSchema } = describeTool(tool);
      const network = requiredProperties(inputSchema).includes('network') ? 'required' : '—';
      return `| [\`${tool.name}\`](#${tool.name}) | \`wallet ${command}\` | ${tool.summary} | ${mark(readOnlyHint)} | ${mark(destructiveHint)} | ${mark(idempotentHint)} | ${mark(openWorldHint)} | ${mark(tool.localOnly === true)} | ${tool.consent ?? '—'} | ${network} |`;
    }),
    '',
  ];
  for (const tool of tools) {
    const described = describeTool(tool);
    lines.push(`## ${tool.name}`, '', `**${tool.title}** — \`wallet ${described.command}\``, '');
    if (tool.localOnly) lines.push('Local-only: the CLI offers it; `wallet serve` never does.', '');
    lines.push('```text', tool.description, '```', '', '### Parameters', '');
    lines.push(...parameterTable(described.inputSchema), '');
    lines.push('### Result', '', ...resultTable(described.outputSchema), '');
  }
  return lines.join('\n');
}

function parameterTable(schema: JsonSchema): string[] {
  const properties = schemaProperties(schema);
  if (properties.length === 0) return ['None.'];
  const required = new Set(requiredProperties(schema));
  return [
    '| name | flag | type | required | description |',
    '|---|---|---|---|---|',
    ...properties.map(([name, property]) => {
      const flag = isSecretSchema(property)
        ? `\`--${propertyToFlag(name)}-stdin\` / \`-file\``
        : `\`--${propertyToFlag(name)}\``;
      return `| \`${name}\` | ${flag} | ${typeText(property)} | ${required.has(name) ? 'yes' : 'no'} | ${cell(property['description'])} |`;
    }),
  ];
}

function resultTable(schema: JsonSchema): string[] {
  return [
    '| field | type | description |',
    '|---|---|---|',
    ...schemaProperties(schema).map(
      ([name, property]) => `| \`${name}\` | ${typeText(property)} | ${cell(property['description'])} |`,
    ),
  ];
}

function typeText(schema: JsonSchema): string {
  if ('const' in schema) return `\`${String(schema['const'])}\``;
  const union = schema['anyOf'] ?? schema['oneOf'];
  if (Array.isArray(union)) return union.map((member) => typeText(member as JsonSchema)).join(' \\| ');
  if (Array.isArray(schema['enum'])) return schema['enum'].map((value) => `\`${String(value)}\``).join(' \\| ');
  const type = schema['type'];
  if (Array.isArray(type)) return type.join(' \\| ');
  if (type === 'array') {
    const items = schema['items'];
    return `array of ${typeof items === 'object' && items !== null ? typeText(items as JsonSchema) : 'any'}`;
  }
  return typeof type === 'string' ? type : 'any';
}

function cell(text: unknown): string {
  return typeof text === 'string' ? text.replace(/\|/g, '\\|').replace(/\n/g, ' ') : '';
}
