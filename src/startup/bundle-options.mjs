// How the bundles are built (esbuild): src/startup/bundle.mjs builds dist/wallet.cjs, dist/serve.cjs
// and dist/ahead.cjs with these, and test/e2e/lazy-modules.test.ts a twin of dist/wallet.cjs that
// keeps its identifiers, where each lazy module still names its path; test/unit/lazy-sdk-schemas.test.ts
// checks the plugin that defers the MCP SDK's schemas.
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { dirname, join, sep } from 'node:path';
import { parse } from 'acorn';
import { build } from 'esbuild';

const root = join(import.meta.dirname, '..', '..');
const dist = join(root, 'dist');

// The MCP SDK's Node shims (the server's and the client's) import its Ajv validator statically,
// so every start initialised ajv and its formats, though the validator is built lazily and a CLI
// call never uses it (the server checks tools with zod; Ajv checks only an elicitation answer in
// `wallet serve`, and a `--server` session checks results with the interpreting validator). In
// the bundle each shim loads the SDK's own Ajv validator on its first use instead.
const sdkFile = (pkg, file) => join(root, 'node_modules', '@modelcontextprotocol', pkg, 'dist', file);
const LAZY_SHIMS = {
  server: `import process from 'node:process';\nexport { process };\n`,
  client: `export const CORS_IS_POSSIBLE = false;\n`,
};
const lazyAjv = {
  name: 'lazy-ajv',
  setup(build) {
    build.onResolve({ filter: /^@modelcontextprotocol\/(server|client)\/_shims$/ }, (args) => ({
      path: args.path.split('/')[1],
      namespace: 'lazy-ajv',
    }));
    build.onLoad({ filter: /.*/, namespace: 'lazy-ajv' }, (args) => ({
      resolveDir: root,
      loader: 'js',
      contents: `${LAZY_SHIMS[args.path]}export class DefaultJsonSchemaValidator {
  #ajv;
  getValidator(schema) {
    this.#ajv ??= new (require(${JSON.stringify(sdkFile(args.path, join('validators', 'ajv.mjs')))}).AjvJsonSchemaValidator)();
    return this.#ajv.getValidator(schema);
  }
}
`,
    }));
  },
};

// zod re-exports all of its ~50 translations of error messages as `z.locales`, and the bundle
// initialised every one on each start; zod itself configures English (`locales/en.js`), and
// nothing here or in the libraries bundled reads `z.locales`. The bundle keeps English only.
const englishOnly = {
  name: 'zod-english-only',
  setup(build) {
    build.onResolve({ filter: /^\.\.\/locales\/index\.js$/ }, (args) =>
      /[\\/]node_modules[\\/]zod[\\/]v4[\\/]/.test(args.importer)
        ? { path: join(args.resolveDir, '..', 'locales', 'index.js'), namespace: 'zod-english-only' }
        : undefined,
    );
    build.onLoad({ filter: /.*/, namespace: 'zod-english-only' }, (args) => ({
      resolveDir: dirname(args.path),
      loader: 'js',
      contents: `export { default as en } from './en.js';\n`,
    }));
  },
};

// The MCP SDK builds its protocol schemas with zod: 183 when its core package's schema and OAuth
// modules load (~15 ms of every start that loads its server or client), and each era's wire set
// (~140, ~7 ms) at the first request its server checks or its client sends in that era. A CLI
// call uses ~30 of the first and a few of the second. In the bundle each is a stand-in, built on
// first use (src/startup/lazy-schema.ts): every `const …Schema = <call>` at the top of those core
// modules, and at the top of the era builders (`function build…()`) of the server's and the
// client's main chunk, found with a parser (acorn), becomes
// `const …Schema = lazySchema(() => (<call>))`. Not an alias of another schema (`= OtherSchema`:
// it stays that schema, the same object), nor a `z.lazy(…)`, whose JSON Schema zod cannot convert
// through a stand-in. The main chunks also derive a few constants from schemas at their top
// (the keys an elicitation form's schema may have), which builds those schemas (~4 ms) for a
// check of an elicitation given as a zod schema: those named in `SCHEMA_DERIVED`, found as a
// top-level `const` whose value reads a property of a `…Schema` or passes one to a call (outside
// any function), are stand-ins too; one found and not named there fails the build, as a stand-in
// is fit only for an object (not a function, not a primitive). A build that finds none of those
// modules, or one without such a schema, fails rather than stay eager unnoticed.
const SDK_SCHEMA_MODULES =
  /[\\/]node_modules[\\/]@modelcontextprotocol[\\/](core[\\/]dist[\\/](schemas|auth)|(server|client)[\\/]dist[\\/]src)-[\w-]+\.mjs$/;
