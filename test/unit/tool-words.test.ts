import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { toolCommands } from '../../src/cli/commands.js';
import { inCliWords } from '../../src/cli/tool-words.js';
import type { ListedTool } from '../../src/mcp/session.js';
import { toolNameToCommand } from '../../src/shared/naming.js';
import { ALL_TOOLS } from '../../src/tools/index.js';
import { ROOT } from '../helpers/paths.js';

const listed = (name: string): ListedTool => ({ name, inputSchema: { type: 'object' } }) as ListedTool;

describe('hints in the CLI words', () => {
  const words = {
    commands: toolCommands(['evm_tx_get', 'core_wallets_list', 'serve_me_now'].map(listed)),
    arguments: new Set(['network', 'hash', 'dry_run', 'passphrase_file']),
  };
  it('turns listed tools into commands and backticked arguments into flags', () => {
    assert.equal(
      inCliWords('Check with evm_tx_get `hash: 0xab` before paying again; core_wallets_list shows them.', words),
      'Check with evm-tx-get --hash 0xab before paying again; core-wallets-list shows them.',
    );
    assert.equal(inCliWords('Pass `network: testnet`.', words), 'Pass --network testnet.');
    assert.equal(
      inCliWords('Try `dry_run: true`, or not: `dry_run: false`.', words),
      'Try --dry-run, or not: --no-dry-run.',
    );
    assert.equal(inCliWords('(`passphrase_file` or the prompt)', words), '(--passphrase-file or the prompt)');
    assert.equal(inCliWords('see `evm_tx_get`', words), 'see evm-tx-get');
  });
  it('leaves alone what is neither a listed tool nor an argument here', () => {
    assert.equal(
      inCliWords('signed_tx and `value_wei: 1` stay; evm_tx_send too.', words),
      'signed_tx and `value_wei: 1` stay; evm_tx_send too.',
    );
  });
  it('uses the command a clash gave a tool', () => {
    const clash = { commands: toolCommands([listed('serve')]), arguments: new Set<string>() };
    assert.equal(inCliWords('`serve` it', clash), 'tool-serve it');
  });
});

/** Every `.ts` file under `dir`, recursively. */
function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory()
      ? sourceFiles(join(dir, entry.name))
      : entry.name.endsWith('.ts')
        ? [join(dir, entry.name)]
        : [],
  );
}

/** The code of a source file without its comments (the domain's comments may speak of flags). */
function withoutComments(text: string): string {
  return text.replace(/\/\*[\s\S]*?\*\//g, '').replace(/^\s*\/\/.*$/gm, '');
}

describe('the domain speaks tools and arguments, never flags or commands', () => {
  const files = sourceFiles(join(ROOT, 'src', 'domain'));
  const commands = ALL_TOOLS.map((tool) => toolNameToCommand(tool.name));
  it('no text in src/domain names a --flag or a CLI command', () => {
    assert.ok(files.length > 20, `found ${files.length} domain files`);
    const problems: string[] = [];
    for (const file of files) {
      const lines = withoutComments(readFileSync(file, 'utf8')).split('\n');
      for (const line of lines) {
        if (/--[a-z]/.test(line)) problems.push(`${file}: a flag in ${line.trim()}`);
        const command = commands.find((name) => new RegExp(`\\b${name}\\b`).test(line));
        if (command) problems.push(`${file}: the command ${command} in ${line.trim()}`);
      }
    }
    assert.deepEqual(problems, []);
  });
});
