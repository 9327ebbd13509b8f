/**
 * The manual (README.md and docs/*.md) rendered to HTML for the served pages under
 * /docs/guides/ (src/api/docs.ts), with marked. Offline: the pages link nothing outside
 * the sandbox; a screenshot (docs/screenshots/, which the package ships) is shown from
 * /docs/guides/screenshots/, any other image is replaced by its description; a link to a
 * file of the repository that is not a page of the manual shows its path instead.
 *
 * Two callers, one build (as src/ui/build-assets.ts for the dashboard):
 * - from source (tsx, vitest), docs.ts calls buildGuides() on the first request for a
 *   guide and the pages are read from the checkout;
 * - scripts/build.mjs calls it once and puts, in the place of this module in the production
 *   bundles, a reader of its answer: dist/guides.json, read on the first request for a guide
 *   (dist/mcp.js carries the Markdown as constants); marked (a devDependency) is never loaded. A build from a tree without
 *   docs/ (the image's build stage copies src/ and scripts/ only) has no pages, and
 *   /docs/guides/ says so.
 *
 * The Markdown helpers (headingSlugs, markdownLinks, runnableBlocks) are also what
 * test/docs/docs.test.ts checks the manual with, so the served anchors and the checked ones
 * follow the same slug rules: GitHub's.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, posix } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Marked, Renderer, TextRenderer, type Token, type Tokens } from 'marked';
import { SCREENSHOT_NAME } from './screenshots.js';

export interface GuidePage {
  /** The page's name in URLs: `getting-started` for docs/getting-started.md, `index` for README.md. */
  name: string;
  /** Its file in the repository. */
  file: string;
  title: string;
  /** The rendered body (no <html> shell). */
  html: string;
  /** The page as written: what the MCP server gives coding agents (src/mcp/). */
  markdown: string;
}

export interface Guides {
  pages: GuidePage[];
}

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