const ERA_BUILDER = /^build(\$\d+)?$/;
/** The methods a call chain calls, outermost first: `z.lazy(…).describe(…)` → describe, lazy. */
const chainMethods = (call) => {
  const names = [];
  for (let node = call; node?.type === 'CallExpression' && node.callee.type === 'MemberExpression';) {
    names.push(node.callee.property.name);
    node = node.callee.object;
  }
  return names;
};
/** Whether a call chain (`z.lazy(…).describe(…)`…) makes a `z.lazy` anywhere along it. */
const makesLazy = (call) => chainMethods(call).includes('lazy');
/** The top-level `const` declarations of a module's (or a function's) statements, `export`ed or not. */
const constDeclarations = (statements) =>
  statements
    .map((statement) => (statement.type === 'ExportNamedDeclaration' ? statement.declaration : statement))
    .filter((statement) => statement?.type === 'VariableDeclaration' && statement.kind === 'const')
    .flatMap((statement) => statement.declarations);
/**
 * Registers with `build` a check that fails it, with `message`, unless the returned function was
 * called while it ran: a plugin's way to notice the code it rewrites changed shape.
 */
const requireSeen = (build, message) => {
  let seen = false;
  build.onStart(() => {
    seen = false;
  });
  build.onEnd((result) => {
    if (result.errors.length === 0 && !seen) throw new Error(message);
  });
  return () => {
    seen = true;
  };
};
const isSchemaName = (node) => node?.type === 'Identifier' && /Schema(\$\d+)?$/.test(node.name);
const isSchemaCall = ({ id, init }) => isSchemaName(id) && init?.type === 'CallExpression' && !makesLazy(init);
/**
 * Whether evaluating `node` uses a schema: reads a property of one or passes one to a function
 * (not inside a function it defines, which runs later).
 */
const usesSchema = (node) => {
  if (node === null || typeof node !== 'object') return false;
  if (Array.isArray(node)) return node.some(usesSchema);
  if (/^(FunctionExpression|ArrowFunctionExpression|ClassExpression)$/.test(node.type)) return false;
  if (node.type === 'MemberExpression' && isSchemaName(node.object)) return true;
  if (/^(CallExpression|NewExpression)$/.test(node.type) && node.arguments.some(passesSchema)) return true;
  return Object.entries(node).some(([key, value]) => key !== 'type' && usesSchema(value));
};
/** An argument that is a schema, or an array holding one: `f(Schema)`, `f([OneSchema, OtherSchema])`. */
const passesSchema = (argument) =>
  isSchemaName(argument) || (argument.type === 'ArrayExpression' && argument.elements.some(isSchemaName));
/** The SDK's top-level constants derived from schemas that are deferred: Sets and a plain object. */
const SCHEMA_DERIVED = new Set(['ROOT_KEYS', 'PROPERTY_KEYS_BY_TYPE', 'SUPPORTED_STRING_FORMATS']);
/** Top-level constants computed from schemas: `const ROOT_KEYS = new Set(…Schema.shape…)`. */
const schemaDerived = (statements, path) =>
  constDeclarations(statements)
    .filter(({ id, init }) => id.type === 'Identifier' && !isSchemaName(id) && init && usesSchema(init))
    .map(({ id, init }) => {
      if (SCHEMA_DERIVED.has(id.name)) return init;
      throw new Error(
        `${path}: the constant ${id.name} is built from schemas as the module loads: check it is an object, then add it to SCHEMA_DERIVED`,
      );
    });
const schemaCalls = (statements) =>
  constDeclarations(statements)
    .filter(isSchemaCall)
    .map(({ init }) => init);
