/** The integration report of one parent account (GET /__sandbox/report), shown on the clock tab. */
import type { ReportView } from '../../../client/control.js';
import { control } from '../control.js';
import { badge, card, Drawn, fill, h, label, type Tone, time } from '../dom.js';
import { loadPartners } from '../partners.js';
import { fail } from '../toast.js';

const OUTCOME_TONE: Record<ReportView['checks'][number]['outcome'], Tone> = {
  passed: 'ok',
  failed: 'bad',
  not_exercised: '',
};

/** The resilience part: per scenario chaos injected, how many the client recovered from (docs/chaos.md). */
function resilience(parts: ReportView['resilience']) {
  if (!parts.length) return null;
  return h(
    'div',
    { id: 'resilience' },
    h('h3', null, 'Resilience (chaos)'),
    parts.map((p) =>
      h(
        'div',
        { class: 'check', dataset: { resilience: p.scenario } },
        h(
          'div',
          { class: 'outcome' },
          p.outcome === 'recovered_by_http_client'
            ? badge('unseen', 'warn')
            : badge(p.outcome, OUTCOME_TONE[p.outcome]),
        ),
        h(
          'div',
          null,
          h(
            'div',
            { class: 'title' },
            `${p.scenario}: recovered ${p.recovered} of ${p.injected}` +
              (p.recovered_by_http_client
                ? `; ${p.recovered_by_http_client} recovered by the HTTP client, not seen by the caller`
                : ''),
          ),
          h(
            'ul',
            null,
            p.evidence.map((e) => h('li', null, e)),
          ),
        ),
      ),
    ),
  );
}

export function reportCard() {
  const drawn = new Drawn();
  let parent = '';
  const select = h('select', { id: 'report-parent' });
  const report = h('div', { id: 'report' });
  select.onchange = () => {
    parent = select.value;
    drawn.forget();
    refresh().catch(fail);
  };

  async function refresh() {
    if (!parent) return;
    const r = await control((c) => c.report(parent));
    if (!drawn.changed([r.checks, r.requests_analyzed, r.resilience])) return;
    fill(
      report,
      h(
        'div',
        { class: 'summary' },
        h('div', { class: 'count badge ok' }, h('b', null, r.summary.passed), 'passed'),
        h('div', { class: 'count badge bad' }, h('b', null, r.summary.failed), 'failed'),
        h('div', { class: 'count badge' }, h('b', null, r.summary.not_exercised), 'not exercised'),
      ),
      h(
        'div',
        { class: 'muted' },
        `${r.requests_analyzed} requests analysed · generated ${time(r.generated_at)}`,
      ),
      r.checks.map((c) =>
        h(
          'div',
          { class: 'check', dataset: { check: c.id } },
          h('div', { class: 'outcome' }, badge(c.outcome.replace('_', ' '), OUTCOME_TONE[c.outcome])),
          h(
            'div',
            null,
            h('div', { class: 'title' }, c.title),
            c.evidence.length
              ? h(
                  'ul',
                  null,
                  c.evidence.map((e) => h('li', null, e)),
                )
              : null,
          ),
        ),
      ),
      resilience(r.resilience),
    );
  }

  return {
    element: card(
      'Integration report',
      h('span', { class: 'sub mono muted' }, 'GET /__sandbox/report'),
      h('div', { class: 'toolbar' }, label('Parent account', select)),
      report,
    ),
    /** Offers the partners again (keeping the one chosen) and draws its report. */
    async enter() {
      drawn.forget();
      const partners = await loadPartners();
      fill(
        select,
        partners.map((p) =>
          h('option', { value: p.parent_account_id }, `${p.name} (${p.parent_account_id})`),
        ),
      );
      if (partners.some((p) => p.parent_account_id === parent)) select.value = parent;
      parent = select.value;
      await refresh();
    },
    refresh,
  };
}
