import { AsyncLocalStorage } from 'node:async_hooks';
import { createHash } from 'node:crypto';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import type {
  OAuthDiscoveryState,
  StoredOAuthClientInformation,
  StoredOAuthTokens,
} from '@modelcontextprotocol/client';
import type { DpopKey } from './dpop.js';
import { withNamedLock } from '../../domain/keystore/lock.js';
import { ensurePrivateDir, readPrivateText, UnsafeFileError, writeFileAtomic } from '../../shared/private-files.js';

/** What the wallet keeps of one server's OAuth login, in one owner-only file. */
export type OAuthRecord = {
  /** The MCP server's URL, the key of the record. */
  server: string;
  /** The registered (or pre-registered) client, its secret included when it has one. */
  client?: StoredOAuthClientInformation | undefined;
  /** How the client came to be: registered by this CLI (RFC 7591), or given to `login`. */
  registration?: 'dynamic' | 'pre-registered' | undefined;
  /** A PEM private key for `private_key_jwt` client authentication, instead of a secret. */
  clientKey?: string | undefined;
  /** The https URL of a client metadata document to use as `client_id` where supported. */
  clientMetadataUrl?: string | undefined;
  /** The loopback redirect URI of the last browser login (a registered client is bound to it). */
  redirectUrl?: string | undefined;
  /**
   * `client_credentials`, `jwt_bearer` (RFC 7523, a workload identity token as the grant) or
   * `id_jag` (enterprise-managed authorization, SEP-990: an ID token exchanged at the enterprise's
   * identity provider for an ID-JAG, the JWT-bearer grant): a machine client, no browser.
   */
  grant?: 'authorization_code' | 'client_credentials' | 'jwt_bearer' | 'id_jag' | undefined;
  /** `jwt_bearer`: the file of the workload's token, read again at each token request (it rotates). */
  assertionFile?: string | undefined;
  /**
   * `id_jag`: the file of the enterprise ID token, read again at each token request (the single
   * sign-on that wrote it renews it), and the identity provider that exchanges it.
   */
  idTokenFile?: string | undefined;
  idp?: IdentityProvider | undefined;
  /**
   * The issuer of the authorization server the last `servers login` was made at. A client's
   * credentials (its secret, key or workload token) go to no other until the next login.
   */
  issuer?: string | undefined;
  tokens?: StoredOAuthTokens | undefined;
  /** When the access token expires (ms since the epoch), from `expires_in` at save time. */
  expiresAt?: number | undefined;
  /** The scope asked for last, so a step-up keeps what was granted. */
  scope?: string | undefined;
  discovery?: OAuthDiscoveryState | undefined;
  /** The DPoP key the tokens are bound to, where the authorization server offers DPoP. */
  dpopKey?: DpopKey | undefined;
};

/**
 * The enterprise identity provider of an `id_jag` login: its issuer (its token endpoint then
 * discovered, RFC 8414 or OpenID Discovery) or its token endpoint as given; and this client's
 * registration there.
 */
export type IdentityProvider = ({ issuer: string } | { tokenEndpoint: string }) & {
  clientId: string;
  clientSecret?: string | undefined;
};

/** `<dataDir>/oauth`: one file per server, named by a hash of its URL (no URL in a file name). */
function oauthDir(dataDir: string): string {
  return join(dataDir, 'oauth');
}

/** The locks this async flow holds (their names), so that a write inside one does not wait for it. */
const held = new AsyncLocalStorage<{ names: Set<string> }>();

/**
 * The OAuth credentials of one MCP server (`<dataDir>/oauth/<sha256 of the URL>.json`, 0600, written
 * atomically): never servers.json, never argv, never printed. A refresh runs under
 * {@link OAuthStore.withLock}, so two processes never spend one refresh token twice.
 */
export class OAuthStore {
  readonly path: string;
  private readonly lockName: string;

  constructor(
    private readonly dataDir: string,
    readonly server: string,
  ) {
    const key = createHash('sha256').update(server).digest('hex').slice(0, 32);
    this.path = join(oauthDir(dataDir), `${key}.json`);
    this.lockName = `oauth-${key}`;
  }

  async read(): Promise<OAuthRecord> {
    let text: string;
    try {
      text = readPrivateText(this.path);
    } catch (error) {
      // Tokens from a link or a file others can write are no login: refused, not taken as none.
      if (error instanceof UnsafeFileError) throw error;
      return { server: this.server };
    }
    try {
      const record = JSON.parse(text) as OAuthRecord;
      // A record of another URL (a hash collision, or a file copied by hand) is no login here.
      return record.server === this.server ? record : { server: this.server };
    } catch {
      return { server: this.server };
    }
  }

  private async write(record: OAuthRecord): Promise<void> {
    ensurePrivateDir(oauthDir(this.dataDir));
    writeFileAtomic(this.path, JSON.stringify(record, null, 2) + '\n');
  }

  /**
   * A read-modify-write under the lock: a write of another process (a rotated refresh token) is
   * never overwritten with what was read before it.
   */
  update(change: (record: OAuthRecord) => OAuthRecord): Promise<OAuthRecord> {
    return this.withLock(async () => {
      const next = change(await this.read());
      await this.write(next);
      return next;
    });
  }

  /** Forgets the login: tokens, client and discovery. True when there was one. */
  async remove(): Promise<boolean> {
    const record = await this.read();
    const existed = record.client !== undefined || record.tokens !== undefined;
    rmSync(this.path, { force: true });
    return existed;
  }

  /**
   * Runs `task` holding this server's OAuth lock (`<dataDir>/locks/oauth-<hash>`), across
   * processes. Within `task` the lock is held already: a nested `withLock` or `update` runs at once.
   */
  withLock<T>(task: () => Promise<T>): Promise<T> {
    const current = held.getStore();
    if (current?.names.has(this.lockName)) return task();
    return withNamedLock(this.dataDir, this.lockName, async () => {
      const names = new Set(current?.names).add(this.lockName);
      const holding = { names };
      try {
        return await held.run(holding, task);
      } finally {
        // Work `task` left running past the release takes the lock again.
        names.clear();
      }
    });
  }
}
