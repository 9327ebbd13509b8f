/**
 * The request journal, live (GET /__sandbox/requests), filling the page: the list beside a
 * request's detail. Filters (partner, method, status, account, path, kind), pause, clear.
 * A call chaos failed is marked apart from a drill (a scenario the partner sent or armed).
 * The detail shows both bodies and both header sets (the answer's: Retry-After, the
 * X-Sandbox-* evidence). Bodies are what a partner sent: shown as text only.
 * `#/journal/<id>` opens entry <id> (the integration report links its evidence here).
 */
import type { JournalView as Journal } from '../../../client/control-client.js';
import { control } from '../control-call.js';
import { badge, type Child, Drawn, fill, h, kv, label, mono, plural, table, time, viewHead } from '../dom.js';
import { knownPartners, loadPartners } from '../partner-list.js';
import { fail } from '../toast.js';
import type { View } from '../view.js';

type Entry = Journal['requests'][number];

const METHODS = ['', 'GET', 'POST', 'PUT', 'PATCH', 'DELETE'];

/** What put a call off its normal path: chaos (a profile drew it), a drill (a scenario sent or armed), or nothing. */
export type Kind = 'chaos' | 'drill' | 'plain';
export const kindOf = (e: Pick<Entry, 'chaos' | 'scenarios_applied'>): Kind =>
  e.chaos ? 'chaos' : e.scenarios_applied.length ? 'drill' : 'plain';
const KINDS: readonly [Kind | '', string][] = [
  ['', 'any'],
  ['chaos', 'chaos-injected'],
  ['drill', 'drills (scenarios)'],
  ['plain', 'neither'],
];

/** The answer headers worth a look when a call failed or was steered. */
const KEY_HEADERS = new Set([
  'retry-after',
  'www-authenticate',
  'idempotent-replayed',
  'x-sandbox-scenario-applied',
  'x-sandbox-chaos',
  'x-sandbox-warning',
]);

const methodTag = (method: string) => h('span', { class: `method ${method}` }, method);
const statusTag = (status: number) =>
  h('span', { class: `status s${String(status)[0]}` }, status === 0 ? 'reset' : status);
const scenarioChips = (names: readonly string[], id?: string) =>
  h(
    'div',
    { class: 'chips', id },
    names.map((s) => h('span', { class: 'chip scenario' }, s)),
  );
/** Chaos's mark: the scenario it drew and the call's position in the partner's chaos sequence. */
const chaosChip = (chaos: NonNullable<Entry['chaos']>) =>
  h(
    'span',
    { class: 'chip chaos', title: `seed ${chaos.seed}` },
    `chaos: ${chaos.scenario} · ${chaos.token_call === undefined ? `call ${chaos.call}` : `token_call ${chaos.token_call}`}`,
  );

/** A path that wraps after its slashes only, never inside an ID. */
const breakable = (path: string): Child[] =>
  path.split('/').map((part, i) => (i ? [h('wbr'), `/${part}`] : part));

/** A body as sent, pretty-printed when it is JSON; a cut one (SANDBOX_JOURNAL_BODY_BYTES) as kept, saying so. */
function bodyBlock(text: string | null, truncated: Entry['request_body_truncated']): HTMLPreElement {
  if (truncated) {
    return h(
      'pre',
      { class: 'body' },
      `${text ?? ''}\n… cut: ${(text === null ? 0 : new TextEncoder().encode(text).length).toLocaleString()} of ${truncated.original_bytes.toLocaleString()} bytes kept (SANDBOX_JOURNAL_BODY_BYTES)`,
    );
  }
  if (text === null || text === '') return h('pre', { class: 'body none' }, '(no body)');
  let shown = text;
  try {
    shown = JSON.stringify(JSON.parse(text), null, 2);
  } catch {
    // not JSON: shown as sent
  }
  return h('pre', { class: 'body' }, shown);
}

/** Header lines `name: value`, the ones that explain an outcome marked. */
const headerList = (headers: Record<string, string>, id?: string) =>
  h(
    'ul',
    { class: 'plain mono headers', id },
    Object.entries(headers).map(([k, v]) =>
      h('li', { class: KEY_HEADERS.has(k) ? 'key-header' : '', dataset: { header: k } }, `${k}: ${v}`),
    ),
  );

