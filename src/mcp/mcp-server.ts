/**
 * `partnership-sandbox mcp --url URL [--admin-token T]` (docs/coding-agents.md): a Model Context
 * Protocol server for a running sandbox, built with @modelcontextprotocol/sdk. Its tools are
 * control-plane operations (tools.ts derives them from the declarations), each call one HTTP
 * call to the sandbox at URL; its resources are the manual's pages, as the sandbox serves them
 * under /docs/guides/. It holds no state of its own: every answer is the sandbox's.
 */
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import {
  CallToolRequestSchema,
  type CallToolResult,
  ListToolsRequestSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { exchange, operationTarget } from '../client/http.js';
import { buildGuides } from '../guides/build-guides.js';
import { controlTools, type ToolDefinition } from './tools.js';

export interface McpOptions {
  /** The sandbox's base URL (its first stdout line names it). */
  url: string;
  /** SANDBOX_ADMIN_TOKEN of that sandbox, when it has one. */
  adminToken?: string;
  /** Or a partner's access token (from /oauth/token): the control plane then acts for that partner alone. */
  token?: string;
  /** Its version, shown to the client. */
  version: string;
  /** How long one call to the sandbox may take; default 30 s. */
  timeoutMs?: number;
}

const INSTRUCTIONS =
  'Tools for a running partnership sandbox (a mock of the Partnership Accounts API): read its request journal ' +
  '(listRequests, countRequests, listWarnings; filter by parent_account_id, account_id, trace_id, ...), its ' +
  'integration report (getReport), arm and disarm fault scenarios, set and end chaos, reset one partner, read ' +
  'and move the clocks. Each tool is the control-plane operation of the same name (GET /__sandbox/openapi.json). ' +
  'The manual is in the resources.';

export interface RunningMcp {
  server: McpServer;
  /** Lets the calls in flight answer, then closes the transport. */
  close(): Promise<void>;
}

/** A server connected to `transport` (stdio from the command line). */
export async function startMcpServer(options: McpOptions, transport: Transport): Promise<RunningMcp> {
  const base = options.url.replace(/\/+$/, '');
  const tools = controlTools(base);
  const byName = new Map(tools.map((t) => [t.name, t]));
  const mcp = new McpServer(
    { name: 'partnership-sandbox', title: 'Partnership sandbox', version: options.version },
    { capabilities: { tools: {} }, instructions: INSTRUCTIONS },
  );
  // Tools as declared: JSON Schemas from the control-plane document, so the low-level handlers
  // (McpServer's registerTool takes zod shapes and would lose the document's descriptions).
  mcp.server.setRequestHandler(ListToolsRequestSchema, () => ({
    tools: tools.map(({ name, title, description, inputSchema, annotations }) => ({
      name,
      title,
      description,
      inputSchema,
      annotations,
    })),
  }));
  const inFlight = new Set<Promise<CallToolResult>>();
  mcp.server.setRequestHandler(CallToolRequestSchema, async (request) => {
    const tool = byName.get(request.params.name);
    if (!tool)
      return failure(`no tool named ${request.params.name}; the tools: ${[...byName.keys()].join(', ')}`);
    const answer = callTool(tool, request.params.arguments ?? {}, base, options);
    inFlight.add(answer);
    return answer.finally(() => inFlight.delete(answer));
  });
  for (const page of buildGuides().pages) {
    // Where the sandbox serves it: the README is the manual's first page, /docs/guides/ itself.
    const uri = `${base}/docs/guides/${page.name === 'index' ? '' : page.name}`;
    mcp.registerResource(
      page.name,
      uri,
      {
        title: page.title,
        description: `The sandbox manual: ${page.title} (${page.file}).`,
        mimeType: 'text/markdown',
      },
      () => ({ contents: [{ uri, mimeType: 'text/markdown', text: page.markdown }] }),
    );
  }
  await mcp.connect(transport);
  return {
    server: mcp,
    async close() {
      // A request read just before stdin ended starts its handler on a later turn, and its
      // answer is written a turn after the handler ends (closing first would drop it).
      const turn = () => new Promise((r) => setImmediate(r));
      do {
        await turn();
        await Promise.allSettled([...inFlight]);
        await turn();
      } while (inFlight.size);
      await mcp.close();
    },
  };
}

const failure = (text: string): CallToolResult => ({ isError: true, content: [{ type: 'text', text }] });

/**
 * One control-plane call: the arguments by where the operation declares them (path, query,
 * body). The sandbox validates them as it validates any client's, and its 400 names the field.
 */
async function callTool(
  tool: ToolDefinition,
  args: Record<string, unknown>,
  base: string,
  options: McpOptions,
): Promise<CallToolResult> {
  const { parts } = tool;
  const unknown = Object.keys(args).filter(
    (name) => !parts.path.includes(name) && !parts.query.includes(name) && !parts.body.includes(name),
  );
  if (unknown.length) {
    const known = [...parts.path, ...parts.query, ...parts.body];
    return failure(
      `${tool.name} takes no ${unknown.join(', ')}; its parameters: ${known.length ? known.join(', ') : 'none'}`,
    );
  }
  const params: Record<string, string> = {};
  for (const name of parts.path) {
    const value = args[name];
    // A path segment: "." and ".." would move the URL to another operation.
    if (typeof value !== 'string' || value === '' || value === '.' || value === '..')
      return failure(`${name} is required: a non-empty string (not "." or "..")`);
    params[name] = value;
  }
  const query: Record<string, string | number | boolean> = {};
  for (const name of parts.query) {
    const value = args[name] ?? tool.defaults?.[name];
    if (value === undefined || value === null) continue;
    if (typeof value === 'object') return failure(`${name} must be a string, a number or a boolean`);
    query[name] = value as string | number | boolean;
  }
  const body = parts.hasBody
    ? Object.fromEntries(parts.body.filter((n) => n in args).map((n) => [n, args[n]]))
    : undefined;
  // The client's own exchange (client/http.ts): the same request line, headers and time limit.
  const { method, path } = operationTarget(tool.operation, { params, query });
  let res: Response;
  let text: string;
  try {
    ({ res, text } = await exchange(base, method, path, body, {
      token: options.token ?? options.adminToken,
      timeoutMs: options.timeoutMs,
      // The token goes to --url only: a redirect elsewhere is reported, never followed.
      redirect: 'manual',
    }));
  } catch (err) {
    const cause = (err as { cause?: { code?: string } }).cause?.code ?? (err as Error).message;
    return failure(
      `cannot reach the sandbox at ${base} (${cause}): is it running? ${method} ${path.split('?')[0]}`,
    );
  }
  const line = `${method} ${path} -> ${res.status}`;
  if (res.status >= 300 && res.status < 400)
    return failure(
      `${line}: a redirect${res.headers.get('location') ? ` to ${res.headers.get('location')}` : ''}, not followed (the token is sent to --url only): is ${base} the sandbox's own URL, the first line it prints?`,
    );
  if (!res.ok) return failure(`${line}\n${text}`);
  if (!(res.headers.get('content-type') ?? '').includes('json')) {
    return { content: [{ type: 'text', text }] };
  }
  let answer: unknown;
  try {
    answer = JSON.parse(text);
  } catch {
    return { content: [{ type: 'text', text }] }; // not JSON after all: as the sandbox sent it
  }
  if (tool.view) answer = tool.view(answer);
  const structured = answer !== null && typeof answer === 'object' && !Array.isArray(answer);
  return {
    content: [{ type: 'text', text: JSON.stringify(answer, null, 2) }],
    ...(structured ? { structuredContent: answer as Record<string, unknown> } : {}),
  };
}
