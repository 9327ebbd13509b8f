/**
 * The request journal, live (GET /__sandbox/requests): filters, pause, clear, and a
 * request's detail with both bodies. Bodies are what a partner sent: shown as text only.
 */
import type { JournalView as Journal } from '../../../client/control.js';
import { control } from '../control.js';
import { badge, type Child, Drawn, fill, h, kv, label, mono, table, time, viewHead } from '../dom.js';
import { fail } from '../toast.js';
import type { View } from '../view.js';

type Entry = Journal['requests'][number];

const METHODS = ['', 'GET', 'POST', 'PUT', 'PATCH', 'DELETE'];

const methodTag = (method: string) => h('span', { class: `method ${method}` }, method);
const statusTag = (status: number) => h('span', { class: `status s${String(status)[0]}` }, status);
const scenarioChips = (names: readonly string[], id?: string) =>
  h(
    'div',
    { class: 'chips', id },
    names.map((s) => h('span', { class: 'chip scenario' }, s)),
  );

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

export function journalView(): View {
  const drawn = new Drawn();
  const filters = {
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
    path: h('input', { id: 'filter-path', class: 'wide mono', placeholder: '/v1/…' }),
  };
  const again = () => refresh(false).catch(fail);
  filters.method.addEventListener('change', again);
  for (const input of [filters.status, filters.account, filters.path]) input.addEventListener('input', again);

  let paused = false;
  let selected: number | null = null;
  const live = h('span', { class: 'live' }, 'live');
  const pause = h('button', { type: 'button', id: 'journal-pause' }, 'Pause');
  pause.onclick = () => {
    paused = !paused;
    pause.textContent = paused ? 'Resume' : 'Pause';
    live.className = paused ? 'live paused' : 'live';
    live.textContent = paused ? 'paused' : 'live';
  };
  const clear = h('button', { type: 'button', class: 'danger', id: 'journal-clear' }, 'Clear journal');
  clear.onclick = () =>
    control((c) => c.requests.clear())
      .then(() => {
        selected = null;
        showDetail(null);
        return refresh(false);
      })
      .catch(fail);
  const count = h('span', { class: 'muted' });
  const list = h('div', { class: 'card journal-list' });
  const detail = h('div', { class: 'card', id: 'journal-detail' });

  async function refresh(fromPoll: boolean) {
    if (fromPoll && paused) return;
    const status = filters.status.valueAsNumber; // NaN when empty; out of range: the input shows it invalid
    const data = await control((c) =>
      c.requests.list({
        method: filters.method.value || undefined,
        status: Number.isInteger(status) && status >= 0 && status <= 599 ? status : undefined,
        account_id: filters.account.value.trim() || undefined,
        path: filters.path.value.trim() || undefined,
        limit: 200,
      }),
    );
    if (!drawn.changed(data.requests.map((e) => e.id))) return;
    count.textContent = `${data.requests.length} shown (journal keeps the last ${data.max})`;
    fill(
      list,
      table(
        ['Time', 'Method', 'Path', 'Status', 'Account', 'Scenarios', 'ms'],
        data.requests.map((e) => row(e)),
        'No requests match. Partnership and token calls appear here as they happen.',
      ),
    );
  }

  function row(e: Entry): HTMLTableRowElement {
    const warnings = e.warnings.length;
    const tr = h(
      'tr',
      {
        class: e.id === selected ? 'clickable selected' : 'clickable',
        dataset: { id: e.id },
        onclick: () => {
          selected = e.id;
          for (const other of list.querySelectorAll('tr.selected')) other.classList.remove('selected');
          tr.classList.add('selected');
          showDetail(e);
        },
      },
      h('td', { class: 'mono muted' }, e.time.slice(11, 23)),
      h('td', null, methodTag(e.method)),
      h('td', { class: 'path' }, e.path),
      h('td', null, statusTag(e.status)),
      h('td', null, e.account_id ? mono(e.account_id) : h('span', { class: 'muted' }, '—')),
      h(
        'td',
        null,
        scenarioChips(e.scenarios_applied),
        warnings ? badge(`${warnings} warning${warnings > 1 ? 's' : ''}`, 'warn') : null,
      ),
      h('td', { class: 'mono muted' }, e.duration_ms),
    );
    return tr;
  }

  function showDetail(e: Entry | null) {
    if (!e) {
      fill(
        detail,
        h('div', { class: 'empty' }, 'Select a request to see its request and response side by side.'),
      );
      return;
    }
    const query = Object.entries(e.query);
    const headers = Object.entries(e.request_headers);
    const orNone = (value: string | null): Child => (value ? mono(value) : '—');
    fill(
      detail,
      h(
        'div',
        { class: 'card-head' },
        methodTag(e.method),
        h('h2', { class: 'mono' }, e.path),
        statusTag(e.status),
      ),
      h(
        'div',
        { class: 'grid2' },
        kv([
          ['request_id', mono(e.request_id)],
          ['time (sandbox clock)', time(e.time)],
          ['duration', `${e.duration_ms} ms`],
          ['parent_account_id', orNone(e.parent_account_id)],
          ['account_id', orNone(e.account_id)],
          query.length ? ['query', mono(query.map(([k, v]) => `${k}=${v}`).join('&'))] : null,
        ]),
        h(
          'div',
          null,
          kv([
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
          ]),
          h(
            'details',
            { class: 'gap-top' },
            h('summary', null, `Request headers (${headers.length})`),
            h(
              'ul',
              { class: 'plain mono' },
              headers.map(([k, v]) => h('li', null, `${k}: ${v}`)),
            ),
          ),
        ),
      ),
      h(
        'div',
        { class: 'bodies' },
        h(
          'div',
          { id: 'detail-request' },
          h('h3', null, 'Request body'),
          bodyBlock(e.request_body, e.request_body_truncated),
        ),
        h(
          'div',
          { id: 'detail-response' },
          h('h3', null, 'Response body'),
          bodyBlock(e.response_body, e.response_body_truncated),
        ),
      ),
    );
  }

  return {
    every: 1,
    enter(root) {
      drawn.forget();
      selected = null;
      fill(
        root,
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
          label('Method', filters.method),
          label('Status', filters.status),
          label('Account ID', filters.account),
          label('Path contains', filters.path),
          count,
        ),
        list,
        detail,
      );
      showDetail(null);
      return refresh(false);
    },
    refresh,
  };
}
