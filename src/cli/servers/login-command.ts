import { constants } from 'node:fs';
import { access } from 'node:fs/promises';
import { resolve } from 'node:path';
import { loginPrompt } from '../browser.js';
import { readSecretFile, readSecretStdin } from '../secrets.js';
import { EXIT, UsageError } from '../usage-error.js';
import { loadServers, resolveNamedServer, urlProblem } from './config.js';
import { noMoreWords, single, type ServersRun } from './run.js';

/** The server a `login` or `logout` is for: a saved HTTP server's name, or `--url`. */
async function loginTarget({ words, parsed, io, dataDir }: ServersRun, command: string) {
  const [name, ...extra] = words;
  noMoreWords(extra, `servers ${command} <name>`);
  const url = single(parsed, 'url');
  if ((name === undefined) === (url === undefined)) {
    throw new UsageError(
      `servers ${command} takes the name of a saved HTTP server, or --url <url>: one of them.`,
      "See 'wallet servers list'.",
    );
  }
  if (url !== undefined) {
    const problem = urlProblem(url);
    if (problem) throw new UsageError(`--url: ${problem}.`);
    const parsedUrl = new URL(url);
    return { label: parsedUrl.href, url: parsedUrl, command: `'wallet servers login --url ${parsedUrl.href}'` };
  }
  const servers = await loadServers(dataDir);
  const named = resolveNamedServer(servers, name as string, io.env);
  if (named.kind !== 'http') {
    throw new UsageError(`Server '${name}' is a command (stdio): OAuth is for servers reached over HTTP.`);
  }
  return { label: `'${name}'`, url: new URL(named.url), command: `'wallet servers login ${name}'` };
}

/**
 * `wallet servers login <name> | --url <url>`: an OAuth login, its tokens stored owner-only under
 * the data directory (never in servers.json). A browser login by default; `--client-id` with a
 * secret from a file or stdin for a client registered beforehand, `--client-credentials` for a
 * machine client that needs no browser.
 */
export async function loginServer(run: ServersRun): Promise<number> {
  const { parsed, io, dataDir, json } = run;
  const target = await loginTarget(run, 'login');
  const clientId = single(parsed, 'client-id');
  const secretFile = single(parsed, 'client-secret-file');
  const secretStdin = parsed['client-secret-stdin'] === true;
  const machine = parsed['client-credentials'] === true;
  if (secretFile !== undefined && secretStdin) {
    throw new UsageError('Give --client-secret-file or --client-secret-stdin, not both.');
  }
  const keyFile = single(parsed, 'client-key-file');
  if (keyFile !== undefined && (secretFile !== undefined || secretStdin)) {
    throw new UsageError('Give a client secret or --client-key-file, not both.');
  }
  const assertionFile = single(parsed, 'client-assertion-file');
  if (
    (secretFile !== undefined || secretStdin || keyFile !== undefined || machine || assertionFile !== undefined) &&
    clientId === undefined
  ) {
    throw new UsageError(
      'The client secret or key, --client-credentials and --client-assertion-file need --client-id.',
    );
  }
  if (assertionFile !== undefined && machine) {
    throw new UsageError('--client-assertion-file is a grant of its own: give it without --client-credentials.');
  }
  const assertionPath = assertionFile === undefined ? undefined : resolve(assertionFile);
  if (
    assertionPath !== undefined &&
    !(await access(assertionPath, constants.R_OK).then(
      () => true,
      () => false,
    ))
  ) {
    throw new UsageError(`--client-assertion-file: cannot read ${assertionPath}.`);
  }
  if (machine && secretFile === undefined && !secretStdin && keyFile === undefined) {
    throw new UsageError(
      '--client-credentials needs how the client proves itself: --client-secret-file, --client-secret-stdin or --client-key-file.',
    );
  }
  const clientKey = keyFile === undefined ? undefined : await readClientKey(keyFile);
  const secret =
    secretFile !== undefined
      ? (await readSecretFile(secretFile, '--client-secret-file')).trim()
      : secretStdin
        ? (await readSecretStdin(io, '--client-secret-stdin')).trim()
        : undefined;
  const clientMetadataUrl = single(parsed, 'client-metadata-url');
  const prompt = loginPrompt(io, target.command, { headless: parsed['browser'] === false });
  const [{ login }, { OAuthStore }] = await Promise.all([
    import('../../mcp/oauth/login.js'),
    import('../../mcp/oauth/store.js'),
  ]);
  const store = new OAuthStore(dataDir, target.url.href);
  try {
    await login(store, prompt, target.url, {
      scope: single(parsed, 'scope'),
      client: clientId === undefined ? undefined : { client_id: clientId, client_secret: secret },
      machine,
      assertionFile: assertionPath,
      clientKey,
      clientMetadataUrl,
      newLogin: true,
    });
  } catch (error) {
    const { ConnectionError } = await import('../../mcp/session.js');
    const { describeLoginFailure } = await import('../../mcp/client.js');
    throw new ConnectionError(`The login to ${target.label} failed: ${describeLoginFailure(error)}`, {
      cause: error,
      hint: 'Check the URL, the client id and secret if you gave them, and that the browser finished the login.',
    });
  }
  if (json) io.stdout.write(JSON.stringify({ loggedIn: target.url.href, file: store.path }, null, 2) + '\n');
  else io.stdout.write(`Logged in to ${target.label}; the tokens are kept in ${store.path} (owner-only).\n`);
  return EXIT.ok;
}

/** A PEM private key from an owner-only file, checked to be one that can sign a client assertion. */
async function readClientKey(path: string): Promise<string> {
  const pem = await readSecretFile(path, '--client-key-file');
  const { signingAlgorithm } = await import('../../mcp/oauth/provider.js');
  try {
    signingAlgorithm(pem);
  } catch (error) {
    throw new UsageError(
      `--client-key-file: ${path} holds no usable private key (${error instanceof Error ? error.message : 'unreadable'}).`,
      'Give a PEM EC (P-256/384/521), RSA or Ed25519 private key.',
    );
  }
  return pem;
}

/**
 * `wallet servers logout <name> | --url <url>`: forgets the stored tokens and client of that server,
 * after revoking the tokens where its authorization server offers revocation (RFC 7009). The file
 * goes whatever the server answers: a revocation that fails is a warning, never a kept token.
 */
export async function logoutServer(run: ServersRun): Promise<number> {
  const { io, dataDir, json } = run;
  const target = await loginTarget(run, 'logout');
  const [{ OAuthStore }, { revokeTokens }] = await Promise.all([
    import('../../mcp/oauth/store.js'),
    import('../../mcp/oauth/revoke.js'),
  ]);
  const store = new OAuthStore(dataDir, target.url.href);
  // Read and deleted under the lock: a refresh in another process cannot store a token this
  // logout would miss. The revocation talks to the network after it, holding nobody up.
  const { record, removed } = await store.withLock(async () => ({
    record: await store.read(),
    removed: await store.remove(),
  }));
  const revocation = await revokeTokens(record);
  if (revocation.kind === 'failed') {
    io.stderr.write(
      `warning: the tokens of ${target.label} were not revoked (${revocation.reason}); they are deleted here, but stay valid at the server until they expire.\n`,
    );
  }
  const revoked = revocation.kind === 'revoked';
  if (json) io.stdout.write(JSON.stringify({ loggedOut: target.url.href, removed, revoked }, null, 2) + '\n');
  else if (!removed) io.stdout.write(`No login to ${target.label} was stored.\n`);
  else io.stdout.write(`Logged out of ${target.label}${revoked ? '; the tokens were revoked' : ''}.\n`);
  return EXIT.ok;
}
