/**
 * Real bash, zsh and fish asked for the completions of command lines: one shell process per batch
 * of lines, each line's candidates as that shell would offer them.
 *
 * - bash: sources the script, looks up the function `complete -p wallet` registered, sets
 *   COMP_LINE, COMP_POINT, COMP_WORDS and COMP_CWORD as readline does for TAB at the end of the
 *   line, calls it and prints COMPREPLY.
 * - fish: `fish --no-config`, sources the script and runs `complete -C '<line>'`.
 * - zsh: an interactive `zsh -f` on a pseudo-terminal (zsh/zpty) with compinit, the script either
 *   autoloaded from $fpath as `_wallet` or sourced as `source <(…)`; the line is typed with a real
 *   TAB. `compadd` is wrapped to record the matches zsh itself kept for the typed prefix (its own
 *   `-O` option) and the descriptions it was given, then to add them as usual.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export type ShellEnv = Record<string, string>;

/** One line's completions: the candidates, and the descriptions shown where the shell shows them. */
export type Completions = { candidates: string[]; descriptions: string[] };

const DONE = '<done>';
const TIMEOUT_MS = 20_000;

const BASH_DRIVER = `source "$1" || exit 1
shift
spec=$(complete -p wallet) || exit 1
fn=\${spec#*-F }
fn=\${fn%% *}
for line in "$@"; do
  COMP_LINE=$line
  COMP_POINT=\${#line}
  read -ra COMP_WORDS <<<"$line"
  [[ $line == *' ' ]] && COMP_WORDS+=('')
  COMP_CWORD=$((\${#COMP_WORDS[@]} - 1))
  COMPREPLY=()
  "$fn" wallet "\${COMP_WORDS[COMP_CWORD]}" "\${COMP_WORDS[COMP_CWORD - 1]}"
  ((\${#COMPREPLY[@]})) && printf 'm:%s\\n' "\${COMPREPLY[@]}"
  echo '${DONE}'
done
`;

const FISH_DRIVER = `source $argv[1]; or exit 1
for line in $argv[2..-1]
    complete -C "$line" | string replace -r '^' 'm:'
    echo '${DONE}'
end
`;

/** Runs inside the interactive zsh: compinit, the script, the compadd recorder, a "done" key. */
const ZSH_SETUP = `PS1='' PS2='' RPS1=''
unsetopt autolist automenu listbeep beep
autoload -U compinit
if [[ $WALLET_TEST_INSTALL == fpath ]]; then
  fpath=($WALLET_TEST_FPATH $fpath)
  compinit -u -D
else
  compinit -u -D
  source <(cat $WALLET_TEST_SCRIPT)
fi
compadd() {
  if (( \${@[(I)-(O|A|D)]} )); then builtin compadd "$@"; return; fi
  local -a kept
  builtin compadd -O kept "$@"
  (( $#kept )) && print -rl -- m:\${^kept} >> $WALLET_TEST_OUT
  local -i at=\${@[(i)-d]}
  if (( at < $# )); then
    local descriptions=\${@[at + 1]}
    print -rl -- d:\${^\${(P)descriptions}} >> $WALLET_TEST_OUT
  fi
  builtin compadd "$@"
}
_wallet_test_done() { print -r -- '${DONE}' >> $WALLET_TEST_OUT; zle kill-whole-line; }
zle -N _wallet_test_done
bindkey '^X' _wallet_test_done
`;

/** Types each line, TAB, then ^X (writes "done"); waits until every line is done or 10 s pass. */
const ZSH_DRIVER = `zmodload zsh/zpty
zpty shell 'zsh -f -i'
zpty -w shell "source \${(q)WALLET_TEST_SETUP}"
for line in "$@"; do
  zpty -wn shell "$line"$'\\t\\x18'
done
local output
integer tries=0
while (( tries++ < 1000 )); do
  zpty -r -t shell output && print -rn -- "$output" >> $WALLET_TEST_LOG
  [[ -f $WALLET_TEST_OUT && \${#\${(M)\${(f)"$(<$WALLET_TEST_OUT)"}:#${DONE}}} -ge $# ]] && break
  sleep 0.01
done
zpty -d shell
`;

