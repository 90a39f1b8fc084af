/**
 * Names another server chose (its tools, prompts, resource URIs, enum values) reach the completion
 * scripts through the table cached for that server: a name holding shell syntax must be offered as
 * the word it is, and never run. Real bash, zsh and fish (zsh and fish skipped loudly when absent),
 * driven as test/helpers/shells.ts drives them; the names try command substitution, backticks,
 * `;`, quotes, globs and parameter expansion, and would each leave a file behind if run.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { toolCommands } from '../../src/cli/commands.js';
import { serverCacheKey } from '../../src/cli/completion/cache-key.js';
import { COMPLETION_SHELLS, completionScript } from '../../src/cli/completion/index.js';
import { listingCompletionCommands, toolCompletionCommands } from '../../src/cli/completion/model.js';
import { renderTable } from '../../src/cli/completion/table.js';
import type { ListedTool } from '../../src/mcp/client.js';
import { bashCompletions, fishCompletions, missingShell, zshCompletions } from '../helpers/shells.js';

const NO_FISH = missingShell('fish');
const NO_ZSH = missingShell('zsh');
const SERVER = 'node hostile.js';

let dir: string;
let marks: string;
let env: Record<string, string>;
const scripts: Partial<Record<(typeof COMPLETION_SHELLS)[number], string>> = {};

/** A name that, if a shell ran it, would create `<marks>/<id>`. */
const hostile = (id: string): string[] => [
  `$(touch\${IFS}${marks}/${id}-subst)`,
  `\`touch\${IFS}${marks}/${id}-tick\``,
  `x;touch\${IFS}${marks}/${id}-semi`,
  `a'b"c`,
  `$HOME`,
  `glob*`,
];

let toolNames: string[];
let promptNames: string[];
let choices: string[];

before(() => {
  dir = mkdtempSync(join(tmpdir(), 'wallet-hostile-completion-'));
  marks = join(dir, 'marks');
  mkdirSync(marks);
  toolNames = hostile('tool');
  promptNames = hostile('prompt');
  choices = hostile('choice');
  const tools: ListedTool[] = [
    ...toolNames.map((name) => ({ name, description: 'hostile', inputSchema: { type: 'object' as const } })),
    {
      name: 'safe-tool',
      description: 'A tool whose enum is hostile',
      inputSchema: { type: 'object', properties: { mode: { type: 'string', enum: choices } } },
    },
  ];
  const table = renderTable(
    [
      ...toolCompletionCommands(toolCommands(tools)),
      ...listingCompletionCommands({
        resources: [],
        templates: [],
        prompts: promptNames.map((name) => ({ name, description: 'hostile' })),
      }),
    ],
    [],
  );
  const home = join(dir, 'home');
  mkdirSync(join(home, 'cache', 'tools'), { recursive: true });
  writeFileSync(join(home, 'cache', 'tools', `${serverCacheKey('server', SERVER)}.tsv`), table);
  for (const shell of COMPLETION_SHELLS) {
    const path = join(dir, `wallet.${shell}`);
    writeFileSync(path, completionScript(shell, []));
    scripts[shell] = path;
  }
  env = { PATH: process.env['PATH'] ?? '/usr/bin:/bin', HOME: dir, WALLET_HOME: home, LANG: 'C.UTF-8' };
});

after(() => rmSync(dir, { recursive: true, force: true }));

const LINES = [
  `wallet --server '${SERVER}' `,
  `wallet --server '${SERVER}' prompt `,
  `wallet --server '${SERVER}' safe-tool --mode `,
  `wallet --server '${SERVER}' $`,
  `wallet --server '${SERVER}' x`,
];

/** What bash reads a candidate (a word bash quoted) back as: the word itself, expanded by nothing else. */
function unquotedByBash(words: string[]): string[] {
  if (words.length === 0) return [];
  const run = spawnSync('bash', ['-c', `eval "set -- $1"; printf '%s\\n' "$@"`, 'bash', words.join(' ')], {
    encoding: 'utf8',
    env,
  });
  return run.stdout.split('\n').slice(0, -1);
}

function assertNothingRan(shell: string): void {
  assert.deepEqual(readdirSync(marks), [], `${shell} ran a name: ${readdirSync(marks).join(', ')}`);
}

describe('completion of names a server chose', () => {
  it('bash offers each as one quoted word, and runs none', () => {
    const [all, prompts, values, dollar, x] = bashCompletions(scripts.bash ?? '', LINES, env, dir);
    assertNothingRan('bash');
    const offered = unquotedByBash(all?.candidates ?? []);
    assertNothingRan('bash (reading its candidates back)');
    for (const name of [...toolNames, 'safe-tool', 'prompt']) assert.ok(offered.includes(name), name);
    assert.deepEqual(unquotedByBash(prompts?.candidates ?? []).sort(), [...promptNames].sort());
    assert.deepEqual(unquotedByBash(values?.candidates ?? []).sort(), [...choices].sort());
    assert.ok(unquotedByBash(dollar?.candidates ?? []).includes('$HOME'));
    assert.deepEqual(unquotedByBash(x?.candidates ?? []), [`x;touch\${IFS}${marks}/tool-semi`]);
    assertNothingRan('bash');
  });

  it('fish offers each as it is, and runs none', { skip: NO_FISH }, () => {
    const [all, prompts, values] = fishCompletions(scripts.fish ?? '', LINES, env, dir);
    assertNothingRan('fish');
    for (const name of toolNames) assert.ok(all?.candidates.includes(name), name);
    assert.deepEqual([...(prompts?.candidates ?? [])].sort(), [...promptNames].sort());
    assert.deepEqual([...(values?.candidates ?? [])].sort(), [...choices].sort());
  });

  it('zsh offers each as it is, and runs none', { skip: NO_ZSH }, () => {
    const [all, prompts, values] = zshCompletions(scripts.zsh ?? '', LINES, env, dir, 'source');
    assertNothingRan('zsh');
    for (const name of toolNames) assert.ok(all?.candidates.includes(name), name);
    assert.deepEqual([...(prompts?.candidates ?? [])].sort(), [...promptNames].sort());
    assert.deepEqual([...(values?.candidates ?? [])].sort(), [...choices].sort());
  });

  it('leaves no mark behind after all three shells', () => {
    assert.equal(existsSync(marks), true);
    assertNothingRan('any shell');
  });
});
