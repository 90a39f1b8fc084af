import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { build, type Plugin } from 'esbuild';
import { ROOT } from './paths.js';

/** The build's plugins that defer schemas (src/startup/bundle-options.mjs). */
type SchemaPlugin = 'lazySdkSchemas' | 'lazyOwnSchemas';

/**
 * Bundles `contents` (an entry module's source, resolved from the repository) as the bundles are
 * built, with one of the build's plugins, to `build/<name>.cjs`, and loads it: its exports and its
 * source. import.meta.url becomes the bundle's own URL, as in the bundles.
 *
 * @example
 * const { exports } = await bundleWithPlugin('lazySdkSchemas', "export * from 'zod';", 'plugin/zod');
 */
export async function bundleWithPlugin<T>(
  plugin: SchemaPlugin,
  contents: string,
  name: string,
): Promise<{ exports: T; source: string }> {
  const plugins = (await import(pathToFileURL(join(ROOT, 'src', 'startup', 'bundle-options.mjs')).href)) as Record<
    SchemaPlugin,
    Plugin
  >;
  const outfile = join(ROOT, 'build', `${name}.cjs`);
  await build({
    stdin: { contents, resolveDir: ROOT, loader: 'js' },
    bundle: true,
    platform: 'node',
    format: 'cjs',
    outfile,
    banner: { js: "const __bundleUrl = require('node:url').pathToFileURL(__filename).href;" },
    define: { 'import.meta.url': '__bundleUrl' },
    plugins: [plugins[plugin]],
    logLevel: 'silent',
  });
  return { exports: createRequire(import.meta.url)(outfile) as T, source: readFileSync(outfile, 'utf8') };
}
