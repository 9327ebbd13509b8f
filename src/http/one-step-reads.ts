/**
 * The app's router, which hands Hono a partnership read (the controls GET, the call partners
 * make most) as one handler: the request context and the read's handler together
 * (request-context.ts `withRequestContext`), where Hono's router finds the two. With two
 * handlers Hono runs its `compose`, whose every step is an `async` function, and
 * @hono/node-server then awaits the answer; with one that answers at once, neither happens
 * (docs/performance.md, "The controls GET at c=50"). Every other route is matched as before.
 */
import type { Handler, MiddlewareHandler } from 'hono';
import type { Result, Router } from 'hono/router';
import type { RouterRoute } from 'hono/types';
import type { AppEnv } from './env.js';
import { oneStepReads } from './pipeline.js';

type Entry = [Handler<AppEnv> | MiddlewareHandler<AppEnv>, RouterRoute];
type Found = [Entry, unknown][];

export class OneStepReads implements Router<Entry> {
  readonly #router: Router<Entry>;
  readonly #context: MiddlewareHandler<AppEnv>;
  readonly #fuse: (read: Handler<AppEnv>) => Handler<AppEnv>;
  /** A route's handlers as the router found them -> the one handler served instead (or none). */
  readonly #fused = new WeakMap<Found, Found | null>();
  /** A read's handler -> it with the request context (made once, whatever list the router gives). */
  readonly #one = new WeakMap<Handler<AppEnv>, Handler<AppEnv>>();

  /**
   * `context` is the app's request context middleware (registered for every path, first);
   * `fuse` makes it and a read's handler one handler.
   */
  constructor(
    router: Router<Entry>,
    context: MiddlewareHandler<AppEnv>,
    fuse: (read: Handler<AppEnv>) => Handler<AppEnv>,
  ) {
    this.#router = router;
    this.#context = context;
    this.#fuse = fuse;
  }

  /** The router's own name (SmartRouter names the router it settled on at the first match). */
  get name(): string {
    return this.#router.name;
  }

  add(method: string, path: string, handler: Entry): void {
    this.#router.add(method, path, handler);
  }

  match(method: string, path: string): Result<Entry> {
    const result = this.#router.match(method, path);
    const found = result[0] as Found;
    let fused = this.#fused.get(found);
    if (fused === undefined) {
      fused = this.#fusedOf(found);
      this.#fused.set(found, fused);
    }
    if (fused === null) return result;
    return (result.length === 2 ? [fused, result[1]] : [fused]) as Result<Entry>;
  }

  /** The request context followed by a read's one handler, as one entry; null for any other list. */
  #fusedOf(found: Found): Found | null {
    if (found.length !== 2) return null;
    const [first, second] = found;
    if (first![0][0] !== this.#context) return null;
    const read = second![0][0] as MiddlewareHandler<AppEnv>;
    if (!oneStepReads.has(read)) return null;
    let one = this.#one.get(read);
    if (!one) {
      one = this.#fuse(read as unknown as Handler<AppEnv>);
      this.#one.set(read, one);
    }
    // The read's route and its parameters: what c.req.param() and routePath read.
    return [[[one, second![0][1]], second![1]]];
  }
}
