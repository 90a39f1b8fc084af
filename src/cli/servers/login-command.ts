import { constants } from 'node:fs';
import { access } from 'node:fs/promises';
import { resolve } from 'node:path';
import { isLoopbackHost } from '../../mcp/http/listen-address.js';
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
  const enterprise = await enterpriseLogin(parsed, {
    clientId,
    clientSecret: secretFile !== undefined || secretStdin || keyFile !== undefined,
    otherGrant: machine ? '--client-credentials' : assertionFile !== undefined ? '--client-assertion-file' : undefined,
  });
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
      enterprise,
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

/** The flags of enterprise-managed authorization; none of them means another kind of login. */
const ENTERPRISE_FLAGS = [
  'id-token-file',
  'idp-issuer',
  'idp-token-endpoint',
  'idp-client-id',
  'idp-client-secret-file',
] as const;

/**
 * `--id-token-file` and the `--idp-*` flags: enterprise-managed authorization (SEP-990), a machine
 * client whose grant is an ID-JAG the identity provider gives for the enterprise ID token. The
 * file is checked now (owner-only, a JWT) and its path kept, not its content: the single sign-on
 * that wrote it renews it, and each token request reads it again, as a workload's token file.
 */
async function enterpriseLogin(
  parsed: Readonly<Record<string, unknown>>,
  given: { clientId: string | undefined; clientSecret: boolean; otherGrant: string | undefined },
) {
  const idTokenFile = single(parsed, 'id-token-file');
  if (idTokenFile === undefined) {
    const stray = ENTERPRISE_FLAGS.find((flag) => single(parsed, flag) !== undefined);
    if (stray !== undefined) throw new UsageError(`--${stray} is for an enterprise login: it needs --id-token-file.`);
    return undefined;
  }
  if (given.otherGrant !== undefined) {
    throw new UsageError(`--id-token-file is a grant of its own: give it without ${given.otherGrant}.`);
  }
  if (given.clientId === undefined || !given.clientSecret) {
    throw new UsageError(
      '--id-token-file needs the client of the authorization server: --client-id, with --client-secret-file, --client-secret-stdin or --client-key-file.',
    );
  }
  const issuer = single(parsed, 'idp-issuer');
  const tokenEndpoint = single(parsed, 'idp-token-endpoint');
  const where =
    issuer !== undefined
      ? { issuer: idpUrl('--idp-issuer', issuer) }
      : tokenEndpoint !== undefined
        ? { tokenEndpoint: idpUrl('--idp-token-endpoint', tokenEndpoint) }
        : undefined;
  if (where === undefined || (issuer !== undefined && tokenEndpoint !== undefined)) {
    throw new UsageError(
      '--id-token-file needs the identity provider: --idp-issuer <url> or --idp-token-endpoint <url>, one of them.',
    );
  }
  const clientId = single(parsed, 'idp-client-id');
  if (clientId === undefined) {
    throw new UsageError('--id-token-file needs --idp-client-id: the client id this CLI has at the identity provider.');
  }
  const path = resolve(idTokenFile);
  const token = (await readSecretFile(path, '--id-token-file')).trim();
  if (token.split('.').length !== 3)
    throw new UsageError(`--id-token-file: ${path} holds no JWT (an OpenID ID token).`);
  const secretFile = single(parsed, 'idp-client-secret-file');
  const clientSecret =
    secretFile === undefined ? undefined : (await readSecretFile(secretFile, '--idp-client-secret-file')).trim();
  return {
    idTokenFile: path,
    idp: {
      ...where,
      clientId,
      ...(clientSecret === undefined ? {} : { clientSecret }),
    },
  };
}

/** An identity provider's URL: https, or http on this machine (an ID token goes there). */
function idpUrl(flag: string, value: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new UsageError(`${flag}: not a URL (e.g. https://idp.example.com).`);
  }
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && isLoopbackHost(url.hostname))) {
    throw new UsageError(`${flag}: must be https (http only on this machine): an ID token is sent there.`);
  }
  if (url.username || url.password) throw new UsageError(`${flag}: a URL with credentials in it is refused.`);
  // As given: an issuer is compared as a string with the one its metadata names.
  return value;
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
