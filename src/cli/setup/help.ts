/** `wallet setup --help`: the clients, where each keeps its config, and what is written. */
export const SETUP_HELP = `wallet setup — register the wallet with an agent: the entry that runs 'wallet serve'

Usage:
  wallet setup <client> [--scope user|project] [--name wallet] [--profile default|compact|full]
               [--read-only] [--passphrase-file <path>] [--on-path] [--dry-run] [--overwrite] [--json]
  wallet setup <client> --remove [--scope user|project] [--name wallet] [--dry-run] [--overwrite]

Clients, and the file each reads (user scope, the default; project scope, in this folder):
  claude-code     ~/.claude.json "mcpServers"; ./.mcp.json
  claude-desktop  claude_desktop_config.json "mcpServers" (~/Library/Application Support/Claude
                  on macOS, %APPDATA%\\Claude on Windows, ~/.config/Claude on Linux); no project
  cursor          ~/.cursor/mcp.json "mcpServers"; ./.cursor/mcp.json
  vscode          Code/User/mcp.json "servers" (beside Claude Desktop's folder); ./.vscode/mcp.json
  codex           ~/.codex/config.toml [mcp_servers.<name>] ($CODEX_HOME); ./.codex/config.toml
  gemini          ~/.gemini/settings.json "mcpServers"; ./.gemini/settings.json

The entry runs this Node and this wallet's bin/wallet.js by absolute path, so an agent started
from a desktop (without your shell's PATH) finds them; --on-path writes 'wallet' instead, which
survives a new Node or a moved checkout as long as the agent's PATH has it. Run setup again after
either change: an entry that runs wallet serve is updated in place (keys you added, such as
"env", stay); another server of the same name is replaced only with --overwrite.

Only the rest of the file is kept as it is: other servers, settings and comments. Before a change
the file is copied to <file>.bak-<UTC time> (owner-only if the file was), then replaced in one
rename. Running it again with the same flags changes nothing. A file that does not parse is never
written. The passphrase never goes into a config: --passphrase-file names an owner-only file.

Flags:
  --scope <user|project>    Which of the client's files (default user).
  --name <name>             The server's name there (default wallet).
  --profile <profile>       wallet serve --profile: default, compact or full.
  --read-only               wallet serve --read-only: nothing that spends or signs.
  --passphrase-file <path>  wallet serve --passphrase-file, by absolute path; the file must be
                            owner-only (chmod 600).
  --on-path                 Run 'wallet' from PATH, not by absolute path.
  --dry-run                 Print the change as a unified diff; write nothing.
  --remove                  Take the entry out (with a backup).
  --overwrite               Replace, or remove, another server of the same name.
  --json                    Print the outcome as JSON (with the diff under --dry-run).
  -h, --help                Show this help.

Examples:
  wallet setup claude-code --dry-run
  wallet setup claude-desktop --profile compact --passphrase-file ~/.wallet-pass
  wallet setup codex --read-only
  wallet setup vscode --scope project --name dash-wallet
  wallet setup gemini --remove
`;
