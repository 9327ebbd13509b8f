/**
 * `_contract` (docs/drift.md): the ways an answer breaks the partner OpenAPI document the
 * sandbox serves: an undocumented status, a body the schema refuses, a documented header
 * missing. The checking is openapi-backend's (its router finds the operation, its Ajv
 * validators check the body and the headers), against the partner document in OpenAPI 3.0.3
 * (`/openapi-3.0.json`: openapi-backend reads 3.0 documents), fetched from a sandbox started
 * in this process for the purpose (the entry point's startSandbox: embedded.ts) unless given.
 */
import type { OpenAPIBackend } from 'openapi-backend';
import { StartupError } from '../base/startup-error.js';
import { routePattern } from '../domain/route-pattern.js';
import { startEmbedded } from './embedded.js';

type Operation = NonNullable<ReturnType<OpenAPIBackend['router']['matchOperation']>>;

/** The answer as checked: status, headers (any case) and the body text. */
export interface CheckedAnswer {
  method: string;
  /** The API path (no base prefix) with its query string. */
  path: string;
  status: number;
  headers: Record<string, string>;
  /** Undefined when the body is not recorded (too large, binary, not decoded): it is not checked. */
  body: string | undefined;
}

/** At most this many body problems are listed per answer (the first ones Ajv found). */
const MAX_BODY_PROBLEMS = 5;

export class ContractChecker {
  readonly #api: OpenAPIBackend;
  /** The document's operations, each with its path template as a regular expression, built once. */
  readonly #operations: OperationEntry[];

  private constructor(api: OpenAPIBackend) {
    this.#api = api;
    // openapi-backend's router.matchOperation sorts and compiles every path at each call (a
    // tenth of record's time under load); the document does not change, so this is done once.
    this.#operations = api.router.getOperations().map((op) => ({
      method: op.method.toUpperCase(),
      pattern: routePattern(op.path),
      op,
      checks: new Map(),
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
    const q = answer.path.indexOf('?');
    const pathname = q === -1 ? answer.path : answer.path.slice(0, q);
    const method = answer.method.toUpperCase();
    const op = this.#operations.find((o) => o.method === method && o.pattern.test(pathname));
    if (!op) return [];
    const checks = this.#checksOf(op, answer.status);
    if (!checks) return [`status ${answer.status} is not documented for ${op.method} ${op.op.path}`];
    const problems: string[] = [];
    if (checks.hasContent && answer.body !== undefined) {
      let body: unknown;
      try {
        body = JSON.parse(answer.body);
      } catch {
        problems.push(`body is not JSON (${answer.body.length} characters)`);
      }
      if (body !== undefined && checks.body && !checks.body(body)) {
        for (const e of (checks.body.errors ?? []).slice(0, MAX_BODY_PROBLEMS)) {
          problems.push(`body${e.instancePath ? ` ${e.instancePath}` : ''} ${e.message ?? e.keyword}`);
        }
      }
    }
    const headers: Record<string, string> = {};
    for (const name in answer.headers) headers[name.toLowerCase()] = answer.headers[name]!;
    // A documented header the answer lacks, where the document says it is required (openapi-backend's
    // "superset" match would require every documented header, `required: false` ones too) ...
    for (const name of checks.required) {
      if (headers[name.toLowerCase()] === undefined) problems.push(`header ${name} is missing`);
    }
    // ... and the value of each documented header it has, checked against its schema.
    if (checks.headers && !checks.headers({ headers })) {
      for (const e of checks.headers.errors ?? []) {
        problems.push(`header ${e.instancePath.replace(/^\/headers\//, '')} ${e.message}`);
      }
    }
    return problems;
  }

  /**
   * The checks of an operation's answer with `status`, found once per operation and status:
   * openapi-backend's compiled Ajv validators, called directly (its validateResponse and
   * validateResponseHeaders look them up through lodash at every call, most of a check's time).
   * Undefined when the status is not documented.
   */
  #checksOf(entry: OperationEntry, status: number): Checks | undefined {
    const cached = entry.checks.get(status);
    if (cached !== undefined || entry.checks.has(status)) return cached;
    const response = responseOf(entry.op, status);
    let checks: Checks | undefined;
    if (response) {
      const { operationId } = entry.op;
      const validator = this.#api.validator;
      const bodies = operationId ? validator.getStatusBasedResponseValidatorForOperation(operationId) : null;
      const headers = operationId ? validator.getResponseHeadersValidatorForOperation(operationId) : null;
      checks = {
        hasContent: Object.keys(response.content ?? {}).length > 0,
        body: bodies ? (statusMatch(bodies, status) as Validate | undefined) : undefined,
        headers: headers ? (statusMatch(headers, status)?.any as Validate | undefined) : undefined,
        required: Object.entries(response.headers ?? {})
          .filter(([, header]) => header.required)
          .map(([name]) => name),
      };
    }
    entry.checks.set(status, checks);
    return checks;
  }
}

/** An Ajv validate function, as openapi-backend compiles them. */
type Validate = ((data: unknown) => boolean) & {
  errors?: { instancePath: string; message?: string; keyword: string }[] | null;
};

interface Checks {
  /** The document gives the answer a body (a media type). */
  hasContent: boolean;
  body: Validate | undefined;
  headers: Validate | undefined;
  /** The headers the document marks required, as it spells them. */
  required: string[];
}

interface OperationEntry {
  method: string;
  pattern: RegExp;
  op: Operation;
  /** Per status: its checks, or undefined when the status is not documented. */
  checks: Map<number, Checks | undefined>;
}

/** openapi-backend's status lookup (utils.findStatusCodeMatch): the status, its `nXX` class, `default`. */
function statusMatch<T>(map: Record<string, T>, status: number): T | undefined {
  return map[status] ?? map[`${Math.floor(status / 100)}XX`] ?? map.default;
}

interface ResponseObject {
  content?: Record<string, unknown>;
  headers?: Record<string, { required?: boolean }>;
}

function responseOf(op: Operation, status: number): ResponseObject | undefined {
  return statusMatch((op.responses ?? {}) as Record<string, ResponseObject>, status);
}

/** The partner document (OpenAPI 3.0.3) as this package's sandbox serves it. */
export async function partnerDocument(): Promise<object> {
  const sandbox = await startEmbedded();
  try {
    const res = await fetch(`${sandbox.url}/openapi-3.0.json`);
    return (await res.json()) as object;
  } finally {
    await sandbox.stop();
  }
}
