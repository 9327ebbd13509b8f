/**
 * The MCP server (`partnership-sandbox mcp --url URL`, docs/coding-agents.md) driven by the
 * SDK's own client (StdioClientTransport spawning the command line from source) against a
 * started sandbox: its tools are the control plane's declared operations (names, descriptions,
 * parameters by the control plane's names, checked against the served control-plane document),
 * each call is that operation on the sandbox, a failure is a tool error naming the cause, and
 * the manual's pages are its resources. test/mcp/mcp-bin.test.ts runs the built bin (dist/main.js).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { packageDir } from '../../src/base/package-dir.js';
import { CONTROL_OPERATIONS, type ControlOperationId } from '../../src/client/control-operations.js';
import { CONTROL_ROUTES } from '../../src/contract/control/control-routes-all.js';
import { EXPOSED, JOURNAL_DEFAULT_LIMIT } from '../../src/mcp/tools.js';
import { type RunningSandbox, startSandbox } from '../../src/start.js';
import { DEMO, MAPPINGS } from '../helpers/harness.js';
import { mcpClient } from '../helpers/mcp-client.js';
import { demoAccount, demoToken } from '../helpers/raw-http.js';

const TRACE = '4bf92f3577b34da6a3ce929d0e0e4736';

type ToolResult = {
  isError?: boolean;
  content: { type: string; text: string }[];
  structuredContent?: Record<string, unknown>;
};
const call = async (client: Client, name: string, args: Record<string, unknown> = {}) =>
  (await client.callTool({ name, arguments: args })) as ToolResult;
/** A tool's answer, failing the test on a tool error. */
async function ok(client: Client, name: string, args: Record<string, unknown> = {}) {
  const result = await call(client, name, args);
  if (result.isError) throw new Error(`${name} failed: ${result.content[0]?.text}`);
  // The text is the same answer, for clients that read only text.
  expect(JSON.parse(result.content[0]!.text)).toEqual(result.structuredContent);
  return result.structuredContent as Record<string, unknown>;
}

let sandbox: RunningSandbox;
let client: Client;
let token: string;

/** A partnership call of the demo partner. */
const partner = (path: string, headers: Record<string, string> = {}) =>
  fetch(`${sandbox.url}${path}`, {
    headers: {
      Authorization: `Bearer ${token}`,
      'X-Platform-Parent-Account-Id': DEMO.parent,
      ...headers,
    },
  });

beforeAll(async () => {
  sandbox = await startSandbox();
  client = await mcpClient(['--url', sandbox.url]);
  token = await demoToken(sandbox.url);
}, 60_000);
afterAll(async () => {
  await client?.close();
  await sandbox?.stop();
});

describe('mcp: the tools are the control plane’s declared operations', () => {
  it('the tools are the operations whose declaration gives them a place (tool), each place once, in that order', () => {
    const places = CONTROL_ROUTES.flatMap((route) => (route.tool === undefined ? [] : [route.tool]));
    expect(new Set(places).size).toBe(places.length);
    expect(EXPOSED).toEqual([
      'listRequests',
      'countRequests',
      'getReport',
      'listScenarios',
      'armScenario',
      'disarmScenarios',
      'setChaos',
      'getChaos',
      'endChaos',
      'resetPartner',
      'getClock',
      'advanceClock',
      'getPartnerClock',
      'advancePartnerClock',
      'listPartners',
      'getAccount',
    ]);
  });

  it('one tool per exposed operationId (and the coaching warnings), named, described and parametrised as the served document declares', async () => {
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toEqual([...EXPOSED, 'listWarnings']);
    const doc = (await (await fetch(`${sandbox.url}/__sandbox/openapi.json`)).json()) as {
      paths: Record<string, Record<string, Record<string, never>>>;
      components: { schemas: Record<string, { properties?: object }> };
    };
    const operations = Object.values(doc.paths).flatMap((item) => Object.values(item));
    for (const tool of tools) {
      const op = operations.find(
        (o) => o.operationId === (tool.name === 'listWarnings' ? 'listRequests' : tool.name),
      )!;
      expect(op, tool.name).toBeDefined();
      const params = ((op.parameters ?? []) as { name: string; in: string }[])
        .filter((p) => p.in === 'path' || p.in === 'query')
        .map((p) => p.name);
      const bodySchema = (
        op.requestBody as { content?: Record<string, { schema: { $ref?: string } }> } | undefined
      )?.content?.['application/json']?.schema;
      const body = bodySchema?.$ref
        ? doc.components.schemas[bodySchema.$ref.split('/').at(-1)!]!
        : (bodySchema as { properties?: object } | undefined);
      expect(Object.keys(tool.inputSchema.properties ?? {}).sort(), tool.name).toEqual(
        [...params, ...Object.keys(body?.properties ?? {})].sort(),
      );
      if (tool.name !== 'listWarnings') {
        expect(tool.title).toBe(op.summary);
        expect(tool.description).toContain(op.summary);
        expect(tool.description).toContain(String(op.description).slice(0, 40));
        expect(tool.annotations?.readOnlyHint).toBe(
          Object.keys(doc.paths).some((p) => doc.paths[p]!.get === op),
        );
      }
    }
    const byName = Object.fromEntries(tools.map((t) => [t.name, t]));
    // parameters by the control plane's names, with the document's descriptions
    const journal = byName.listRequests!.inputSchema.properties as Record<string, { description?: string }>;
    expect(Object.keys(journal)).toEqual(
      expect.arrayContaining(['parent_account_id', 'account_id', 'trace_id', 'method', 'status', 'limit']),
    );
    expect(journal.trace_id!.description).toContain('trace-id');
    expect(byName.resetPartner!.inputSchema.required).toEqual(['parent_account_id']);
    expect(byName.advancePartnerClock!.inputSchema.required).toEqual(['parent_account_id', 'seconds']);
    expect(byName.countRequests!.inputSchema.properties).toHaveProperty('body_contains');
    expect(byName.armScenario!.inputSchema.required).toEqual(['scenario']);
    // not exposed: what touches every partner or whole states
    for (const hidden of ['reset', 'clearRequests', 'saveSnapshot', 'restoreSnapshot', 'importBundle'])
      expect(byName[hidden]).toBeUndefined();
  });
});

