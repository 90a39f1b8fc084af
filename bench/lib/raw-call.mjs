// The least a client can do to call one tool over stdio, as a floor for bench/server-call.mjs:
// spawn the server, `initialize` (2025-11-25), `notifications/initialized`, one `tools/call`,
// print the result's text, end the server's stdin and exit without waiting for it.
//
//   node bench/lib/raw-call.mjs '<server command line>' <tool> '<arguments JSON>'
import { spawn } from 'node:child_process';

const [commandLine, tool, argumentsJson] = process.argv.slice(2);
const [command, ...args] = commandLine.split(' ');
const server = spawn(command, args, { stdio: ['pipe', 'pipe', 'inherit'] });
const send = (message) => server.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', ...message })}\n`);
let buffer = '';
server.stdout.setEncoding('utf8').on('data', (chunk) => {
  buffer += chunk;
  for (let end = buffer.indexOf('\n'); end >= 0; end = buffer.indexOf('\n')) {
    const message = JSON.parse(buffer.slice(0, end));
    buffer = buffer.slice(end + 1);
    if (message.id === 1) {
      send({ method: 'notifications/initialized' });
      send({ id: 2, method: 'tools/call', params: { name: tool, arguments: JSON.parse(argumentsJson) } });
    } else if (message.id === 2) {
      if (message.error || message.result.isError) process.exitCode = 1;
      process.stdout.write(`${message.result?.content?.[0]?.text ?? JSON.stringify(message.error)}\n`);
      server.stdin.end();
      server.unref();
      server.stdout.destroy();
    }
  }
});
send({
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw-call', version: '0' } },
});
