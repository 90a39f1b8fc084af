import assert from 'node:assert/strict';
import {
  lstatSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { completionScript } from '../../src/cli/completion/index.js';
import { startEverythingHttp, type HttpServer } from '../helpers/everything-http.js';
import { tempHome, wallet } from '../helpers/io.js';
import { EVERYTHING_SERVER } from '../helpers/paths.js';
import { bashCompletions } from '../helpers/shells.js';

// @modelcontextprotocol/server-everything, the reference server: its static resources are the
// markdown files of its docs/ folder, its templates make text and blob resources from an id, and
// its prompts take arguments. Every answer below is compared with what the server itself holds.
const everything = `"${process.execPath}" "${EVERYTHING_SERVER}" stdio`;
const docs = join(dirname(EVERYTHING_SERVER), 'docs');
const TEXT_TEMPLATE = 'demo://resource/dynamic/text/{resourceId}';

type Listing = {
  resources: { uri: string; name: string; mimeType?: string }[];
  templates: { uriTemplate: string; name: string; mimeType?: string }[];
};

describe('wallet resources / resource: a server nobody here wrote (server-everything, stdio)', () => {
  it('lists resources and templates with their MIME types, as JSON and for people', async () => {
    const json = await wallet(['--server', everything, 'resources', '--json']);
    assert.equal(json.code, 0, json.stderr);
    const listing = JSON.parse(json.stdout) as Listing;
    const startup = listing.resources.find((resource) => resource.name === 'startup.md');
    assert.deepEqual(
      { uri: startup?.uri, mimeType: startup?.mimeType },
      { uri: 'demo://resource/static/document/startup.md', mimeType: 'text/markdown' },
    );
    assert.ok(listing.templates.some((template) => template.uriTemplate === TEXT_TEMPLATE));
    const human = await wallet(['--server', everything, 'resources']);
    assert.equal(human.code, 0, human.stderr);
    assert.match(human.stdout, /^Resources \(\d+\):/);
    assert.match(human.stdout, /demo:\/\/resource\/static\/document\/startup\.md +startup\.md +text\/markdown/);
    assert.match(human.stdout, /Resource templates \(\d+\):[\s\S]*demo:\/\/resource\/dynamic\/blob\/\{resourceId\}/);
  });

  it("prints a text resource to stdout exactly as the server's file holds it", async () => {
    const { code, stdout, stderr } = await wallet([
      '--server',
      everything,
      'resource',
      'demo://resource/static/document/startup.md',
    ]);
    assert.equal(code, 0, stderr);
    assert.equal(stdout, readFileSync(join(docs, 'startup.md'), 'utf8'));
  });

  it("fills a template from its variables' flags, given as the template or by its name", async () => {
    const byTemplate = await wallet(['--server', everything, 'resource', TEXT_TEMPLATE, '--resource-id', '7']);
    assert.equal(byTemplate.code, 0, byTemplate.stderr);
    assert.match(byTemplate.stdout, /^Resource 7: This is a plaintext resource created at /);
    const byName = await wallet(['--server', everything, 'resource', 'Dynamic Text Resource', '--resource-id', '8']);
    assert.equal(byName.code, 0, byName.stderr);
    assert.match(byName.stdout, /^Resource 8: /);
    const missing = await wallet(['--server', everything, 'resource', TEXT_TEMPLATE]);
    assert.equal(missing.code, 2);
    assert.match(missing.stderr, /Missing required flag: --resource-id/);
    const unknown = await wallet(['--server', everything, 'resource', TEXT_TEMPLATE, '--resource', '1']);
    assert.equal(unknown.code, 2);
    assert.match(unknown.stderr, /Unknown flag --resource for 'resource'/);
    const help = await wallet(['--server', everything, 'resource', TEXT_TEMPLATE, '--help']);
    assert.equal(help.code, 0, help.stderr);
    assert.match(help.stdout, /--resource-id <string> +\{resourceId\} in the URI template \[required\]/);
  });

  it('prints a binary resource only with --output (its bytes, owner-only) or as base64 with --json', async () => {
    const blob = 'demo://resource/dynamic/blob/{resourceId}';
    const refused = await wallet(['--server', everything, 'resource', blob, '--resource-id', '2']);
    assert.equal(refused.code, 2);
    assert.equal(refused.stdout, '');
    assert.match(refused.stderr, /is binary .*not printed/);
    assert.match(refused.stderr, /--output <file>/);
    const json = await wallet(['--server', everything, 'resource', blob, '--resource-id', '2', '--json']);
    assert.equal(json.code, 0, json.stderr);
    const [part] = (JSON.parse(json.stdout) as { contents: { uri: string; blob?: string }[] }).contents;
    assert.equal(part?.uri, 'demo://resource/dynamic/blob/2');
    assert.ok(typeof part.blob === 'string' && part.blob.length > 0);
    const dir = mkdtempSync(join(tmpdir(), 'wallet-resource-'));
    try {
      const file = join(dir, 'blob.bin');
      const written = await wallet(['--server', everything, 'resource', blob, '--resource-id', '2', '--output', file]);
      assert.equal(written.code, 0, written.stderr);
      assert.equal(written.stdout, '', 'stdout holds the result only: here, none');
      const bytes = readFileSync(file);
      // The server stamps the time into it: the same kind of bytes, decoded from base64.
      assert.match(bytes.toString('utf8'), /^Resource 2: This is a base64 blob created at /);
      assert.match(written.stderr, new RegExp(`wrote ${bytes.length} bytes`));
      assert.equal(statSync(file).mode & 0o777, 0o600);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('--output refuses an existing file unless --force, and never writes through a link', async () => {
    const blob = 'demo://resource/dynamic/blob/{resourceId}';
    const dir = mkdtempSync(join(tmpdir(), 'wallet-resource-'));
    const read = (file: string, ...more: string[]) =>
      wallet(['--server', everything, 'resource', blob, '--resource-id', '3', '--output', file, ...more]);
    try {
      // An existing file, readable by others: left as it is without --force.
      const existing = join(dir, 'existing.bin');
      writeFileSync(existing, 'keep me', { mode: 0o644 });
      const refused = await read(existing);
      assert.equal(refused.code, 2);
      assert.equal(refused.stdout, '');
      assert.match(refused.stderr, /--output .*existing\.bin exists; it was left as it is/);
      assert.match(refused.stderr, /--force/);
      assert.equal(readFileSync(existing, 'utf8'), 'keep me');
      // --force: replaced by a new owner-only file, the old mode not kept.
      const forced = await read(existing, '--force');
      assert.equal(forced.code, 0, forced.stderr);
      assert.match(readFileSync(existing, 'utf8'), /^Resource 3: This is a base64 blob/);
      assert.equal(statSync(existing).mode & 0o777, 0o600);
      // A link is never written through, --force or not; its target stays as it was.
      const target = join(dir, 'target.txt');
      writeFileSync(target, 'the target', { mode: 0o644 });
      const link = join(dir, 'link.bin');
      symlinkSync(target, link);
      for (const more of [[], ['--force']]) {
        const linked = await read(link, ...more);
        assert.equal(linked.code, 2, linked.stderr);
        assert.match(linked.stderr, /is a symbolic link; nothing is written through one/);
      }
      assert.equal(readFileSync(target, 'utf8'), 'the target');
      assert.ok(lstatSync(link).isSymbolicLink());
      // --force alone is a mistake; no temp file is left behind.
      const alone = await wallet(['--server', everything, 'resource', blob, '--resource-id', '3', '--force']);
      assert.equal(alone.code, 2);
      assert.match(alone.stderr, /--force goes with --output/);
      assert.deepEqual(readdirSync(dir).sort(), ['existing.bin', 'link.bin', 'target.txt']);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('refuses a name that is no resource, and the built-in server, which serves none', async () => {
    const unknown = await wallet(['--server', everything, 'resource', 'no-such-thing']);
    assert.equal(unknown.code, 2);
    assert.match(unknown.stderr, /'no-such-thing' is neither a URI nor the name of a resource or template/);
    const builtIn = await wallet(['resources']);
    assert.equal(builtIn.code, 2);
    assert.match(builtIn.stderr, /serves no resources/);
  });
});

describe('wallet prompts / prompt (server-everything, stdio)', () => {
  it('lists prompts with their arguments as flags', async () => {
    const human = await wallet(['--server', everything, 'prompts']);
    assert.equal(human.code, 0, human.stderr);
    assert.match(human.stdout, /args-prompt +--city --state\? +A prompt with two arguments/);
    assert.match(human.stdout, /resource-prompt +--resource-type --resource-id /);
    const json = await wallet(['--server', everything, 'prompts', '--json']);
    const { prompts } = JSON.parse(json.stdout) as { prompts: { name: string; arguments?: { name: string }[] }[] };
    assert.deepEqual(
      prompts.find((prompt) => prompt.name === 'args-prompt')?.arguments?.map((arg) => arg.name),
      ['city', 'state'],
    );
  });

  it('gets a prompt with its arguments from flags, for people and as JSON', async () => {
    const human = await wallet(['--server', everything, 'prompt', 'args-prompt', '--city', 'Paris', '--state', 'TX']);
    assert.equal(human.code, 0, human.stderr);
    assert.equal(human.stdout, "user:\nWhat's weather in Paris, TX?\n");
    const json = await wallet(['--server', everything, 'prompt', 'args-prompt', '--city', 'Oslo', '--json']);
    assert.equal(json.code, 0, json.stderr);
    assert.deepEqual(JSON.parse(json.stdout), {
      messages: [{ role: 'user', content: { type: 'text', text: "What's weather in Oslo?" } }],
    });
    const embedded = await wallet([
      'prompt',
      '--server',
      everything,
      'resource-prompt',
      '--resource-type',
      'Text',
      '--resource-id',
      '4',
    ]);
    assert.equal(embedded.code, 0, embedded.stderr);
    assert.match(embedded.stdout, /Resource 4: This is a plaintext resource/);
  });

  it('refuses a missing required argument, an unknown flag and an unknown prompt', async () => {
    const missing = await wallet(['--server', everything, 'prompt', 'args-prompt']);
    assert.equal(missing.code, 2);
    assert.match(missing.stderr, /Missing required flag: --city/);
    const unknown = await wallet(['--server', everything, 'prompt', 'args-prompt', '--town', 'x']);
    assert.equal(unknown.code, 2);
    assert.match(unknown.stderr, /Unknown flag --town for 'prompt args-prompt'/);
    const noSuch = await wallet(['--server', everything, 'prompt', 'args-promt']);
    assert.equal(noSuch.code, 2);
    assert.match(noSuch.stderr, /has no prompt 'args-promt'/);
    assert.match(noSuch.stderr, /Did you mean args-prompt/);
    const help = await wallet(['--server', everything, 'prompt', 'args-prompt', '--help']);
    assert.match(help.stdout, /A prompt with two arguments, one required and one optional/);
    assert.match(help.stdout, /--city <string> +Name of the city \[required\]/);
  });
});

describe('TAB completes URIs and prompt names from the lists the CLI cached', () => {
  it('offers the listed URIs after resource, the prompts after prompt, and their flags', async () => {
    const home = tempHome();
    const dir = mkdtempSync(join(tmpdir(), 'wallet-listing-completion-'));
    try {
      assert.equal((await wallet(['--server', everything, 'resources'], { home })).code, 0);
      assert.equal((await wallet(['--server', everything, 'prompts'], { home })).code, 0);
      const script = join(dir, 'wallet.bash');
      writeFileSync(script, completionScript('bash', []));
      const server = `wallet --server '${everything}'`;
      const [resources, prompts, promptFlags, templateFlags] = bashCompletions(
        script,
        [
          `${server} resource `,
          `${server} prompt `,
          `${server} prompt args-prompt --`,
          `${server} resource '${TEXT_TEMPLATE}' --`,
        ],
        { WALLET_HOME: home, PATH: process.env['PATH'] ?? '' },
        dir,
      );
      assert.ok(
        resources?.candidates.includes('demo://resource/static/document/startup.md'),
        String(resources?.candidates),
      );
      assert.ok(prompts?.candidates.includes('args-prompt'), String(prompts?.candidates));
      assert.ok(promptFlags?.candidates.includes('--city') && promptFlags.candidates.includes('--state'));
      assert.ok(templateFlags?.candidates.includes('--resource-id'), String(templateFlags?.candidates));
    } finally {
      rmSync(home, { recursive: true, force: true });
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('wallet --url: resources and prompts over Streamable HTTP (server-everything)', () => {
  let server: HttpServer;
  before(async () => {
    server = await startEverythingHttp();
  });
  after(async () => {
    await server.stop();
  });

  it('lists and reads resources and gets a prompt', async () => {
    const listing = await wallet(['--url', server.url, 'resources', '--json']);
    assert.equal(listing.code, 0, listing.stderr);
    assert.ok((JSON.parse(listing.stdout) as Listing).resources.some((resource) => resource.name === 'features.md'));
    const read = await wallet(['--url', server.url, 'resource', 'demo://resource/static/document/features.md']);
    assert.equal(read.code, 0, read.stderr);
    assert.equal(read.stdout, readFileSync(join(docs, 'features.md'), 'utf8'));
    const prompt = await wallet(['--url', server.url, 'prompt', 'simple-prompt']);
    assert.equal(prompt.code, 0, prompt.stderr);
    assert.match(prompt.stdout, /^user:\nThis is a simple prompt without arguments\./);
  });
});
