/**
 * The documentation stays true (docs/architecture.md "Runnable examples" and "Links"):
 * - every relative link and image in README.md and docs/ resolves to a file of the
 *   repository, and every `#anchor` to a heading of its target page, by GitHub's slug rules;
 * - no page sends a reader outside the repository for the sandbox's own contract;
 * - every ```sh runnable block runs green with bash against a sandbox started with
 *   startSandbox(), and shows what its `# -> …` lines say it shows;
 * - the served manual (/docs/guides/, linked from /docs) has every page, offline, and every
 *   link between its pages, anchors included, answers over HTTP.
 */
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { buildGuides, headingSlugs, markdownLinks, runnableBlocks } from '../../src/guides/build-guides.js';
import { startSandbox } from '../../src/start.js';
import { createHarness } from '../helpers/harness.js';
import { bash } from '../helpers/shell.js';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const DOCS = join(ROOT, 'docs');
const PAGES = [
  'README.md',
  ...readdirSync(DOCS)
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/${f}`),
];
/** The placeholder of the examples, replaced by the started sandbox's URL. */
const DEFAULT_URL = 'http://127.0.0.1:4010';

const read = (page: string) => readFileSync(join(ROOT, page), 'utf8');

describe('links in README.md and docs/', () => {
  it('the manual has its pages, and the README lists each in its table of contents', () => {
    expect(PAGES.length).toBeGreaterThan(10);
    const readme = read('README.md');
    for (const page of PAGES.filter((p) => p.startsWith('docs/'))) {
      expect(readme, `README.md does not link ${page}`).toContain(`](${page})`);
    }
  });

  for (const page of PAGES) {
    it(`${page}: every relative link resolves, anchors included`, () => {
      const problems: string[] = [];
      for (const link of markdownLinks(read(page))) {
        if (/^[a-z][a-z0-9+.-]*:/i.test(link.target)) continue; // https:, mailto:
        const [path, anchor] = splitTarget(link.target);
        const file = path === '' ? join(ROOT, page) : resolve(dirname(join(ROOT, page)), decodeURI(path));
        const name = relative(ROOT, file).split('\\').join('/');
        if (name.startsWith('..')) {
          problems.push(`line ${link.line}: ${link.target} leaves the repository`);
          continue;
        }
        if (!existsSync(file)) {
          problems.push(`line ${link.line}: ${link.target}: no file ${name}`);
          continue;
        }
        if (anchor === undefined) continue;
        if (statSync(file).isDirectory() || !file.endsWith('.md')) {
          problems.push(`line ${link.line}: ${link.target}: an anchor into a file that is not Markdown`);
          continue;
        }
        if (!headingSlugs(readFileSync(file, 'utf8')).has(decodeURIComponent(anchor))) {
          problems.push(`line ${link.line}: ${link.target}: no heading #${anchor} in ${name}`);
        }
      }
      expect(problems).toEqual([]);
    });
  }

  it('no page refers to the contract files outside the repository, or to issue numbers', () => {
    const problems: string[] = [];
    for (const page of PAGES) {
      read(page)
        .split('\n')
        .forEach((text, i) => {
          if (/SANDBOX\.md|shared\/spec|partnership-accounts-api\.md|\bissue \d+/i.test(text)) {
            problems.push(`${page}:${i + 1}: ${text.trim()}`);
          }
        });
    }
    expect(problems).toEqual([]);
  });

  it('no source file under src/ cites a file outside the repository or an issue number (comments cite docs/ pages)', () => {
    const problems: string[] = [];
    const walk = (dir: string): string[] =>
      readdirSync(join(ROOT, dir), { withFileTypes: true }).flatMap((e) =>
        e.isDirectory() ? walk(`${dir}/${e.name}`) : /\.tsx?$/.test(e.name) ? [`${dir}/${e.name}`] : [],
      );
    for (const file of walk('src')) {
      read(file)
        .split('\n')
        .forEach((text, i) => {
          if (/SANDBOX\.md|shared\/spec|partnership-accounts-api\.md|\bissues? \d+|README "/i.test(text)) {
            problems.push(`${file}:${i + 1}: ${text.trim()}`);
          }
        });
    }
    expect(problems).toEqual([]);
  });

  it("the README shows the example's global setup as it is (also checked on the packed README)", () => {
    const example = read('examples/node-vitest/global-setup.ts').trimEnd();
    expect(read('README.md')).toContain(example);
  });

  it('"Where the spec is silent" is a page of its own, and the README names it', () => {
    expect(read('docs/where-the-spec-is-silent.md')).toMatch(/^# Where the spec is silent$/m);
    expect(read('README.md')).toContain('Where the spec is silent');
  });

  it('the slug rules agree with GitHub on the headings this manual uses', () => {
    const slugs = headingSlugs(
      [
        '# Getting started',
        '## Node: startSandbox() in a vitest globalSetup, and the control client',
        "## Connection resets through Docker's port publishing",
        '## `kill` does not stop `npx partnership-sandbox`',
        '## Conventions of every call (spec §1)',
        '## A 409',
        '## A 409',
        '```sh',
        '# not a heading: inside a fence',
        '```',
      ].join('\n'),
    );
    expect([...slugs]).toEqual([
      'getting-started',
      'node-startsandbox-in-a-vitest-globalsetup-and-the-control-client',
      'connection-resets-through-dockers-port-publishing',
      'kill-does-not-stop-npx-partnership-sandbox',
      'conventions-of-every-call-spec-1',
      'a-409',
      'a-409-1',
    ]);
  });
});

