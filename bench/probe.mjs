// A probe partner's calls back to back (c=1), each call's [start, end], to see how long a
// control-plane call held other partners: a call's wait is its latency, and a control call
// holds the probe for the longest latency of the probe's calls that overlap it
// (bench/hosted-export.mjs, bench/hosted-journal.mjs).

export const waitMs = (ms) => new Promise((r) => setTimeout(r, ms));

/** Starts probing with `call()` (one request, awaited to its last byte). */
export function startProbe(call) {
  const probes = [];
  let probing = true;
  const running = (async () => {
    while (probing) {
      const start = performance.now();
      await call();
      probes.push([start, performance.now()]);
    }
  })();
  return {
    /** The longest latency of the probe's calls that overlap [from, to]. */
    heldDuring: (from, to) =>
      Math.max(0, ...probes.filter(([s, e]) => e >= from && s <= to).map(([s, e]) => e - s)),
    /** The probe alone for `ms`: its calls, median and longest latency. */
    async alone(ms = 2_000) {
      const from = probes.length;
      await waitMs(ms);
      const l = probes
        .slice(from)
        .map(([s, e]) => e - s)
        .sort((a, b) => a - b);
      return { calls: l.length, p50_ms: l[l.length >> 1], max_ms: l.at(-1) };
    },
    /**
     * Runs `op()` (a fetch) `repeat` times, apart, reading each answer whole: its status, its
     * longest duration, its bytes and the probe's longest wait during any run.
     */
    async hold(op, repeat = 3) {
      let held = 0;
      let took = 0;
      let status;
      let bytes = 0;
      for (let r = 0; r < repeat; r++) {
        await waitMs(200);
        const from = performance.now();
        const res = await op();
        bytes = (await res.arrayBuffer()).byteLength;
        const to = performance.now();
        status = res.status;
        await waitMs(100); // the probe call under way when it answered ends
        held = Math.max(held, this.heldDuring(from, to));
        took = Math.max(took, to - from);
      }
      return { status, bytes, duration_ms: Math.round(took), held_others_ms: Math.round(held) };
    },
    async stop() {
      probing = false;
      await running;
    },
  };
}

/** The issue's bound: no control-plane call holds other partners' calls more than this. */
export const HOLD_LIMIT_MS = 100;

/** A markdown table of `holds` (name → hold()'s answer) with the ≤ 100 ms check. */
export function holdsTable(holds) {
  const lines = [
    `| control-plane call | status | answer, MiB | its duration, ms | probe's longest wait, ms | ≤ ${HOLD_LIMIT_MS} ms |`,
    '| --- | --- | --- | --- | --- | --- |',
  ];
  for (const [name, h] of Object.entries(holds))
    lines.push(
      `| ${name} | ${h.status} | ${(h.bytes / 2 ** 20).toFixed(2)} | ${h.duration_ms} | **${h.held_others_ms}** | ${h.held_others_ms <= HOLD_LIMIT_MS ? 'PASS' : 'FAIL'} |`,
    );
  return lines.join('\n');
}
