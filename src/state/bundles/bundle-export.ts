/**
 * A bundle's export (docs/parallel-tests.md): one partner's whole state as one JSON file, what
 * a failed CI job uploads: each piece of the sandbox's state writes its part
 * (state/registry.ts). Its import and checks are in state/bundles/bundle-import.ts.
 */

import { partnerNotFound } from '../../contract/api/errors.js';
import {
  BUNDLE_KIND,
  BUNDLE_LIMIT_BYTES,
  BUNDLE_VERSION,
  Bundle,
  type BundleData,
} from '../../contract/control/bundle.js';
import { eachInTurns, nextTurn } from '../../core/turns.js';
import { JsonList } from '../../domain/json-list.js';
import type { BundleList, SlicedPart } from '../registry.js';
import type { Sandbox } from '../sandbox.js';

/** The bundle of one partner, as `GET /__sandbox/partners/{parent}/bundle` answers it. */
export function exportBundle(s: Sandbox, parent: string): BundleData {
  if (!s.store.partners.byParent(parent)) throw partnerNotFound(parent);
  const parts: Record<string, unknown> = {
    kind: BUNDLE_KIND,
    version: BUNDLE_VERSION,
    exported_at: s.clock.iso(),
    ...s.state.exportPartner(parent),
  };
  // In the format's order of fields, whichever piece wrote each.
  const bundle = Object.fromEntries(Object.keys(Bundle.shape).map((k) => [k, parts[k]])) as BundleData;
  return withinImportLimit(bundle);
}

/**
 * `GET /__sandbox/partners/{parent}/bundle`'s answer as JSON bytes, exported by turns: its
 * accounts read and written out a slice at a time, other partners' calls served in between
 * (a partner of 18,000 accounts held them about a second), while its own calls and the control
 * plane wait (state/bundles/swap-gate.ts, as for an import, and one at a time with imports): the bundle
 * is the partner at one moment.
 */
export async function exportBundlePieces(
  s: Sandbox,
  parent: string,
): Promise<{ pieces: Buffer[]; recycle: () => void }> {
  if (!s.store.partners.byParent(parent)) throw partnerNotFound(parent);
  return s.gate.oneImport(async () => {
    const open = await s.gate.close(parent);
    try {
      // Gone while it waited (a reset, a restore).
      if (!s.store.partners.byParent(parent)) throw partnerNotFound(parent);
      const parts: Record<string, unknown> = {
        kind: BUNDLE_KIND,
        version: BUNDLE_VERSION,
        exported_at: s.clock.iso(),
        ...(await s.state.exportInTurns(parent, nextTurn)),
      };
      const bundle = Object.fromEntries(Object.keys(Bundle.shape).map((k) => [k, parts[k]])) as Sliced;
      const pieces = await bundlePieces(bundle);
      // Once the answer is sent, its lists' buffers serve the next export (JsonList.recycle).
      const recycle = () => {
        for (const name of LISTS) if (bundle[name] instanceof JsonList) bundle[name].recycle();
      };
      return { pieces, recycle };
    } finally {
      open();
    }
  });
}

/** The bundle's lists that grow with a partner's use, each written out an item at a time. */
const LISTS = ['accounts', 'idempotency_keys', 'journal'] as const satisfies readonly BundleList[];
type Sliced = Omit<BundleData, BundleList> & SlicedPart;

/**
 * The bundle as UTF-8 JSON in pieces, written out by turns (a stretch of MS_PER_TURN at most
 * between other requests): its accounts, stored answers and journal an item at a time into
 * buffers of about a MiB (JsonList; the pieces that export by slices hand them over written
 * already), the rest (credentials, mapping, armed scenarios, chaos) at once. No list is held
 * as objects nor as one string; piecesStream sends the buffers as they are. Within the
 * import's limit as withinImportLimit keeps it: the same bytes JSON.stringify gives the bundle
 * it returns (test/control/bundle-swap.test.ts compares them).
 */
