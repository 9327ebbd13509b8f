/**
 * The command line's help (`partnership-sandbox --help`, `mcp --help`, `record --help`,
 * `verify --help`): the top help gives each subcommand's flags as its own help does, verify's
 * names every reason for exit code 2, and the manual it points at is the sandbox's served one
 * (/docs/guides/<page>, each page answering 200): the package ships no docs/*.md.
 */
import { describe, expect, it } from 'vitest';
import { MANUAL_NOTE, USAGE } from '../../src/core/config.js';
import { RECORD_USAGE, VERIFY_USAGE } from '../../src/drift/drift-cli.js';
import { MCP_USAGE } from '../../src/mcp/mcp-cli.js';
import { createHarness } from '../helpers/harness.js';

const SUBCOMMANDS = { mcp: MCP_USAGE, record: RECORD_USAGE, verify: VERIFY_USAGE };
const ALL = { top: USAGE, ...SUBCOMMANDS };

describe('the help', () => {
  it.each(Object.entries(SUBCOMMANDS))(
    'the top help gives `%s` with every flag its own help has',
    (_name, usage) => {
      const synopsis = usage.split('\n')[0]!.replace(/^Usage: /, '');
      expect(USAGE).toContain(synopsis);
    },
  );

  it('verify --help names the three reasons for exit code 2', () => {
    expect(VERIFY_USAGE).toMatch(/2: FILE is no HAR recording of the API/);
    expect(VERIFY_USAGE).toMatch(/the replay\s+cannot be set up on the sandbox/);
    expect(VERIFY_USAGE).toMatch(/a --report or --junit file cannot be written/);
  });

  it('points at the manual the sandbox serves (/docs/guides/<page>, each 200), never at a docs/*.md the package lacks', async () => {
    const h = createHarness();
    expect(USAGE).toContain(MANUAL_NOTE);
    for (const [name, text] of Object.entries(ALL)) {
      expect(text, name).not.toMatch(/docs\/[\w-]+\.md/);
      const pages = [...text.matchAll(/\/docs\/guides\/([a-z0-9-]+)/g)].map((m) => m[1]!);
      expect(pages.length, name).toBeGreaterThan(0);
      for (const page of pages) {
        const res = await h.app.request(`/docs/guides/${page}`);
        expect(res.status, `${name}: /docs/guides/${page}`).toBe(200);
      }
    }
  });
});
