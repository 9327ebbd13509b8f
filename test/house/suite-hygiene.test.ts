/**
 * `npm test` runs its files in shared workers (vitest.config.ts: `isolate: false`), so a file
 * must leave nothing behind for the next one: no mocked module, no stubbed global or env var,
 * no env var set by hand, and fake timers only where the same file restores real ones.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import config, { RELEASE_TESTS } from '../../vitest.config.js';

const TEST = join(import.meta.dirname, '..');
const LEAKS =
  /\bvi\.(?:mock|doMock|stubGlobal|stubEnv|spyOn)\(|process\.env(?:\.\w+|\[[^\]]+\])\s*=(?!=)|delete process\.env/;

function suiteFiles(): string[] {
  const all = readdirSync(TEST, { recursive: true, encoding: 'utf8' })
    .filter((f) => f.endsWith('.ts'))
    .map((f) => join(TEST, f));
  const released = (file: string) =>
    RELEASE_TESTS.some((pattern) => {
      const rel = `test/${relative(TEST, file)}`;
      return pattern.endsWith('/**/*.test.ts')
        ? rel.startsWith(pattern.slice(0, -'**/*.test.ts'.length))
        : rel === pattern;
    });
  return all.filter(
    (f) =>
      !f.endsWith('.browser.test.ts') && !f.includes('/image/') && !released(f) && f !== import.meta.filename,
  );
}

describe('npm test shares workers between files: nothing leaks from one file to the next', () => {
  it('runs unisolated, and no file of it mocks, stubs or sets the environment', () => {
    expect(config.test?.isolate).toBe(false);
    const files = suiteFiles();
    expect(files.length).toBeGreaterThan(40);
    const leaking = files.filter((f) => LEAKS.test(readFileSync(f, 'utf8'))).map((f) => relative(TEST, f));
    expect(leaking).toEqual([]);
    expect(LEAKS.test("vi.stubEnv('PORT', '1')")).toBe(true);
    expect(LEAKS.test('process.env.PORT = "1"')).toBe(true);
    expect(LEAKS.test('process.env.PORT === "1"')).toBe(false);
  });

  it('a file that fakes timers restores real ones', () => {
    for (const file of suiteFiles()) {
      const text = readFileSync(file, 'utf8');
      if (/vi\.useFakeTimers\(/.test(text))
        expect(text, relative(TEST, file)).toMatch(/vi\.useRealTimers\(\)/);
    }
  });
});
