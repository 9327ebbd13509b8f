/**
 * A large JSON body parsed on another thread (node:worker_threads), so the parse of tens of
 * megabytes never holds other requests: the worker cuts one top-level array into JSON texts of
 * a few hundred items or a few hundred KB, which the caller parses a slice a turn. The text's depth is checked
 * there first, as parseJson does; a text too deep or not JSON is checked again here for the same 400.
 */
import { Worker } from 'node:worker_threads';
import { MAX_JSON_DEPTH, tooDeepAt } from '../domain/json-depth.js';
import { checkJsonDepth, parseJson } from './json.js';

/** Below this size a body is parsed where it is read (a worker costs more than the parse). */
export const ASIDE_MIN_CHARS = 1024 * 1024;
/** The longest text of items handed back (a few ms to parse and validate a turn). */
export const SLICE_MAX_CHARS = 256 * 1024;

// Plain JavaScript, run with eval (no file to find once bundled): the depth check (the
// domain's own function, which names nothing outside itself), then parse, cut, send back texts.
const WORKER = `
const { parentPort, workerData } = require('node:worker_threads');
const { text, field, per, maxChars, max } = workerData;
const tooDeepAt = ${tooDeepAt.toString()};
const deep = tooDeepAt(text, max);
if (deep !== -1) { parentPort.postMessage({ ok: false, deep }); return; }
let value;
try { value = JSON.parse(text); } catch { parentPort.postMessage({ ok: false }); return; }
const list = value !== null && typeof value === 'object' && !Array.isArray(value) ? value[field] : undefined;
if (!Array.isArray(list)) { parentPort.postMessage({ ok: true, rest: text }); return; }
value[field] = [];
const slices = [];
let part = [];
let chars = 0;
for (const item of list) {
  const t = JSON.stringify(item);
  if (part.length > 0 && (part.length >= per || chars + t.length > maxChars)) {
    slices.push('[' + part.join(',') + ']');
    part = [];
    chars = 0;
  }
  part.push(t);
  chars += t.length;
}
if (part.length > 0) slices.push('[' + part.join(',') + ']');
parentPort.postMessage({ ok: true, rest: JSON.stringify(value), slices, count: list.length });
`;

export interface ParsedAside {
  /** The value, with `field` an empty array when it was cut out. */
  value: unknown;
  /**
   * `field`'s items as JSON texts of at most `per` items, each text at most SLICE_MAX_CHARS
   * long unless one item alone is longer (undefined: the value has no such array).
   */
  slices?: string[];
  /** How many items `field` held. */
  count: number;
}

export async function parseJsonAside(text: string, field: string, per: number): Promise<ParsedAside> {
  const answer = await new Promise<{
    ok: boolean;
    deep?: number;
    rest?: string;
    slices?: string[];
    count?: number;
  }>((resolve, reject) => {
    const worker = new Worker(`(() => {${WORKER}})()`, {
      eval: true,
      workerData: { text, field, per, maxChars: SLICE_MAX_CHARS, max: MAX_JSON_DEPTH },
    });
    worker.once('message', (m) => {
      resolve(m);
      void worker.terminate();
    });
    worker.once('error', reject);
  });
  if (answer.deep !== undefined) checkJsonDepth(text, answer.deep); // the 400 naming where
  if (!answer.ok) return { value: parseJson(text), count: 0 }; // throws the parser's 400
  if (answer.rest === text) return { value: parseJson(text), count: 0 };
  return { value: JSON.parse(answer.rest!), slices: answer.slices!, count: answer.count! };
}
