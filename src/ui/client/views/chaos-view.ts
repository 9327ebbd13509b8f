/**
 * Chaos profiles (PUT / GET / DELETE /__sandbox/chaos, docs/chaos.md) on the Scenarios tab:
 * set or change one for every partner or one partner, see what each saw and failed, end it.
 * The form shows the profile in force for the partner it names (its own, else the one for
 * every partner, SANDBOX_CHAOS's included) until it is edited; with none in force it is empty.
 */
import type { ChaosProfileInput, ChaosProfilesView } from '../../../client/control-client.js';
import { DEFAULT_CHAOS_SCENARIOS } from '../../../contract/control/default-chaos.js';
import { control, signedInPartner } from '../control-call.js';
import { card, Drawn, fill, h, label, mono, table, time } from '../dom.js';
import { knownPartners } from '../partner-list.js';
import { fail, toast } from '../toast.js';

/** What a profile draws when it names none (docs/chaos.md; generated from the scenario records). */
const DEFAULT_SCENARIOS = DEFAULT_CHAOS_SCENARIOS.join(', ');

type Profile = ChaosProfilesView['profiles'][number];

/** The profile that applies to a partner's calls: its own, else the one for every partner. */
export function profileFor(profiles: readonly Profile[], parent: string | null): Profile | undefined {
  return (
    (parent === null ? undefined : profiles.find((p) => p.parent_account_id === parent)) ??
    profiles.find((p) => p.parent_account_id === null)
  );
}

/** The form's fields of a profile: rate, seed, the call to start from, scenarios, the partner. */
function profileInputs() {
  const rate = h('input', {
    id: 'chaos-rate',
    class: 'narrow',
    type: 'number',
    min: 0,
    max: 1,
    step: 0.01,
    required: true,
    placeholder: '0 to 1',
  });
  const seed = h('input', {
    id: 'chaos-seed',
    class: 'narrow',
    type: 'number',
    step: 1,
    required: true,
    placeholder: 'integer',
  });
  // The position of the partner's next call: a failed test's first `call` replays its failures.
  const fromCall = h('input', {
    id: 'chaos-from-call',
    class: 'narrow',
    type: 'number',
    min: 1,
    step: 1,
    placeholder: '1',
  });
  const scenarios = h('input', { id: 'chaos-scenarios', class: 'wide mono', placeholder: DEFAULT_SCENARIOS });
  const target = h('input', {
    id: 'chaos-target',
    class: 'wide mono',
    list: 'chaos-targets',
    placeholder: 'every partner (or pa_…)',
  });
  return { rate, seed, fromCall, scenarios, target };
}

export function chaosCard() {
  const drawn = new Drawn();
  let profiles: readonly Profile[] = [];
  /** Whether the person changed the form since it last showed the profile in force. */
  let edited = false;
  const inputs = profileInputs();
  const { rate, seed, scenarios, target } = inputs;
  const targets = h('datalist', { id: 'chaos-targets' });
  const list = h('div', { id: 'chaos-list' });
  const inForce = h('p', { id: 'chaos-in-force', class: 'in-force' });
  for (const input of [rate, seed, scenarios]) {
    input.addEventListener('input', () => {
      edited = true;
    });
  }
  // Another partner: its profile in force is said, and shown in the form unless the values were typed.
  target.addEventListener('input', () => showInForce());

  /** Says which profile the named partner's calls are under, and shows it in the form unless edited. */
  function showInForce() {
    // Signed in as a partner, no target is its own parent (the control plane fills it in).
    const parent = target.value.trim() || signedInPartner() || null;
    const p = profileFor(profiles, parent);
    sayInForce(inForce, profiles, p, parent);
    if (edited) return;
    rate.value = p ? String(p.rate) : '';
    seed.value = p ? String(p.seed) : '';
    scenarios.value = p ? p.scenarios.join(', ') : '';
  }

  function set(event: SubmitEvent) {
    event.preventDefault();
    const profile = profileInput(inputs);
    control((c) => c.chaos.set(profile))
      .then(({ profile: p }) => {
        toast(`Chaos: ${p.rate} of ${p.parent_account_id ?? 'every partner'}'s calls, seed ${p.seed}`);
        edited = false;
        return refresh();
      })
      .catch(fail);
  }

  const end = (parent?: string) =>
    control((c) => c.chaos.end(parent))
      .then(() => {
        const mine = signedInPartner();
        toast(parent || mine ? `Chaos ended for ${parent ?? mine}` : 'Every chaos profile ended');
        edited = false;
        return refresh();
      })
      .catch(fail);
  const endAll = h('button', { type: 'button', class: 'danger', id: 'chaos-end-all' }, 'End all');
  endAll.onclick = () => end();

  const draw = (data: ChaosProfilesView) => fill(list, profileTable(data, end));

  async function refresh() {
    const data = await control((c) => c.chaos.get());
    // Signed in as a partner (known once a call went through), each action covers it alone.
    const mine = signedInPartner();
    target.placeholder = mine ? `${mine} (its own profile)` : 'every partner (or pa_…)';
    endAll.textContent = mine ? 'End its profile' : 'End all';
    if (!drawn.changed(data)) return;
    profiles = data.profiles;
    draw(data);
    showInForce();
  }

  return {
    element: chaosElement(endAll, inForce, chaosForm(inputs, targets, set), list),
    /** Offers the partners as targets and draws the profiles. */
    enter() {
      drawn.forget();
      edited = false;
      fill(targets, partnerOptions());
      return refresh();
    },
    refresh,
  };
}

