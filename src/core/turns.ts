/**
 * Long work done between other requests (a large import or export, docs/performance.md): a turn
 * of the event loop to pause for, how long a stretch of work may run before it pauses, and
 * generators that yield where they may pause, run by turns or at once.
 */

/** The most time a stretch of long work runs before it lets other requests in. */
export const MS_PER_TURN = 10;

/** A turn of the event loop (setImmediate): what came meanwhile is served first. */
export const nextTurn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/** The time a stretch of work has run: `due()` once it has run `ms`, `restart()` after a pause. */
export function stretch(ms = MS_PER_TURN) {
  let since = performance.now();
  return {
    due: () => performance.now() - since > ms,
    restart() {
      since = performance.now();
    },
  };
}

/** A generator run by turns: `pause` awaited at each yield; its result. */
export async function inTurns<T>(
  steps: Generator<void, T>,
  pause: () => Promise<void> = nextTurn,
): Promise<T> {
  for (let step = steps.next(); ; step = steps.next()) {
    if (step.done) return step.value;
    await pause();
  }
}

/** A generator run through at once: its result. */
export function atOnce<T>(steps: Generator<void, T>): T {
  for (;;) {
    const step = steps.next();
    if (step.done) return step.value;
  }
}

/** Each item given to `take` in order, pausing for a turn every stretch: a long list worked through by turns. */
export async function eachInTurns<T>(items: Iterable<T>, take: (item: T) => void): Promise<void> {
  const time = stretch();
  for (const item of items) {
    if (time.due()) {
      await nextTurn();
      time.restart();
    }
    take(item);
  }
}

/** Each item's JSON text, pausing for a turn every stretch: a long answer written out by turns. */
export async function jsonTexts(items: readonly unknown[]): Promise<string[]> {
  const out: string[] = [];
  await eachInTurns(items, (item) => out.push(JSON.stringify(item)));
  return out;
}