/** Renders README.md and every docs/*.md of the checkout; none when docs/ is absent. */
export function buildGuides(root = ROOT): Guides {
  const docs = join(root, 'docs');
  if (!existsSync(docs) || !existsSync(join(root, 'README.md'))) return { pages: [] };
  // In the order the README's table of contents gives them, then any other page by name.
  const readme = readFileSync(join(root, 'README.md'), 'utf8');
  const toc = readme.indexOf('\n## The manual');
  const listed = markdownLinks(toc === -1 ? readme : readme.slice(toc)).map((l) =>
    l.target.replace(/#.*$/, ''),
  );
  const rank = (file: string) => (listed.includes(file) ? listed.indexOf(file) : listed.length);
  const files = [
    'README.md',
    ...readdirSync(docs)
      .filter((f) => f.endsWith('.md'))
      .map((f) => `docs/${f}`)
      .sort((a, b) => rank(a) - rank(b) || a.localeCompare(b)),
  ];
  const names = new Set(files);
  return {
    pages: files.map((file) => renderPage(file, readFileSync(join(root, file), 'utf8'), names)),
  };
}

/** The page name a repository file is served under, or undefined when it is not a page. */
function pageName(file: string, pages: Set<string>): string | undefined {
  if (!pages.has(file)) return undefined;
  return file === 'README.md' ? 'index' : posix.basename(file, '.md');
}

const escapeHtml = (text: string) =>
  text.replace(/[&<>"']/g, (ch) => `&${{ '&': 'amp', '<': 'lt', '>': 'gt', '"': 'quot', "'": '#39' }[ch]};`);

function renderPage(file: string, markdown: string, pages: Set<string>): GuidePage {
  const here = posix.dirname(file);
  const slugs = new Slugger();
  const text = new TextRenderer();
  let title = '';
  const renderer = new Renderer();
  renderer.heading = function heading({ tokens, depth }: Tokens.Heading) {
    const plain = this.parser.parseInline(tokens, text);
    if (depth === 1 && !title) title = decodeEntities(plain);
    const id = slugs.slug(decodeEntities(plain));
    return `<h${depth} id="${escapeHtml(id)}"><a class="anchor" href="#${escapeHtml(id)}">#</a>${this.parser.parseInline(tokens)}</h${depth}>\n`;
  };
  renderer.link = function link({ href, tokens }: Tokens.Link) {
    const inner = this.parser.parseInline(tokens);
    const target = servedTarget(href, here, pages);
    if (target === undefined) return `${inner} (<code>${escapeHtml(repositoryPath(href, here))}</code>)`;
    return `<a href="${escapeHtml(target)}">${inner}</a>`;
  };
  // A screenshot is served beside the pages (docs.ts); any other image is named, not loaded.
  renderer.image = ({ text: alt, href }: Tokens.Image) => {
    const served = servedImage(repositoryPath(href, here));
    if (served === undefined) {
      return `<em class="image">[image: ${escapeHtml(alt || href)}, <code>${escapeHtml(repositoryPath(href, here))}</code> in the repository]</em>`;
    }
    const src = escapeHtml(served);
    return `<a class="image" href="${src}"><img src="${src}" alt="${escapeHtml(alt)}" loading="lazy"></a>`;
  };
  // Raw HTML in the Markdown is shown as text, never passed through.
  renderer.html = ({ text: raw }: Tokens.HTML | Tokens.Tag) => escapeHtml(raw);
  const marked = new Marked({ gfm: true, renderer });
  const html = marked.parse(markdown, { async: false });
  return { name: pageName(file, pages) ?? file, file, title: title || file, html, markdown };
}

/**
 * Where a link of the page at `here` points once served under /docs/guides/: another page
 * (`api.md#idempotency` → `api#idempotency`), an anchor of this page, or an absolute URL
 * kept as it is. Undefined for a file of the repository that is not a page.
 */
function servedTarget(href: string, here: string, pages: Set<string>): string | undefined {
  if (/^[a-z][a-z0-9+.-]*:/i.test(href)) return href;
  const hash = href.indexOf('#');
  const path = hash === -1 ? href : href.slice(0, hash);
  const anchor = hash === -1 ? '' : href.slice(hash);
  if (path === '') return anchor;
  const name = pageName(posix.normalize(posix.join(here, decodeURI(path))), pages);
  if (name === undefined) return undefined;
  return `${name === 'index' ? './' : name}${anchor}`;
}

/**
 * Where a repository file is served for the pages, relative to /docs/guides/
 * (`docs/screenshots/journal.png` → `screenshots/journal.png`), or undefined when it is not
 * a screenshot (an SVG never is: it could carry script).
 */
function servedImage(file: string): string | undefined {
  const name = file.startsWith('docs/screenshots/') ? file.slice('docs/screenshots/'.length) : '';
  return SCREENSHOT_NAME.test(name) ? `screenshots/${name}` : undefined;
}

function repositoryPath(href: string, here: string): string {
  if (/^[a-z][a-z0-9+.-]*:/i.test(href)) return href;
  return posix.normalize(posix.join(here, href.replace(/#.*$/, '')));
}

function decodeEntities(text: string): string {
  return text.replace(
    /&(amp|lt|gt|quot|#39);/g,
    (_, e: string) => ({ amp: '&', lt: '<', gt: '>', quot: '"', '#39': "'" })[e] ?? '',
  );
}

/** GitHub's heading anchors: lower case, punctuation dropped but `-` and `_`, spaces to `-`; repeats get `-1`, `-2`. */
export class Slugger {
  #seen = new Map<string, number>();
  slug(text: string): string {
    const base = text
      .toLowerCase()
      .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '')
      .replace(/ /g, '-');
    let slug = base;
    while (this.#seen.has(slug)) {
      const n = (this.#seen.get(base) ?? 0) + 1;
      this.#seen.set(base, n);
      slug = `${base}-${n}`;
    }
    this.#seen.set(slug, 0);
    return slug;
  }
}

const lexer = new Marked({ gfm: true });

/** The anchors GitHub gives the headings of a Markdown page. */
export function headingSlugs(markdown: string): Set<string> {
  const slugs = new Slugger();
  const text = new TextRenderer();
  const out = new Set<string>();
  for (const token of lexer.lexer(markdown)) {
    if (token.type !== 'heading') continue;
    const plain = lexer.Parser.parseInline((token as Tokens.Heading).tokens, { renderer: text as never });
    out.add(slugs.slug(decodeEntities(plain)));
  }
  return out;
}

/** Every link and image target of a Markdown page (code excluded), with its line. */
export function markdownLinks(markdown: string): { target: string; line: number }[] {
  const out: { target: string; line: number }[] = [];
  lexer.walkTokens(lexer.lexer(markdown), (token: Token) => {
    if (token.type === 'link' || token.type === 'image') {
      const { href, raw } = token as Tokens.Link | Tokens.Image;
      const at = markdown.indexOf(raw);
      out.push({ target: href, line: at === -1 ? 0 : markdown.slice(0, at).split('\n').length });
    }
  });
  return out;
}

/** The ```sh runnable blocks of a page: their code, their line, and the `# -> …` outputs they show. */
export function runnableBlocks(markdown: string): { code: string; line: number; expected: string[] }[] {
  const out: { code: string; line: number; expected: string[] }[] = [];
  for (const token of lexer.lexer(markdown)) {
    if (token.type !== 'code') continue;
    const { lang, text, raw } = token as Tokens.Code;
    if ((lang ?? '').trim().split(/\s+/).join(' ') !== 'sh runnable') continue;
    const at = markdown.indexOf(raw);
    out.push({
      code: text,
      line: at === -1 ? 0 : markdown.slice(0, at).split('\n').length,
      expected: text
        .split('\n')
        .map((l) => /^\s*# -> (.*)$/.exec(l)?.[1])
        .filter((l): l is string => l !== undefined),
    });
  }
  return out;
}