/** Says which profile the partner `parent` (null: every partner) is under: `p`, or none. */
function sayInForce(
  inForce: HTMLElement,
  profiles: readonly Profile[],
  p: Profile | undefined,
  parent: string | null,
) {
  const who = parent ?? 'every partner';
  if (!p) {
    const own = parent === null ? profiles.length : 0;
    fill(
      inForce,
      own
        ? `In force for every partner: none; ${own === 1 ? '1 partner has its own profile' : `${own} partners have their own`} (below, or name it under Partner).`
        : `In force for ${who}: none. No call of ${parent ? 'it' : 'any partner'} is failed by chaos.`,
    );
    inForce.className = 'in-force none';
  } else {
    const scope = p.parent_account_id === null ? ' (the profile for every partner)' : ' (its own profile)';
    fill(
      inForce,
      `In force for ${who}${parent ? scope : ''}: `,
      h('b', null, `rate ${p.rate}`),
      ' · ',
      h('b', null, `seed ${p.seed}`),
      ` · ${p.scenarios.join(', ')} · set ${time(p.set_at)}`,
    );
    inForce.className = 'in-force';
  }
}

/** The profile the form asks for. */
function profileInput({ rate, seed, fromCall, scenarios, target }: ReturnType<typeof profileInputs>) {
  const profile: ChaosProfileInput = { rate: Number(rate.value), seed: Number(seed.value) };
  const names = scenarios.value
    .split(/[\s,]+/)
    .map((s) => s.trim())
    .filter(Boolean);
  if (names.length) profile.scenarios = names;
  if (target.value.trim()) profile.parent_account_id = target.value.trim();
  if (fromCall.value.trim()) profile.from_call = Number(fromCall.value);
  return profile;
}

/** The profiles in force, a row each, each with its End button (`end`). */
function profileTable(data: ChaosProfilesView, end: (parent?: string) => void) {
  return table(
    ['Scope', 'Rate', 'Seed', 'From call', 'Scenarios', 'Calls seen', 'Failed', 'Set at', ''],
    data.profiles.map((p) =>
      h(
        'tr',
        { dataset: { chaos: p.parent_account_id ?? 'all' } },
        h('td', null, p.parent_account_id ? ['parent ', mono(p.parent_account_id)] : 'every partner'),
        h('td', { class: 'mono' }, p.rate),
        h('td', { class: 'mono' }, p.seed),
        h('td', { class: 'mono' }, p.from_call),
        h(
          'td',
          null,
          h(
            'div',
            { class: 'chips' },
            p.scenarios.map((s) => h('span', { class: 'chip' }, s)),
          ),
        ),
        h('td', { class: 'mono' }, p.calls_seen),
        h(
          'td',
          { class: 'chaos-failed' },
          h('b', null, p.calls_failed),
          h(
            'div',
            { class: 'chips' },
            Object.entries(p.failed_by_scenario).map(([name, n]) =>
              h('span', { class: 'chip scenario' }, `${name} ×${n}`),
            ),
          ),
        ),
        h('td', { class: 'muted' }, time(p.set_at)),
        h(
          'td',
          null,
          h(
            'button',
            {
              type: 'button',
              class: 'small',
              dataset: { chaosEnd: p.parent_account_id ?? 'all' },
              onclick: () => end(p.parent_account_id ?? undefined),
            },
            p.parent_account_id ? 'End' : 'End all',
          ),
        ),
      ),
    ),
    'No chaos profile: no call is failed by chaos.',
  );
}

/** The form that sets a profile. */
function chaosForm(
  i: ReturnType<typeof profileInputs>,
  targets: HTMLElement,
  set: (event: SubmitEvent) => void,
) {
  return h(
    'form',
    { class: 'inline', id: 'chaos-form', onsubmit: set },
    label('Rate (0 to 1)', i.rate),
    label('Seed', i.seed),
    label('From call', i.fromCall),
    label('Scenarios', i.scenarios),
    label('Partner', i.target),
    targets,
    h('button', { type: 'submit', class: 'primary', id: 'chaos-submit' }, 'Set profile'),
  );
}

/** The card: its End all button, the profile in force, the form, the profiles. */
function chaosElement(endAll: HTMLElement, inForce: HTMLElement, form: HTMLElement, list: HTMLElement) {
  return card(
    'Chaos profile',
    endAll,
    h(
      'p',
      { class: 'muted' },
      "Fails that share of a partner's calls with a transient failure drawn from the seed and the call's position; setting it again changes it. From call: the position of the partner's next call (a failed test's first call= replays its failures).",
    ),
    inForce,
    form,
    list,
  );
}

/** The partners known now, as the Partner field's options. */
const partnerOptions = () => knownPartners().map((p) => h('option', { value: p.parent_account_id }, p.name));