/** An entry's facts, beside its exchange: identifiers, timing, trace, query, scenarios, warnings. */
function entryFacts(e: Entry) {
  const query = Object.entries(e.query);
  const orNone = (value: string | null): Child => (value ? mono(value) : '—');
  return kv([
    ['journal #', mono(e.id)],
    ['request_id', mono(e.request_id)],
    ['time (sandbox clock)', time(e.time)],
    ['duration', `${e.duration_ms} ms`],
    ['parent_account_id', orNone(e.parent_account_id)],
    ['account_id', orNone(e.account_id)],
    e.trace_id ? ['trace_id', h('span', { class: 'mono', id: 'detail-trace' }, e.trace_id)] : null,
    e.span_id ? ['span_id', mono(e.span_id)] : null,
    e.tracestate ? ['tracestate', mono(e.tracestate)] : null,
    query.length ? ['query', mono(query.map(([k, v]) => `${k}=${v}`).join('&'))] : null,
    [
      'scenarios applied',
      e.scenarios_applied.length ? scenarioChips(e.scenarios_applied, 'detail-scenarios') : 'none',
    ],
    e.chaos
      ? [
          'chaos',
          h(
            'span',
            { class: 'mono', id: 'detail-chaos' },
            `${e.chaos.scenario}: seed=${e.chaos.seed}; ${e.chaos.token_call === undefined ? `call=${e.chaos.call}` : `token_call=${e.chaos.token_call}`}`,
          ),
        ]
      : null,
    [
      'warnings',
      e.warnings.length
        ? h(
            'ul',
            { class: 'plain', id: 'detail-warnings' },
            e.warnings.map((w) => h('li', { class: 'warning-item' }, w)),
          )
        : 'none',
    ],
  ]);
}

export function journalView(): View {
  const drawn = new Drawn();
  const filters = filterFields();
  const again = () => refresh(false).catch(fail);
  for (const select of [filters.partner, filters.method, filters.kind])
    select.addEventListener('change', again);
  for (const input of [filters.status, filters.account, filters.path]) input.addEventListener('input', again);

  let selected: number | null = null;
  const { live, pause, paused } = pauseSwitch();
  const clear = h('button', { type: 'button', class: 'danger', id: 'journal-clear' }, 'Clear journal');
  clear.onclick = () =>
    control((c) => c.requests.clear())
      .then(() => {
        selected = null;
        showDetail(null);
        return refresh(false);
      })
      .catch(fail);
  const count = h('span', { class: 'muted', id: 'journal-count' });
  const list = h('div', { class: 'card journal-list' });
  const detail = h('div', { class: 'card journal-detail', id: 'journal-detail' });
  const legend = journalLegend();

  async function refresh(fromPoll: boolean) {
    if (fromPoll && paused()) return;
    const data = await control((c) => c.requests.list(listQuery(filters)));
    const kind = filters.kind.value;
    const shown = kind ? data.requests.filter((e) => kindOf(e) === kind) : data.requests;
    if (selected !== null && !detail.dataset.shown) {
      const entry = shown.find((e) => e.id === selected);
      if (entry) showDetail(entry);
    }
    if (!drawn.changed(shown.map((e) => e.id))) return;
    const chaos = shown.filter((e) => e.chaos).length;
    count.textContent = `${shown.length} shown${chaos ? `, ${chaos} chaos-injected` : ''} (the journal keeps the last ${data.max})`;
    fill(list, entryTable(shown.map((e) => row(e))));
    if (!fromPoll) list.querySelector('tr.selected')?.scrollIntoView({ block: 'nearest' });
  }

  const row = (e: Entry) =>
    entryRow(e, e.id === selected, (tr) => {
      selected = e.id;
      for (const other of list.querySelectorAll('tr.selected')) other.classList.remove('selected');
      tr.classList.add('selected');
      showDetail(e);
    });

  function showDetail(e: Entry | null) {
    if (!e) {
      delete detail.dataset.shown;
      fill(
        detail,
        h('div', { class: 'empty' }, 'Select a request to see its request and response side by side.'),
      );
      return;
    }
    detail.dataset.shown = String(e.id);
    fill(detail, entryDetail(e));
  }

  return {
    every: 1,
    async enter(root, arg) {
      drawn.forget();
      const wanted = arg === undefined ? Number.NaN : Number(arg);
      selected = Number.isInteger(wanted) ? wanted : null;
      fill(root, journalLayout({ live, pause, clear, filters, count, legend, list, detail }));
      showDetail(null);
      await offerPartners(filters.partner);
      return refresh(false);
    },
    refresh,
  };
}

/** The journal's filters, each a form field. */
function filterFields() {
  return {
    partner: h('select', { id: 'filter-partner' }, h('option', { value: '' }, 'any')),
    method: h(
      'select',
      { id: 'filter-method' },
      METHODS.map((m) => h('option', { value: m }, m || 'any')),
    ),
    status: h('input', {
      id: 'filter-status',
      class: 'narrow',
      type: 'number',
      min: 0,
      max: 599,
      placeholder: 'any',
    }),
    account: h('input', { id: 'filter-account', class: 'wide mono', placeholder: 'acct_…' }),
    path: h('input', { id: 'filter-path', class: 'mono', placeholder: '/v1/…' }),
    kind: h(
      'select',
      { id: 'filter-kind' },
      KINDS.map(([value, text]) => h('option', { value }, text)),
    ),
  };
}

/** What the row colours mean. */
function journalLegend() {
  return h(
    'div',
    { class: 'legend muted' },
    h('span', { class: 'swatch chaos' }),
    'chaos-injected (a chaos profile failed the call) ',
    h('span', { class: 'swatch drill' }),
    'drill (a scenario the call sent or met armed)',
  );
}

