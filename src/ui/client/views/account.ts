/** One account as the sandbox keeps it (GET /__sandbox/accounts/{id}): pages, variants, status, controls. */
import { type AccountView, ControlPlaneError } from '../../../client/control.js';
import { control } from '../control.js';
import { badge, card, Drawn, fill, h, kv, mono, type Tone, table, time, viewHead } from '../dom.js';
import { knownAccounts, loadPartners } from '../partners.js';
import { go, type View } from '../view.js';

type Detail = AccountView;

const STATUS_TONE: Record<Detail['status'], Tone> = { active: 'ok', paused: 'warn', mixed: 'bad' };
const policy = (p: string) => badge(p, p === 'Block' ? 'bad' : 'ok');

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
    const a = d.account;
    const pages = new Map(d.pages.map((p) => [p.page_id, p]));
    const layouts = new Map(d.layouts.map((l) => [l.page_id, l]));
    const translated = d.controls.translated;
    fill(
      body,
      card(
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
            ['vertical / sub-vertical', mono(`${a.vertical_id} / ${a.sub_vertical_id}`)],
            ['country_code', a.country_code],
            ['created_at', time(a.created_at)],
            ['auth ready at', time(d.propagation.ready_at)],
          ]),
        ),
      ),
      card(
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
          ['Name', 'Page', 'Enabled', 'State', 'Variant ID'],
          d.variants.map((v) =>
            h(
              'tr',
              { class: v.archived ? 'archived' : '', dataset: { variantId: v.variant_id } },
              h('td', { class: 'name' }, v.name),
              h('td', null, pages.get(v.page_id)?.surface ?? mono(v.page_id)),
              h('td', null, v.enabled ? badge('enabled', 'ok') : badge('disabled', 'warn')),
              h('td', null, v.archived ? badge('archived') : badge('live', 'info')),
              h('td', null, mono(v.variant_id)),
            ),
          ),
          'No variants.',
        ),
      ),
      card(
        'Marketplace controls',
        [
          badge(`version ${d.controls.version}`, 'info'),
          d.controls.domains.length ? badge(`${d.controls.domains.length} blocked domains`, 'bad') : null,
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
              ['Vertical ID', 'Policy', 'Position 1'],
              translated.translated_verticals.map((t) =>
                h(
                  'tr',
                  null,
                  h('td', null, mono(t.vertical_id)),
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
      ),
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
