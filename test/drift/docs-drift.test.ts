/**
 * docs/drift.md says what verify and the tools it reads really do:
 * - each mitmproxy command that converts flows to HAR works on the version it names: before
 *   10.1, `--set hardump=` needs the har_dump.py script that defines the option (`-s`); without
 *   it mitmproxy 8 (Debian 12's) writes nothing;
 * - the table of verify's two spellings (`verifyRecording()` camelCase, `--report` JSON
 *   snake_case) names fields that both really have, with the same values.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { packageDir } from '../../src/base/package-dir.js';
import { reportJson, verifyRecording } from '../../src/index.js';

const DOCS = join(packageDir, 'docs');
const drift = readFileSync(join(DOCS, 'drift.md'), 'utf8');

describe('docs/drift.md', () => {
  it('every `--set hardump=` without `-s har_dump.py` is for mitmproxy 10.1 and later, and 8.x has its command', () => {
    const pages = [
      ...readdirSync(DOCS)
        .filter((f) => f.endsWith('.md'))
        .map((f) => join(DOCS, f)),
      join(packageDir, 'README.md'),
    ];
    let commands = 0;
    for (const page of pages) {
      const lines = readFileSync(page, 'utf8').split('\n');
      lines.forEach((line, i) => {
        if (!line.includes('--set hardump=')) return;
        commands++;
        if (/-s \S*har_dump\.py/.test(line)) return;
        expect(lines.slice(Math.max(0, i - 2), i + 1).join(' '), `${page}:${i + 1}`).toMatch(
          /10\.1 and later/,
        );
      });
    }
    expect(commands).toBeGreaterThanOrEqual(2);
    expect(drift).toContain('mitmdump -nr flows -s ./har_dump.py --set hardump=suite.har');
    expect(drift).toMatch(/Debian 12 ships 8\.1\.1/);
  });

  it("the two spellings' table: each row names a field of verifyRecording()'s result and of the --report JSON, with the same value", async () => {
    const rows = [...drift.matchAll(/^\| `([\w.]+)` \| `([\w.]+)` \|$/gm)].map(
      (m) => [m[1]!, m[2]!] as const,
    );
    expect(rows.map(([js]) => js)).toEqual(expect.arrayContaining(['totals.notReplayed', 'parentAccountId']));
    const result = await verifyRecording(join(import.meta.dirname, 'fixtures', 'devtools.har'));
    const json = JSON.parse(reportJson(result));
    const at = (doc: unknown, path: string) =>
      path.split('.').reduce<unknown>((v, k) => (v as Record<string, unknown>)?.[k], doc);
    for (const [js, file] of rows) {
      expect(at(result, js), js).toBeDefined();
      expect(at(json, file), file).toEqual(at(result, js));
    }
    expect(json.totals).toEqual({
      entries: result.totals.entries,
      same: result.totals.same,
      differ: result.totals.differ,
      not_replayed: result.totals.notReplayed,
      ignored: result.totals.ignored,
    });
  });
});