describe('runnable shell blocks', () => {
  const blocks = PAGES.flatMap((page) => runnableBlocks(read(page)).map((block) => ({ page, ...block })));

  it('the README and the getting-started page each have one', () => {
    expect(blocks.filter((b) => b.page === 'README.md').length).toBeGreaterThan(0);
    expect(blocks.filter((b) => b.page === 'docs/getting-started.md').length).toBeGreaterThan(0);
    for (const block of blocks) {
      expect(block.code, `${block.page}:${block.line}`).toContain(DEFAULT_URL);
      expect(block.expected.length, `${block.page}:${block.line} shows no output`).toBeGreaterThan(0);
    }
  });

  for (const block of blocks) {
    it(`${block.page}, the block at line ${block.line}, runs green against a fresh sandbox`, async () => {
      const sandbox = await startSandbox();
      try {
        const script = `set -euo pipefail\n${block.code.split(DEFAULT_URL).join(sandbox.url)}`;
        const run = await bash(script, { cwd: ROOT });
        const report = `exit ${run.status}\n--- stdout\n${run.stdout}\n--- stderr\n${run.stderr}`;
        expect(run.status, report).toBe(0);
        expect(run.stderr, report).toBe('');
        for (const expected of block.expected) {
          expect(containsInOrder(run.stdout, expected), `output lacks: ${expected}\n${report}`).toBe(true);
        }
      } finally {
        await sandbox.stop();
      }
    }, 30_000);
  }
});

describe('the tours and the integration report', () => {
  it('the README tour, then the getting-started tour, against one sandbox: no check failed, and each check not exercised says what to do next', async () => {
    const sandbox = await startSandbox();
    try {
      for (const page of ['README.md', 'docs/getting-started.md']) {
        const [tour] = runnableBlocks(read(page));
        const run = await bash(`set -euo pipefail\n${tour!.code.split(DEFAULT_URL).join(sandbox.url)}`, {
          cwd: ROOT,
        });
        expect(run.status, `${page}\n${run.stderr}`).toBe(0);
      }
      const report = await sandbox.control.report('pa_demo_platform', 'json');
      expect(report.summary.failed, JSON.stringify(report.checks, null, 2)).toBe(0);
      expect(report.summary.passed).toBeGreaterThanOrEqual(3);
      for (const check of report.checks) {
        if (check.outcome === 'passed') expect(check.next).toBeNull();
        else expect(check.next, check.id).toMatch(/^Drill it: |^Register |^Send /);
      }
      const junit = await sandbox.control.report('pa_demo_platform', 'junit');
      for (const check of report.checks.filter((c) => c.outcome === 'not_exercised'))
        expect(junit).toContain(
          `<skipped message="not exercised by this integration. ${xmlEscape(check.next!)}"/>`,
        );
    } finally {
      await sandbox.stop();
    }
  }, 60_000);
});

