#!/usr/bin/env node
// Production build: one ESM bundle per entry point: dist/cli.js from src/main.ts (the
// command line: `npm start`, the image, the package's bin, loaded by the small dist/main.js) and dist/index.js from
// src/index.ts (the package's API: startSandbox, createControlClient). Each is
// self-contained (no shared chunk), so each starts by loading one file.
// `--types` also writes the declarations of the package API into dist/types (tsc,
// emitDeclarationOnly, tsconfig.types.json), keeping only the files index.d.ts reaches:
// `npm pack` runs it (prepack); `npm start` does not need it.
// Bundling (rather than tsc's file-per-module output) cuts start-up from ~360 ms to ~250 ms
// on this machine, because Node resolves and loads one file instead of hundreds (zod, hono).
// dist/openapi-validator.js, the third bundle, is src/drift/openapi-validator.ts: openapi-backend
// and ajv-formats, which `record` uses to check answers against the partner document, and
// undici's Pool, which takes its requests to the upstream (devDependencies, 2.2 MB), loaded by
// import(); main.js and index.js leave that import to the file beside them, so the sandbox's
// start-up never parses it.
// better-sqlite3 (a native addon) stays external: the one production dependency loaded at
// run time, bundled into the package's tarball (scripts/bundle-sqlite.mjs says why).
// Swagger UI's two static files (swagger-ui-dist, a devDependency) are copied to
// dist/swagger-ui/ with its licence, where /docs serves them from: a partner's install then
// never runs swagger-ui-dist's install-time analytics (@scarf/scarf's postinstall).
// zod's 50 message locales are left out (the sandbox speaks English: zod's default `en`
// stays): 360 KB less to compile at every start, about 20 ms here.
// The dashboard (src/ui/client: TypeScript and CSS) is built first, by the function that
// builds it on demand when the sandbox runs from source (src/ui/build-assets.ts, loaded
// through tsx), and its output takes that module's place in both bundles: dist/ carries
// app.js and app.css as two string constants and never loads esbuild at run time.
// The manual (README.md and docs/*.md, served as HTML under /docs/guides/) is rendered
// the same way, by src/guides/build-guides.ts, into dist/guides.json, which a small reader
// in that module's place reads on the first request for a guide.
// Type-checking is `npm run typecheck` (tsc --noEmit); esbuild only strips types.
import { execFileSync } from 'node:child_process';
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { createRequire, isBuiltin } from 'node:module';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build, transformSync } from 'esbuild';
import { tsImport } from 'tsx/esm/api';

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

/** Replaces src/ui/build-assets.ts with its answer, built once here. */
const { buildUiAssets } = await tsImport('../src/ui/build-assets.ts', import.meta.url);
const uiAssets = buildUiAssets();
const dashboardAssets = {
  name: 'dashboard-assets',
  setup(b) {
    b.onResolve({ filter: /^\.\/build-assets\.js$/ }, (args) =>
      /[\\/]src[\\/]ui$/.test(args.resolveDir) ? { path: 'build-assets', namespace: 'dashboard' } : undefined,
    );
    b.onLoad({ filter: /.*/, namespace: 'dashboard' }, () => ({
      contents: `export const buildUiAssets = () => (${JSON.stringify(uiAssets)});`,
      loader: 'js',
    }));
  },
};

/**
 * Replaces src/guides/build-guides.ts with its answer, rendered once here: the manual
 * (README.md and docs/*.md as HTML, for /docs/guides/) becomes constants in dist/, so the
 * package and the image ship no Markdown and never load marked (a devDependency). A tree
 * without docs/ gives no pages (the image's build stage copies README.md and docs/ for them).
 */
const { buildGuides } = await tsImport('../src/guides/build-guides.ts', import.meta.url);
const guides = buildGuides(fileURLToPath(new URL('..', import.meta.url)));
/** The pages in one form: the HTML for /docs/guides/, the Markdown for the MCP server (dist/mcp.js). */
const pagesIn = (form) => {
  const drop = form === 'html' ? 'markdown' : 'html';
  return { pages: guides.pages.map(({ [drop]: _, ...page }) => page) };
};
/**
 * The HTML pages (about 0.5 MB) are not in dist/cli.js and dist/index.js but in
 * dist/guides.json beside them, read on the first request for a guide: a start-up never
 * reads, decodes and scans them (docs/performance.md, "Start-up"). dist/mcp.js, which
 * serves the Markdown to coding agents, keeps its pages as constants.
 */
