import type { z } from 'zod';
import type { ProgressReporter } from '../domain/net/chain-backend.js';
import type { AuditFields } from '../domain/policy/audit-log.js';
import type { ApprovedPlan, Authority } from '../domain/policy/authority.js';
import type { WalletServices } from '../domain/services.js';
import type { ToolCatalogue } from './catalogue.js';
import type { CompactGroup } from './compact-groups.js';

/** The four MCP behaviour hints, each set deliberately: none may be left to a client's default. */
export type ToolAnnotations = {
  /** Changes nothing anywhere. */
  readOnlyHint: boolean;
  /** Spends funds or deletes data. */
  destructiveHint: boolean;
  /** Calling twice with the same input has no further effect. */
  idempotentHint: boolean;
  /** Talks to a network (a node, an explorer). */
  openWorldHint: boolean;
};

/** See {@link ToolDefinition.feeField}. */
type FeeField = {
  readonly field: string;
  readonly atMost?: boolean;
  /**
   * The input that caps the fee, in the same unit (`max_fee_duffs`), where it is not `field`
   * itself: an approved call runs with it lowered to the fee shown (src/mcp/consent.ts).
   */
  readonly cap?: string;
};

/** See {@link ToolDefinition.consent}. */
type Consent = 'policy' | 'human';

/** What a handler gets besides its input: the wallet's services and the tools this server serves. */
export type ToolContext = {
  services: WalletServices;
  /** The tools served by the server handling this call (the meta tools describe these). */
  catalogue: ToolCatalogue;
  /** Aborted when the caller cancels the call. */
  signal: AbortSignal;
  /** Reports the progress of a long call (a scan) to the caller, when it asked for progress. */
  progress: ProgressReporter;
  /**
   * Who stands behind this call: a person's yes (`terminal`, `client`) or `agent` (an agent alone,
   * in `wallet serve`; see src/domain/policy/authority.ts). Every domain call that signs or deletes takes it: the policy decides what an
   * agent may do alone.
   */
  authority: Authority;
  /**
   * With a human yes given in `wallet serve` (elicitation or an out-of-band approval): the plan that
   * human was shown (its dry run's recipient, amount and token), which a tool whose payee and price
   * come from a server rather than its arguments (evm_x402_fetch) must not depart from.
   */
  approvedPlan?: ApprovedPlan;
};

/** One tool, defined once: every surface (MCP, CLI, completions, docs) is generated from it. */
export type ToolDefinition<Input extends z.ZodObject, Output extends z.ZodObject> = {
  /** `domain_object_action` (see `src/shared/naming.ts`). */
  name: string;
  /**
   * The compact profile's tool this tool is an action of (declared in `compact-groups.ts`): a new
   * object joins a group that exists, so the compact profile keeps its size.
   */
  group: CompactGroup;
  /** A human label. */
  title: string;
  /** At most 60 characters: the MCP `description` that agents keep in context. */
  summary: string;
  /** The full text, with examples and caveats: `tool_describe` and `wallet <cmd> --help`. */
  description: string;
  /**
   * Builds the input schema: a strict object, every field `.describe()`d. Called once, on the
   * tool's first use (a call uses one tool: building every tool's schemas was a tenth of a call).
   */
  input: () => Input;
  /** Builds the output schema, once, on first use: an object, every field `.describe()`d. Amounts are strings. */
  output: () => Output;
  annotations: ToolAnnotations;
  /** Reveals or accepts a secret: the local CLI serves it, `wallet serve` never does. */
  localOnly?: boolean;
  /**
   * What a call needs in `wallet serve` before it signs or deletes (required of every destructive
   * tool and of every tool that uses a private key): `policy`, the owner's policy decides in the
   * domain whether an agent may do it alone (a spend within the `autonomous` caps), else a human
   * yes; `human`, always a human yes (deleting a wallet, signing a message).
   */
  consent?: Consent;
  /** The output field holding an address to receive funds at: the CLI also shows it as a QR code. */
  receiveAddressField?: string;
  /**
   * The optional boolean input field that makes the tool only plan, signing and sending nothing:
   * confirmations show that plan first. Declared, never guessed from a field's name.
   */
  dryRunField?: string;
  /**
   * The output field of a plan (the dry run) holding its fee, in a unit the field declares:
   * confirmations show it, as the fee or, with `atMost`, the most the fee can be.
   */
  feeField?: FeeField;
  /**
   * The required boolean output field that says whether the tool's check passed (`valid`): the
   * CLI exits 1 when it is false. Declared, never guessed from a field's name.
   */
  checkField?: string;
  /**
   * What a call that succeeded did, for its audit-log line: `signed` (a transaction signed, not
   * broadcast) or `sent` (broadcast). A call with the `dryRunField` set is `dry_run`; a tool
   * without `outcome` is `ok`. Declared, never read from the names of its audit fields. A tool
   * whose call may or may not move value (a fetch that pays only when asked to) declares it as a
   * function of its result.
   */
  outcome?: 'signed' | 'sent' | ((output: z.output<Output>) => 'signed' | 'sent' | 'ok');
  /**
   * For a tool with `consent` and no dry run: what its call would refuse (a wallet that does not
   * exist, a confirmation that does not match), checked with no side effect before `wallet serve`
   * asks a human or files an approval, so nobody is asked to approve a call bound to fail. Throws
   * the WalletError the handler would; the handler checks again.
   */
  precheck?: (input: z.output<Input>, context: ToolContext) => Promise<void>;
  /** Validate -> resolve -> one domain call -> reshape. No business logic here. */
  handler: (input: z.output<Input>, context: ToolContext) => Promise<z.input<Output>>;
  /**
   * The fields of the audit-log line of a call, named one by one (never a secret, never the raw
   * arguments); `output` is undefined when the call failed, and `failure` is then what it threw
   * (a payment signed before the call failed says there what it signed). Required of every
   * destructive tool. It may be async: a tool whose domain module is loaded on first use reads it
   * from there.
   */
  audit?: (
    input: z.output<Input>,
    output: z.output<Output> | undefined,
    failure?: unknown,
  ) => AuditFields | Promise<AuditFields>;
};

