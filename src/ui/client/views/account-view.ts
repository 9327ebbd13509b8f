/**
 * One account as the sandbox keeps it (GET /__sandbox/accounts/{id}): pages, variants, status,
 * the latest status write (the variants a partial failure failed), controls. In the API's
 * words: a variant is active or paused (the status endpoint's), the partner's taxonomy by name.
 */
import { type AccountView, ControlPlaneError } from '../../../client/control-client.js';
import { control } from '../control-call.js';
import { badge, card, Drawn, fill, h, kv, mono, plural, type Tone, table, time, viewHead } from '../dom.js';
import { knownAccounts, loadPartners } from '../partner-list.js';
import { go, type View } from '../view.js';

type Detail = AccountView;
type StatusWrite = NonNullable<Detail['last_status_write']>;
type Mapping = Detail['vertical_mappings'][number];

const STATUS_TONE: Record<Detail['status'], Tone> = { active: 'ok', paused: 'warn', mixed: 'bad' };
const RESULT_TONE: Record<StatusWrite['variants'][number]['result'], Tone> = {
  updated: 'ok',
  unchanged: '',
  failed: 'bad',
};
const policy = (p: string) => badge(p, p === 'Block' ? 'bad' : 'ok');
/** A variant's status as the status endpoint words it: enabled is active, disabled is paused. */
const variantStatus = (enabled: boolean) => (enabled ? 'active' : 'paused');

/** "Shoes (1001)": a partner ID by its name in the partner's taxonomy, the bare ID when it has none. */
const named = (name: string | undefined, id: number) =>
  name === undefined ? mono(id) : h('span', null, name, ' ', h('span', { class: 'mono muted' }, `(${id})`));

/**
 * The latest real status PUT, variant by variant: after a partial failure, which variants failed
 * and kept their previous state (what X-Sandbox-Warning tells the partner to look for here).
 */
function statusWriteCard(w: StatusWrite, pages: Map<string, { surface: string }>) {
  const failed = w.variants.filter((v) => v.result === 'failed');
  return card(
    'Latest status write',
    [
      badge(`PUT status ${w.requested}`, 'info'),
      badge(`→ ${w.status}`, STATUS_TONE[w.status]),
      failed.length
        ? badge(`partial failure: ${plural(failed.length, 'variant')} of ${w.variants.length} failed`, 'bad')
        : null,
    ],
    h(
      'div',
      { id: 'status-write', class: failed.length ? 'partial' : '' },
      failed.length
        ? h(
            'p',
            { class: 'callout bad', id: 'failed-variants' },
            `${failed.length === 1 ? 'This variant' : 'These variants'} failed and kept ${failed.length === 1 ? 'its' : 'their'} previous state: `,
            failed.map((v, i) => [i ? ', ' : '', h('b', null, v.name), ' ', mono(v.variant_id)]),
            '. Keep request_id ',
            mono(w.request_id),
            ' and contact support.',
          )
        : null,
      kv([
        ['request_id', mono(w.request_id)],
        ['at (sandbox clock)', time(w.at)],
      ]),
      table(
        ['Variant', 'Page', 'Result', 'Status after', 'Variant ID'],
        w.variants.map((v) =>
          h(
            'tr',
            { class: v.result === 'failed' ? 'failed' : '', dataset: { writeVariant: v.variant_id } },
            h('td', { class: 'name' }, v.name),
            h('td', null, pages.get(v.page_id)?.surface ?? mono(v.page_id)),
            h('td', null, badge(v.result, RESULT_TONE[v.result])),
            h('td', null, badge(v.status, STATUS_TONE[v.status])),
            h('td', null, mono(v.variant_id)),
          ),
        ),
        'No variant was written.',
      ),
    ),
  );
}