/** `source` with each of the `inits` (parsed expressions) built on first use, importing the helper. */
const deferred = (source, inits) => {
  let contents = source;
  for (const { start, end } of [...inits].sort((one, other) => other.start - one.start)) {
    contents = `${contents.slice(0, start)}__lazySchema(() => (${contents.slice(start, end)}))${contents.slice(end)}`;
  }
  const helper = JSON.stringify(join(dist, 'startup', 'lazy-schema.js'));
  return `import { lazySchema as __lazySchema } from ${helper};\n${contents}`;
};
export const lazySdkSchemas = {
  name: 'lazy-sdk-schemas',
  setup(build) {
    const sawCoreSchemas = requireSeen(
      build,
      "the bundle has not the MCP SDK's core schema module: update SDK_SCHEMA_MODULES",
    );
    build.onLoad({ filter: SDK_SCHEMA_MODULES }, async (args) => {
      const source = await readFile(args.path, 'utf8');
      const { body } = parse(source, { ecmaVersion: 'latest', sourceType: 'module' });
      // The core module matched ('schemas' or 'auth'); undefined for the server's or client's chunk.
      const coreModule = SDK_SCHEMA_MODULES.exec(args.path)?.[2];
      const schemas = coreModule
        ? schemaCalls(body)
        : body
            .filter((statement) => statement.type === 'FunctionDeclaration' && ERA_BUILDER.test(statement.id.name))
            .flatMap((builder) => schemaCalls(builder.body.body))
            .concat(schemaDerived(body, args.path));
      if (schemas.length === 0) throw new Error(`${args.path} has no schema to defer: the MCP SDK changed shape`);
      if (coreModule === 'schemas') sawCoreSchemas();
      return { contents: deferred(source, schemas), loader: 'js', resolveDir: dirname(args.path) };
    });
  },
};

// The wallet's own modules build zod schemas at their top too: the configuration's, the
// keystore's, the approvals', the spending ledger's… (~3 ms of each call, most of them unused by
// it). In the bundle each top-level `const X = z.…(…)` of a compiled module of src/cli, domain,
// mcp or shared (`export`ed or not; today the CLI's and the domain's have some) is a stand-in
// built on first use, as the SDK's are: not a `z.lazy`, nor a chain that ends in a value rather
// than a schema (`parse`, `toJSONSchema`…). One derived from another (`= Other.extend(…)`) or held
// in an object stays as written, and builds what it uses. Not src/tools: the catalogue converts the
// tools' schemas, and the fields they are made of, to JSON Schema, which zod cannot do through a
// stand-in for an optional, a default or a pipe (src/startup/lazy-schema.ts); a tool's own schemas
// are built on its first read already (src/tools/define.ts). A build where no module had one
// fails: the wallet's modules or the compiler's output changed shape.
const OWN_MODULES = /[\\/]dist[\\/](cli|domain|mcp|shared)[\\/][\w/\\.-]+\.js$/;
/** zod's calls that give a value, not a schema: never deferred (a stand-in is an object). */
const GIVES_VALUE =
  /^((safe)?(parse|encode|decode)(Async)?|spa|toJSONSchema|config|registry|prettifyError|treeifyError|flattenError|formatError)$/;
/** The identifier a call chain starts from: `z` for `z.string().min(1)` or `z.iso.datetime()`. */
const rootOf = (node) => {
  let root = node;
  while (root?.type === 'CallExpression' || root?.type === 'MemberExpression') {
    root = root.type === 'CallExpression' ? root.callee : root.object;
  }
  return root;
};
/** Whether any call along a chain (`z.string().parse(…)`, `z.toJSONSchema(…)`) gives a value. */
const givesValue = (call) => chainMethods(call).some((name) => GIVES_VALUE.test(name));
const isZodCall = ({ id, init }) =>
  id.type === 'Identifier' &&
  init?.type === 'CallExpression' &&
  rootOf(init)?.name === 'z' &&
  !makesLazy(init) &&
  !givesValue(init);
export const lazyOwnSchemas = {
  name: 'lazy-own-schemas',
  setup(build) {
    const deferredSome = requireSeen(
      build,
      "no module of the wallet's had a top-level zod schema to defer: update lazyOwnSchemas",
    );
    build.onLoad({ filter: OWN_MODULES }, async (args) => {
      // The project's own dist/, not a package's of the same layout.
      if (!args.path.startsWith(dist + sep)) return undefined;
      const source = await readFile(args.path, 'utf8');
      if (!/^import \{ z\b[^}]*\} from 'zod';$/m.test(source)) return undefined;
      const { body } = parse(source, { ecmaVersion: 'latest', sourceType: 'module' });
      const schemas = constDeclarations(body)
        .filter(isZodCall)
        .map(({ init }) => init);
      if (schemas.length === 0) return undefined;
      deferredSome();
      return { contents: deferred(source, schemas), loader: 'js', resolveDir: dirname(args.path) };
    });
  },
};

