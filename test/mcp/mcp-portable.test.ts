/**
 * The MCP server's tools as a coding agent's client reads them (docs/coding-agents.md), through
 * the SDK's own client spawning `partnership-sandbox mcp` from source:
 * - portable schemas (the MCP inspector's --strict rules): every parameter described, one
 *   `type` per schema, no `anyOf`/`oneOf`/`allOf`/`$ref`, `additionalProperties: false` on
 *   every object, each schema compiled by the SDK's own validator;
 * - the descriptions say what an agent needs: where the scenarios are listed, which calls act
 *   on every partner when no target is given, that `path` is a part of the path;
 * - the unknown-scenario error names the tool's parameter, not a header the agent never sent;
 * - the token goes to --url only: `--token` as `Authorization: Bearer`, a redirect not followed.
 */
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { ToolSchema } from '@modelcontextprotocol/sdk/types.js';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv-provider.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningSandbox, startSandbox } from '../../src/start.js';
import { DEMO, MAPPINGS } from '../helpers/harness.js';
import { mcpClient } from '../helpers/mcp-client.js';
import { demoToken } from '../helpers/raw-http.js';

type Schema = Record<string, unknown>;
type ToolResult = { isError?: boolean; content: { type: string; text: string }[] };

let sandbox: RunningSandbox;
let client: Client;
beforeAll(async () => {
  sandbox = await startSandbox();
  client = await mcpClient(['--url', sandbox.url]);
}, 60_000);
afterAll(async () => {
  await client?.close();
  await sandbox?.stop();
});

/** What a strict client refuses in a schema, each as "<path>: <problem>". */
function strictProblems(schema: Schema, at: string): string[] {
  const problems: string[] = [];
  for (const keyword of ['anyOf', 'oneOf', 'allOf', '$ref', 'not'])
    if (keyword in schema) problems.push(`${at}: ${keyword}`);
  if (typeof schema.type !== 'string') problems.push(`${at}: type ${JSON.stringify(schema.type)} (one type)`);
  if (schema.type === 'object' && schema.additionalProperties !== false)
    problems.push(`${at}: additionalProperties not false`);
  for (const [name, property] of Object.entries((schema.properties ?? {}) as Record<string, Schema>)) {
    if (typeof property.description !== 'string' || property.description.length < 10)
      problems.push(`${at}.${name}: no description`);
    problems.push(...strictProblems(property, `${at}.${name}`));
  }
  if (schema.items) problems.push(...strictProblems(schema.items as Schema, `${at}[]`));
  return problems;
}

describe('mcp: the tools’ schemas are portable (MCP inspector --strict)', () => {
  it('every parameter described, one type each, no anyOf/$ref, objects closed; the SDK validates them', async () => {
    const { tools } = await client.listTools();
    const validator = new AjvJsonSchemaValidator();
    const problems = tools.flatMap((tool) => {
      expect(ToolSchema.safeParse(tool).success, tool.name).toBe(true);
      validator.getValidator(tool.inputSchema as never); // throws on a schema it cannot compile
      return strictProblems(tool.inputSchema as Schema, tool.name);
    });
    expect(problems).toEqual([]);
  });

  it('the descriptions an agent needs: the scenarios’ list, what acts on every partner, path’s partial match', async () => {
    const { tools } = await client.listTools();
    const byName = Object.fromEntries(tools.map((t) => [t.name, t]));
    const params = (name: string) =>
      byName[name]!.inputSchema.properties as Record<string, { description: string; type: string }>;
    expect(byName.armScenario!.description).toContain('listScenarios');
    expect(params('armScenario').scenario!.description).toContain('listScenarios');
    expect(params('armScenario').value!.type).toBe('number');
    expect(params('armScenario').times!.description).toMatch(/until disarmed/);
    expect(params('advanceClock').seconds!.description).toMatch(/seconds/);
    expect(params('countRequests').header!.description).toMatch(/header/);
    // the calls that act on every partner when no target is given say so
    for (const name of ['armScenario', 'disarmScenarios', 'setChaos', 'endChaos', 'advanceClock'])
      expect(byName[name]!.description, name).toMatch(/every partner/);
    for (const name of ['listRequests', 'countRequests', 'listWarnings'])
      expect(params(name).path!.description, name).toMatch(/contains this text: a part of the path/);
  });

  it('listRequests.path matches a part of the path, as its description says', async () => {
    const token = await demoToken(sandbox.url);
    const answer = await fetch(`${sandbox.url}${MAPPINGS}`, {
      headers: { Authorization: `Bearer ${token}`, 'X-Platform-Parent-Account-Id': DEMO.parent },
    });
    expect(answer.status).toBe(200);
    const result = (await client.callTool({
      name: 'countRequests',
      arguments: { path: 'vertical-mappings' },
    })) as unknown as { structuredContent: { count: number } };
    expect(result.structuredContent.count).toBeGreaterThanOrEqual(1);
  });

  it('an unknown scenario: the error names the parameter and lists the known ones, no header named', async () => {
    const result = (await client.callTool({
      name: 'armScenario',
      arguments: { scenario: 'meteor-strike' },
    })) as ToolResult;
    expect(result.isError).toBe(true);
    const text = result.content[0]!.text;
    expect(text).toContain('-> 400');
    expect(text).toContain('scenario: unknown scenario \\"meteor-strike\\". Known scenarios: ');
    expect(text).not.toContain('X-Sandbox-Scenario');
  });
});