export function bashCompletions(script: string, lines: readonly string[], env: ShellEnv, dir: string): Completions[] {
  const driver = writeIn(dir, 'driver.bash', BASH_DRIVER);
  return parse(run('bash', [driver, script, ...lines], env), lines);
}

export function fishCompletions(script: string, lines: readonly string[], env: ShellEnv, dir: string): Completions[] {
  const driver = writeIn(dir, 'driver.fish', FISH_DRIVER);
  const output = run('fish', ['--no-config', driver, script, ...lines], env);
  return parse(output, lines).map(({ candidates }) => ({
    candidates: candidates.map((line) => line.split('\t')[0] ?? ''),
    descriptions: candidates.map((line) => line.split('\t')[1] ?? ''),
  }));
}

/** `install`: `fpath` autoloads the script as `_wallet`; `source` runs `source <(cat script)` after compinit. */
export function zshCompletions(
  script: string,
  lines: readonly string[],
  env: ShellEnv,
  dir: string,
  install: 'fpath' | 'source',
): Completions[] {
  const work = join(dir, `zsh-${install}`);
  const fpath = join(work, 'functions');
  mkdirSync(fpath, { recursive: true });
  writeFileSync(join(fpath, '_wallet'), readFileSync(script));
  const out = join(work, 'captured');
  const log = join(work, 'terminal.log');
  writeFileSync(out, '');
  writeFileSync(log, '');
  run('zsh', ['-f', writeIn(work, 'driver.zsh', ZSH_DRIVER), ...lines], {
    ...env,
    TERM: 'xterm',
    WALLET_TEST_SETUP: writeIn(work, 'setup.zsh', ZSH_SETUP),
    WALLET_TEST_INSTALL: install,
    WALLET_TEST_FPATH: fpath,
    WALLET_TEST_SCRIPT: script,
    WALLET_TEST_OUT: out,
    WALLET_TEST_LOG: log,
  });
  const captured = readFileSync(out, 'utf8');
  if (captured.split('\n').filter((line) => line === DONE).length !== lines.length) {
    throw new Error(`zsh did not complete every line; its terminal showed:\n${readFileSync(log, 'utf8')}`);
  }
  return parse(captured, lines);
}

function writeIn(dir: string, name: string, text: string): string {
  mkdirSync(dir, { recursive: true });
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
}

/**
 * Why the tests of `shell` are skipped, said loudly on stderr: it is not installed (CI installs
 * it, as .ci/run does). `false` when it runs.
 */
export function missingShell(shell: 'zsh' | 'fish'): string | false {
  const result = spawnSync(shell, ['-c', 'exit 0'], { encoding: 'utf8', timeout: TIMEOUT_MS });
  const error = result.error as NodeJS.ErrnoException | undefined;
  if (error?.code !== 'ENOENT') return false;
  console.error(
    `\n!!! SKIPPING the ${shell} completion tests: ${shell} is not installed.\n!!! .ci/run installs it (apt-get install -y ${shell}); install it to run these tests.\n`,
  );
  return `${shell} is not installed`;
}

function run(shell: string, args: readonly string[], env: ShellEnv): string {
  const result = spawnSync(shell, args, { env, encoding: 'utf8', timeout: TIMEOUT_MS });
  if (result.error) throw result.error;
  if (result.status !== 0) {
    throw new Error(`${shell} exited with ${String(result.status ?? result.signal)}:\n${result.stderr}`);
  }
  if (result.stderr.trim() !== '') throw new Error(`${shell} complained:\n${result.stderr}`);
  return result.stdout;
}

/** `m:` lines are candidates, `d:` lines descriptions, a DONE line ends each command line's part. */
function parse(output: string, lines: readonly string[]): Completions[] {
  const parts: Completions[] = [{ candidates: [], descriptions: [] }];
  for (const line of output.split('\n')) {
    const current = parts[parts.length - 1];
    if (!current) break;
    if (line === DONE) parts.push({ candidates: [], descriptions: [] });
    else if (line.startsWith('m:')) current.candidates.push(line.slice(2));
    else if (line.startsWith('d:')) current.descriptions.push(line.slice(2));
  }
  parts.pop();
  if (parts.length !== lines.length) {
    throw new Error(`expected ${lines.length} completions, got ${parts.length}:\n${output}`);
  }
  return parts;
}