describe('mcp: docs/coding-agents.md lists the tools as they are', () => {
  it('a row per tool, each naming the method and path of its operation', async () => {
    const page = readFileSync(join(packageDir, 'docs', 'coding-agents.md'), 'utf8');
    const rows = [...page.matchAll(/^\| `(\w+)` \| `(GET|PUT|POST|DELETE) (\S+)` \|/gm)].map((m) => [
      m[1]!,
      `${m[2]} ${m[3]}`,
    ]);
    const { tools } = await client.listTools();
    expect(rows.map(([name]) => name).sort()).toEqual(tools.map((t) => t.name).sort());
    for (const [name, route] of rows) {
      const { method, path } =
        CONTROL_OPERATIONS[name === 'listWarnings' ? 'listRequests' : (name as ControlOperationId)];
      expect(route, name).toBe(`${method.toUpperCase()} ${path}`);
    }
  });
});

describe('mcp: each tool calls its operation on the sandbox', () => {
  it('listRequests and countRequests filter by trace_id, parent_account_id and the rest', async () => {
    const traced = await partner(MAPPINGS, { traceparent: `00-${TRACE}-00f067aa0ba902b7-01` });
    expect(traced.status).toBe(200);
    await partner(MAPPINGS);
    const listed = await ok(client, 'listRequests', { trace_id: TRACE });
    const requests = listed.requests as { request_id: string; trace_id: string; span_id: string }[];
    expect(requests).toHaveLength(1);
    expect(requests[0]).toMatchObject({
      request_id: traced.headers.get('x-request-id'),
      trace_id: TRACE,
      span_id: '00f067aa0ba902b7',
    });
    expect(await ok(client, 'countRequests', { trace_id: TRACE })).toEqual({ count: 1 });
    expect(
      await ok(client, 'countRequests', { parent_account_id: DEMO.parent, method: 'GET', path: MAPPINGS }),
    ).toEqual({
      count: 2,
    });
    // query values as numbers are sent as the query's digits
    const byStatus = await ok(client, 'listRequests', { status: 200, limit: 1 });
    expect(byStatus.requests).toHaveLength(1);
  });

  it(`listRequests answers at most ${JOURNAL_DEFAULT_LIMIT} entries unless limit says otherwise`, async () => {
    await Promise.all(Array.from({ length: JOURNAL_DEFAULT_LIMIT + 2 }, () => partner(MAPPINGS)));
    expect((await ok(client, 'listRequests')).requests).toHaveLength(JOURNAL_DEFAULT_LIMIT);
    expect(
      ((await ok(client, 'listRequests', { limit: '30' })).requests as unknown[]).length,
    ).toBeGreaterThan(JOURNAL_DEFAULT_LIMIT);
  });

  it('listWarnings: the coaching warnings of the journal’s calls, each with its request_id', async () => {
    const read = await fetch(`${sandbox.url}${MAPPINGS}?parent_account_id=${DEMO.parent}`, {
      headers: { Authorization: `Bearer ${token}` },
    });
    const answer = await ok(client, 'listWarnings', { parent_account_id: DEMO.parent, limit: 5 });
    const warnings = answer.warnings as { request_id: string; warnings: string[]; path: string }[];
    const mine = warnings.find((w) => w.request_id === read.headers.get('x-request-id'));
    expect(mine).toMatchObject({ path: MAPPINGS });
    expect(mine!.warnings.join(' ')).toContain(
      'read without the recommended X-Platform-Parent-Account-Id header',
    );
    expect(read.headers.get('x-sandbox-warning')).toContain(mine!.warnings[0]!);
    // only calls that drew one
    expect(warnings.every((w) => w.warnings.length > 0)).toBe(true);
  });

  it('getReport: the integration report as JSON, or JUnit XML as text', async () => {
    const report = await ok(client, 'getReport', { parent_account_id: DEMO.parent });
    expect(report).toMatchObject({ parent_account_id: DEMO.parent });
    expect(Array.isArray(report.checks)).toBe(true);
    const junit = await call(client, 'getReport', { parent_account_id: DEMO.parent, format: 'junit' });
    expect(junit.isError).toBeFalsy();
    expect(junit.content[0]!.text).toMatch(/^<\?xml/);
  });

  it('armScenario, listScenarios and disarmScenarios: the drill applies to the partner’s next call', async () => {
    const armed = await ok(client, 'armScenario', {
      scenario: 'server-error',
      value: 503,
      parent_account_id: DEMO.parent,
      times: 1,
    });
    expect(armed.armed).toMatchObject({
      scenario: 'server-error',
      parent_account_id: DEMO.parent,
      remaining: 1,
    });
    expect(((await ok(client, 'listScenarios')).armed as unknown[]).length).toBe(1);
    expect((await partner(MAPPINGS)).status).toBe(503);
    await ok(client, 'armScenario', { scenario: 'rate-limited', parent_account_id: DEMO.parent });
    expect(((await ok(client, 'listScenarios')).armed as unknown[]).length).toBe(1);
    expect(await ok(client, 'disarmScenarios')).toEqual({ armed: [] });
    expect((await ok(client, 'listScenarios')).armed).toEqual([]);
    expect((await partner(MAPPINGS)).status).toBe(200);
  });

  it('setChaos, getChaos and endChaos', async () => {
    const set = await ok(client, 'setChaos', {
      rate: 1,
      seed: 42,
      scenarios: ['server-error'],
      parent_account_id: DEMO.parent,
    });
    expect(set.profile).toMatchObject({ parent_account_id: DEMO.parent, rate: 1, seed: 42 });
    const failed = await partner(MAPPINGS);
    expect(failed.status).toBe(503);
    expect(failed.headers.get('x-sandbox-chaos')).toMatch(/^seed=42; call=\d+$/);
    const profiles = (await ok(client, 'getChaos')).profiles as { calls_failed: number }[];
    expect(profiles).toHaveLength(1);
    expect(profiles[0]!.calls_failed).toBe(1);
    expect(await ok(client, 'endChaos', { parent_account_id: DEMO.parent })).toEqual({ profiles: [] });
  });

  it('the clocks: getClock, advancePartnerClock and getPartnerClock', async () => {
    const before = await ok(client, 'getPartnerClock', { parent_account_id: DEMO.parent });
    const moved = await ok(client, 'advancePartnerClock', { parent_account_id: DEMO.parent, seconds: 120 });
    expect(moved.offset_seconds).toBe((before.offset_seconds as number) + 120);
    expect((await ok(client, 'getClock')).offset_seconds).toBe(0);
  });

  it('resetPartner wipes that partner’s journal entries and clock offset; getAccount and listPartners read', async () => {
    const accountId = await demoAccount(sandbox.url, token);
    expect((await ok(client, 'getAccount', { account_id: accountId })).account).toMatchObject({
      account_id: accountId,
    });
    const partners = (await ok(client, 'listPartners')).partners as { parent_account_id: string }[];
    expect(partners.map((p) => p.parent_account_id)).toContain(DEMO.parent);
    expect(
      ((await ok(client, 'countRequests', { parent_account_id: DEMO.parent })).count as number) > 0,
    ).toBe(true);

    const reset = await ok(client, 'resetPartner', { parent_account_id: DEMO.parent });
    expect(reset).toMatchObject({ reset: true, parent_account_id: DEMO.parent });
    expect(await ok(client, 'countRequests', { parent_account_id: DEMO.parent })).toEqual({ count: 0 });
    expect((await ok(client, 'getPartnerClock', { parent_account_id: DEMO.parent })).offset_seconds).toBe(0);
    const gone = await call(client, 'getAccount', { account_id: accountId });
    expect(gone.isError).toBe(true);
    expect(gone.content[0]!.text).toContain('404');
  });
});

