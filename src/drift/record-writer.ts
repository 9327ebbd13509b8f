/**
 * `record`'s last step (docs/drift.md): the entries appended to the HAR file. The exchanges
 * whose answers end in one turn of the event loop are written at its end, with one write, in
 * the order they ended, and only then are their answers' last bytes sent: a kill (even -9)
 * loses no exchange a client has whole. A line on stderr names each answer that breaks the
 * partner document.
 * When the file cannot be written (a full disk, a file gone), the exchanges still pass through,
 * the file keeps what it had, and one line says from which entry on nothing is recorded.
 */
import type { Captured } from './capture.js';
import type { HarWriter } from './har.js';
import type { Recorded } from './record-entry.js';

export class EntryLog {
  /** The exchanges completed and not yet written, in the order they completed. */
  #completed: { captured: Captured; finish: () => void; done: () => void }[] = [];
  #failed = false;

  constructor(
    private readonly writer: HarWriter,
    /** The entry of an exchange, or undefined when it is not recorded. */
    private readonly build: (captured: Captured) => Recorded | undefined,
    private readonly report: (line: string) => void,
  ) {}

  /** Queues an exchange's entry; once it is written (or not recorded), `finish` then `done` are called. */
  complete(captured: Captured, finish: () => void, done: () => void): void {
    if (this.#completed.push({ captured, finish, done }) === 1) setImmediate(() => this.flush());
  }

  flush(): void {
    const batch = this.#completed;
    this.#completed = [];
    const recorded: Recorded[] = [];
    for (const { captured } of batch) {
      const r = this.build(captured);
      if (r) recorded.push(r);
    }
    this.#write(recorded);
    for (const { finish } of batch) finish();
    for (const { done } of batch) done();
  }

  #write(recorded: readonly Recorded[]): void {
    const first = this.writer.count;
    if (this.#failed || recorded.length === 0) return;
    try {
      this.writer.appendAll(recorded.map((r) => r.text));
    } catch (err) {
      this.#failed = true;
      this.report(
        `record: cannot write ${this.writer.path} (${(err as NodeJS.ErrnoException).code ?? err}): exchanges from entries[${first}] on are not recorded`,
      );
      return;
    }
    recorded.forEach(({ contract, status, method, path }, i) => {
      if (contract.length)
        this.report(`record: entries[${first + i}] ${method} ${path} ${status}: ${contract.join('; ')}`);
    });
  }
}
