/**
 * What the command line prints once it listens (docs/in-your-ci.md). The first line carries the
 * base URL first (partners' scripts parse it); the next ones say where the API docs, the
 * dashboard and the default credentials are, for a partner who started the sandbox with npx
 * or Docker and has no README beside it.
 *
 * The default credentials are those of the fixtures' first partner as loaded, so a partner's
 * own fixtures folder prints its own. A secret is printed only when it is the one the README
 * documents publicly: the package's own fixtures, and the store still holds that secret (a
 * durable store or a seed bundle may hold another). A partner's own fixtures keep theirs
 * out of CI logs: the line names the file instead. No partner created on the control plane
 * is printed.
 */
import { join } from 'node:path';
import { isDefaultFixtures } from './base/package-dir.js';
import { secretMatches } from './domain/secrets.js';
import type { Sandbox } from './state/index.js';
import { secretOf } from './store/partners-table.js';
import { UI_PATH } from './ui/shell.js';

export interface Landmarks {
  url: string;
  docs: string;
  dashboard: string;
  /** The fixtures' first partner, as the store holds it; undefined when the store holds none. */
  credentials?: {
    parent_account_id: string;
    client_id: string;
    /** The documented demo secret, or undefined: then `file` holds it. */
    client_secret?: string;
    file: string;
  };
}

export async function landmarks(s: Sandbox, url: string): Promise<Landmarks> {
  const out: Landmarks = { url, docs: `${url}/docs`, dashboard: `${url}${UI_PATH}` };
  const fixture = s.fixtures.partners[0];
  const stored = fixture && s.store.partners.byParent(fixture.parent_account_id);
  if (!fixture || !stored) return out;
  const documented =
    isDefaultFixtures(s.fixtures.dir) &&
    stored.client_id === fixture.client_id &&
    (await secretMatches(secretOf(stored), fixture.client_secret));
  out.credentials = {
    parent_account_id: stored.parent_account_id,
    client_id: stored.client_id,
    ...(documented ? { client_secret: fixture.client_secret } : {}),
    file: join(s.fixtures.dir, 'partners.json'),
  };
  return out;
}

/** The lines on stdout: the URL line first, then the landmarks. */
export function bannerLines(l: Landmarks, adminToken: boolean): string[] {
  const lines = [
    `Partnership sandbox on ${l.url}`,
    `  API docs:    ${l.docs}`,
    `  Dashboard:   ${l.dashboard}${adminToken ? ' (asks for the SANDBOX_ADMIN_TOKEN)' : ''}`,
  ];
  const c = l.credentials;
  if (c) {
    const secret = c.client_secret === undefined ? `as in ${c.file}` : c.client_secret;
    lines.push(
      `  Default credentials: client_id ${c.client_id}, client_secret ${secret}, parent account ID ${c.parent_account_id}`,
    );
  }
  return lines;
}
