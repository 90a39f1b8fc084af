#!/usr/bin/env node
// Writes src/tools/registry.ts, the list of every tool (`ALL_TOOLS`), from the tool files: each
// src/tools/<domain>/*.ts that exports one `export const <name> = defineTool({`. Plain JS, so it
// runs before any build: `npm run generate` runs it first. The list follows the groups declared in
// src/tools/compact-groups.ts (the meta tools first), then the tools' names.
// test/unit/generated-files.test.ts fails while src/tools/registry.ts is not what this writes.
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';

/** The file this script writes, from the repository root. */
export const REGISTRY_FILE = 'src/tools/registry.ts';
const TOOLS_DIR = 'src/tools';
const GROUPS_FILE = `${TOOLS_DIR}/compact-groups.ts`;
const META_DOMAIN = 'meta';

const DEFINITION = /^export const (\w+) = defineTool\(\{$/gm;

/** The tool files' text, and the declared groups': what {@link renderToolRegistry} reads. */
export function readToolSources(root) {
  const domains = readdirSync(join(root, TOOLS_DIR), { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .map((entry) => entry.name);
  const files = domains.flatMap((domain) =>
    readdirSync(join(root, TOOLS_DIR, domain))
      .filter((name) => name.endsWith('.ts'))
      .map((name) => `${TOOLS_DIR}/${domain}/${name}`),
  );
  return {
    compactGroups: readFileSync(join(root, GROUPS_FILE), 'utf8'),
    files: files.map((path) => ({ path, text: readFileSync(join(root, path), 'utf8') })),
  };
}

/** The names of `COMPACT_GROUPS`, in the order compact-groups.ts declares them. */
function declaredGroups(source) {
  const block = /^export const COMPACT_GROUPS = \{\n([\s\S]*?)\n\}/m.exec(source);
  if (!block) throw new Error(`${GROUPS_FILE}: no \`export const COMPACT_GROUPS = {\` found`);
  return [...block[1].matchAll(/^ {2}(\w+):/gm)].map((match) => match[1]);
}

/** A string property of the definition, written `  key: '…',` as its own line. */
function property(definition, key) {
  return new RegExp(`^ {2}${key}: '([^'\\n]*)',$`, 'm').exec(definition)?.[1];
}

/**
 * Within a group, tools read in the order a person uses them: look, then make, then sign and send,
 * then delete (by the action, the last word of the name); an action not named here comes after.
 */
const VERB_ORDER = [
  'info',
  'describe',
  'definition',
  'list',
  'get',
  'validate',
  'verify',
  'discover',
  'create',
  'import',
  'export',
  'change',
  'fetch',
  'transfer',
  'sign',
  'send',
  'delete',
];

function verbRank(name) {
  const at = VERB_ORDER.indexOf(name.slice(name.lastIndexOf('_') + 1));
  return at === -1 ? VERB_ORDER.length : at;
}

/** The file a tool belongs in: its name less its domain, `_` to `-` (meta tools: the whole name). */
function fileOf(domain, name) {
  const local = name.startsWith(`${domain}_`) ? name.slice(domain.length + 1) : name;
  return `${local.replaceAll('_', '-')}.ts`;
}

/** The text of src/tools/registry.ts for these sources; throws, saying what to change, on a file it cannot list. */
export function renderToolRegistry({ compactGroups, files }) {
  const groups = declaredGroups(compactGroups);
  const problems = [];
  const tools = [];
  for (const { path, text } of files) {
    if (!/\bdefineTool\b/.test(text)) continue;
    const starts = [...text.matchAll(DEFINITION)];
    if (starts.length === 0) {
      problems.push(`${path}: write its tool as \`export const <name> = defineTool({\` on one line`);
      continue;
    }
    if (starts.length > 1) {
      problems.push(
        `${path}: one tool per file; move ${starts
          .slice(1)
          .map((m) => m[1])
          .join(', ')} to files of their own`,
      );
      continue;
    }
    const [start] = starts;
    const definition = text.slice(start.index);
    const name = property(definition, 'name');
    const group = property(definition, 'group');
    if (name === undefined || group === undefined) {
      problems.push(`${path}: give ${start[1]} its \`name: '…',\` and \`group: '…',\` as lines of their own`);
      continue;
    }
    const domain = basename(dirname(path));
    const expected = fileOf(domain, name);
    if (basename(path) !== expected) problems.push(`${path}: ${name} belongs in ${dirname(path)}/${expected}`);
    if (!groups.includes(group)) {
      problems.push(`${path}: group '${group}' is not declared in ${GROUPS_FILE}: join one of ${groups.join(', ')}`);
    }
    tools.push({ constant: start[1], name, group, domain, module: `./${domain}/${basename(path, '.ts')}.js` });
  }
  for (const [index, tool] of tools.entries()) {
    const twin = tools.findIndex((other) => other.constant === tool.constant || other.name === tool.name);
    if (twin !== index) problems.push(`${tool.module}: ${tool.constant} (${tool.name}) is defined twice`);
  }
  if (problems.length > 0) throw new Error(`cannot write ${REGISTRY_FILE}:\n  ${problems.join('\n  ')}`);

  const rank = (tool) => [tool.domain === META_DOMAIN ? 0 : 1, groups.indexOf(tool.group), verbRank(tool.name)];
  tools.sort((a, b) => {
    const [metaA, groupA, verbA] = rank(a);
    const [metaB, groupB, verbB] = rank(b);
    return metaA - metaB || groupA - groupB || verbA - verbB || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);
  });
  return [
    `// Generated by \`npm run generate\` (scripts/tool-registry.mjs) from the tool files in`,
    `// src/tools/<domain>/: do not edit. The meta tools first, then by the groups of`,
    `// src/tools/compact-groups.ts, then by action (VERB_ORDER) and name.`,
    `import type { AnyTool } from './define.js';`,
    ...tools.map((tool) => `import { ${tool.constant} } from '${tool.module}';`),
    '',
    '/** Every tool of the wallet: one per file in src/tools/<domain>/. */',
    'export const ALL_TOOLS: readonly AnyTool[] = [',
    ...tools.map((tool) => `  ${tool.constant},`),
    '];',
    '',
  ].join('\n');
}

/** The text of src/tools/registry.ts for the tree at root. */
export function toolRegistry(root) {
  return renderToolRegistry(readToolSources(root));
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const root = join(import.meta.dirname, '..');
  writeFileSync(join(root, REGISTRY_FILE), toolRegistry(root));
  console.error(`wrote ${REGISTRY_FILE}`);
}
