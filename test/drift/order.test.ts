/**
 * record answers the client first and appends the exchange's entry afterwards, at the end of
 * that turn of its event loop (docs/drift.md, "Performance"): these tests hold it to the order
 * and the validity that promises, through a real listening proxy in front of a test upstream
 * that answers when the test says so.
 *
 * - Entries are appended in the order the exchanges completed, not the order they began.
 * - The file is whole HAR whenever it is read, its entries only ever grow, and an exchange's
 *   entry is there as soon as its answer is (within the turn: polled, never slept for).
 * - stop() waits for every answered exchange to be written.
 */
import { once } from 'node:events';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Recorder, startRecorder } from '../../src/index.js';

/** A document with no operation: every answer passes the contract check with `[]`. */
const EMPTY_DOCUMENT = { openapi: '3.0.3', info: { title: 'test', version: '1' }, paths: {} };

let dir: string;
/** The upstream's answers held until the test releases them, by request path. */
const held = new Map<string, ServerResponse>();
const arrived: string[] = [];
const upstream = createServer((req, res) => {
  arrived.push(req.url ?? '');
  held.set(req.url ?? '', res);
});
let upstreamUrl: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'drift-order-'));
  upstream.listen(0, '127.0.0.1');
  await once(upstream, 'listening');
  upstreamUrl = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`;
});
afterAll(async () => {
  upstream.closeAllConnections();
  await new Promise((r) => upstream.close(r));
  rmSync(dir, { recursive: true, force: true });
});

/** The recording as it is on disk now: JSON.parse throws if it is not whole. */
const entriesOf = (file: string): { request: { url: string }; response: { content: { text: string } } }[] =>
  JSON.parse(readFileSync(file, 'utf8')).log.entries;

async function until(what: string, ok: () => boolean) {
  for (let i = 0; i < 500; i++) {
    if (ok()) return;
    await new Promise((r) => setTimeout(r, 2));
  }
  throw new Error(`timed out waiting for ${what}`);
}

function release(path: string) {
  const res = held.get(path);
  if (!res) throw new Error(`${path} has not reached the upstream`);
  held.delete(path);
  res.writeHead(200, { 'Content-Type': 'application/json' }).end(JSON.stringify({ path }));
}

describe('record appends each entry after the answer, in completion order', () => {
  let recorder: Recorder;
  let out: string;

  it('ten exchanges begun in one order and answered in the reverse: entries in answer order, the file whole at every read', async () => {
    out = join(dir, 'order.har');
    recorder = await startRecorder({ upstream: upstreamUrl, port: 0, out, document: EMPTY_DOCUMENT });
    const paths = Array.from({ length: 10 }, (_, i) => `/x/${i}`);
    const answers = paths.map((p) => fetch(recorder.url + p).then((r) => r.json()));
    await until('the ten requests at the upstream', () => held.size === 10);
    expect(entriesOf(out)).toEqual([]);

    const order = [...paths].reverse();
    const counts: (number | string)[] = [];
    // Read the file as fast as the loop turns while the answers come: each read is whole HAR
    // and has no fewer entries than the one before.
    const reader = setInterval(() => {
      try {
        counts.push(entriesOf(out).length);
      } catch (err) {
        counts.push(`not HAR: ${(err as Error).message}`);
      }
    }, 0);
    try {
      for (const [i, p] of order.entries()) {
        release(p);
        await until(`entry ${i} (${p})`, () => entriesOf(out).length === i + 1);
        expect(entriesOf(out)[i]?.request.url).toBe(`${upstreamUrl}${p}`);
      }
    } finally {
      clearInterval(reader);
    }
    expect(counts.length).toBeGreaterThanOrEqual(10);
    expect(counts.filter((n) => typeof n === 'string')).toEqual([]);
    expect(counts).toEqual([...counts].sort((a, b) => Number(a) - Number(b)));
    expect(await Promise.all(answers)).toEqual(paths.map((path) => ({ path })));
    const entries = entriesOf(out);
    expect(entries.map((e) => e.request.url)).toEqual(order.map((p) => `${upstreamUrl}${p}`));
    expect(entries.map((e) => JSON.parse(e.response.content.text).path)).toEqual(order);
    expect(recorder.entries).toBe(10);
  });

  it('twenty exchanges answered in one burst are all written, and stop() waits for them', async () => {
    arrived.length = 0;
    const paths = Array.from({ length: 20 }, (_, i) => `/burst/${i}`);
    const answers = paths.map((p) => fetch(recorder.url + p).then((r) => r.json()));
    await until('the twenty requests at the upstream', () => held.size === 20);
    // All answered in one turn of the upstream's loop: several may complete in one turn of the proxy's.
    for (const p of [...arrived]) release(p);
    expect(await Promise.all(answers)).toEqual(paths.map((path) => ({ path })));
    await recorder.stop();
    const urls = entriesOf(out)
      .slice(10)
      .map((e) => e.request.url.slice(upstreamUrl.length));
    expect(urls.sort()).toEqual([...paths].sort());
    expect(entriesOf(out)).toHaveLength(30);
  });
});
