/**
 * Partners and their accounts (GET /__sandbox/partners); a click opens an account. Each
 * partner also has what a person uses to isolate a test (docs/parallel-tests.md): its own clock
 * (read and advanced), a reset of that partner alone, and its bundle as a file download; and
 * the chaos profile its calls are under (GET /__sandbox/chaos), if any.
 */
import type { ChaosProfilesView, PartnerClockState } from '../../../client/control-client.js';
import { control } from '../control-call.js';
import {
  badge,
  type Child,
  card,
  confirmButton,
  Drawn,
  download,
  fill,
  h,
  humanSeconds,
  kv,
  mono,
  plural,
  table,
  time,
  viewHead,
} from '../dom.js';
import { loadPartners, type Partner } from '../partner-list.js';
import { fail, toast } from '../toast.js';
import { go, href, type View } from '../view.js';
import { profileFor } from './chaos-view.js';

const CLOCK_STEPS = [3600, 86_400];

/** The file name the control plane gives a bundle (its Content-Disposition). */
const bundleFile = (parent: string) => `sandbox-bundle-${parent.replace(/[^A-Za-z0-9._-]/g, '_')}.json`;

/** The partner's own offset, on top of the sandbox clock in the header. */
const ownOffset = (clock: PartnerClockState) =>
  clock.offset_seconds ? `+${humanSeconds(Math.round(clock.offset_seconds))} ahead` : 'in step';

/** Partner clocks are read one partner at a time: on entering, after a change, and every this many polls. */
const CLOCK_POLLS = 5;

/** The chaos profile a partner's calls are under: its own, the one for every partner, or none. */
function chaosLine(profiles: ChaosProfilesView['profiles'], parent: string): Child[] {
  const p = profileFor(profiles, parent);
  if (!p) return [h('span', { class: 'muted' }, 'none: no call is failed by chaos')];
  const own = p.parent_account_id === parent;
  const seen = p.positions[parent] ?? 0;
  return [
    badge(own ? 'own profile' : 'profile for every partner', 'chaos'),
    ' ',
    mono(`rate ${p.rate} · seed ${p.seed}`),
    ' ',
    h('span', { class: 'muted' }, p.scenarios.join(', ')),
    ' · ',
    own
      ? `${plural(seen, 'call')} seen, ${p.calls_failed} failed`
      : `${plural(seen, 'call')} of this partner seen`,
  ];
}

export function partnersView(): View {
  const drawn = new Drawn();
  const body = h('div');
  /** Each partner's clock chip, updated in place. */
  const clocks = new Map<string, HTMLElement>();
  /** Each partner's chaos line, updated in place. */
  const chaosLines = new Map<string, HTMLElement>();
  let profiles: ChaosProfilesView['profiles'] = [];
  let polls = 0;

  function showChaos() {
    for (const [parent, line] of chaosLines) fill(line, chaosLine(profiles, parent));
  }

  async function refresh(fromPoll = false) {
    const [list, chaos] = await Promise.all([loadPartners(), control((c) => c.chaos.get())]);
    profiles = chaos.profiles;
    const changed = drawn.changed(list);
    if (!changed) showChaos();
    if (changed) {
      clocks.clear();
      chaosLines.clear();
      const room = { clocks, chaosLines, profiles, refresh };
      fill(
        body,
        list.length ? list.map((p) => partnerCard(p, room)) : h('div', { class: 'empty' }, 'No partners.'),
      );
    }
    if (!changed && fromPoll && ++polls % CLOCK_POLLS !== 0) return;
    await Promise.all(
      list.map((p) =>
        showClock(
          clocks,
          p.parent_account_id,
          control((c) => c.partners.clock.get(p.parent_account_id)),
        ),
      ),
    );
  }

  return {
    every: 2,
    enter(root) {
      drawn.forget();
      fill(root, viewHead('Partners and accounts', 'GET /__sandbox/partners'), body);
      return refresh();
    },
    refresh,
  };
}

/** A partner's clock chip, once its clock is read. */
async function showClock(clocks: Map<string, HTMLElement>, parent: string, read: Promise<PartnerClockState>) {
  const clock = await read;
  const line = clocks.get(parent);
  if (!line) return;
  line.textContent = ownOffset(clock);
  line.title = `${parent} reads ${time(clock.now).slice(0, 19)}`;
  line.classList.toggle('shifted', clock.offset_seconds > 0);
}

/** What a partner's card reports to and reads from its view. */
interface CardRoom {
  /** Each partner's clock chip, updated in place. */
  clocks: Map<string, HTMLElement>;
  /** Each partner's chaos line, updated in place. */
  chaosLines: Map<string, HTMLElement>;
  profiles: ChaosProfilesView['profiles'];
  refresh: () => Promise<void>;
}

/** A partner's card: its clock, chaos, reset and bundle, and its accounts. */
function partnerCard(p: Partner, room: CardRoom) {
  const { clocks, chaosLines, profiles, refresh } = room;
  const parent = p.parent_account_id;
  const clockLine = h('span', { class: 'mono partner-clock', dataset: { clock: parent } }, '…');
  clocks.set(parent, clockLine);
  const chaos = h(
    'div',
    { class: 'partner-chaos', dataset: { chaosOf: parent } },
    chaosLine(profiles, parent),
  );
  chaosLines.set(parent, chaos);
  const advance = (seconds: number) =>
    showClock(
      clocks,
      parent,
      control((c) => c.partners.clock.advance(parent, seconds)),
    )
      .then(() => toast(`${p.name}: clock advanced by ${humanSeconds(seconds)}`))
      .catch(fail);
  const { reset, bundle } = partnerButtons(p, refresh);
  return card(
    p.name,
    [
      p.seeded ? badge('taxonomy seeded', 'ok') : badge('taxonomy not seeded', 'warn'),
      badge(plural(p.accounts.length, 'account'), 'info'),
      h('span', { class: 'spacer' }),
      bundle,
      reset,
    ],
    kv([
      ['parent_account_id', mono(parent)],
      ['client_id', mono(p.client_id)],
      [
        'own clock',
        h(
          'div',
          { class: 'toolbar' },
          clockLine,
          CLOCK_STEPS.map((s) =>
            h(
              'button',
              { type: 'button', class: 'small', dataset: { advance: s }, onclick: () => advance(s) },
              `+${humanSeconds(s)}`,
            ),
          ),
        ),
      ],
      ['chaos', chaos],
    ]),
    h('h3', null, 'Accounts'),
    accountsTable(p.accounts),
  );
}

/** A partner's Reset (then `refresh`) and Download bundle buttons. */
function partnerButtons({ name, parent_account_id: parent }: Partner, refresh: () => Promise<void>) {
  const reset = confirmButton(
    'Reset partner',
    'Really reset?',
    () =>
      control((c) => c.partners.reset(parent))
        .then(() => {
          toast(`${name}: reset (accounts, keys, journal, scenarios, clock)`);
          return refresh();
        })
        .catch(fail),
    { dataset: { reset: parent } },
  );
  const bundle = h(
    'button',
    {
      type: 'button',
      dataset: { bundle: parent },
      onclick: () =>
        control((c) => c.bundles.export(parent))
          .then((file) => download(bundleFile(parent), file))
          .catch(fail),
    },
    'Download bundle',
  );
  return { reset, bundle };
}

/** A partner's accounts, a row each; a click opens one. */
function accountsTable(accounts: Partner['accounts']) {
  return table(
    ['Brand', 'Account ID', 'External account ID', 'Created'],
    accounts.map((a) =>
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
  );
}
