/**
 * Imports run one way (issue 16): the layers of src/ may import only downward. Lower
 * layers know nothing of the ones above: contract and domain import nothing of the app,
 * store imports only contract types, the sandbox core (src/core/) imports neither the state
 * nor services, the sandbox's state (src/state/) imports no services, services do not import
 * http, http does not import api, control or ui, scenarios do not import the state, http or
 * services. Outside src/state/, the app imports the state room through its face
 * (src/state/index.ts) only.
 * A layer is a folder of src/; the files at the top of src/ (the entry points and what
 * they read at start-up) are free. The bottom floor, src/base/ (the start-up error, where
 * the package is), imports nothing of the app, and every layer may import it. No exemption:
 * a room reads its allowed layers and base/, never a single file besides.
 * The domain is below the store: it declares the shapes its rules work on, and the store
 * keeps them by those types (type-only imports), so one definition serves both.
 * The check reads every import in src/ (static, dynamic and type-only alike), and no file
 * imports itself through others: no import cycle, type-only imports included.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const SRC = resolve(import.meta.dirname, '..', '..', 'src');

/** The layer a file of src/ belongs to: its folder, or "top" for the files at the top. */
function layerOf(file: string): string {
  const rel = relative(SRC, file);
  return rel.includes('/') ? rel.slice(0, rel.indexOf('/')) : 'top';
}

/** What each layer must not import (by layer name). The top (app, server, main, start, index, ...) is free. */
const FORBIDDEN: Record<string, { layers: string[]; exceptTypesFrom?: string[]; only?: string[] }> = {
  // The bottom floor: what every layer may use (the start-up error class, where the package is);
  // it imports nothing of the app, only Node's built-ins.
  base: { layers: [], only: ['base'] },
  contract: { layers: [], only: ['contract'] },
  domain: { layers: [], only: ['domain'] },
  // The store keeps the domain's values by their domain types (domain sits below it).
  store: { layers: [], only: ['store'], exceptTypesFrom: ['contract', 'domain'] },
  scenarios: { layers: ['state', 'services', 'http', 'api', 'control', 'ui', 'client'] },
  // The sandbox's rules and parts (src/core/: config, clocks, the journal, the rate limit...):
  // a floor below the state, which holds them.
  core: { layers: ['state', 'services', 'http', 'api', 'control', 'ui', 'client'] },
  // The sandbox's state (src/state/): the one object the layers share, its creation, the
  // registry of its pieces, snapshots and bundles; below services, which build on it.
  state: { layers: ['services', 'http', 'api', 'control', 'ui', 'client'] },
  services: { layers: ['http', 'api', 'control', 'ui', 'client'] },
  http: { layers: ['api', 'control', 'ui', 'client'] },
  // The control client runs in partners' test runners and in the dashboard page: it takes only
  // types from the contract; at run time it reads its own room, whose generated table of
  // methods and paths (client/control-operations.ts) imports nothing (checked below).
  client: { layers: [], only: ['client'], exceptTypesFrom: ['contract'] },
  // Recordings and drift (docs/drift.md), a room of its own: the entry points at the top
  // (index.ts, main.ts) hand it how to start its sandbox (drift/embedded.ts); it drives it with
  // the control client, may read the contract and the pure rules, and imports nothing of http/
  // (nor api, control, state, services, store, core, ui, nor start.ts).
  drift: { layers: [], only: ['drift', 'contract', 'domain', 'client'] },
  // Pacts (docs/contracts.md), a room of its own: built from calls (the journal's, or a HAR
  // recording's, read by drift's reader) with the contract's names of the provider states, and
  // where the package is (base/package-dir.ts: its version).
  pact: { layers: [], only: ['pact', 'contract', 'domain', 'drift'] },
  // The MCP server (a room of its own) talks to a running sandbox over HTTP, through the control
  // plane's one HTTP exchange (client/http.ts): it reads the declarations (contract), the
  // manual's pages (guides) and the package's version, never the app.
  mcp: { layers: [], only: ['mcp', 'contract', 'guides', 'client'] },
  // The manual's pages (Markdown rendered, or constants once bundled), read by /docs and MCP.
  guides: { layers: [], only: ['guides'] },
};

/** The floor every layer may import (it imports nothing of the app). */
const FLOOR = 'base';
function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sources(path);
    return /\.tsx?$/.test(name) ? [path] : [];
  });
}

interface Import {
  target: string;
  typeOnly: boolean;
}

function importsOf(file: string): Import[] {
  const text = readFileSync(file, 'utf8');
  const out: Import[] = [];
  const re =
    /(?:^|\n)\s*(import|export)\s+(type\s+)?[^'"]*?from\s+['"](\.[^'"]+)['"]|import\(\s*['"](\.[^'"]+)['"]\s*\)/g;
  for (const m of text.matchAll(re)) {
    const spec = m[3] ?? m[4]!;
    out.push({ target: resolve(dirname(file), spec), typeOnly: Boolean(m[2]) });
  }
  return out;
}

