import { ToolCatalogue } from './catalogue.js';
import type { AnyTool } from './define.js';
import type { Profile } from '../shared/profiles.js';
import { ALL_TOOLS } from './registry.js';

export type ServedToolsOptions = {
  /** Include tools that reveal or accept secrets: only the local CLI does. */
  localOnly: boolean;
  /** Only tools whose annotations say read-only (`wallet serve --read-only`). */
  readOnly: boolean;
  /** How tools/list shows them (`wallet serve --profile`); `default` when not given. */
  profile?: Profile | undefined;
};

/** The catalogue a server serves: all tools, less the local-only ones unless asked, less writers when read-only. */
export function servedTools(options: ServedToolsOptions, tools: readonly AnyTool[] = ALL_TOOLS): ToolCatalogue {
  return new ToolCatalogue(
    tools.filter(
      (tool) => (options.localOnly || tool.localOnly !== true) && (!options.readOnly || tool.annotations.readOnlyHint),
    ),
    options.profile,
  );
}

export { ALL_TOOLS };
export { ToolCatalogue, definitionsDigest, describeTool, leanInputSchema } from './catalogue.js';
export * from './profiles.js';
export type { AnyTool, ToolContext } from './define.js';
