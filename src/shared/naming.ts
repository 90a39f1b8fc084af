/**
 * Tool names and CLI command names. Pure functions, shared by every layer: the tool registry
 * checks names with them, the CLI turns names into commands with them.
 */

/** `domain_object_action`: lower snake case, three parts or more. */
const TOOL_NAME_PATTERN = /^[a-z][a-z0-9]*(_[a-z0-9]+){2,}$/;

/** Names agents already know from the seed systems; the only exceptions to the pattern. */
const META_TOOL_NAMES: readonly string[] = ['network_info', 'tool_describe', 'get_tool_definition'];

export function isValidToolName(name: string): boolean {
  return TOOL_NAME_PATTERN.test(name) || META_TOOL_NAMES.includes(name);
}

/**
 * The CLI command for a tool: `_` becomes `-`. Reversible for every name of this project's
 * pattern (see {@link commandToToolName}).
 *
 * @example
 * toolNameToCommand('core_address_create') // 'core-address-create'
 */
export function toolNameToCommand(name: string): string {
  return name.replaceAll('_', '-');
}

/** @example commandToToolName('core-address-create') // 'core_address_create' */
export function commandToToolName(command: string): string {
  return command.replaceAll('-', '_');
}

/**
 * A schema property's flag name: snake_case and camelCase both become kebab-case.
 *
 * @example
 * propertyToFlag('wallet_id') // 'wallet-id'
 * propertyToFlag('maxTokens') // 'max-tokens'
 */
export function propertyToFlag(property: string): string {
  return property
    .replace(/([a-z0-9])([A-Z])/g, '$1-$2')
    .replaceAll('_', '-')
    .toLowerCase();
}

/** The tool's domain, its first name part: `core`, `evm`, or `meta` for the meta tools. */
export function toolDomain(name: string): string {
  if (META_TOOL_NAMES.includes(name)) return 'meta';
  const separator = name.search(/[_-]/);
  return separator > 0 ? name.slice(0, separator) : name;
}
