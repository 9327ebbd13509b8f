/**
 * The change-cost table of docs/architecture.md ("Where each kind of change goes"), proved on
 * main: each patch under test/house/change-cost/ is one row's change made whole (a new
 * documented error, a control route with its MCP tool, a piece of per-partner state, a fault
 * scenario), its tests green when it was made. This test keeps three things true of each:
 * it still applies to this tree (`git apply --check`), it hand-edits at most 2 files of src/
 * (a generated file, named below with its reason, is not counted), and it adds a test file.
 * A failing apply means main moved under the patch; re-make it on the new main, in one line:
 * in a worktree of main `git apply --3way` it, fix, run its tests and tsc, `git add -A && git diff --cached main > X.patch`.
 */
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const PATCHES = join(ROOT, 'test', 'house', 'change-cost');

/** Files of src/ a patch may carry without their counting as edits by hand, with the reason. */
const GENERATED: Record<string, string> = {
  'src/client/control-operations.ts': "written by `npm run generate` from the control routes' declarations",
};

/** One patch per row of the table. */
const EXPECTED = ['control-route.patch', 'error.patch', 'fault-scenario.patch', 'state-piece.patch'];

/** The paths a patch touches (its `diff --git a/… b/…` lines, the new side). */
function touched(patch: string): { path: string; added: boolean }[] {
  const files: { path: string; added: boolean }[] = [];
  for (const part of patch.split(/^diff --git /m).slice(1)) {
    const path = /^a\/\S+ b\/(\S+)/.exec(part)?.[1];
    if (path) files.push({ path, added: /^new file mode /m.test(part) });
  }
  return files;
}

describe('the change-cost proofs (test/house/change-cost/)', () => {
  it('are the four rows of the table', () => {
    expect(readdirSync(PATCHES).sort()).toEqual(EXPECTED);
  });

  describe.each(EXPECTED)('%s', (name) => {
    const file = join(PATCHES, name);
    const files = touched(readFileSync(file, 'utf8'));

    it('applies to this tree (git apply --check)', () => {
      const run = spawnSync('git', ['apply', '--check', file], { cwd: ROOT, encoding: 'utf8' });
      expect(run.stderr, `re-make ${name} on the new main (this file's header says how)`).toBe('');
      expect(run.status).toBe(0);
    });

    it('hand-edits at most 2 files of src/ (a generated one named above not counted)', () => {
      const bySource = files.map((f) => f.path).filter((p) => p.startsWith('src/'));
      const byHand = bySource.filter((p) => GENERATED[p] === undefined);
      expect(byHand.length, byHand.join(', ')).toBeGreaterThanOrEqual(1);
      expect(byHand.length, byHand.join(', ')).toBeLessThanOrEqual(2);
    });

    it('adds a test file', () => {
      const added = files.filter((f) => f.added && /^test\/.+\.test\.ts$/.test(f.path));
      expect(added.length).toBeGreaterThanOrEqual(1);
    });
  });
});
