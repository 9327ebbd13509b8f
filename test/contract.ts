/**
 * The contract check: every response the test suite receives through the harness is
 * validated against the served OpenAPI documents (/openapi.json and
 * /__sandbox/openapi.json) with Ajv (JSON Schema 2020-12, the dialect of OpenAPI 3.1).
 * A handler drifting from the document fails the test that made the call.
 */
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';

type Doc = {
  paths: Record<
    string,
    Record<string, { responses: Record<string, { content?: Record<string, { schema: unknown }> }> }>
  >;
  components?: Record<string, unknown>;
};

interface Operation {
  regex: RegExp;
  method: string;
  docId: string;
  pointer: string;
  responses: Record<string, { content?: Record<string, { schema: unknown }> }>;
}

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
          });
        }
      }
    }
  }

  /** Problems of one response against the document; [] when it conforms or is not documented JSON. */
  check(method: string, path: string, status: number, contentType: string | null, body: unknown): string[] {
    if (path === '/openapi.json' || path === '/__sandbox/openapi.json' || path.startsWith('/docs')) return [];
    const m = method === 'HEAD' ? 'GET' : method;
    const candidates = this.#ops.filter((o) => o.regex.test(path));
    const op = candidates.find((o) => o.method === m);
    if (!op) {
      // unknown route or method: the 404/405 error envelope
      if (path.startsWith('/v1/') || path.startsWith('/__sandbox/')) {
        return this.#validate(
          'partnership',
          '/components/schemas/ErrorEnvelope',
          body,
          `${method} ${path} -> ${status}`,
        );
      }
      return [];
    }
    const response = op.responses[String(status)] ?? op.responses.default;
    if (!response) return [`${method} ${path}: status ${status} is not documented`];
    if (!contentType?.includes('json')) return [];
    const content = response.content?.['application/json'];
    if (!content) return [`${method} ${path} -> ${status}: JSON body is not documented`];
    const pointer = `${op.pointer}/responses/${status in op.responses ? status : 'default'}/content/application~1json/schema`;
    return this.#validate(op.docId, pointer, body, `${method} ${path} -> ${status}`);
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
      partnership: await fetchDoc('/openapi.json'),
      control: await fetchDoc('/__sandbox/openapi.json'),
    }))();
  return shared;
}
