import type { ListedPrompt } from '../mcp/session.js';
import type { JsonSchema } from '../shared/json-schema.js';

/**
 * Resource templates and prompts as input schemas, so that their variables and arguments become
 * flags the way a tool's properties do (schema-flags.ts): for `wallet resource` and `wallet
 * prompt`, their help and their completion tables. No SDK here: the tool-list cache writes the
 * tables, and loads no server.
 */

/**
 * A resource template's variables (RFC 6570), each with whether the URI needs it: a `{x}`,
 * `{+x}`, `{/x}`… variable does, a query one (`{?x}`, `{&x}`) may be left out.
 *
 * @example
 * templateVariables('demo://text/{id}{?lang}') // [{ name: 'id', required: true }, { name: 'lang', required: false }]
 */
function templateVariables(template: string): { name: string; required: boolean }[] {
  const variables: { name: string; required: boolean }[] = [];
  for (const [, operator = '', names = ''] of template.matchAll(/\{([+#./;?&]?)([^}]*)\}/g)) {
    for (const raw of names.split(',')) {
      const name = raw.replace(/(\*|:\d+)$/, '').trim();
      if (name !== '' && !variables.some((variable) => variable.name === name)) {
        variables.push({ name, required: operator !== '?' && operator !== '&' });
      }
    }
  }
  return variables;
}

/** Whether `text` is a URI template (holds a `{…}` expression) rather than a URI. */
export function isUriTemplate(text: string): boolean {
  return /\{[^}]*\}/.test(text);
}

/** A template's variables as an object schema of strings. */
export function templateInputSchema(template: string): JsonSchema {
  const variables = templateVariables(template);
  return {
    type: 'object',
    properties: Object.fromEntries(
      variables.map(({ name }) => [name, { type: 'string', description: `{${name}} in the URI template` }]),
    ),
    required: variables.filter((variable) => variable.required).map((variable) => variable.name),
  };
}

/** A prompt's arguments (strings, as MCP has them) as an object schema. */
export function promptInputSchema(prompt: ListedPrompt): JsonSchema {
  const args = Array.isArray(prompt.arguments) ? prompt.arguments : [];
  return {
    type: 'object',
    properties: Object.fromEntries(
      args.map((arg) => [
        arg.name,
        { type: 'string', ...(typeof arg.description === 'string' ? { description: arg.description } : {}) },
      ]),
    ),
    required: args.filter((arg) => arg.required === true).map((arg) => arg.name),
  };
}