/** A tool with its types erased, as the registry and the MCP server handle it; its schemas are built on first read. */
export type AnyTool = {
  readonly name: string;
  readonly group: CompactGroup;
  readonly title: string;
  readonly summary: string;
  readonly description: string;
  readonly input: z.ZodObject;
  readonly output: z.ZodObject;
  readonly annotations: ToolAnnotations;
  readonly localOnly?: boolean;
  readonly consent?: Consent;
  readonly receiveAddressField?: string;
  readonly dryRunField?: string;
  readonly feeField?: FeeField;
  readonly checkField?: string;
  readonly outcome?: 'signed' | 'sent' | ((output: unknown) => 'signed' | 'sent' | 'ok');
  readonly precheck?: (input: unknown, context: ToolContext) => Promise<void>;
  readonly handler: (input: unknown, context: ToolContext) => Promise<unknown>;
  readonly audit?: (input: unknown, output: unknown, failure?: unknown) => AuditFields | Promise<AuditFields>;
};

/**
 * Defines a tool. Types flow from the zod schemas into the handler here, and are erased once,
 * on return, so that lists of tools of different shapes stay cheap for the compiler. The schemas
 * are built when `input` or `output` is first read, and kept.
 *
 * @example
 * export const networkInfo = defineTool({
 *   name: 'network_info', title: 'Network info', summary: 'List configured networks',
 *   description: '…', input: () => z.strictObject({}), output: () => z.object({ … }),
 *   annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
 *   handler: async (_input, { services }) => …,
 * });
 */
export function defineTool<Input extends z.ZodObject, Output extends z.ZodObject>(
  definition: ToolDefinition<Input, Output>,
): AnyTool {
  const { input, output, ...rest } = definition;
  let inputSchema: Input | undefined;
  let outputSchema: Output | undefined;
  // The handler is only ever called with `input.parse(...)`'s result (see src/tools/invoke.ts),
  // which is exactly `z.output<Input>`: the one place where the erased type is sound by construction.
  const tool = Object.defineProperties(rest, {
    input: { enumerable: true, get: () => (inputSchema ??= (built.add(tool), input())) },
    output: { enumerable: true, get: () => (outputSchema ??= (built.add(tool), output())) },
  }) as unknown as AnyTool;
  return tool;
}

const built = new WeakSet<AnyTool>();

/** Whether a tool's schemas have been built (read) in this process: a call builds its own tool's only. */
export function schemasBuilt(tool: AnyTool): boolean {
  return built.has(tool);
}