/** Whether `file` importing `target` (a resolved path in src/) breaks the rules. */
function breaks(file: string, target: string, typeOnly: boolean): boolean {
  const rule = FORBIDDEN[layerOf(file)];
  if (!rule || relative(SRC, target).startsWith('..')) return false;
  const to = layerOf(target);
  if (to === FLOOR) return false;
  if (rule.only) return !rule.only.includes(to) && !(typeOnly && rule.exceptTypesFrom?.includes(to));
  return rule.layers.includes(to);
}

/** Every import that breaks the rules, as "from -> to". */
function violations(files: string[]): string[] {
  return files.flatMap((file) =>
    importsOf(file)
      .filter((imp) => breaks(file, imp.target, imp.typeOnly))
      .map((imp) => `${relative(SRC, file)} -> ${relative(SRC, imp.target)}${imp.typeOnly ? ' (type)' : ''}`),
  );
}

/** The import cycles of a graph (its strongly connected components of two or more files). */
function cycles(graph: Map<string, string[]>): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (v: string) => {
    index.set(v, index.size);
    low.set(v, index.get(v)!);
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!graph.has(w)) continue;
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) === index.get(v)) {
      const component: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        component.push(w);
      } while (w !== v);
      if (component.length > 1) found.push(component.sort());
    }
  };
  for (const v of graph.keys()) if (!index.has(v)) visit(v);
  return found;
}

/** src/ as a graph: each file to the files it imports, type-only imports included. */
function importGraph(): Map<string, string[]> {
  const files = sources(SRC);
  const ts = (target: string) => {
    const base = target.replace(/\.js$/, '');
    return files.find((f) => f === `${base}.ts` || f === `${base}.tsx`) ?? target;
  };
  return new Map(
    files.map((file) => [relative(SRC, file), importsOf(file).map((imp) => relative(SRC, ts(imp.target)))]),
  );
}

