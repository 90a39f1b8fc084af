/** `wallet servers --help`: every subcommand, where the file is, and how to keep tokens out of it. */
export const SERVERS_HELP = `wallet servers — named MCP servers, to use as: wallet --server <name> <command>

Usage:
  wallet servers [list] [--json]
  wallet servers add <name> --server "<command line>" [--env NAME=value]… [--keep-alive] [--overwrite]
  wallet servers add <name> --url <http(s) URL> [--header "Name: value"]… [--keep-alive] [--overwrite]
  wallet servers add <name> --keep-alive | --no-keep-alive
  wallet servers remove <name>
  wallet servers import [<file>…] [--from <agent>] [--overwrite] [--json]
  wallet servers login <name> | --url <url> [--scope "<scopes>"] [--no-browser]
                       [--client-id <id> [--client-secret-file <path> | --client-secret-stdin |
                                          --client-key-file <pem>]
                        [--client-credentials | --client-assertion-file <path> |
                         --id-token-file <path> --idp-client-id <id>
                         (--idp-issuer <url> | --idp-token-endpoint <url>)
                         [--idp-client-secret-file <path>]]]
                       [--client-metadata-url <https url>]
  wallet servers logout <name> | --url <url>

They are kept in servers.json in the data directory ($WALLET_HOME, else the platform's),
owner-only, in the "mcpServers" shape of Claude Desktop, Claude Code and Cursor. A saved name
given to --server wins over a command of the same name.

Subcommands:
  list      Each server's name, transport (stdio or http) and command line or URL. Env and
            header values are never shown, only their names.
  add       Save a server under <name>: a letter or digit, then letters, digits, . _ or -
            (64 at most). A saved name is refused unless --overwrite. --keep-alive: its
            calls go through the daemon, which keeps it running between them ('wallet daemon
            --help'); given alone, it (or --no-keep-alive) changes a saved server's setting.
  remove    Forget a server.
  import    Copy the servers of agent config files ("mcpServers"; VS Code's "servers", Codex's
            [mcp_servers] in TOML). Without a file, reads each of these
            that exists (only those of one agent with --from) and says which it read:
              claude-desktop  ~/.config/Claude/claude_desktop_config.json (Linux),
                              ~/Library/Application Support/Claude/… (macOS),
                              %APPDATA%\\Claude\\… (Windows)
              claude-code     ./.mcp.json; ~/.claude.json (its mcpServers, and those of
                              projects[<this folder>])
              cursor          ./.cursor/mcp.json, ~/.cursor/mcp.json
              vscode          ./.vscode/mcp.json, ~/.config/Code/User/mcp.json (Linux),
                              ~/Library/Application Support/Code/User/… (macOS),
                              %APPDATA%\\Code\\User\\… (Windows)
              codex           ./.codex/config.toml, ~/.codex/config.toml ($CODEX_HOME)
              gemini          ./.gemini/settings.json, ~/.gemini/settings.json
            Saved names are kept unless --overwrite. SSE servers are skipped: this CLI speaks
            stdio and Streamable HTTP.
  login     OAuth 2.1 login to an HTTP server (saved, or --url): the address to open is printed
            and opened with $BROWSER, else the system's browser; the browser comes back to a
            listener on 127.0.0.1. On a machine without a browser (or with --no-browser), open
            the address elsewhere and paste the address the browser ends on. The client
            registers itself where the server allows it; else give --client-id (and a secret).
            --client-credentials logs a machine client in with no browser at all. Tokens and
            secrets are kept owner-only in oauth/ in the data directory, never in servers.json,
            and refreshed when they expire. A call to a server that asks for a login starts
            one by itself on a terminal (or with $BROWSER set); elsewhere it says to run this.
  logout    Forget the tokens and client of that server, revoking the tokens first where
            its authorization server offers it (a failed revocation is only a warning).

Flags:
  --server <command line>     add: the command that starts a stdio server, as one quoted word.
  --env <NAME=value>          add: an environment variable for that command (repeatable).
  --url <url>                 add: the Streamable HTTP endpoint, http or https.
  --header <'Name: value'>    add: an HTTP header for that URL (repeatable).
  --overwrite                 add, import: replace a saved server of the same name.
  --keep-alive                add: keep the server running between calls (the daemon).
  --from <agent>              import: only the files of claude-desktop, claude-code, cursor,
                              vscode, codex or gemini (comments allowed in VS Code's
                              and Gemini CLI's files).
  --scope <scopes>            login: the OAuth scopes to ask for (space-separated).
  --client-id <id>            login: a client registered beforehand with the server.
  --client-secret-file <path> login: that client's secret, from an owner-only file.
  --client-secret-stdin       login: that client's secret, from stdin.
  --client-key-file <path>    login: that client's private key instead of a secret
                              (private_key_jwt), a PEM file, owner-only.
  --client-credentials        login: a machine client (client_credentials grant, no browser).
  --client-assertion-file <path>
                              login: a machine client whose grant is a workload identity
                              token (a JWT, RFC 7523), read from this file at each token
                              request: CI and cloud workload tokens rotate.
  --id-token-file <path>      login: enterprise-managed authorization (SEP-990): a machine
                              client whose enterprise ID token (a JWT, owner-only file, read
                              at each token request) the identity provider exchanges for the
                              grant (an ID-JAG). Needs --client-id with a secret or key.
  --idp-issuer <url>          login: that identity provider (its token endpoint discovered)…
  --idp-token-endpoint <url>  login: …or its token endpoint.
  --idp-client-id <id>        login: this client's id at the identity provider.
  --idp-client-secret-file <path>
                              login: its secret there, from an owner-only file.
  --client-metadata-url <url> login: an https client metadata document, used as client id
                              where the server supports them.
  --no-browser                login: open no browser; print the address and wait.
  --json                      Print the result as JSON.
  -h, --help                  Show this help.

Tokens: any value may name an environment variable as \${VAR} or \${VAR:-default} (Cursor's
\${env:VAR} too). It is saved as written and read when connecting, so the token stays out of
servers.json. A token typed inline stays in your shell history too: single-quote a reference
instead, e.g.
  --header 'Authorization: Bearer \${LINEAR_TOKEN}'    --env 'GITHUB_TOKEN=\${GITHUB_TOKEN}'

Examples:
  wallet servers import
  wallet servers add everything --server 'npx -y @modelcontextprotocol/server-everything' --keep-alive
  wallet servers add linear --url https://mcp.linear.app/mcp --header 'Authorization: Bearer \${LINEAR_TOKEN}'
  wallet --server everything tools
  wallet servers login linear
`;