// What every bundle is built with. import.meta.url (package-info's way to find package.json)
// becomes the bundle's own URL. Modules reached only through `await import()` stay uninitialised
// until a command needs them. Identifiers are minified too: the bundle is a third smaller, and a
// start reads, copies and deserialises less (a tool call ~6 ms sooner, docs/PERFORMANCE.md). Names
// are not kept (esbuild's keepNames costs as much as it saves): the wallet's own errors set theirs
// and no behaviour rests on a function's (viem's getAction reads one, but every call passes the
// action's name too); some libraries name their errors after their class (jose, the SDK's OAuth
// flow errors), and in the bundle those names are short, as are the functions in stack frames.
const bundled = {
  bundle: true,
  platform: 'node',
  target: 'node20',
  format: 'cjs',
  banner: { js: "'use strict';\nconst __bundleUrl = require('node:url').pathToFileURL(__filename).href;" },
  minifyWhitespace: true,
  minifySyntax: true,
  minifyIdentifiers: true,
  legalComments: 'none',
  logLevel: 'warning',
  // Dash Platform's SDK (about 27 MB with its wasm) stays out of every bundle: its one
  // `await import()` (src/domain/platform/sdk.ts) loads it from node_modules on a Platform call only.
  external: ['@dashevo/evo-sdk'],
};

// Libraries only a few commands need are bundled on their own, each into a file of dist/ the
// bundles require from beside themselves, so that every other start reads and deserialises less
// (docs/STARTUP.md) and the package still ships them (it has no dependencies to install):
// - dist/webauthn.cjs: the WebAuthn library (with its ASN.1 and CBOR parsers, a third of the
//   bundle), for the approval page's passkey ceremonies alone (src/mcp/page/passkey.ts);
// - dist/pg.cjs: node-postgres, for a PostgreSQL state store alone (src/domain/state/pg/client.ts);
// - dist/viem.cjs: viem (with ox and abitype), for the EVM calls that sign, send or read a chain;
// - dist/x402.cjs: the x402 client libraries, for evm_x402_fetch alone (src/domain/x402/);
// - dist/jose.cjs: the MCP SDK's JOSE library, for OAuth of an HTTP server alone;
// - dist/qrcode.cjs and dist/ora.cjs: `--qr` and the spinner of a terminal.
// `modules` maps each specifier the bundles import to the name the file exports it under: one
// file may hold several entry points of a package (viem and viem/accounts share their code).
const BESIDE = [
  {
    file: 'webauthn.cjs',
    modules: { '@simplewebauthn/server': 'server', '@simplewebauthn/server/helpers': 'helpers' },
  },
  // pg-native is node-postgres's optional native driver, which the wallet never asks for.
  { file: 'pg.cjs', modules: { pg: 'pg' }, external: ['pg-native'] },
  {
    file: 'x402.cjs',
    modules: {
      '@x402/core/client': 'coreClient',
      '@x402/evm/exact/client': 'evmExactClient',
      '@x402/evm/v1': 'evmV1',
      '@x402/fetch': 'fetch',
    },
  },
  // After x402.cjs, whose imports of viem it serves too.
  { file: 'viem.cjs', modules: { viem: 'viem', 'viem/accounts': 'accounts' } },
  { file: 'jose.cjs', modules: { jose: 'jose' } },
  { file: 'qrcode.cjs', modules: { qrcode: 'qrcode' } },
  { file: 'ora.cjs', modules: { ora: 'ora' } },
];
// Each import of such a library becomes a small CommonJS module of the bundle that requires the
// file: so `await import('pg')` stays lazy and becomes a require() (an import() would fail in the
// vm.Script bin/wallet.js runs the bundle in), and a static import is a require() when its module
// initialises (a module reached by `await import()` initialises on first use). A file beside
// requires another the same way (x402's viem is dist/viem.cjs).
/** The files of dist/ the bundles require from beside themselves (a twin of a bundle needs them too). */
export const FILES_BESIDE = BESIDE.map(({ file }) => file);

/**
 * The modules that imported each specifier of {@link BESIDE} in the builds so far (the bundles,
 * then each file beside, in order): a file beside exports only the names they import, so esbuild
 * drops the rest of the library (viem whole is three times what the wallet and x402 use).
 */
