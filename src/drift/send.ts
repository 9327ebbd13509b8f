/**
 * The replay's HTTP: one request to the sandbox replayed against, its answer read whole (a reset
 * connection is an answer too), and the check that the `--url` given is a sandbox at all.
 */
import { type Agent as HttpAgent, request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { Answer } from './compare.js';
import { type HarHeader, RecordingError } from './har.js';
import type { Outgoing } from './outgoing.js';

/** A sandbox's answer: always a body (the recorded side may lack one). */
export type SandboxAnswer = Answer & { body: string };

/** Sends one request; a reset connection is an answer too (`reset`). */
export function send(base: string, agent: HttpAgent, out: Outgoing): Promise<SandboxAnswer> {
  const url = new URL(out.path, `${base}/`);
  const request = url.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise((resolve, reject) => {
    const headers: Record<string, string | string[]> = Object.create(null);
    for (const [name, value] of out.headers) {
      const had = headers[name];
      headers[name] = had === undefined ? value : [...(Array.isArray(had) ? had : [had]), value];
    }
    const req = request(url, { method: out.method, agent, headers, timeout: 120_000 });
    req.on('response', (res: IncomingMessage) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const headers: HarHeader[] = [];
        for (let i = 0; i + 1 < res.rawHeaders.length; i += 2) {
          headers.push({ name: res.rawHeaders[i]!, value: res.rawHeaders[i + 1]! });
        }
        resolve({
          reset: false,
          status: res.statusCode ?? 0,
          headers,
          body: Buffer.concat(chunks).toString('utf8'),
        });
      });
      res.on('error', () => resolve({ reset: true, status: 0, headers: [], body: '' }));
    });
    req.on('timeout', () => req.destroy(new Error(`no answer from ${url.origin} in 120 s`)));
    req.on('error', (err: NodeJS.ErrnoException) => {
      if (err.code === 'ECONNRESET' || err.code === 'EPIPE') {
        resolve({ reset: true, status: 0, headers: [], body: '' });
      } else {
        reject(
          new RecordingError(
            `cannot replay ${out.method} ${out.path} at ${url.origin}: ${err.code ?? err.message}`,
          ),
        );
      }
    });
    req.end(out.body);
  });
}

const HEALTH = '/__sandbox/health';

/**
 * Throws a RecordingError (one line) unless `base` answers `GET /__sandbox/health` as a sandbox
 * does: 200 and `{"status":"ok","store":{…}}`. It never needs the admin token. Without this, a
 * `--url` of another server (anything that answers 200 with JSON) was replayed against.
 */
export async function checkSandbox(base: string, agent: HttpAgent): Promise<void> {
  let answer: SandboxAnswer;
  try {
    answer = await send(base, agent, { method: 'GET', path: HEALTH, headers: [], body: undefined });
  } catch (err) {
    const why = (err as Error).message.replace(/^.*: /, '');
    throw new RecordingError(`no sandbox answers at ${base}: GET ${HEALTH} got no answer (${why})`);
  }
  const problem = healthProblem(answer);
  if (problem) {
    throw new RecordingError(
      `${base} is no partnership sandbox: GET ${HEALTH} answered ${problem}, where a sandbox answers 200 {"status":"ok","store":{…}}`,
    );
  }
}

function healthProblem(answer: SandboxAnswer): string | undefined {
  if (answer.reset) return 'by resetting the connection';
  const text = JSON.stringify(answer.body.slice(0, 60)) + (answer.body.length > 60 ? '…' : '');
  if (answer.status !== 200) return `${answer.status} ${text}`;
  let doc: unknown;
  try {
    doc = JSON.parse(answer.body);
  } catch {
    return `200 with a body that is not JSON (${text})`;
  }
  const health = doc as { status?: unknown; store?: unknown } | null;
  if (health?.status === 'ok' && typeof health.store === 'object' && health.store !== null) return undefined;
  return `200 ${text}`;
}
