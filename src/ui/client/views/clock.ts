/**
 * The clock tab: the sandbox clock (GET /__sandbox/clock, POST /__sandbox/clock/advance)
 * beside the integration report (report.ts). The clock in the header is drawn by main.ts
 * from the same answers.
 */
import type { ClockState } from '../../../client/control.js';
import { control } from '../control.js';
import { card, fill, h, humanSeconds, label, time, viewHead } from '../dom.js';
import { fail, toast } from '../toast.js';
import type { View } from '../view.js';
import { reportCard } from './report.js';

const STEPS = [15, 30, 120, 3600, 86_400];

/** `shown` draws a clock answer everywhere it appears (the header and this view). */
export function clockView(shown: (clock: ClockState) => void): View & { show(clock: ClockState): void } {
  const report = reportCard();
  const now = h('div', { class: 'big-clock', id: 'clock-now' }, '…');
  const offset = h('div', { class: 'muted', id: 'clock-offset' });
  const seconds = h('input', { id: 'advance-seconds', class: 'narrow', type: 'number', min: 1, value: '90' });

  const advance = (by: number) =>
    control((c) => c.clock.advance(by))
      .then((clock) => {
        toast(`Clock advanced by ${by} s`);
        shown(clock);
      })
      .catch(fail);

  const clockCard = card(
    'Sandbox clock',
    h('span', { class: 'sub mono muted' }, 'GET /__sandbox/clock'),
    now,
    offset,
    h(
      'p',
      { class: 'muted' },
      'Token expiry, the idempotency window and authorisation propagation all follow this clock.',
    ),
    h(
      'div',
      { class: 'toolbar' },
      STEPS.map((s) =>
        h(
          'button',
          { type: 'button', dataset: { seconds: s }, onclick: () => advance(s) },
          `+${humanSeconds(s)}`,
        ),
      ),
    ),
    h(
      'form',
      {
        class: 'inline gap-top',
        onsubmit: (event) => {
          event.preventDefault();
          const n = Number(seconds.value);
          if (n > 0) advance(n);
        },
      },
      label('Seconds', seconds),
      h('button', { type: 'submit', class: 'primary', id: 'advance-submit' }, 'Advance'),
    ),
  );

  return {
    every: 2,
    async enter(root) {
      fill(
        root,
        viewHead('Clock and integration report', null),
        h('div', { class: 'grid2 clock-report' }, clockCard, report.element),
      );
      const [clock] = await Promise.all([control((c) => c.clock.get()), report.enter()]);
      shown(clock);
    },
    refresh: () => report.refresh(),
    show(clock) {
      now.textContent = time(clock.now).slice(0, 19);
      offset.textContent = clock.offset_seconds
        ? `Ahead of real time by ${clock.offset_seconds} s`
        : 'In step with real time';
    },
  };
}
