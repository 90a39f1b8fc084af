/** A login is needed and cannot start here (no terminal, no `$BROWSER`): the message says what to run. */
export class LoginRequiredError extends Error {
  override name = 'LoginRequiredError';
}

/** The browser came back without a code, or with another login's state. */
export class LoginFailedError extends Error {
  override name = 'LoginFailedError';
}

/**
 * The MCP server names another authorization server than the one its login was made at: the
 * client's credentials are not taken there without a new `servers login`.
 */
export class AuthorizationServerChanged extends Error {
  override name = 'AuthorizationServerChanged';
}

/**
 * The SDK's text for an authorization server's failing answer that is no OAuth error quotes the
 * answer whole (`HTTP 502: Invalid OAuth error response: … Raw body: …`), and a careless server's
 * error page may repeat the form it got: an assertion, a client secret, a refresh token. What
 * follows `Raw body:` is never repeated.
 */
export function withoutRawBody(text: string): string {
  const at = text.indexOf('Raw body:');
  return at === -1 ? text : `${text.slice(0, at)}(its body not shown)`;
}

/** The status of the SDK's error for an answer that is no OAuth error, if `message` is one. */
export function invalidOAuthAnswerStatus(message: string): string | undefined {
  const match = /^(?:HTTP (\d+): )?Invalid OAuth error response/.exec(message);
  return match ? (match[1] ?? 'an unknown status') : undefined;
}
