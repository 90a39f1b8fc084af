/**
 * Runs a CLI bundle with its lazy-module helpers instrumented and, at exit, prints on stderr one
 * line `BUNDLE_INITS <JSON array>`: every module the run initialised that the bundle keeps lazy
 * (esbuild's `__esm` and `__commonJS` wrappers, keyed by the module's path). What `main.js`
 * imports statically is not wrapped and not listed: it runs on every command. A second line,
 * `NODE_BUILTINS <JSON array>`, lists Node's own modules the process loaded.
 *
 *   node build/test/helpers/bundle-inits.js <bundle> <wallet arguments…>
 *
 * The bundle is a twin of dist/wallet.cjs that keeps its identifiers (the shipped one's are
 * minified, and with them the paths), built by src/startup/bundle-options.mjs as the build does, from
 * the same compiled modules and stamps, to a path under the repository (the bundle finds its
 * package.json, and the build's records, by walking up):
 *
 *   node build/test/helpers/bundle-inits.js --twin <bundle>
 */
import { copyFileSync, readFileSync } from 'node:fs';
import { createRequire, Module } from 'node:module';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Script } from 'node:vm';
import { ROOT } from './paths.js';

export const INITS_MARKER = 'BUNDLE_INITS ';
/** The line that lists the Node built-in modules the run loaded (`crypto`, `fs/promises`…). */
export const BUILTINS_MARKER = 'NODE_BUILTINS ';
export const TWIN_FLAG = '--twin';

type BundleOptions = {
  FILES_BESIDE: string[];
  buildBundle: (
    entry: string,
    outfile: string,
    stamps: { definitionsDigest: string; schemaRecordDigest: string },
    options: { keepIdentifiers: boolean },
  ) => Promise<unknown>;
};

/**
 * esbuild's helpers as the bundle spells them (its second parameter's name varies with the
 * bundle's other names); the test fails loudly if esbuild changes them.
 */
const HELPERS = [
  [/var __esm=\(fn,res,err\)=>function\(\)\{/, () => 'if(fn)globalThis.__bundleInits.push(__getOwnPropNames(fn)[0]);'],
  [
    /var __commonJS=\(cb,(mod\d*)\)=>function\(\)\{/,
    (mod: string) => `if(!${mod})globalThis.__bundleInits.push(__getOwnPropNames(cb)[0]);`,
  ],
] as const;

const [bundle, ...argv] = process.argv.slice(2);
const isMain = import.meta.url === `file://${process.argv[1] ?? ''}`;
if (isMain && bundle === TWIN_FLAG && argv[0]) {
  const options = (await import(
    pathToFileURL(join(ROOT, 'src', 'startup', 'bundle-options.mjs')).href
  )) as BundleOptions;
  const { definitionsDigestOfBuild, schemaRecordOfBuild } = await import('../../src/tools/definitions-digest.js');
  const stamps = { definitionsDigest: definitionsDigestOfBuild(), schemaRecordDigest: schemaRecordOfBuild().digest };
  await options.buildBundle('main.js', argv[0], stamps, { keepIdentifiers: true });
  // The libraries the bundle requires from beside itself (npm run build made them).
  for (const file of options.FILES_BESIDE) copyFileSync(join(ROOT, 'dist', file), join(dirname(argv[0]), file));
} else if (isMain && bundle) {
  let source = readFileSync(bundle, 'utf8');
  for (const [helper, probe] of HELPERS) {
    const found = helper.exec(source);
    if (!found) throw new Error(`${bundle} has no \`${helper.source}\`: esbuild's output changed`);
    source = source.replace(found[0], found[0] + probe(found[1] ?? ''));
  }
  const inits: string[] = [];
  Object.assign(globalThis, { __bundleInits: inits });
  const module_ = { exports: {} as { runCli: (argv: string[]) => Promise<number> } };
  const run = new Script(Module.wrap(source), { filename: bundle }).runInThisContext() as (...args: unknown[]) => void;
  run(module_.exports, createRequire(bundle), module_, bundle, dirname(bundle));
  process.on('exit', () => {
    // Node's own record of what it loaded (not in its typings, there since its early versions).
    const { moduleLoadList } = process as unknown as { moduleLoadList: string[] };
    const builtins = moduleLoadList.flatMap((entry) => /^NativeModule (.*)$/.exec(entry)?.[1] ?? []);
    process.stderr.write(`\n${INITS_MARKER}${JSON.stringify(inits)}\n${BUILTINS_MARKER}${JSON.stringify(builtins)}\n`);
  });
  process.exitCode = await module_.exports.runCli(argv);
}
