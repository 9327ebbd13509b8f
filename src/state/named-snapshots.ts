/**
 * Snapshots of the whole sandbox (docs/parallel-tests.md): an image of every piece of its
 * state (state/registry.ts): the store as SQLite's own image (`serialize()` in memory,
 * `VACUUM INTO` a file beside a file store) with the clocks in it, the armed scenarios, the
 * chaos profiles and the journal. A restore is synchronous, so a
 * request sees the state before it or after it; it marks the whole state wiped, so a
 * request that awaited across it starts over (src/http/pipeline.ts).
 */
import type { z } from 'zod';
import { ApiError, validationError } from '../contract/api/errors.js';
import type { SnapshotInfo } from '../contract/control/control-schemas.js';
import type { StoreImage } from '../store/sqlite-store.js';
import type { StateImage } from './registry.js';
import type { Sandbox, Snapshots } from './sandbox.js';

/** How many snapshots are kept at most (each holds a whole database image). */
export const MAX_SNAPSHOTS = 32;

type Info = z.infer<typeof SnapshotInfo>;

interface Snapshot {
  info: Info;
  /** Every piece's image, the store's first (its size is the snapshot's). */
  image: StateImage;
}

export const snapshotNotFound = (name: string) =>
  new ApiError('not_found', `No snapshot named "${name}" (GET /__sandbox/snapshots lists them).`, {
    details: { name },
  });

export function snapshots(s: Sandbox): Snapshots {
  const saved = new Map<string, Snapshot>();
  const get = (name: string) => {
    const snap = saved.get(name);
    if (!snap) throw snapshotNotFound(name);
    return snap;
  };
  return {
    /** Saves the whole state under `name` (replacing a snapshot of that name). */
    save(name: string): { snapshot: Info; replaced: boolean } {
      const previous = saved.get(name);
      if (!previous && saved.size >= MAX_SNAPSHOTS) {
        throw validationError([
          {
            field: 'name',
            message: `${MAX_SNAPSHOTS} snapshots are kept at most; delete one first (DELETE /__sandbox/snapshots/{name})`,
          },
        ]);
      }
      const image = s.state.image(name);
      const store = image.get('store') as StoreImage;
      const info = {
        name,
        size_bytes: store.kind === 'memory' ? store.bytes.length : store.bytes,
        saved_at: new Date().toISOString(),
        clock: s.clock.iso(),
      };
      saved.set(name, { info, image });
      return { snapshot: info, replaced: previous !== undefined };
    },
    list(): Info[] {
      return [...saved.values()].map((snap) => snap.info);
    },
    /** Puts the whole sandbox back to the snapshot: every piece of its state. */
    restore(name: string): Info {
      const snap = get(name);
      s.markWiped();
      // All or nothing: the store's image goes back first, and a store that cannot take it (a
      // full disk) changes nothing, and the 503 says so.
      s.state.restore(snap.image);
      // Last, once the rest is back: a reservation in the image belonged to a request of that
      // moment; requests in flight start over and reserve again. A store that refuses this
      // one write keeps them, and they lapse as an abandoned request's do: the restore stands.
      try {
        s.store.idempotency.releaseAbandoned();
      } catch (err) {
        if (!s.storeHealth.refused(err)) throw err;
      }
      return snap.info;
    },
    delete(name: string): Info {
      const snap = get(name);
      saved.delete(name);
      s.state.drop(snap.image);
      return snap.info;
    },
  };
}
