/**
 * One base name per source file (issue "The house"): a name seen in an import, a stack trace
 * or a review says which file of src/ it is. Two files whose names differ only by .ts and .tsx
 * count as one name. One rule and a short list make the exceptions:
 * - a folder's public face, `index.ts` made of re-exports only (`export … from`), as the drift
 *   room has: it never shows in a stack trace (it runs no code of its own), and an import of
 *   it names its folder;
 * - ALLOWED below: a name with its files and the reason a reader is not misled by it; an entry
 *   no longer repeated must go.
 * scripts/rename-modules.mjs holds the renames that made it so (docs/architecture.md, "Layout
 * of the code").
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const SRC = resolve(import.meta.dirname, '..', '..', 'src');

/**
 * Base names (without .ts/.tsx) that may name more than one file of src/, each with its reason
 * and the files, so a new repeat of the same name still fails. Keep it short.
 */
const ALLOWED: Record<string, { reason: string; files: string[] }> = {};

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sources(path);
    return /\.tsx?$/.test(entry.name) && !entry.name.endsWith('.d.ts') ? [path] : [];
  });
}

/** An index.ts whose every statement is a re-export (`export … from '…'`): a folder's public face. */
function isPublicFace(rel: string, text: string): boolean {
  if (!/(^|\/)index\.ts$/.test(rel)) return false;
  const file = ts.createSourceFile(rel, text, ts.ScriptTarget.Latest, false, ts.ScriptKind.TS);
  return file.statements.every((s) => ts.isExportDeclaration(s) && s.moduleSpecifier !== undefined);
}

const SOURCES = sources(SRC)
  .map((file) => relative(SRC, file).split('\\').join('/'))
  .filter((rel) => !isPublicFace(rel, readFileSync(join(SRC, rel), 'utf8')));

/** Files (paths under src/) by base name, for the names more than one file has. */
function repeatedNames(files: string[]): Map<string, string[]> {
  const byName = new Map<string, string[]>();
  for (const rel of files) {
    const name = rel.slice(rel.lastIndexOf('/') + 1).replace(/\.tsx?$/, '');
    byName.set(name, [...(byName.get(name) ?? []), rel]);
  }
  return new Map([...byName].filter(([, files]) => files.length > 1).map(([n, f]) => [n, f.sort()]));
}

describe('base names of src/', () => {
  it('no two source files share a base name, but the few allowed with their reason', () => {
    const repeats = repeatedNames(SOURCES);
    const unexplained = [...repeats]
      .filter(([name, files]) => JSON.stringify(files) !== JSON.stringify(ALLOWED[name]?.files.toSorted()))
      .map(([name, files]) => `${name}: ${files.join(', ')}`);
    expect(
      unexplained,
      'rename one of them (add it to scripts/rename-modules.mjs so other branches follow), or allow the name here with its reason',
    ).toEqual([]);
  });

  it('every allowed repeat is still one, with a reason, and the list stays short', () => {
    const repeats = repeatedNames(SOURCES);
    for (const [name, entry] of Object.entries(ALLOWED)) {
      expect(repeats.has(name), `${name} is no longer repeated: drop it from ALLOWED`).toBe(true);
      expect(entry.reason.length, `${name} needs its reason`).toBeGreaterThan(20);
    }
    expect(Object.keys(ALLOWED).length).toBeLessThanOrEqual(3);
  });

  it('a public face is an index.ts of re-exports only', () => {
    expect(isPublicFace('index.ts', "export * from './a.js';\nexport { b, type C } from './b.js';")).toBe(
      true,
    );
    expect(isPublicFace('x/index.ts', "import { a } from './a.js';\nexport const b = a;")).toBe(false);
    expect(isPublicFace('x/index.ts', "export { a } from './a.js';\nexport function b() {}")).toBe(false);
    expect(isPublicFace('x/face.ts', "export * from './a.js';")).toBe(false);
  });

  it('finds a repeat, .ts and .tsx alike (the check itself)', () => {
    const repeats = repeatedNames(['a/report.ts', 'b/report.ts', 'ui/shell.tsx', 'x/shell.ts', 'a/plan.ts']);
    expect([...repeats]).toEqual([
      ['report', ['a/report.ts', 'b/report.ts']],
      ['shell', ['ui/shell.tsx', 'x/shell.ts']],
    ]);
  });
});