export async function bundlePieces(bundle: Sliced): Promise<Buffer[]> {
  const lists = LISTS.filter((name) => bundle[name] !== undefined);
  const encoded = new Map<BundleList, JsonList>();
  for (const name of lists) encoded.set(name, await jsonList(bundle[name]!));
  // Each list stands in the rest as a string no value can hold (JSON escapes its NULs).
  const marks = new Map(
    lists.map((name) => [name, `\u0000${name}-${Math.random().toString(36).slice(2)}\u0000`]),
  );
  const restOf = (left?: number) =>
    JSON.stringify({
      ...bundle,
      ...Object.fromEntries(marks),
      ...(left === undefined ? {} : { journal_left_out: left }),
    });
  let room = BUNDLE_LIMIT_BYTES - SLACK_BYTES - Buffer.byteLength(restOf());
  for (const name of lists) if (name !== 'journal') room -= encoded.get(name)!.bytesOf();
  const journal = encoded.get('journal');
  // The newest entries that fit: each takes its bytes and a comma's.
  let kept = journal?.length ?? 0;
  while (kept > 0 && room - journal!.bytesOf(kept) < 0) kept--;
  const rest = restOf(kept === (journal?.length ?? 0) ? undefined : journal!.length - kept);
  // The rest cut at each mark, in the order they stand in it, each list's items in its place.
  const spots = lists
    .map((name) => ({ name, mark: JSON.stringify(marks.get(name)) }))
    .map((spot) => ({ ...spot, at: rest.indexOf(spot.mark) }))
    .sort((x, y) => x.at - y.at);
  const pieces: Buffer[] = [];
  let from = 0;
  for (const { name, mark, at } of spots) {
    pieces.push(Buffer.from(`${rest.slice(from, at)}[`));
    const list = encoded.get(name)!;
    pieces.push(...list.pieces(name === 'journal' ? kept : list.length));
    pieces.push(Buffer.from(']'));
    from = at + mark.length;
  }
  pieces.push(Buffer.from(rest.slice(from)));
  return pieces;
}

/** The bundle as JSON text (bundlePieces, joined). */
export async function bundleText(bundle: BundleData): Promise<string> {
  return Buffer.concat(await bundlePieces(bundle)).toString('utf8');
}

/** How much of the bundle one pull of its answer's stream takes at least: other requests go between pulls. */
const CHUNK_BYTES = 256 * 1024;

/**
 * The pieces as a stream of chunks of about CHUNK_BYTES or more, each taken when the socket
 * asks for it (the answer's writer waits for the socket to drain): small pieces are joined,
 * a list's buffers (about a MiB each) are sent as they are, never copied.
 */
export function piecesStream(pieces: readonly Buffer[]): ReadableStream<Uint8Array> {
  let next = 0;
  return new ReadableStream({
    pull(controller) {
      const chunk: Buffer[] = [];
      let size = 0;
      while (next < pieces.length && size < CHUNK_BYTES) {
        const piece = pieces[next++]!;
        chunk.push(piece);
        size += piece.length;
      }
      if (chunk.length === 1) controller.enqueue(chunk[0]!);
      else if (chunk.length) controller.enqueue(Buffer.concat(chunk, size));
      if (next >= pieces.length) controller.close();
    },
  });
}

/** A list as JsonList: as it came (written by its piece), or each item's JSON written out, pausing for a turn every stretch. */
async function jsonList(items: readonly unknown[] | JsonList): Promise<JsonList> {
  if (items instanceof JsonList) return items;
  const out = new JsonList();
  await eachInTurns(items, (item) => out.add(JSON.stringify(item)));
  return out;
}

/** Room left for the journal's commas, the new field and the answer's own bytes. */
const SLACK_BYTES = 64 * 1024;

/**
 * A bundle an import would refuse as too large (a thousand entries of long headers and 16 KiB
 * bodies, escaped, pass 32 MiB) keeps its newest journal entries that fit, and says how many
 * older ones it left out: an export always imports.
 */
export function withinImportLimit(bundle: BundleData): BundleData {
  const { journal, ...rest } = bundle;
  let room = BUNDLE_LIMIT_BYTES - SLACK_BYTES - Buffer.byteLength(JSON.stringify(rest));
  let kept = 0;
  for (const entry of journal) {
    room -= Buffer.byteLength(JSON.stringify(entry)) + 1;
    if (room < 0) break;
    kept++;
  }
  if (kept === journal.length) return bundle;
  return { ...bundle, journal: journal.slice(0, kept), journal_left_out: journal.length - kept };
}
