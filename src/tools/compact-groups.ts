/**
 * The tools of the compact profile (`wallet serve --profile compact`), declared: every tool names
 * the one it joins with its definition's `group`, so a new tool, even of a new object, cannot add
 * a compact tool by accident. At most {@link COMPACT_MAX_TOOLS}; a group's actions are its tools'
 * names less the domain (and less the object when it is the group's own: `core_wallets_list` ->
 * `list`, `core_message_sign` in `core_address` -> `message_sign`).
 */
export const COMPACT_GROUPS = {
  wallet_meta: 'Wallet meta',
  core_wallet: 'Dash wallet',
  core_address: 'Dash address',
  core_funds: 'Dash funds',
  evm_account: 'EVM account',
  evm_tx: 'EVM tx',
  evm_message: 'EVM message',
  platform_identity: 'Dash Platform',
} as const satisfies Readonly<Record<string, string>>;

/** The name of a compact tool, which a tool's definition names as its `group`. */
export type CompactGroup = keyof typeof COMPACT_GROUPS;

/** At most this many compact tools: the unit tier holds {@link COMPACT_GROUPS} to it. */
export const COMPACT_MAX_TOOLS = 8;

/** The compact tool of the meta tools (`network_info`, `tool_describe`, `get_tool_definition`). */
export const COMPACT_META_TOOL = 'wallet_meta' satisfies CompactGroup;