/** The account itself: its identifiers, its taxonomy by the partner's names, its authorisation. */
function accountCard(d: Detail, bySub: Map<number, Mapping>) {
  const a = d.account;
  const own = bySub.get(a.sub_vertical_id);
  return card(
    a.brand,
    [
      h('span', { id: 'account-status' }, badge(d.status, STATUS_TONE[d.status])),
      d.propagation.pending
        ? badge(`authorisation propagating until ${time(d.propagation.ready_at)}`, 'warn')
        : badge('authorised', 'ok'),
    ],
    h(
      'div',
      { class: 'grid2' },
      kv([
        ['account_id', mono(a.account_id)],
        ['parent_account_id', mono(a.parent_account_id)],
        ['external_account_id', mono(a.external_account_id)],
        ['store_identifier', a.store_identifier],
      ]),
      kv([
        ['vertical', named(own?.partner_vertical_name, a.vertical_id)],
        [
          'sub-vertical',
          h('span', { id: 'account-sub-vertical' }, named(own?.partner_sub_vertical_name, a.sub_vertical_id)),
        ],
        ['country_code', a.country_code],
        ['created_at', time(a.created_at)],
        ['auth ready at', time(d.propagation.ready_at)],
      ]),
    ),
  );
}

/** Its pages with their layouts, and its variants with the latest status write's result of each. */
function pagesCard(d: Detail, pages: Map<string, Detail['pages'][number]>) {
  const layouts = new Map(d.layouts.map((l) => [l.page_id, l]));
  const results = new Map((d.last_status_write?.variants ?? []).map((v) => [v.variant_id, v.result]));
  return card(
    'Pages and variants',
    badge(`aggregate status: ${d.status}`, STATUS_TONE[d.status]),
    table(
      ['Surface', 'Page identifier', 'Page ID', 'Layout'],
      d.pages.map((p) => {
        const l = layouts.get(p.page_id);
        return h(
          'tr',
          null,
          h('td', null, badge(p.surface, 'info')),
          h('td', null, mono(p.page_identifier)),
          h('td', null, mono(p.page_id)),
          h('td', null, l ? `${l.layout_type} (${l.name})` : '—'),
        );
      }),
      'No pages.',
    ),
    h('h3', null, 'Variants'),
    table(
      ['Name', 'Page', 'Status', 'Latest status write', 'Variant ID'],
      d.variants.map((v) => {
        const result = v.archived ? undefined : results.get(v.variant_id);
        return h(
          'tr',
          {
            class: v.archived ? 'archived' : result === 'failed' ? 'failed' : '',
            dataset: { variantId: v.variant_id },
          },
          h('td', { class: 'name' }, v.name),
          h('td', null, pages.get(v.page_id)?.surface ?? mono(v.page_id)),
          h(
            'td',
            { class: 'variant-status' },
            v.archived
              ? [badge('archived'), ' ', h('span', { class: 'muted' }, `(was ${variantStatus(v.enabled)})`)]
              : badge(variantStatus(v.enabled), v.enabled ? 'ok' : 'warn'),
          ),
          h('td', null, result ? badge(result, RESULT_TONE[result]) : h('span', { class: 'muted' }, '—')),
          h('td', null, mono(v.variant_id)),
        );
      }),
      'No variants.',
    ),
    h(
      'p',
      { class: 'muted small' },
      'Status in the API’s words (GET …/status): active or paused, which PATCH /__sandbox/variants/{variant_id} sets as enabled true or false. An archived variant counts in neither the aggregate nor status answers.',
    ),
  );
}