const manualPagesOf = (form) => ({
  name: 'manual-pages',
  setup(b) {
    b.onResolve({ filter: /^\.\.?\/.*build-guides\.js$/ }, (args) =>
      /[\\/]src[\\/](api|mcp)$/.test(args.resolveDir)
        ? { path: 'build-guides', namespace: 'guides' }
        : undefined,
    );
    b.onLoad({ filter: /.*/, namespace: 'guides' }, () => ({
      contents:
        form === 'html'
          ? "import { readFileSync } from 'node:fs';\n" +
            "export const buildGuides = () => JSON.parse(readFileSync(new URL('./guides.json', import.meta.url), 'utf8'));"
          : `export const buildGuides = () => (${JSON.stringify(pagesIn(form))});`,
      loader: 'js',
    }));
  },
});
console.log(`manual: ${guides.pages.length} pages${guides.pages.length ? '' : ' (no docs/ in this tree)'}`);

/** Leaves src/drift/contract-check.ts's import() of the validator to dist/openapi-validator.js. */
const validatorBeside = {
  name: 'validator-beside',
  setup(b) {
    b.onResolve({ filter: /^\.\/openapi-validator\.js$/ }, (args) =>
      /[\\/]src[\\/]drift$/.test(args.resolveDir) && args.kind === 'dynamic-import'
        ? { path: './openapi-validator.js', external: true }
        : undefined,
    );
  },
};

/**
 * Node's built-in modules are loaded with require() (the banner's), not imported: an import
 * of a built-in builds its ES module facade, which reads every export, and node:http's
 * getters load Node's bundled undici (about 370 M instructions here, a third of the bin's
 * start-up; @hono/node-server then needs it anyway, for the global Request) and each other
 * facade costs its own reads: 19 M instructions for the 16 built-ins dist/cli.js uses
 * (bench/startup-instructions.mjs, docs/performance.md "Start-up"). A named import becomes a
 * property read of the module's exports at its use, as esbuild reads any CommonJS module.
 */
const builtinsRequired = {
  name: 'builtins-required',
  setup(b) {
    b.onResolve({ filter: /^(node:)?[a-z_0-9/]+$/ }, (args) =>
      args.kind === 'import-statement' && args.namespace !== 'builtin' && isBuiltin(args.path)
        ? { path: args.path.replace(/^node:/, ''), namespace: 'builtin' }
        : undefined,
    );
    b.onLoad({ filter: /.*/, namespace: 'builtin' }, (args) => ({
      contents: `module.exports = require('node:${args.path}');`,
      loader: 'js',
    }));
  },
};

rmSync(new URL('../dist', import.meta.url), { recursive: true, force: true });
mkdirSync(new URL('../dist', import.meta.url));
writeFileSync(new URL('../dist/guides.json', import.meta.url), JSON.stringify(pagesIn('html')));
const common = {
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node22',
  external: ['better-sqlite3'],
  sourcemap: true,
  legalComments: 'none',
  logLevel: 'warning',
  plugins: [builtinsRequired, zodEnglishOnly, dashboardAssets, manualPagesOf('html'), validatorBeside],
  // The dashboard shell (src/ui/shell.tsx) is Hono JSX. Said here as in tsconfig.json,
  // because the image's build stage copies src/ and this script, not tsconfig.json.
  jsx: 'automatic',
  jsxImportSource: 'hono/jsx',
  // Bundled CommonJS dependencies call require(); give them one in the ESM bundle.
  banner: {
    js: "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);",
  },
};
const swaggerUi = dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));
mkdirSync(new URL('../dist/swagger-ui', import.meta.url), { recursive: true });
for (const file of ['swagger-ui-bundle.js', 'swagger-ui.css', 'LICENSE', 'NOTICE']) {
  if (existsSync(join(swaggerUi, file)))
    copyFileSync(join(swaggerUi, file), new URL(`../dist/swagger-ui/${file}`, import.meta.url));
}
await Promise.all([
  build({ ...common, entryPoints: ['src/main.ts'], outfile: 'dist/cli.js' }),
  build({ ...common, entryPoints: ['src/index.ts'], outfile: 'dist/index.js' }),
  // Without whitespace too (2.2 MB of dependencies, loaded by `record` only).
  build({
    ...common,
    entryPoints: ['src/drift/openapi-validator.ts'],
    outfile: 'dist/openapi-validator.js',
    minifyWhitespace: true,
  }),
  // `partnership-sandbox mcp` (src/mcp.ts): a bundle of its own, loaded by dist/cli.js only
  // for that subcommand, so the sandbox's start-up never parses the MCP SDK (about 1 MB).
  build({
    ...common,
    entryPoints: ['src/mcp.ts'],
    outfile: 'dist/mcp.js',
    plugins: [zodEnglishOnly, dashboardAssets, manualPagesOf('markdown')],
    // Without whitespace: a third smaller in the package, names and source map kept.
    minifyWhitespace: true,
  }),
]);
// The bin (dist/main.js) first checks the Node.js version (src/runtime.ts, its code copied in:
// on Node 20 better-sqlite3 kills the process with no message, so this must run before
// cli.js is loaded), then turns on Node's compile cache and loads the command line's bundle:
// V8's code for it is then kept between runs (in the OS temp folder), so a start compiles
// less (about 20 ms of CPU here). A cache that cannot be written is ignored by Node. The
// library (dist/index.js) leaves that process-wide setting to the process that loads it.
const runtimeCheck = transformSync(readFileSync(new URL('../src/runtime.ts', import.meta.url), 'utf8'), {
  loader: 'ts',
  format: 'esm',
  target: 'es2017',
}).code.replace(/^export \{[^}]*\};\n/m, '');
writeFileSync(
  new URL('../dist/main.js', import.meta.url),
  `#!/usr/bin/env node
// The bin: the Node.js version checked (src/runtime.ts), the compile cache (module.enableCompileCache,
// Node 22.1+), then the command line.
import module from 'node:module';

${runtimeCheck}
const unsupported = unsupportedRuntime(process.versions.node);
if (unsupported) {
  console.error(\`partnership-sandbox: \${unsupported}\`);
  process.exit(2);
}
module.enableCompileCache?.();
await import('./cli.js');
`,
  { mode: 0o755 },
);

