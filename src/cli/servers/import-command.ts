import { resolve } from 'node:path';
import { renderHuman } from '../render.js';
import { EXIT, UsageError } from '../usage-error.js';
import {
  AGENTS,
  agentConfigLocations,
  readAgentConfig,
  type Agent,
  type AgentConfigContext,
  type ImportCandidate,
} from './agent-configs.js';
import { serversFilePath, updateServers } from './config.js';
import { planImport } from './import-plan.js';
import { single, type ServersRun } from './run.js';

/**
 * `wallet servers import [<file>…] [--from <agent>]`: the named files, or every known agent file
 * that exists. All files are read and checked before anything is written.
 */
export async function importServers(
  { words, parsed, io, dataDir, style, json }: ServersRun,
  context: AgentConfigContext,
): Promise<number> {
  const from = single(parsed, 'from');
  if (from !== undefined && !(AGENTS as readonly string[]).includes(from)) {
    throw new UsageError(`--from must be one of ${AGENTS.join(', ')}; got '${from}'.`);
  }
  const read: { path: string; agent?: Agent }[] = [];
  const notes: string[] = [];
  const candidates: ImportCandidate[] = [];
  if (words.length > 0) {
    for (const file of words) {
      const path = resolve(context.cwd, file);
      const found = await readAgentConfig(path, context, from as Agent | undefined);
      if (found === undefined) throw new UsageError(`${path} does not exist; nothing was imported.`);
      if (!found.hasServers)
        throw new UsageError(
          `${path} has no servers ("mcpServers", "servers" or "mcp_servers"); nothing was imported.`,
          'Is it the config file of an agent (Claude Desktop, Claude Code, Cursor, VS Code, Codex, Gemini CLI)?',
        );
      read.push({ path, ...(from === undefined ? {} : { agent: from as Agent }) });
      candidates.push(...found.candidates);
    }
  } else {
    const locations = agentConfigLocations(context, from as Agent | undefined);
    for (const location of locations) {
      const found = await readAgentConfig(location.path, context, location.agent);
      if (found === undefined) continue;
      read.push(location);
      if (!found.hasServers) notes.push(`${location.path} has no servers.`);
      candidates.push(...found.candidates);
    }
    if (read.length === 0) {
      io.stderr.write(
        `No agent config found. Looked for:\n${locations.map((location) => `  ${location.path}\n`).join('')}`,
      );
      io.stderr.write('Name a file to import it: wallet servers import <file>\n');
    }
  }
  for (const file of read) io.stderr.write(`Read ${file.path}${file.agent ? ` (${file.agent})` : ''}\n`);
  for (const note of notes) io.stderr.write(`${note}\n`);
  // Planned against the file as it is under the lock: a server another process saved meanwhile stays.
  const plan = await updateServers(dataDir, (existing) => {
    const planned = planImport(existing, candidates, parsed['overwrite'] === true);
    return { servers: planned.changed ? planned.servers : undefined, result: planned };
  });
  if (json) {
    const imported = plan.outcomes.flatMap((outcome) => (outcome.result === 'skipped' ? [] : [outcome]));
    const skipped = plan.outcomes.flatMap((outcome) => (outcome.result === 'skipped' ? [outcome] : []));
    io.stdout.write(JSON.stringify({ file: serversFilePath(dataDir), read, imported, skipped }, null, 2) + '\n');
    return EXIT.ok;
  }
  if (plan.outcomes.length > 0) {
    const rows = plan.outcomes.map((outcome) => ({
      name: outcome.name,
      result: outcome.result,
      note:
        outcome.result === 'skipped'
          ? outcome.reason
          : outcome.transport + (outcome.ignoredKeys.length > 0 ? `; left out: ${outcome.ignoredKeys.join(', ')}` : ''),
      from: outcome.source,
    }));
    io.stdout.write(renderHuman(rows, style));
  } else if (read.length > 0) {
    io.stderr.write('No servers in these files.\n');
  }
  const count = (result: string): number => plan.outcomes.filter((outcome) => outcome.result === result).length;
  if (plan.outcomes.length > 0) {
    io.stderr.write(
      `${count('imported')} imported, ${count('replaced')} replaced, ${count('skipped')} skipped` +
        (plan.changed ? `; saved in ${serversFilePath(dataDir)}\n` : '; nothing to save\n'),
    );
  }
  return EXIT.ok;
}
