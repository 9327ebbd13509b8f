/** Partners and their accounts (GET /__sandbox/partners); a click opens an account. */
import { badge, card, Drawn, fill, h, kv, mono, table, time, viewHead } from '../dom.js';
import { loadPartners } from '../partners.js';
import { go, href, type View } from '../view.js';

export function partnersView(): View {
  const drawn = new Drawn();
  const body = h('div');

  async function refresh() {
    const list = await loadPartners();
    if (!drawn.changed(list)) return;
    fill(
      body,
      list.length ? null : h('div', { class: 'empty' }, 'No partners.'),
      list.map((p) =>
        card(
          p.name,
          [
            p.seeded ? badge('taxonomy seeded', 'ok') : badge('taxonomy not seeded', 'warn'),
            badge(`${p.accounts.length} ${p.accounts.length === 1 ? 'account' : 'accounts'}`, 'info'),
          ],
          kv([
            ['parent_account_id', mono(p.parent_account_id)],
            ['client_id', mono(p.client_id)],
          ]),
          h('h3', null, 'Accounts'),
          table(
            ['Brand', 'Account ID', 'External account ID', 'Created'],
            p.accounts.map((a) =>
              h(
                'tr',
                {
                  class: 'clickable',
                  dataset: { accountId: a.account_id },
                  onclick: () => go('account', a.account_id),
                },
                h('td', { class: 'brand-cell' }, a.brand),
                h('td', null, h('a', { href: href('account', a.account_id) }, mono(a.account_id))),
                h('td', null, mono(a.external_account_id)),
                h('td', { class: 'muted' }, time(a.created_at)),
              ),
            ),
            'No accounts yet: register one with POST /v1/accounts/register/partnership.',
          ),
        ),
      ),
    );
  }

  return {
    every: 2,
    enter(root) {
      drawn.forget();
      fill(
        root,
        viewHead('Partners and accounts', h('span', { class: 'sub mono' }, 'GET /__sandbox/partners')),
        body,
      );
      return refresh();
    },
    refresh,
  };
}