/** A stand-in for a sandbox: answers `answer` and keeps each request's path and headers. */
async function standIn(
  answer: (path: string) => { status: number; headers?: Record<string, string>; body?: string },
) {
  const seen: { path: string; headers: IncomingHttpHeaders }[] = [];
  const server: Server = createServer((req, res) => {
    seen.push({ path: req.url ?? '', headers: req.headers });
    const { status, headers, body } = answer(req.url ?? '');
    res.writeHead(status, { 'content-type': 'application/json', ...headers }).end(body ?? '{}');
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { url, seen, close: () => new Promise((done) => server.close(done)) };
}

describe('mcp: the token goes to --url only', () => {
  it('--token T is sent as Authorization: Bearer T (a partner’s token, on the control plane)', async () => {
    const fake = await standIn(() => ({ status: 200, body: '{"now":"2026-01-01T00:00:00.000Z"}' }));
    const partner = await mcpClient(['--url', fake.url, '--token', 'partner-access-token'], undefined, {
      SANDBOX_ADMIN_TOKEN: 'not-this-one',
    });
    try {
      const result = (await partner.callTool({ name: 'getClock', arguments: {} })) as ToolResult;
      expect(result.isError).toBeFalsy();
      expect(fake.seen.map((r) => [r.path, r.headers.authorization])).toEqual([
        ['/__sandbox/clock', 'Bearer partner-access-token'],
      ]);
    } finally {
      await partner.close();
      await fake.close();
    }
  });

  it('--token with a hosted sandbox: the tools act for that partner alone (its clock), a global route is 403', async () => {
    const hosted = await startSandbox({ adminToken: 'hosted-admin-token' });
    try {
      const agent = await mcpClient(['--url', hosted.url, '--token', await demoToken(hosted.url)]);
      try {
        const own = (await agent.callTool({
          name: 'getPartnerClock',
          arguments: { parent_account_id: DEMO.parent },
        })) as ToolResult;
        expect(own.isError, own.content[0]?.text).toBeFalsy();
        const global = (await agent.callTool({ name: 'listPartners', arguments: {} })) as ToolResult;
        expect(global.isError).toBe(true);
        expect(global.content[0]!.text).toContain('GET /__sandbox/partners -> 403');
      } finally {
        await agent.close();
      }
    } finally {
      await hosted.stop();
    }
  }, 60_000);

  it('a redirect is a tool error naming it, never followed', async () => {
    const elsewhere = await standIn(() => ({ status: 200 }));
    const fake = await standIn((path) => ({
      status: 302,
      headers: { location: `${elsewhere.url}${path}` },
    }));
    const agent = await mcpClient(['--url', fake.url, '--admin-token', 'the-admin-token']);
    try {
      const result = (await agent.callTool({ name: 'getClock', arguments: {} })) as ToolResult;
      expect(result.isError).toBe(true);
      expect(result.content[0]!.text).toContain(
        `GET /__sandbox/clock -> 302: a redirect to ${elsewhere.url}/__sandbox/clock, not followed`,
      );
      expect(fake.seen).toHaveLength(1);
      expect(elsewhere.seen).toEqual([]);
    } finally {
      await agent.close();
      await fake.close();
      await elsewhere.close();
    }
  });
});