// Each bundle's source text is kept by V8 as long as the process runs, one byte per character
// if all of it is Latin-1 and two bytes if one character is not: a single em dash in a comment
// made dist/cli.js's 1.5 M characters cost 3 MB of the idle heap instead of 1.5 MB. esbuild
// escapes every non-ASCII character in strings, templates, regular expressions and names
// (charset 'ascii', its default) but copies comments as they are, so what is left is in
// comments: each UTF-16 unit becomes one ASCII character, keeping every column of the source map.
const asciiStandIn = {
  '\u2014': '-',
  '\u2013': '-',
  '\u2026': '.',
  '\u2018': "'",
  '\u2019': "'",
  '\u201c': '"',
  '\u201d': '"',
};
for (const file of ['cli.js', 'index.js', 'mcp.js', 'openapi-validator.js']) {
  const path = new URL(`../dist/${file}`, import.meta.url);
  const text = readFileSync(path, 'utf8');
  if (/[\u0080-\uffff]/.test(text))
    writeFileSync(
      path,
      text.replace(/[\u0080-\uffff]/g, (c) => asciiStandIn[c] ?? '?'),
    );
}

if (process.argv.includes('--types')) {
  const root = fileURLToPath(new URL('..', import.meta.url));
  const tsc = join(root, 'node_modules', 'typescript', 'bin', 'tsc');
  // tsc emits a declaration for every module the API imports, internals included; an
  // internal one it cannot name a type in (TS4xxx) is pruned below and does not matter.
  // An error in a declaration that is kept fails the build.
  let output = '';
  try {
    execFileSync(process.execPath, [tsc, '-p', 'tsconfig.types.json'], { cwd: root, encoding: 'utf8' });
  } catch (err) {
    output = `${err.stdout ?? ''}${err.stderr ?? ''}`;
  }
  const kept = pruneTypes(join(root, 'dist', 'types'));
  const problems = output
    .split('\n')
    .filter((line) => /error TS/.test(line))
    .filter((line) => {
      const source = /^src\/(.+?)\.tsx?\(/.exec(line)?.[1];
      return !source || kept.has(join(root, 'dist', 'types', `${source}.d.ts`));
    });
  if (problems.length) {
    console.error(problems.join('\n'));
    process.exit(1);
  }
}

/** Deletes the declarations that dist/types/index.d.ts does not reach through relative imports. */
function pruneTypes(dir) {
  const keep = new Set();
  const visit = (file) => {
    if (keep.has(file) || !existsSync(file)) return;
    keep.add(file);
    const text = readFileSync(file, 'utf8');
    for (const m of text.matchAll(/(?:from\s+|import\()\s*['"](\.{1,2}\/[^'"]+)['"]/g)) {
      visit(resolve(dirname(file), m[1].replace(/\.js$/, '.d.ts')));
    }
  };
  visit(join(dir, 'index.d.ts'));
  for (const entry of readdirSync(dir, { recursive: true, withFileTypes: true })) {
    const file = join(entry.parentPath, entry.name);
    if (entry.isFile() && !keep.has(file)) rmSync(file);
  }
  for (const entry of readdirSync(dir, { recursive: true, withFileTypes: true }).reverse()) {
    const folder = join(entry.parentPath, entry.name);
    if (entry.isDirectory() && readdirSync(folder).length === 0) rmSync(folder, { recursive: true });
  }
  console.log(`types: ${keep.size} declaration files in ${relative(process.cwd(), dir) || '.'}`);
  return keep;
}
