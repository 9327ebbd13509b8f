/**
 * The identifiers the recorded service issued, mapped to those the sandbox issued at the same
 * point (docs/drift.md). One to one: a recorded ID seen again must come back as the same
 * sandbox ID (an idempotent register, a replayed answer), and a sandbox ID may stand for one
 * recorded ID only; either break is a difference.
 */
export class IdMap {
  readonly #forward = new Map<string, string>();
  readonly #back = new Map<string, string>();

  /** Sets a pair (the partner, its credentials) without checking. */
  set(recorded: string, sandbox: string): void {
    this.#forward.set(recorded, sandbox);
    this.#back.set(sandbox, recorded);
  }

  has(recorded: string): boolean {
    return this.#forward.has(recorded);
  }

  /** The sandbox's value for a recorded one, or the value itself when it is not mapped. */
  toSandbox(recorded: string): string {
    return this.#forward.get(recorded) ?? recorded;
  }

  /** Learns a pair from two answers, or names how it breaks the mapping. */
  learn(recorded: string, sandbox: string): { recorded: string; sandbox: string } | undefined {
    const known = this.#forward.get(recorded);
    if (known !== undefined) {
      if (known === sandbox) return undefined;
      return {
        recorded: `${JSON.stringify(recorded)} (issued before: the sandbox's ${JSON.stringify(known)})`,
        sandbox: JSON.stringify(sandbox),
      };
    }
    const before = this.#back.get(sandbox);
    if (before !== undefined && before !== recorded) {
      return {
        recorded: `${JSON.stringify(recorded)} (new)`,
        sandbox: `${JSON.stringify(sandbox)} (issued before, for ${JSON.stringify(before)})`,
      };
    }
    this.set(recorded, sandbox);
    return undefined;
  }

  /** A text (a message) with the sandbox's identifiers put back to the recorded ones. */
  toRecorded(text: string): string {
    let out = text;
    for (const [sandbox, recorded] of this.#back) {
      if (sandbox.length >= 4 && out.includes(sandbox)) out = out.split(sandbox).join(recorded);
    }
    return out;
  }
}
