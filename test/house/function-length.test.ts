/**
 * Short functions, short files (issue "The house"): no function of src/ runs past 80 lines and
 * no file past 450. Every function, method, accessor, constructor and arrow of src/**\/*.ts(x)
 * is measured by the TypeScript compiler's own parse. A function's length is all its lines,
 * from its first to its last, the functions written inside it included (a factory of 150 lines
 * of short closures is a long function: split it into parts, each a function of its own); each
 * nested function is measured too.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(import.meta.dirname, '..', '..');
const SRC = join(ROOT, 'src');
const MAX_FUNCTION_LINES = 80;
const MAX_FILE_LINES = 450;

/**
 * Functions let past the bound, as `path:name`, each with why. Keep it short: a function that
 * can be split is split.
 */
const ALLOWED: Record<string, string> = {};

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sources(path);
    return /\.tsx?$/.test(entry.name) && !entry.name.endsWith('.d.ts') ? [path] : [];
  });
}

interface Measured {
  name: string;
  line: number;
  lines: number;
}

/** Each function of a source text with its length, the functions nested in it included. */
function functionLengths(fileName: string, text: string): Measured[] {
  const kind = fileName.endsWith('.tsx') ? ts.ScriptKind.TSX : ts.ScriptKind.TS;
  const file = ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, true, kind);
  const lineOf = (pos: number) => file.getLineAndCharacterOfPosition(pos).line;
  const span = (node: ts.Node) => lineOf(node.end) - lineOf(node.getStart(file)) + 1;
  const isFunction = (node: ts.Node): node is ts.FunctionLikeDeclaration =>
    ts.isFunctionLike(node) && (node as ts.FunctionLikeDeclaration).body !== undefined;
  const out: Measured[] = [];
  file.forEachChild(function visit(node) {
    if (isFunction(node)) {
      const name = node.name?.getText(file) ?? `(${ts.SyntaxKind[node.kind]})`;
      out.push({ name, line: lineOf(node.getStart(file)) + 1, lines: span(node) });
    }
    node.forEachChild(visit);
  });
  return out;
}

describe('short functions and short files in src/', () => {
  const files = sources(SRC);

  it(`no function runs past ${MAX_FUNCTION_LINES} lines (the functions nested in it included)`, () => {
    const long = files.flatMap((path) =>
      functionLengths(path, readFileSync(path, 'utf8'))
        .filter((f) => f.lines > MAX_FUNCTION_LINES && !(`${relative(ROOT, path)}:${f.name}` in ALLOWED))
        .map((f) => `${relative(ROOT, path)}:${f.line} ${f.name}: ${f.lines} lines`),
    );
    expect(long).toEqual([]);
  });

  it('the allow-list names only functions still over the bound', () => {
    const long = new Set(
      files.flatMap((path) =>
        functionLengths(path, readFileSync(path, 'utf8'))
          .filter((f) => f.lines > MAX_FUNCTION_LINES)
          .map((f) => `${relative(ROOT, path)}:${f.name}`),
      ),
    );
    expect(Object.keys(ALLOWED).filter((entry) => !long.has(entry))).toEqual([]);
  });

  it(`no file runs past ${MAX_FILE_LINES} lines`, () => {
    const long = files
      .map((path) => ({ path, lines: readFileSync(path, 'utf8').split('\n').length - 1 }))
      .filter((f) => f.lines > MAX_FILE_LINES)
      .map((f) => `${relative(ROOT, f.path)}: ${f.lines} lines`);
    expect(long).toEqual([]);
  });

  it('the measure sees functions, methods and arrows, and counts a closure in its factory too', () => {
    const body = (n: number) => Array.from({ length: n }, (_, i) => `  const v${i} = ${i};`).join('\n');
    const text = [
      `function long() {\n${body(85)}\n}`,
      `class C {\n  method() {\n${body(3)}\n  }\n}`,
      `function factory() {\n  const inner = () => {\n${body(90)}\n  };\n  return inner;\n}`,
    ].join('\n');
    const measured = functionLengths('sample.ts', text);
    expect(measured.map((f) => [f.name, f.lines])).toEqual([
      ['long', 87],
      ['method', 5],
      ['factory', 95],
      ['(ArrowFunction)', 92],
    ]);
  });
});