describe('layers: imports run one way', () => {
  it('no import cycle in src/, type-only imports included', () => {
    const graph = importGraph();
    expect(graph.size).toBeGreaterThan(100);
    expect(cycles(graph)).toEqual([]);
    // The check finds one when there is one.
    const looped = new Map([
      ['a.ts', ['b.ts']],
      ['b.ts', ['c.ts']],
      ['c.ts', ['a.ts']],
      ['d.ts', ['a.ts']],
    ]);
    expect(cycles(looped)).toEqual([['a.ts', 'b.ts', 'c.ts']]);
  });

  it('no file of src/ imports a layer above its own', () => {
    expect(violations(sources(SRC))).toEqual([]);
  });

  it('outside the state room, the app reads it through its face (src/state/index.ts) only', () => {
    const STATE = join(SRC, 'state');
    const outside = sources(SRC).filter((file) => !file.startsWith(`${STATE}/`));
    const reaching = outside.flatMap((file) =>
      importsOf(file)
        .filter((i) => i.target.startsWith(`${STATE}/`) && i.target !== join(STATE, 'index.js'))
        .map((i) => `${relative(SRC, file)} -> ${relative(SRC, i.target)}`),
    );
    expect(reaching).toEqual([]);
    expect(
      outside.filter((file) => importsOf(file).some((i) => i.target === join(STATE, 'index.js'))).length,
    ).toBeGreaterThan(20);
  });

  it("the contract's two rooms: the control plane's may build on the partner API's, never the reverse", () => {
    const api = sources(join(SRC, 'contract', 'api'));
    expect(api.length).toBeGreaterThan(5);
    const control = join(SRC, 'contract', 'control');
    const reversed = api.flatMap((file) =>
      importsOf(file)
        .filter((i) => i.target.startsWith(`${control}/`))
        .map((i) => `${relative(SRC, file)} -> ${relative(SRC, i.target)}`),
    );
    expect(reversed).toEqual([]);
    expect(sources(control).length).toBeGreaterThan(5);
  });

  it('the control client loads no package and nothing of the app at run time but the generated table of paths', () => {
    const files = sources(join(SRC, 'client'));
    expect(files.length).toBeGreaterThan(0);
    const loaded = files.flatMap((file) =>
      [
        ...readFileSync(file, 'utf8').matchAll(
          /(?:^|\n)\s*(?:import|export)\s+(?!type\s)[^'"]*?from\s+['"]([^'"]+)['"]/g,
        ),
      ]
        .map((m) => m[1]!)
        .filter((spec) => !spec.startsWith('./'))
        .map((spec) => `${relative(SRC, file)} -> ${spec}`),
    );
    expect(loaded).toEqual([]);
    expect(readFileSync(join(SRC, 'client/control-operations.ts'), 'utf8')).not.toMatch(/\bimport\b/);
  });

  it('the check catches reversed imports (and lets a downward one through)', () => {
    const at = (path: string) => join(SRC, path);
    expect(breaks(at('store/idempotency-table.ts'), at('http/answer-writer.ts'), false)).toBe(true);
    expect(breaks(at('store/idempotency-table.ts'), at('contract/api/errors.ts'), false)).toBe(true);
    expect(breaks(at('store/idempotency-table.ts'), at('contract/api/errors.ts'), true)).toBe(false);
    expect(breaks(at('domain/aggregate-status.ts'), at('store/accounts-table.ts'), true)).toBe(true);
    expect(breaks(at('http/auth.ts'), at('control/routes.ts'), false)).toBe(true);
    expect(breaks(at('scenarios/fault-plan.ts'), at('http/request-headers.ts'), false)).toBe(true);
    expect(breaks(at('state/create-sandbox.ts'), at('http/body.ts'), false)).toBe(true);
    expect(breaks(at('state/sandbox.ts'), at('services/status.ts'), true)).toBe(true);
    expect(breaks(at('state/bundles/bundle-export.ts'), at('services/lookup.ts'), false)).toBe(true);
    expect(breaks(at('core/journal.ts'), at('state/index.ts'), true)).toBe(true);
    expect(breaks(at('services/status.ts'), at('state/index.ts'), false)).toBe(false);
    expect(breaks(at('state/create-sandbox.ts'), at('core/journal.ts'), false)).toBe(false);
    expect(breaks(at('services/status.ts'), at('http/env.ts'), true)).toBe(true);
    expect(breaks(at('http/auth.ts'), at('services/tokens.ts'), false)).toBe(false);
    expect(breaks(at('app.ts'), at('control/routes.ts'), false)).toBe(false);
    expect(breaks(at('client/control-client.ts'), at('contract/control/control-schemas.ts'), false)).toBe(
      true,
    );
    expect(breaks(at('client/control-client.ts'), at('contract/control/control-schemas.ts'), true)).toBe(
      false,
    );
    expect(breaks(at('drift/replay.ts'), at('http/answer-writer.ts'), false)).toBe(true);
    expect(breaks(at('drift/replay.ts'), at('http/answer-writer.ts'), true)).toBe(true);
    expect(breaks(at('drift/replay.ts'), at('services/register.ts'), false)).toBe(true);
    expect(breaks(at('drift/replay.ts'), at('app.ts'), false)).toBe(true);
    expect(breaks(at('drift/replay.ts'), at('start.js'), false)).toBe(true);
    expect(breaks(at('drift/replay.ts'), at('start.js'), true)).toBe(true);
    expect(breaks(at('drift/replay.ts'), at('client/control-client.ts'), false)).toBe(false);
    expect(breaks(at('mcp/mcp-server.ts'), at('state/create-sandbox.ts'), false)).toBe(true);
    expect(breaks(at('mcp/mcp-server.ts'), at('control/routes.ts'), true)).toBe(true);
    expect(breaks(at('mcp/tools.ts'), at('contract/control/openapi-control.ts'), false)).toBe(false);
    expect(breaks(at('mcp/mcp-server.ts'), at('api/docs.ts'), false)).toBe(true);
    expect(breaks(at('mcp/mcp-server.ts'), at('guides/build-guides.ts'), false)).toBe(false);
    expect(breaks(at('store/db.ts'), at('base/startup-error.ts'), false)).toBe(false);
    expect(breaks(at('store/db.ts'), at('core/config.ts'), false)).toBe(true);
    expect(breaks(at('base/startup-error.ts'), at('domain/aggregate-status.ts'), true)).toBe(true);
    expect(breaks(at('guides/build-guides.ts'), at('api/docs.ts'), false)).toBe(true);
    expect(breaks(at('client/control-client.ts'), at('client/control-operations.ts'), false)).toBe(false);
    expect(breaks(at('client/control-client.ts'), at('contract/control/default-chaos.ts'), false)).toBe(true);
    expect(breaks(at('client/control-client.ts'), at('start.ts'), false)).toBe(true);
    expect(breaks(at('mcp/mcp-cli.ts'), at('base/package-dir.ts'), false)).toBe(false);
  });

  it("the bottom floor (src/base/) imports nothing but Node's built-ins, not even a package", () => {
    const files = sources(join(SRC, 'base'));
    expect(files.map((f) => relative(SRC, f))).toEqual(
      expect.arrayContaining(['base/startup-error.ts', 'base/package-dir.ts']),
    );
    for (const file of files) {
      const text = readFileSync(file, 'utf8');
      const specs = [...text.matchAll(/\bfrom\s+['"]([^'"]+)['"]|\bimport\s*\(\s*['"]([^'"]+)['"]/g)].map(
        (m) => m[1] ?? m[2]!,
      );
      expect(
        specs.filter((spec) => !spec.startsWith('node:')),
        file,
      ).toEqual([]);
      expect(text.match(/^\s*(?:import|export)\b.*\bfrom\b|\brequire\(/gm)?.length ?? 0, file).toBe(
        specs.length,
      );
    }
  });
});
