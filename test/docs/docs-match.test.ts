/**
 * The docs match the product, each rule a reader once tripped on:
 * - a measured figure names the script that measures it, the date and the Node version;
 * - every curl to the partnership API in a shell example sends the parent header;
 * - a shell example that starts a container waits for it to be healthy before calling it,
 *   and a `docker run` without a volume has `--rm` (the image's VOLUME /data would leave an
 *   anonymous volume behind each run);
 * - the image serves the manual (its build stage copies README.md and docs/), and no page
 *   says otherwise;
 * - in-your-ci's Node excerpt is made of lines of the example it cites (which the package
 *   test type-checks and runs), so it defines what it uses.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const PAGES = [
  'README.md',
  ...readdirSync(join(ROOT, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/${f}`),
];
const read = (path: string) => readFileSync(join(ROOT, path), 'utf8');
/** The README's curl calls pass their Authorization and parent headers as this bash array. */
// biome-ignore lint/suspicious/noTemplateCurlyInString: a bash array expansion, not a template
const AUTH_ARRAY = '"${AUTH[@]}"';

/** The page's prose paragraphs (blank-line separated), fenced blocks left out. */
function paragraphs(text: string): string[] {
  return text
    .replace(/```[\s\S]*?```/g, '')
    .split(/\n\s*\n/)
    .map((p) => p.trim())
    .filter(Boolean);
}

/** Fenced shell blocks, each as its commands (backslash-continued lines joined). */
function shellBlocks(text: string): { code: string; commands: string[] }[] {
  return [...text.matchAll(/```(?:sh|bash)[^\n]*\n([\s\S]*?)```/g)].map((m) => {
    const code = m[1]!;
    const commands = code
      .replace(/\\\n/g, ' ')
      .split('\n')
      .map((l) => l.trim())
      .filter((l) => l && !l.startsWith('#'));
    return { code, commands };
  });
}

describe('docs that match', () => {
  it('a measured figure carries the command that measures it, the date and the Node version', () => {
    const problems: string[] = [];
    let measured = 0;
    for (const page of PAGES) {
      for (const p of paragraphs(read(page))) {
        if (!/\bmeasured\b/i.test(p)) continue;
        measured++;
        const missing = [
          /`[^`]*(?:npm run|node |bash |npx )[^`]*`/.test(p) ? '' : 'the command',
          /\b20\d\d-\d\d-\d\d\b/.test(p) ? '' : 'the date',
          /\bNode\s+v?\d+\.\d+/.test(p) ? '' : 'the Node version',
        ].filter(Boolean);
        if (missing.length) problems.push(`${page}: "${p.slice(0, 80)}…" lacks ${missing.join(', ')}`);
      }
    }
    expect(measured).toBeGreaterThanOrEqual(4); // performance (2), in-your-ci (image, tarball)
    expect(problems).toEqual([]);
  });

  it('the tarball size is the one scripts/tarball-size.mjs prints (its form)', () => {
    expect(read('docs/in-your-ci.md')).toMatch(
      /\d[\d.]* [KM]iB \(\d[\d.]* [kM]B\)\s+packed, \d[\d.]* [KM]iB unpacked, \d+ files \(measured by `node scripts\/tarball-size\.mjs`/,
    );
  });

  it('every curl to the partnership API in a shell example sends X-Platform-Parent-Account-Id', () => {
    const problems: string[] = [];
    for (const page of PAGES)
      for (const block of shellBlocks(read(page)))
        for (const command of block.commands)
          if (/\bcurl\b/.test(command) && /\/v1\//.test(command))
            if (!command.includes('X-Platform-Parent-Account-Id') && !command.includes(AUTH_ARRAY))
              problems.push(`${page}: ${command.slice(0, 100)}`);
    expect(problems).toEqual([]);
  });

  it('a shell example waits for the container to be healthy before calling it; docker run without -v has --rm', () => {
    const problems: string[] = [];
    let started = 0;
    for (const page of PAGES) {
      for (const block of shellBlocks(read(page))) {
        let waiting = false; // a container was started or restarted, and nothing has waited for it yet
        for (const command of block.commands) {
          if (/\bdocker (run|restart)\b/.test(command)) {
            started++;
            waiting = /\bdocker (run -d|restart)\b/.test(command);
            if (/\bdocker run\b/.test(command) && !/\s-v\s/.test(command) && !command.includes('--rm'))
              problems.push(`${page}: ${command} (no -v and no --rm)`);
          } else if (/\buntil\b.*(health|healthy)/.test(command) || /^healthy\b/.test(command))
            waiting = false;
          else if (waiting && /\bcurl\b/.test(command))
            problems.push(`${page}: ${command} (before a health wait)`);
        }
      }
    }
    expect(started).toBeGreaterThanOrEqual(4);
    expect(problems).toEqual([]);
  });

  it('the image serves the manual: its build stage copies README.md and docs/ before it builds, and no page says otherwise', () => {
    const dockerfile = read('Dockerfile');
    const build = dockerfile.slice(0, dockerfile.indexOf('FROM', dockerfile.indexOf('AS build')));
    const at = (line: RegExp) => build.search(line);
    expect(at(/^COPY README\.md /m)).toBeGreaterThan(-1);
    expect(at(/^COPY docs /m)).toBeGreaterThan(-1);
    expect(at(/^RUN npm run build$/m)).toBeGreaterThan(
      Math.max(at(/^COPY README\.md /m), at(/^COPY docs /m)),
    );
    for (const page of PAGES) {
      expect(read(page), page).not.toMatch(/image[^.]*(has no manual|copies only `src\/`)/);
    }
    expect(read('README.md')).toMatch(/the npm package and the Docker image serve it too/);
  });

  it("in-your-ci's Node excerpt is lines of examples/node-vitest (so it defines what it uses)", () => {
    const page = read('docs/in-your-ci.md');
    const excerpt = page.match(/```ts\n(\/\/ vitest\.config\.ts[\s\S]*?)```/)![1]!;
    const example = ['global-setup.ts', 'partner.test.ts', 'vitest.config.ts'].flatMap((f) =>
      read(`examples/node-vitest/${f}`)
        .split('\n')
        .map((l) => l.trim()),
    );
    const code = excerpt
      .split('\n')
      .map((l) => l.replace(/ \/\/ .*$/, '').trim())
      .filter((l) => l && !l.startsWith('//'));
    expect(code.length).toBeGreaterThan(5);
    for (const line of code) expect(example, line).toContain(line);
  });
});
