/**
 * The clock tab: the sandbox clock (GET /__sandbox/clock, POST /__sandbox/clock/advance)
 * beside the integration report (report-view.ts). The clock in the header is drawn by dashboard-main.ts
 * from the same answers.
 */
import type { ClockState } from '../../../client/control-client.js';
import { control, signedInPartner } from '../control-call.js';
import { card, fill, h, humanSeconds, label, time, viewHead } from '../dom.js';
import { fail, toast } from '../toast.js';
import type { View } from '../view.js';
import { reportCard } from './report-view.js';

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

  const route = h('span', { class: 'sub mono muted', id: 'clock-route' }, 'GET /__sandbox/clock');
  const covers = h('p', { class: 'muted', id: 'clock-covers' });
  const clockCard = card(
    'Sandbox clock',
    route,
    now,
    offset,
    covers,
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
      // Signed in as a partner (known once a call went through), the clock and its advance are that partner's own.
      const mine = signedInPartner();
      const title = clockCard.querySelector('h2');
      if (title) title.textContent = mine ? `${mine}'s clock` : 'Sandbox clock';
      route.textContent = mine ? `GET /__sandbox/partners/${mine}/clock` : 'GET /__sandbox/clock';
      covers.textContent = mine
        ? `Advance moves ${mine}'s clock only: its token expiry, idempotency window and authorisation propagation follow it.`
        : 'Token expiry, the idempotency window and authorisation propagation all follow this clock; Advance moves every partner.';
      now.textContent = time(clock.now).slice(0, 19);
      offset.textContent = clock.offset_seconds
        ? `Ahead of real time by ${clock.offset_seconds} s`
        : 'In step with real time';
    },
  };
}