/** Its marketplace controls: the list, the verticals translated as the partner sees them, domains. */
function controlsCard(d: Detail, bySub: Map<number, Mapping>) {
  const translated = d.controls.translated;
  const domains = d.controls.domains.length;
  return card(
    'Marketplace controls',
    [
      badge(`version ${d.controls.version}`, 'info'),
      domains ? h('span', { id: 'blocked-domains' }, badge(plural(domains, 'blocked domain'), 'bad')) : null,
    ],
    kv([
      ['list', d.controls.name],
      ['list_id', mono(d.controls.list_id)],
      ['content_hash', mono(d.controls.content_hash)],
      ['updated_at', time(d.controls.updated_at)],
    ]),
    h(
      'div',
      { class: 'grid2' },
      h(
        'div',
        null,
        h('h3', null, 'Translated verticals (as the partner sees them)'),
        table(
          ['Sub-vertical', 'Vertical', 'Policy', 'Position 1'],
          translated.translated_verticals.map((t) =>
            h(
              'tr',
              { dataset: { subVertical: t.vertical_id } },
              h('td', null, named(bySub.get(t.vertical_id)?.partner_sub_vertical_name, t.vertical_id)),
              h('td', { class: 'muted' }, bySub.get(t.vertical_id)?.partner_vertical_name ?? '—'),
              h('td', null, policy(t.policy)),
              h('td', null, policy(t.position_1_policy)),
            ),
          ),
          'No translated verticals (is the taxonomy seeded?).',
        ),
      ),
      h(
        'div',
        null,
        h('h3', null, 'Domains'),
        table(
          ['Domain', 'Policy'],
          translated.marketplace_controls_list.domains.map((x) =>
            h('tr', null, h('td', null, mono(x.domain)), h('td', null, policy(x.policy))),
          ),
          'No blocked domains.',
        ),
        h('h3', null, 'Internal blocked verticals'),
        table(
          ['Internal vertical', 'Policy', 'Position 1'],
          d.controls.blocked_internal.map((b) =>
            h(
              'tr',
              null,
              h('td', null, b.vertical_name),
              h('td', null, policy(b.policy)),
              h('td', null, policy(b.position_1_policy)),
            ),
          ),
          'Nothing blocked.',
        ),
      ),
    ),
  );
}

export function accountView(): View {
  const drawn = new Drawn();
  const body = h('div');
  let id: string | null = null;

  async function refresh() {
    if (!id) return;
    let d: Detail;
    try {
      d = await control((c) => c.accounts.get(id!));
    } catch (err) {
      if (err instanceof ControlPlaneError && err.status === 404) {
        if (drawn.changed(404)) fill(body, h('div', { class: 'card empty' }, `No account ${id}.`));
        return;
      }
      throw err;
    }
    if (drawn.changed(d)) draw(d);
  }

  function draw(d: Detail) {
    const pages = new Map(d.pages.map((p) => [p.page_id, p]));
    const bySub = new Map<number, Mapping>(d.vertical_mappings.map((m) => [m.partner_sub_vertical_id, m]));
    fill(
      body,
      accountCard(d, bySub),
      pagesCard(d, pages),
      d.last_status_write ? statusWriteCard(d.last_status_write, pages) : null,
      controlsCard(d, bySub),
    );
  }

  return {
    every: 2,
    async enter(root, arg) {
      id = arg ?? id;
      drawn.forget();
      const input = h('input', {
        class: 'wide mono',
        id: 'account-id',
        placeholder: 'acct_…',
        list: 'account-ids',
        value: id ?? '',
      });
      const ids = h('datalist', { id: 'account-ids' });
      const pick = h(
        'form',
        {
          class: 'inline',
          onsubmit: (event) => {
            event.preventDefault();
            if (input.value.trim()) go('account', input.value.trim());
          },
        },
        input,
        ids,
        h('button', { type: 'submit' }, 'Open'),
      );
      fill(
        root,
        viewHead('Account', 'GET /__sandbox/accounts/{account_id}', h('span', { class: 'spacer' }), pick),
        body,
      );
      if (!id)
        fill(body, h('div', { class: 'card empty' }, 'Pick an account in Partners, or enter its ID above.'));
      await Promise.all([
        loadPartners().then(() =>
          fill(
            ids,
            knownAccounts().map((a) => h('option', { value: a.account_id }, a.brand)),
          ),
        ),
        refresh(),
      ]);
    },
    refresh,
  };
}
