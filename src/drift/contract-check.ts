/**
 * `_contract` (docs/drift.md): the ways an answer breaks the partner OpenAPI document the
 * sandbox serves: an undocumented status, a body the schema refuses, a documented header
 * missing. The checking is openapi-backend's (its router finds the operation, its Ajv
 * validators check the body and the headers), against the partner document in OpenAPI 3.0.3
 * (`/openapi-3.0.json`: openapi-backend reads 3.0 documents), fetched from a sandbox started
 * in this process for the purpose (startSandbox, the package's own entry) unless given.
 */
import type { OpenAPIBackend } from 'openapi-backend';
import { StartupError } from '../core/startup-error.js';
import { startSandbox } from '../start.js';

type Operation = NonNullable<ReturnType<OpenAPIBackend['router']['matchOperation']>>;

/** The answer as checked: status, headers (any case) and the body text. */
export interface CheckedAnswer {
  method: string;
  /** The API path (no base prefix) with its query string. */
  path: string;
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** At most this many body problems are listed per answer (the first ones Ajv found). */
const MAX_BODY_PROBLEMS = 5;

export class ContractChecker {
  readonly #api: OpenAPIBackend;
  /** The document's operations, each with its path template as a regular expression, built once. */
  readonly #operations: { method: string; pattern: RegExp; op: Operation }[];

  private constructor(api: OpenAPIBackend) {
    this.#api = api;
    // openapi-backend's router.matchOperation sorts and compiles every path at each call (a
    // tenth of record's time under load); the document does not change, so this is done once.
    this.#operations = api.router.getOperations().map((op) => ({
      method: op.method.toUpperCase(),
      pattern: new RegExp(
        `^${op.path
          .split(/\{[^}]+\}/)
          .map((part) => part.replace(/[.*+?^$()|[\]\\]/g, '\\$&'))
          .join('[^/]+')}$`,
      ),
      op,
    }));
  }

  /** A checker over `document` (an OpenAPI 3.0 document), or the partner document of this package's sandbox. */
  static async create(document?: object): Promise<ContractChecker> {
    const definition = document ?? (await partnerDocument());
    // Loaded here, not at the top: the bin and the package load it only when recording (it is
    // a bundle of its own in dist/: scripts/build.mjs).
    const { OpenAPIBackend, addAjvFormats } = await import('./openapi-validator.js').catch((err: Error) => {
      throw new StartupError(
        `cannot load the OpenAPI validator (openapi-validator.js beside the bin): ${err.message}`,
      );
    });
    const api = new OpenAPIBackend({
      // biome-ignore lint/suspicious/noExplicitAny: openapi-backend types its definition as its own Document type
      definition: definition as any,
      quick: true,
      validate: true,
      ajvOpts: { strict: false, allErrors: false },
      customizeAjv: (ajv) => {
        addAjvFormats(ajv as never);
        return ajv;
      },
    });
    await api.init();
    return new ContractChecker(api);
  }

  /** The problems of one answer; [] when it keeps the document (or is no operation of it). */
  check(answer: CheckedAnswer): string[] {
    const pathname = answer.path.split('?')[0]!;
    const method = answer.method.toUpperCase();
    const op = this.#operations.find((o) => o.method === method && o.pattern.test(pathname))?.op;
    if (!op) return [];
    const problems: string[] = [];
    if (!documented(op, answer.status)) {
      problems.push(`status ${answer.status} is not documented for ${op.method.toUpperCase()} ${op.path}`);
      return problems;
    }
    const headers = Object.fromEntries(Object.entries(answer.headers).map(([k, v]) => [k.toLowerCase(), v]));
    const mediaTypes = responseOf(op, answer.status)?.content;
    if (mediaTypes && Object.keys(mediaTypes).length) {
      let body: unknown;
      try {
        body = JSON.parse(answer.body);
      } catch {
        problems.push(`body is not JSON (${answer.body.length} characters)`);
      }
      if (body !== undefined) {
        const result = this.#api.validator.validateResponse(body, op, answer.status);
        for (const e of (result.errors ?? []).slice(0, MAX_BODY_PROBLEMS)) {
          problems.push(`body${e.instancePath ? ` ${e.instancePath}` : ''} ${e.message ?? e.keyword}`);
        }
      }
    }
    // A documented header the answer lacks, where the document says it is required (openapi-backend's
    // "superset" match would require every documented header, `required: false` ones too) ...
    for (const [name, header] of Object.entries(responseOf(op, answer.status)?.headers ?? {})) {
      if (header.required && headers[name.toLowerCase()] === undefined)
        problems.push(`header ${name} is missing`);
    }
    // ... and the value of each documented header it has, checked against its schema.
    const result = this.#api.validator.validateResponseHeaders(headers, op, {
      statusCode: answer.status,
      setMatchType: 'any' as never, // SetMatchType.Any (the enum is a value of the lazily loaded module)
    });
    for (const e of result.errors ?? []) {
      problems.push(`header ${e.instancePath.replace(/^\/headers\//, '')} ${e.message}`);
    }
    return problems;
  }
}

interface ResponseObject {
  content?: Record<string, unknown>;
  headers?: Record<string, { required?: boolean }>;
}

function responseOf(op: Operation, status: number): ResponseObject | undefined {
  const responses = (op.responses ?? {}) as Record<string, ResponseObject>;
  return responses[String(status)] ?? responses[`${String(status)[0]}XX`] ?? responses.default;
}

function documented(op: Operation, status: number): boolean {
  return responseOf(op, status) !== undefined;
}

/** The partner document (OpenAPI 3.0.3) as this package's sandbox serves it. */
export async function partnerDocument(): Promise<object> {
  const sandbox = await startSandbox();
  try {
    const res = await fetch(`${sandbox.url}/openapi-3.0.json`);
    return (await res.json()) as object;
  } finally {
    await sandbox.stop();
  }
}