const importers = new Map();
/**
 * The names `importer` (a path) imports from `specifier`, or undefined when it takes the whole
 * module (`import * as`, `export *`, a default, or an `import()`).
 */
const namesImported = (importer, specifier) => {
  const source = readFileSync(importer, 'utf8');
  const { body } = parse(source, { ecmaVersion: 'latest', sourceType: 'module' });
  const names = new Set();
  let whole = new RegExp(`import\\(\\s*['"]${escapeRegex(specifier)}['"]`).test(source);
  for (const statement of body) {
    if (!/^(Import|ExportNamed|ExportAll)Declaration$/.test(statement.type) || statement.source?.value !== specifier)
      continue;
    if (statement.type === 'ExportAllDeclaration') whole = true;
    for (const item of statement.specifiers ?? []) {
      const imported =
        item.type === 'ImportSpecifier' ? item.imported : item.type === 'ExportSpecifier' ? item.local : undefined;
      if (imported === undefined || imported.name === 'default') whole = true;
      else names.add(imported.name);
    }
  }
  return whole ? undefined : names;
};
/**
 * A whole module, marked as an ES module's namespace, so that the bundle's `await import()` of it
 * takes its `default` as the module's default export (ora), not the namespace itself.
 */
const whole = (specifier, name) =>
  `import * as ${name}_all from ${JSON.stringify(specifier)};\nexport const ${name} = { __esModule: true, ...${name}_all };\n`;
/** What a file beside holds for one specifier: `export * as name`, or an object of the names used. */
const entryOf = (specifier, name) => {
  const names = new Set();
  // No build seen importing it (the files beside built alone): the whole module.
  if (!importers.has(specifier)) return whole(specifier, name);
  for (const importer of importers.get(specifier)) {
    const used = namesImported(importer, specifier);
    if (used === undefined) return whole(specifier, name);
    for (const used_ of used) names.add(used_);
  }
  const list = [...names].sort();
  const locals = list.map((used, i) => `${used} as ${name}_${i}`).join(', ');
  const fields = list.map((used, i) => `${used}: ${name}_${i}`).join(', ');
  return `import { ${locals} } from ${JSON.stringify(specifier)};\nexport const ${name} = { ${fields} };\n`;
};

const escapeRegex = (text) => text.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
/** The plugin that sends each import of a library of `beside` to its file. */
const librariesBeside = (beside = BESIDE) => ({
  name: 'libraries-beside',
  setup(build) {
    for (const { file, modules } of beside) {
      for (const [specifier, name] of Object.entries(modules)) {
        build.onResolve({ filter: new RegExp(`^${escapeRegex(specifier)}$`) }, (args) => {
          if (!importers.has(specifier)) importers.set(specifier, new Set());
          importers.get(specifier).add(args.importer);
          return { path: `${file}#${name}`, namespace: 'beside' };
        });
      }
    }
    build.onLoad({ filter: /.*/, namespace: 'beside' }, (args) => {
      const [file, name] = args.path.split('#');
      return {
        contents: `module.exports = require(${JSON.stringify(`./${file}`)})[${JSON.stringify(name)}];`,
        loader: 'js',
      };
    });
    build.onResolve({ filter: /^\.\/[a-z0-9]+\.cjs$/, namespace: 'beside' }, (args) => ({
      path: args.path,
      external: true,
    }));
  },
});

/**
 * The files of {@link BESIDE}: each library as one CommonJS module whose exports are its entry
 * points' module objects, by name. What one of them imports of another library beside (x402's
 * viem) is required from that file.
 */
export async function buildLibrariesBeside() {
  for (const { file, modules, external = [] } of BESIDE) {
    const contents = Object.entries(modules)
      .map(([specifier, name]) => entryOf(specifier, name))
      .join('');
    await buildAndWrite({
      ...bundled,
      stdin: { contents, resolveDir: join(dist, '..'), loader: 'js' },
      banner: undefined,
      external,
      plugins: [librariesBeside(BESIDE.filter((other) => other.file !== file))],
      outfile: join(dist, file),
    });
  }
}

/**
 * Builds in memory, and writes the bundle only when the build and every plugin's check passed: a
 * refused build leaves no new bundle (esbuild writes before its end callbacks run).
 */
