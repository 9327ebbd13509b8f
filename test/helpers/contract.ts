/**
 * The contract check: every response the test suite receives through the harness is
 * validated against the served OpenAPI documents (the sandbox document
 * /openapi.sandbox.json, a superset of the partner /openapi.json, and
 * /__sandbox/openapi.json) with Ajv (JSON Schema 2020-12, the dialect of OpenAPI 3.1):
 * the body against the response's schema, and the headers against the response's
 * declared headers (every required one sent, every API header sent declared). A handler
 * drifting from the document fails the test that made the call.
 */
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';

interface HeaderObject {
  $ref?: string;
  required?: boolean;
}
interface ResponseObject {
  content?: Record<string, { schema: unknown }>;
  headers?: Record<string, HeaderObject>;
}
type Doc = {
  paths: Record<string, Record<string, { responses: Record<string, ResponseObject> }>>;
  components?: { headers?: Record<string, HeaderObject> } & Record<string, unknown>;
};

interface Operation {
  regex: RegExp;
  method: string;
  docId: string;
  pointer: string;
  responses: Record<string, ResponseObject>;
  headerComponents: Record<string, HeaderObject>;
}

/** Headers of the API's own: each one sent must be declared on the response that sent it. */
const API_HEADERS = [
  'x-request-id',
  'retry-after',
  'www-authenticate',
  'allow',
  'idempotent-replayed',
  'x-sandbox-warning',
  'x-sandbox-scenario-applied',
];
const DOCUMENTS = new Set([
  '/openapi.json',
  '/openapi.sandbox.json',
  '/openapi-3.0.json',
  '/__sandbox/openapi.json',
]);

const pointerEscape = (s: string) => s.replace(/~/g, '~0').replace(/\//g, '~1');

export class Contract {
  readonly #ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: true });
  readonly #ops: Operation[] = [];
  readonly #validators = new Map<string, ValidateFunction>();

  constructor(docs: Record<string, Doc>) {
    (addFormats as unknown as (ajv: Ajv2020) => void)(this.#ajv);
    for (const [id, doc] of Object.entries(docs)) {
      this.#ajv.addSchema({ ...doc, $id: id });
      for (const [path, methods] of Object.entries(doc.paths)) {
        const regex = new RegExp(`^${path.replace(/\{[^}]+\}/g, '[^/]+')}$`);
        for (const [method, op] of Object.entries(methods)) {
          this.#ops.push({
            regex,
            method: method.toUpperCase(),
            docId: id,
            pointer: `/paths/${pointerEscape(path)}/${method}`,
            responses: op.responses,
            headerComponents: doc.components?.headers ?? {},
          });
        }
      }
    }
  }

  /** Problems of one response against the document; [] when it conforms or is not documented JSON. */
  check(
    method: string,
    path: string,
    status: number,
    contentType: string | null,
    body: unknown,
    headers?: Headers,
  ): string[] {
    if (DOCUMENTS.has(path) || path.startsWith('/docs')) return [];
    const m = method === 'HEAD' ? 'GET' : method;
    const candidates = this.#ops.filter((o) => o.regex.test(path));
    const op = candidates.find((o) => o.method === m);
    if (!op) {
      // unknown route or method: the 404/405 error envelope
      if (
        (path.startsWith('/v1/') || path.startsWith('/__sandbox/')) &&
        status >= 400 &&
        contentType?.includes('json')
      ) {
        return this.#validate(
          'control',
          '/components/schemas/ErrorEnvelope',
          body,
          `${method} ${path} -> ${status}`,
        );
      }
      return [];
    }
    const key = String(status) in op.responses ? String(status) : 'default';
    const response = op.responses[key];
    if (!response) return [`${method} ${path}: status ${status} is not documented`];
    const problems = headers
      ? this.#checkHeaders(op, response, headers, `${method} ${path} -> ${status}`)
      : [];
    if (!contentType?.includes('json')) return problems;
    const content = response.content?.['application/json'];
    if (!content) return [...problems, `${method} ${path} -> ${status}: JSON body is not documented`];
    const pointer = `${op.pointer}/responses/${key}/content/application~1json/schema`;
    return [...problems, ...this.#validate(op.docId, pointer, body, `${method} ${path} -> ${status}`)];
  }

  #checkHeaders(op: Operation, response: ResponseObject, headers: Headers, label: string): string[] {
    const declared = new Map<string, HeaderObject>();
    for (const [name, h] of Object.entries(response.headers ?? {})) {
      const resolved = h.$ref ? op.headerComponents[h.$ref.replace('#/components/headers/', '')] : h;
      declared.set(name.toLowerCase(), resolved ?? {});
    }
    const problems: string[] = [];
    for (const [name, h] of declared) {
      if (h.required && !headers.has(name)) problems.push(`${label}: required header ${name} was not sent`);
    }
    for (const name of API_HEADERS) {
      if (headers.has(name) && !declared.has(name)) problems.push(`${label}: header ${name} is not declared`);
    }
    return problems;
  }

  #validate(docId: string, pointer: string, body: unknown, label: string): string[] {
    const key = `${docId}#${pointer}`;
    let validate = this.#validators.get(key);
    if (!validate) {
      validate = this.#ajv.compile({ $ref: key });
      this.#validators.set(key, validate);
    }
    if (validate(body)) return [];
    return (validate.errors ?? []).map(
      (e) => `${label}: ${e.instancePath || '(root)'} ${e.message} ${JSON.stringify(e.params)}`,
    );
  }
}

let shared: Promise<Contract> | undefined;
/** The contract, built once per test process from an app's own served documents. */
export function contractOf(fetchDoc: (path: string) => Promise<Doc>): Promise<Contract> {
  shared ??= (async () =>
    new Contract({
      partnership: await fetchDoc('/openapi.sandbox.json'),
      control: await fetchDoc('/__sandbox/openapi.json'),
    }))();
  return shared;
}