describe('the manual served at /docs/guides/', () => {
  const pageNames = PAGES.filter((p) => p.startsWith('docs/')).map((p) =>
    p.slice('docs/'.length, -'.md'.length),
  );

  it('/docs links the manual, and /docs/guides redirects to its index', async () => {
    const h = createHarness();
    const docs = await h.request('GET', '/docs');
    expect(docs.text).toContain('href="/docs/guides/"');
    const bare = await h.request('GET', '/docs/guides');
    expect(bare.status).toBe(301);
    expect(bare.headers.get('location')).toBe('/docs/guides/');
  });

  it('the index is the README, listing every page in the order of its table of contents', async () => {
    const h = createHarness();
    const index = await h.request('GET', '/docs/guides/');
    expect(index.status).toBe(200);
    expect(index.headers.get('content-type')).toMatch(/^text\/html/);
    expect(index.headers.get('content-security-policy')).toContain("default-src 'none'");
    expect(index.text).toContain('<h1 id="partnership-sandbox">');
    expect(index.text).toContain('Where the spec is silent');
    const nav = index.text.slice(index.text.indexOf('<nav class="pages"'), index.text.indexOf('</nav>'));
    const listed = [...nav.matchAll(/<a href="([^"]+)"/g)].map((m) => m[1]);
    expect(listed.slice(0, 3)).toEqual(['./', 'getting-started', 'in-your-ci']);
    expect(new Set(listed)).toEqual(new Set(['./', '/docs', '/__sandbox/ui', ...pageNames]));
  });

  it('every page is served, offline, and every link on it answers (anchors included)', async () => {
    const h = createHarness();
    const problems: string[] = [];
    const pages = new Map<string, string>();
    const fetchPage = async (path: string) => {
      let text = pages.get(path);
      if (text === undefined) {
        const res = await h.request('GET', path);
        if (res.status !== 200) problems.push(`${path}: ${res.status}`);
        text = res.text;
        pages.set(path, text);
      }
      return text;
    };
    for (const name of ['', ...pageNames]) {
      const path = `/docs/guides/${name}`;
      const html = await fetchPage(path);
      // Offline: nothing is loaded from anywhere (no script, stylesheet or frame); an image
      // is a screenshot the sandbox serves itself, and answers.
      expect(html, path).not.toMatch(/<(script|link|iframe)\b/i);
      for (const [, src = ''] of html.matchAll(/\bsrc="([^"]*)"/g)) {
        expect(src, path).toMatch(/^screenshots\/[a-z0-9-]+\.png$/);
        const image = await h.app.request(new URL(src, `http://sandbox${path}`).pathname);
        if (image.status !== 200) problems.push(`${path}: ${src}: ${image.status}`);
      }
      for (const [, href = ''] of html.matchAll(/href="([^"]*)"/g)) {
        if (/^https?:/.test(href)) continue; // a link a reader may follow; nothing loads it
        const url = new URL(href.replace(/&amp;/g, '&'), `http://sandbox${path}`);
        const target = await fetchPage(url.pathname);
        if (url.hash && !target.includes(` id="${decodeURIComponent(url.hash.slice(1))}"`)) {
          problems.push(`${path}: ${href}: no element ${url.hash} in ${url.pathname}`);
        }
      }
    }
    expect(problems).toEqual([]);
    expect(pages.get('/docs/guides/where-the-spec-is-silent')).toContain(
      '<h1 id="where-the-spec-is-silent">',
    );
  });

  it('the screenshots render as images (not "[image: …]"), served as PNG from docs/screenshots/; other names are 404', async () => {
    const h = createHarness();
    const page = await h.request('GET', '/docs/guides/dashboard');
    expect(page.status).toBe(200);
    expect(page.text).not.toContain('[image:');
    const sources = [...page.text.matchAll(/<img src="([^"]+)" alt="([^"]*)"/g)].map((m) => [m[1], m[2]]);
    expect(sources).toContainEqual(['screenshots/journal.png', 'journal']);
    expect(sources.length).toBeGreaterThanOrEqual(6);
    const markdown = readFileSync(join(ROOT, 'docs', 'dashboard.md'), 'utf8');
    expect(sources.length).toBe([...markdown.matchAll(/!\[[^\]]*\]\(screenshots\//g)].length);

    const image = await h.app.request('/docs/guides/screenshots/journal.png');
    expect(image.status).toBe(200);
    expect(image.headers.get('content-type')).toBe('image/png');
    const bytes = Buffer.from(await image.arrayBuffer());
    expect(bytes.equals(readFileSync(join(ROOT, 'docs', 'screenshots', 'journal.png')))).toBe(true);
    for (const bad of ['nope.png', '..%2Fdashboard.md', '.hidden.png', 'x.svg', 'dashboard.md']) {
      expect((await h.request('GET', `/docs/guides/screenshots/${bad}`)).status, bad).toBe(404);
    }
  });

  it('/docs and every page of the manual link the dashboard, and /docs has its styled bar', async () => {
    const h = createHarness();
    const docs = await h.request('GET', '/docs');
    expect(docs.text).toContain('<nav class="sandbox-bar"');
    expect(docs.text).toContain('href="/__sandbox/ui"');
    expect(docs.text).toMatch(/<style>[^<]*nav\.sandbox-bar \{/);
    const guide = await h.request('GET', '/docs/guides/troubleshooting');
    expect(guide.text).toContain('<a href="/__sandbox/ui">Dashboard</a>');
    expect((await h.request('GET', '/__sandbox/ui')).status).toBe(200);
  });

  it('an unknown page is 404, and a page is static: the query is not reflected', async () => {
    const h = createHarness();
    expect((await h.request('GET', '/docs/guides/nope')).status).toBe(404);
    expect((await h.request('GET', '/docs/guides/index')).status).toBe(404);
    const plain = await h.request('GET', '/docs/guides/troubleshooting');
    const tricked = await h.request(
      'GET',
      '/docs/guides/troubleshooting?q=%3Cscript%3Ealert(1)%3C%2Fscript%3E',
    );
    expect(tricked.text).toBe(plain.text);
  });

  it('a tree without docs/ renders no pages', () => {
    const empty = mkdtempSync(join(tmpdir(), 'no-docs-'));
    try {
      expect(buildGuides(empty).pages).toEqual([]);
    } finally {
      rmSync(empty, { recursive: true, force: true });
    }
  });
});

const xmlEscape = (text: string) =>
  text.replace(
    /[&<>"']/g,
    (ch) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&apos;' })[ch]!,
  );

function splitTarget(target: string): [string, string | undefined] {
  const hash = target.indexOf('#');
  return hash === -1 ? [target, undefined] : [target.slice(0, hash), target.slice(hash + 1)];
}

/** `a…b…c`: the pieces around each `…` appear in the text in that order. */
function containsInOrder(text: string, expected: string): boolean {
  let from = 0;
  for (const piece of expected.split('…')) {
    const at = text.indexOf(piece, from);
    if (at === -1) return false;
    from = at + piece.length;
  }
  return true;
}
