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
