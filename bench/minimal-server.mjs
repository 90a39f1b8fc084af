// The baseline of bench/server-throughput.mjs: the smallest MCP server the SDK the wallet uses
// (@modelcontextprotocol/server v2) makes, with one trivial tool. It answers on stdio like
// `wallet serve`, so the difference between the two is what the wallet adds per call.
//
//   node bench/minimal-server.mjs            serveStdio(factory): the SDK entry `wallet serve` uses
//   node bench/minimal-server.mjs --connect  McpServer.connect(new StdioServerTransport()), 2025 era only
import { McpServer } from '@modelcontextprotocol/server';
import { StdioServerTransport, serveStdio } from '@modelcontextprotocol/server/stdio';
import { z } from 'zod';

function createServer() {
  const server = new McpServer({ name: 'minimal', version: '0.0.0' }, { capabilities: { tools: {} } });
  server.registerTool(
    'ping_reply_get',
    {
      title: 'Ping',
      description: 'Answer with a constant object',
      inputSchema: z.strictObject({}),
      outputSchema: z.object({ ok: z.boolean().describe('Always true.') }),
      annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    },
    async () => {
      const output = { ok: true };
      return { content: [{ type: 'text', text: JSON.stringify(output) }], structuredContent: output };
    },
  );
  return server;
}

if (process.argv.includes('--connect')) {
  const transport = new StdioServerTransport();
  transport.onclose = () => process.exit(0);
  await createServer().connect(transport);
} else {
  serveStdio(createServer);
}
