/**
 * Our `_meta` keys on the wire. Clients other than ours may ignore them; our CLI reads them to show
 * full help and to carry error codes end to end.
 */

/**
 * Under `experimental` in a server's capabilities: the server itself gets a human yes (or the
 * owner's granted autonomy) before any destructive tool runs, so a client need not ask too.
 * `wallet serve` declares it; the CLI then leaves the confirmation to the server's question.
 * In a client's capabilities (the CLI declares it with elicitation, on a terminal): a person
 * answers, so such a server asks before every destructive call, within the autonomy too.
 */
export const CONSENT_CAPABILITY = 'wallet/consent';

/** Whether capabilities a server declared include {@link CONSENT_CAPABILITY}. */
export function declaresConsent(capabilities: { experimental?: unknown } | undefined): boolean {
  const experimental = capabilities?.experimental;
  if (typeof experimental !== 'object' || experimental === null) return false;
  const declared = (experimental as Record<string, unknown>)[CONSENT_CAPABILITY];
  return typeof declared === 'object' && declared !== null;
}

/** On each tools/list entry: the tool's full description (the MCP `description` is the short summary). */
export const FULL_DESCRIPTION_META_KEY = 'wallet/description';

/** A listed tool's full description: ours ride in `_meta`; any other server's is its `description`. */
export function fullDescriptionOf(tool: {
  description?: string | undefined;
  _meta?: Record<string, unknown> | undefined;
}): string {
  const full = tool._meta?.[FULL_DESCRIPTION_META_KEY];
  return typeof full === 'string' ? full : (tool.description ?? '');
}

/** On a tools/list entry: the output field holding a receive address, which the CLI shows as a QR code. */
export const RECEIVE_ADDRESS_META_KEY = 'wallet/receive-address-field';

export function receiveAddressFieldOf(tool: { _meta?: Record<string, unknown> | undefined }): string | undefined {
  const field = tool._meta?.[RECEIVE_ADDRESS_META_KEY];
  return typeof field === 'string' ? field : undefined;
}

/**
 * On a tools/list entry: the boolean input field that makes the tool only plan (sign and send
 * nothing). The CLI shows that plan before asking to confirm, and asks nothing when it is set.
 */
export const DRY_RUN_META_KEY = 'wallet/dry-run-field';

export function dryRunFieldOf(tool: { _meta?: Record<string, unknown> | undefined }): string | undefined {
  const field = tool._meta?.[DRY_RUN_META_KEY];
  return typeof field === 'string' ? field : undefined;
}

/**
 * On a tools/list entry: the boolean output field that says whether the tool's check passed (an
 * address is valid, a signature verifies). The CLI exits non-zero when it is false, as
 * `cast wallet verify` does; the result itself is printed unchanged.
 */
export const CHECK_FIELD_META_KEY = 'wallet/check-field';

export function checkFieldOf(tool: { _meta?: Record<string, unknown> | undefined }): string | undefined {
  const field = tool._meta?.[CHECK_FIELD_META_KEY];
  return typeof field === 'string' ? field : undefined;
}

/**
 * On the one tools/list entry that describes every tool (our `tool_describe`) when the list is
 * lean: the arguments that make it do so. Its result is `{ tools: [{ name, description,
 * output_schema, … }] }`; the CLI calls it once and keeps the full text and output schemas with
 * the tool list.
 */
export const DESCRIBE_ALL_META_KEY = 'wallet/describes-all';

/** The arguments that make a listed tool describe every tool, if it is the one that can. */
export function describeAllArgumentsOf(tool: {
  _meta?: Record<string, unknown> | undefined;
}): Record<string, unknown> | undefined {
  const args = tool._meta?.[DESCRIBE_ALL_META_KEY];
  return typeof args === 'object' && args !== null && !Array.isArray(args)
    ? (args as Record<string, unknown>)
    : undefined;
}

/**
 * Beside {@link DESCRIBE_ALL_META_KEY}: a digest of every tool's full definition (description,
 * schemas, units, hints) as the server's build recorded them. A client that completed a list with
 * the describing tool's answer may reuse that answer for a later list carrying the same digest
 * (and otherwise the same); a server whose build recorded none sends none, and is asked again.
 */
export const DEFINITIONS_DIGEST_META_KEY = 'wallet/definitions-digest';

export function definitionsDigestOf(tool: { _meta?: Record<string, unknown> | undefined }): string | undefined {
  const digest = tool._meta?.[DEFINITIONS_DIGEST_META_KEY];
  return typeof digest === 'string' && digest !== '' ? digest : undefined;
}

/** On each `isError` tool result: `{ code, message, hint? }`, the WalletError as data. */
export const ERROR_META_KEY = 'wallet/error';

/** `details`: facts to act on, as data (an approval's id, what it would sign). */
export type ToolErrorMeta = { code: string; message: string; hint?: string; details?: Record<string, unknown> };

export function readToolErrorMeta(meta: unknown): ToolErrorMeta | undefined {
  if (typeof meta !== 'object' || meta === null) return undefined;
  const value = (meta as Record<string, unknown>)[ERROR_META_KEY];
  if (typeof value !== 'object' || value === null) return undefined;
  const { code, message, hint, details } = value as Record<string, unknown>;
  if (typeof code !== 'string' || typeof message !== 'string') return undefined;
  return {
    code,
    message,
    ...(typeof hint === 'string' ? { hint } : {}),
    ...(typeof details === 'object' && details !== null && !Array.isArray(details)
      ? { details: details as Record<string, unknown> }
      : {}),
  };
}
