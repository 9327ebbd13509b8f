/**
 * The integration report of one parent account (GET /__sandbox/report), shown on the clock tab.
 * Two numberings meet here and are kept apart: the journal's entry numbers (the checks'
 * evidence "#n", linked to that entry) and chaos's call numbers (the resilience part's
 * "call n", the partner's n-th call since its profile was set: X-Sandbox-Chaos call=n).
 */
import type { ChaosProfilesView, ReportView } from '../../../client/control-client.js';
import { control } from '../control-call.js';
import { badge, type Child, card, Drawn, fill, h, kv, label, mono, plural, type Tone, time } from '../dom.js';
import { loadPartners } from '../partner-list.js';
import { fail } from '../toast.js';
import { href } from '../view.js';
import { profileFor } from './chaos-view.js';

const OUTCOME_TONE: Record<ReportView['checks'][number]['outcome'], Tone> = {
  passed: 'ok',
  failed: 'bad',
  not_exercised: '',
};

/** A journal entry number of the evidence, as a link to that entry. */
const journalRef = (id: string) =>
  h(
    'a',
    { class: 'ref journal-ref', href: href('journal', id), title: 'Open this journal entry' },
    `journal #${id}`,
  );
/** A chaos call number: the partner's n-th call under its profile, not a journal number. */
const chaosRef = (n: string) =>
  h(
    'span',
    { class: 'ref chaos-ref', title: "The partner's n-th call since its chaos profile was set" },
    `chaos call ${n}`,
  );

/** One line of evidence, its journal numbers ("#12") and chaos call numbers ("call 3:") each marked as such. */
export function evidenceLine(text: string): Child[] {
  const out: Child[] = [];
  let rest = text;
  const call = /^call (\d+)(?=: )/.exec(rest);
  if (call) {
    out.push(chaosRef(call[1]!));
    rest = rest.slice(call[0].length);
  }
  let at = 0;
  for (const m of rest.matchAll(/#(\d+)(?= )/g)) {
    out.push(rest.slice(at, m.index));
    out.push(journalRef(m[1]!));
    at = m.index + m[0].length;
  }
  out.push(rest.slice(at));
  return out;
}

/** The resilience part: per scenario chaos injected, how many the client recovered from (docs/chaos.md). */
function resilience(parts: ReportView['resilience']) {
  if (!parts.length) return null;
  return h(
    'div',
    { id: 'resilience' },
    h('h3', null, 'Resilience (chaos)'),
    h(
      'p',
      { class: 'muted small' },
      "Numbered by chaos calls: call n is the partner's n-th call since its profile was set (X-Sandbox-Chaos: call=n), not a journal number.",
    ),
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
            p.evidence.map((e) => h('li', null, evidenceLine(e))),
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
    const [r, chaos] = await Promise.all([control((c) => c.report(parent)), control((c) => c.chaos.get())]);
    if (!drawn.changed([r.checks, r.requests_analyzed, r.resilience, chaos.profiles])) return;
    fill(
      report,
      h(
        'div',
        { class: 'summary' },
        h('div', { class: 'count badge ok' }, h('b', null, r.summary.passed), 'passed'),
        h('div', { class: 'count badge bad' }, h('b', null, r.summary.failed), 'failed'),
        h('div', { class: 'count badge' }, h('b', null, r.summary.not_exercised), 'not exercised'),
      ),
      numbers(r, chaos.profiles, parent),
      h('div', { class: 'muted small' }, `generated ${time(r.generated_at)}`),
      checkList(r.checks),
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

/** The two counts, each named for what it counts: journal entries, and chaos calls. */
function numbers(r: ReportView, chaos: ChaosProfilesView['profiles'], parent: string) {
  const p = profileFor(chaos, parent);
  const seen = p?.positions[parent];
  return h(
    'div',
    { class: 'grid2 numbers', id: 'report-numbers' },
    h(
      'div',
      { class: 'numbers-journal' },
      h('h3', null, 'Journal'),
      kv([
        [
          'analysed',
          h('span', { id: 'report-journal-count' }, plural(r.requests_analyzed, 'entry', 'entries')),
        ],
      ]),
      h(
        'p',
        { class: 'muted small' },
        "This partner's partnership calls; the evidence names each as journal #n.",
      ),
    ),
    h(
      'div',
      { class: 'numbers-chaos' },
      h('h3', null, 'Chaos'),
      kv([
        [
          'profile',
          p
            ? mono(`rate ${p.rate} · seed ${p.seed}${p.parent_account_id === null ? ' (every partner)' : ''}`)
            : 'none in force',
        ],
        [
          'calls seen',
          h('span', { id: 'report-chaos-calls' }, seen === undefined ? '—' : plural(seen, 'chaos call')),
        ],
        [
          'failed by chaos',
          h(
            'span',
            { id: 'report-chaos-injected' },
            plural(
              r.resilience.reduce((n, x) => n + x.injected, 0),
              'call',
            ),
          ),
        ],
      ]),
      h(
        'p',
        { class: 'muted small' },
        'Counted in chaos calls (X-Sandbox-Chaos: call=n), token calls apart.',
      ),
    ),
  );
}

/** The checks, each with its outcome and evidence. */
function checkList(checks: ReportView['checks']) {
  return checks.map((c) =>
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
              c.evidence.map((e) => h('li', null, evidenceLine(e))),
            )
          : null,
      ),
    ),
  );
}
