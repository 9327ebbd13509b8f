/**
 * Builds the dashboard client (src/ui/client: TypeScript modules and app.css) into the two
 * assets the page loads, app.js and app.css, in memory: esbuild, bundled and minified for
 * the browser, nothing fetched from a CDN.
 *
 * Two callers, one build:
 * - from source (tsx, vitest: `npm test` needs no prior build), shell.tsx calls this on the
 *   first request for an asset, about 100 ms once per process;
 * - scripts/build.mjs calls it once and puts its answer in the place of this module in the
 *   production bundles (dist/main.js, dist/index.js): there the assets are two string
 *   constants, nothing is read from disk at run time and esbuild (a devDependency) is
 *   never loaded.
 */
import { fileURLToPath } from 'node:url';
import { buildSync } from 'esbuild';

export interface UiAssets {
  js: string;
  css: string;
}

export function buildUiAssets(): UiAssets {
  const { outputFiles } = buildSync({
    entryPoints: [fileURLToPath(new URL('./client/dashboard-main.ts', import.meta.url))],
    bundle: true,
    minify: true,
    platform: 'browser',
    format: 'iife',
    target: 'es2022',
    outdir: 'ui',
    write: false,
    legalComments: 'none',
    logLevel: 'silent',
    // The settings that matter are here, not in a tsconfig file (the image's build stage
    // copies src/ and scripts/ only).
    tsconfigRaw: { compilerOptions: { verbatimModuleSyntax: true } },
  });
  const text = (ext: string) => outputFiles.find((f) => f.path.endsWith(ext))?.text ?? '';
  return { js: text('.js'), css: text('.css') };
}
