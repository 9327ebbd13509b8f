/**
 * The one HTTP exchange with the control plane (`/__sandbox/...`), shared by the control client
 * (client/control-client.ts), the MCP server (mcp/mcp-server.ts) and the dashboard (ui/client/, through the
 * client): an operation's request line from the generated table (contract/control/control-operations.ts,
 * by operationId), then one fetch with the bearer token, JSON headers and a time limit. Global
 * fetch only, nothing of Node, zod or hono: the dashboard's browser bundle carries it. What a
 * failure becomes is each caller's: the client throws ControlPlaneError, the MCP server answers a
 * tool error.
 */
import { CONTROL_OPERATIONS, type ControlOperationId } from './control-operations.js';

/** The default time limit of one call: far above any control-plane call, far below a CI job's patience. */
export const CONTROL_TIMEOUT_MS = 30_000;

/** What a call of an operation carries: its path parameters, its query (undefined values left out), its body. */
export interface OperationRequest {
  params?: object;
  query?: object;
  body?: unknown;
}

/** An operation's method (upper case) and its path with the parameters filled in, each encoded as one segment, and its query. */
export function operationTarget(
  id: ControlOperationId,
  input: OperationRequest = {},
): { method: string; path: string } {
  const { method, path } = CONTROL_OPERATIONS[id];
  const values = (input.params ?? {}) as Record<string, string>;
  const filled = path.replace(/\{([^}]+)\}/g, (_, name: string) => encodeURIComponent(values[name] ?? ''));
  const query = new URLSearchParams();
  for (const [name, value] of Object.entries(input.query ?? {})) {
    if (value !== undefined) query.set(name, String(value));
  }
  const qs = query.toString();
  return { method: method.toUpperCase(), path: qs ? `${filled}?${qs}` : filled };
}

export interface ExchangeOptions {
  /** Sent as `Authorization: Bearer` (the admin token, or a partner's access token). */
  token?: string | undefined;
  /** How long the call may take, its answer read; default CONTROL_TIMEOUT_MS. */
  timeoutMs?: number | undefined;
  /** `manual`: a redirect is answered as it came, not followed (the token goes to the base URL only). */
  redirect?: 'follow' | 'manual';
}

/**
 * One call: `body`, when given, sent as JSON; the answer and its text. What fetch throws (no
 * answer: refused, unreachable, timed out as a `TimeoutError`) is thrown as it is.
 */
export async function exchange(
  base: string,
  method: string,
  path: string,
  body: unknown,
  options: ExchangeOptions = {},
): Promise<{ res: Response; text: string }> {
  const headers: Record<string, string> = { accept: 'application/json' };
  if (options.token) headers.authorization = `Bearer ${options.token}`;
  if (body !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(base + path, {
    method,
    headers,
    signal: AbortSignal.timeout(options.timeoutMs ?? CONTROL_TIMEOUT_MS),
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    ...(options.redirect ? { redirect: options.redirect } : {}),
  });
  return { res, text: await res.text() };
}