/** The list's query: what the filters hold, those out of range left out. */
function listQuery(filters: ReturnType<typeof filterFields>) {
  const status = filters.status.valueAsNumber; // NaN when empty; out of range: the input shows it invalid
  return {
    parent_account_id: filters.partner.value || undefined,
    method: filters.method.value || undefined,
    status: Number.isInteger(status) && status >= 0 && status <= 599 ? status : undefined,
    account_id: filters.account.value.trim() || undefined,
    path: filters.path.value.trim() || undefined,
    limit: 200,
  };
}

/** An entry's row: clicked, it is selected (`select`). */
function entryRow(
  e: Entry,
  isSelected: boolean,
  select: (tr: HTMLTableRowElement) => void,
): HTMLTableRowElement {
  const warnings = e.warnings.length;
  const kind = kindOf(e);
  const tr = h(
    'tr',
    {
      class: `clickable kind-${kind}${isSelected ? ' selected' : ''}`,
      dataset: { id: e.id, kind },
      onclick: () => select(tr),
    },
    h('td', { class: 'mono muted' }, e.time.slice(11, 23)),
    h('td', null, methodTag(e.method)),
    h('td', { class: 'path', title: e.account_id ? `account ${e.account_id}` : null }, breakable(e.path)),
    h('td', null, statusTag(e.status)),
    h(
      'td',
      null,
      e.chaos ? chaosChip(e.chaos) : scenarioChips(e.scenarios_applied),
      warnings ? badge(plural(warnings, 'warning'), 'warn') : null,
    ),
    h('td', { class: 'mono muted' }, e.duration_ms),
  );
  return tr;
}

/** An entry in full: request and answer, headers and bodies. */
function entryDetail(e: Entry) {
  const kind = kindOf(e);
  return [
    h(
      'div',
      { class: 'card-head' },
      methodTag(e.method),
      h('h2', { class: 'mono' }, e.path),
      statusTag(e.status),
      kind === 'chaos' ? badge('chaos-injected', 'chaos') : kind === 'drill' ? badge('drill', 'warn') : null,
    ),
    entryFacts(e),
    h(
      'div',
      { id: 'detail-response' },
      h('h3', null, 'Response'),
      h(
        'details',
        { open: true, class: 'headers-block' },
        h('summary', null, `Response headers (${Object.keys(e.response_headers).length})`),
        Object.keys(e.response_headers).length
          ? headerList(e.response_headers, 'detail-response-headers')
          : h('div', { class: 'muted', id: 'detail-response-headers' }, 'none: the connection was reset'),
      ),
      bodyBlock(e.response_body, e.response_body_truncated),
    ),
    h(
      'div',
      { id: 'detail-request' },
      h('h3', null, 'Request'),
      h(
        'details',
        { class: 'headers-block' },
        h('summary', null, `Request headers (${Object.keys(e.request_headers).length})`),
        headerList(e.request_headers),
      ),
      bodyBlock(e.request_body, e.request_body_truncated),
    ),
  ];
}

/** The view's page: head, filters, legend, the list beside the detail. */
function journalLayout(parts: {
  live: HTMLElement;
  pause: HTMLElement;
  clear: HTMLElement;
  filters: ReturnType<typeof filterFields>;
  count: HTMLElement;
  legend: HTMLElement;
  list: HTMLElement;
  detail: HTMLElement;
}) {
  const { live, pause, clear, filters, count, legend, list, detail } = parts;
  return h(
    'div',
    { class: 'journal-view' },
    viewHead(
      'Request journal',
      'GET /__sandbox/requests',
      live,
      h('span', { class: 'spacer' }),
      pause,
      clear,
    ),
    h(
      'div',
      { class: 'toolbar filters' },
      label('Partner', filters.partner),
      label('Method', filters.method),
      label('Status', filters.status),
      label('Account ID', filters.account),
      label('Path contains', filters.path),
      label('Kind', filters.kind),
      count,
    ),
    legend,
    h('div', { class: 'journal-panes' }, list, detail),
  );
}

/** Pause and Resume of the live list, and the mark that says which. */
function pauseSwitch() {
  let paused = false;
  const live = h('span', { class: 'live' }, 'live');
  const pause = h('button', { type: 'button', id: 'journal-pause' }, 'Pause');
  pause.onclick = () => {
    paused = !paused;
    pause.textContent = paused ? 'Resume' : 'Pause';
    live.className = paused ? 'live paused' : 'live';
    live.textContent = paused ? 'paused' : 'live';
  };
  return { live, pause, paused: () => paused };
}

/** The partner filter's options, the partners known now (the one chosen kept if still there). */
async function offerPartners(select: HTMLSelectElement) {
  const keep = select.value;
  await loadPartners();
  fill(
    select,
    h('option', { value: '' }, 'any'),
    knownPartners().map((p) => h('option', { value: p.parent_account_id }, p.name)),
  );
  select.value = knownPartners().some((p) => p.parent_account_id === keep) ? keep : '';
}

/** The list: a row for each entry shown. */
function entryTable(rows: HTMLTableRowElement[]) {
  return table(
    ['Time', 'Method', 'Path', 'Status', 'Chaos or scenarios', 'ms'],
    rows,
    'No requests match. Partnership and token calls appear here as they happen.',
  );
}
