#!/usr/bin/env node
// Production build: one ESM bundle, dist/main.js, from src/main.ts.
// Bundling (rather than tsc's file-per-module output) cuts start-up from ~360 ms to ~250 ms
// on this machine, because Node resolves and loads one file instead of hundreds (zod, hono).
// better-sqlite3 (a native addon) and swagger-ui-dist (static assets read from its folder)
// stay external: both are production dependencies.
// zod's 50 message locales are left out (the sandbox speaks English: zod's default `en`
// stays): 360 KB less to compile at every start, about 20 ms here.
// Type-checking is `npm run typecheck` (tsc --noEmit); esbuild only strips types.
import { rmSync } from 'node:fs';
import { build } from 'esbuild';

/** Resolves zod's locales index (imported only for the `z.locales` namespace) to English alone. */
const zodEnglishOnly = {
  name: 'zod-english-only',
  setup(b) {
    b.onResolve({ filter: /\/locales\/index\.js$/ }, (args) =>
      /[\\/]zod[\\/]/.test(args.importer)
        ? {
            path: new URL('../node_modules/zod/v4/locales/index.js', import.meta.url).pathname,
            namespace: 'zod-locales',
          }
        : undefined,
    );
    b.onLoad({ filter: /.*/, namespace: 'zod-locales' }, () => ({
      contents: "export { default as en } from './en.js';",
      resolveDir: new URL('../node_modules/zod/v4/locales/', import.meta.url).pathname,
    }));
  },
};

rmSync(new URL('../dist', import.meta.url), { recursive: true, force: true });
await build({
  entryPoints: ['src/main.ts'],
  outfile: 'dist/main.js',
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  external: ['better-sqlite3', 'swagger-ui-dist'],
  sourcemap: true,
  legalComments: 'none',
  logLevel: 'warning',
  plugins: [zodEnglishOnly],
  // Bundled CommonJS dependencies call require(); give them one in the ESM bundle.
  banner: {
    js: "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);",
  },
});