describe('mcp: a failure is a tool error that names its cause', () => {
  it('the sandbox’s 400 names the field', async () => {
    const result = await call(client, 'listRequests', { trace_id: 'xyz' });
    expect(result.isError).toBe(true);
    expect(result.content[0]!.text).toContain('-> 400');
    expect(result.content[0]!.text).toContain('query.trace_id');
    expect(result.content[0]!.text).toContain('must be a W3C trace-id: 32 hex digits');
    const body = await call(client, 'setChaos', { rate: 2, seed: 1 });
    expect(body.isError).toBe(true);
    expect(body.content[0]!.text).toContain('"field":"rate"');
  });

  it('an unknown parameter, a missing or dot path parameter, an unknown tool: refused before any call', async () => {
    const unknown = await call(client, 'countRequests', { traceid: TRACE });
    expect(unknown.isError).toBe(true);
    expect(unknown.content[0]!.text).toContain('countRequests takes no traceid; its parameters: ');
    expect(unknown.content[0]!.text).toContain('trace_id');
    for (const args of [{}, { parent_account_id: '..' }, { parent_account_id: 7 }]) {
      const missing = await call(client, 'resetPartner', args);
      expect(missing.isError).toBe(true);
      expect(missing.content[0]!.text).toContain('parent_account_id is required');
    }
    const tool = await call(client, 'reset');
    expect(tool.isError).toBe(true);
    expect(tool.content[0]!.text).toContain('no tool named reset');
    // nothing was reset
    expect(((await ok(client, 'listPartners')).partners as unknown[]).length).toBeGreaterThan(0);
  });

  it('a sandbox that does not answer: the tool says so, naming the URL', async () => {
    const closed = await startSandbox();
    const url = closed.url;
    await closed.stop();
    const lonely = await mcpClient(['--url', url]);
    try {
      const result = await call(lonely, 'getClock');
      expect(result.isError).toBe(true);
      expect(result.content[0]!.text).toContain(`cannot reach the sandbox at ${url}`);
    } finally {
      await lonely.close();
    }
  });

  it('a sandbox with SANDBOX_ADMIN_TOKEN: 401 without the token, answered with --admin-token or SANDBOX_ADMIN_TOKEN', async () => {
    const guarded = await startSandbox({ adminToken: 'mcp-test-admin-token' });
    // three processes, started together (each takes seconds on a loaded machine)
    const [without, withToken, fromEnv] = await Promise.all([
      mcpClient(['--url', guarded.url]),
      mcpClient(['--url', guarded.url, '--admin-token', 'mcp-test-admin-token']),
      mcpClient(['--url', guarded.url], undefined, { SANDBOX_ADMIN_TOKEN: 'mcp-test-admin-token' }),
    ]);
    try {
      const refused = await call(without, 'getClock');
      expect(refused.isError).toBe(true);
      expect(refused.content[0]!.text).toContain('-> 401');
      expect((await ok(withToken, 'getClock')).offset_seconds).toBe(0);
      expect((await ok(fromEnv, 'getClock')).offset_seconds).toBe(0);
    } finally {
      await without.close();
      await withToken.close();
      await fromEnv.close();
      await guarded.stop();
    }
  }, 60_000);
});

