/**
 * verify's output (docs/drift.md): a line per differing entry naming its index, method and
 * path, then each difference as `<json path>: recorded <x>, sandbox <y>`; a line per entry not
 * replayed, with its reason; then the closing line
 * `N entries: N same, N differ, N not replayed, N ignored`. The same as JSON (--report) and
 * as JUnit XML (--junit: a test case per entry).
 */
import { basename } from 'node:path';
import { xmlText } from '../domain/xml.js';
import type { EntryResult, VerifyResult } from './verify-result.js';

const title = (e: EntryResult) => `entries[${e.index}] ${e.method} ${e.path}`;

/** The text report, one string per line. */
export function reportLines(result: VerifyResult): string[] {
  const lines: string[] = [];
  for (const e of result.entries) {
    if (e.outcome === 'differ') {
      lines.push(title(e));
      for (const d of e.differences) lines.push(`  ${d.path}: recorded ${d.recorded}, sandbox ${d.sandbox}`);
    } else if (e.outcome === 'not replayed') {
      lines.push(`${title(e)}: not replayed: ${e.reason}`);
    }
  }
  lines.push(closingLine(result));
  return lines;
}

export function closingLine({ totals: t }: VerifyResult): string {
  return `${t.entries} entries: ${t.same} same, ${t.differ} differ, ${t.notReplayed} not replayed, ${t.ignored} ignored`;
}

/** The JSON report (--report). */
export function reportJson(result: VerifyResult): string {
  return `${JSON.stringify(
    {
      file: result.file,
      sandbox: result.url,
      parent_account_id: result.parentAccountId,
      totals: {
        entries: result.totals.entries,
        same: result.totals.same,
        differ: result.totals.differ,
        not_replayed: result.totals.notReplayed,
        ignored: result.totals.ignored,
      },
      summary: closingLine(result),
      entries: result.entries.map((e) => ({
        index: e.index,
        method: e.method,
        path: e.path,
        outcome: e.outcome,
        ...(e.reason ? { reason: e.reason } : {}),
        differences: e.differences,
      })),
    },
    null,
    2,
  )}\n`;
}

/** The JUnit XML report (--junit): one test case per entry; not replayed and ignored ones are skipped. */
export function reportJUnit(result: VerifyResult): string {
  const t = result.totals;
  const suite = xmlText(`partnership-sandbox verify ${basename(result.file)}`);
  const cases = result.entries.map((e) => {
    const time = ((e.ms ?? 0) / 1000).toFixed(3);
    const open = `    <testcase classname="partnership-sandbox.drift" name="${xmlText(title(e))}" time="${time}">`;
    if (e.outcome === 'differ') {
      const lines = e.differences.map((d) => `${d.path}: recorded ${d.recorded}, sandbox ${d.sandbox}`);
      const message = `${e.differences.length} difference${e.differences.length === 1 ? '' : 's'}: ${lines[0]}`;
      return `${open}\n      <failure message="${xmlText(message)}" type="drift">${xmlText(lines.join('\n'))}</failure>\n    </testcase>`;
    }
    if (e.outcome === 'same') return `${open}</testcase>`;
    return `${open}\n      <skipped message="${xmlText(`${e.outcome}: ${e.reason ?? ''}`)}"/>\n    </testcase>`;
  });
  const skipped = t.notReplayed + t.ignored;
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites name="${suite}" tests="${t.entries}" failures="${t.differ}" skipped="${skipped}">`,
    `  <testsuite name="${suite}" tests="${t.entries}" failures="${t.differ}" errors="0" skipped="${skipped}">`,
    ...cases,
    '  </testsuite>',
    '</testsuites>',
    '',
  ].join('\n');
}