async function buildAndWrite(options) {
  const { outputFiles } = await build({ ...options, write: false });
  for (const file of outputFiles) {
    mkdirSync(dirname(file.path), { recursive: true });
    writeFileSync(file.path, file.contents);
  }
}

/**
 * The CLI's bundle (entry `main.js`) or `wallet serve`'s (`serve-main.js`), from the compiled
 * modules in dist/cli, stamped with the build's digests (src/tools/definitions-digest.ts and
 * src/startup/schema-record.ts). `keepIdentifiers` builds the lazy-modules test's twin.
 */
export function buildBundle(
  entry,
  outfile,
  { definitionsDigest, schemaRecordDigest },
  { keepIdentifiers = false } = {},
) {
  return buildAndWrite({
    ...bundled,
    minifyIdentifiers: !keepIdentifiers,
    entryPoints: [join(dist, 'cli', entry)],
    plugins: [lazyAjv, englishOnly, lazySdkSchemas, lazyOwnSchemas, librariesBeside()],
    // jsonc-parser's main file is UMD, whose inner require() calls esbuild cannot follow (the
    // bundle would ask Node for './impl/format' at run time): its ES module build instead.
    alias: { 'jsonc-parser': 'jsonc-parser/lib/esm/main.js' },
    outfile,
    define: {
      'import.meta.url': '__bundleUrl',
      WALLET_BUILD_ID: JSON.stringify(buildId()),
      WALLET_DEFINITIONS_CHECKED_AT_BUILD: 'true',
      WALLET_DEFINITIONS_DIGEST: JSON.stringify(definitionsDigest),
      WALLET_SCHEMA_RECORD_DIGEST: JSON.stringify(schemaRecordDigest),
    },
  });
}

/** dist/ahead.cjs, built from the same modules the CLI resolves its server with. */
export function buildAheadBundle() {
  return buildAndWrite({
    ...bundled,
    entryPoints: [join(dist, 'startup', 'ahead.js')],
    plugins: [englishOnly],
    outfile: join(dist, 'ahead.cjs'),
    define: { 'import.meta.url': '__bundleUrl' },
  });
}

/**
 * dist/daemon-client.cjs: what bin/wallet.js runs first for `--server <name>` (src/cli/daemon/client.ts).
 * Its one use of `import.meta.url` is `createRequire`, which takes a path as well: `__filename`,
 * without the file URL the other bundles make at their start (~0.3 ms of a warm call).
 */
export function buildDaemonClientBundle() {
  return buildAndWrite({
    ...bundled,
    banner: { js: "'use strict';" },
    entryPoints: [join(dist, 'cli', 'daemon', 'client.js')],
    plugins: [englishOnly],
    outfile: join(dist, 'daemon-client.cjs'),
    define: { 'import.meta.url': '__filename', WALLET_BUILD_ID: JSON.stringify(buildId()) },
  });
}

let buildIdMemo;

/**
 * The build's identity, baked into the CLI's bundles and dist/daemon-client.cjs (`WALLET_BUILD_ID`,
 * src/cli/daemon/wire.ts): a digest of what they are built from (every module tsc wrote under
 * dist/, the package's manifest and lock, and this file's options). The kept-alive servers'
 * daemon answers a client of another build by ending, for one of the client's build to start:
 * a wallet rebuilt or upgraded in place with its version unchanged does not keep running old code
 * in a daemon. The same sources rebuilt give the same identity (no restart for nothing).
 */
export function buildId() {
  if (buildIdMemo !== undefined) return buildIdMemo;
  const hash = createHash('sha256');
  const modules = (folder) =>
    readdirSync(folder, { withFileTypes: true }).flatMap((entry) => {
      const path = join(folder, entry.name);
      if (entry.isDirectory()) return modules(path);
      return entry.isFile() && entry.name.endsWith('.js') ? [path] : [];
    });
  const folders = readdirSync(dist, { withFileTypes: true }).filter((entry) => entry.isDirectory());
  const files = [
    ...folders.flatMap((entry) => modules(join(dist, entry.name))).sort(),
    join(root, 'package.json'),
    join(root, 'package-lock.json'),
    join(import.meta.dirname, 'bundle-options.mjs'),
  ];
  for (const file of files) {
    if (!existsSync(file)) continue;
    hash
      .update(`${file.slice(root.length)}\0`)
      .update(readFileSync(file))
      .update('\0');
  }
  buildIdMemo = hash.digest('hex').slice(0, 24);
  return buildIdMemo;
}