describe('mcp: the manual’s pages are its resources', () => {
  it('one resource per page served under /docs/guides/, its Markdown as written', async () => {
    const { resources } = await client.listResources();
    const index = await (await fetch(`${sandbox.url}/docs/guides/`)).text();
    // the pages the served index lists ('./' is the README, the index itself)
    const served = [...index.matchAll(/<li><a href="(\.\/|[a-z0-9-]+)"/g)].map((m) =>
      m[1]!.replace('./', ''),
    );
    expect(served.length).toBeGreaterThan(10);
    expect(resources.map((r) => r.uri).sort()).toEqual(
      [...new Set(served)].map((name) => `${sandbox.url}/docs/guides/${name}`).sort(),
    );
    for (const r of resources) expect((await fetch(r.uri)).status, r.uri).toBe(200);
    const page = resources.find((r) => r.uri.endsWith('/journal-and-report'))!;
    expect(page).toMatchObject({
      mimeType: 'text/markdown',
      title: 'The request journal, coaching warnings and the integration report',
    });
    const read = await client.readResource({ uri: page.uri });
    const text = (read.contents[0] as { text: string }).text;
    expect(text).toContain('## Traces');
    expect(text.startsWith('# The request journal')).toBe(true);
    const readme = resources.find((r) => r.uri === `${sandbox.url}/docs/guides/`)!;
    expect(readme.name).toBe('index');
    expect(((await client.readResource({ uri: readme.uri })).contents[0] as { text: string }).text).toContain(
      '## The manual',
    );
  });
});
