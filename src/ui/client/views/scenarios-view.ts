/**
 * Scenarios (GET / PUT / DELETE /__sandbox/scenarios): the catalogue, arming one, what is
 * armed now; and the chaos profiles (/__sandbox/chaos).
 */
import type { ArmInput, CatalogueView } from '../../../client/control-client.js';
import { control, signedInPartner } from '../control-call.js';
import { card, Drawn, effectChip, fill, h, label, mono, plural, table, time, viewHead } from '../dom.js';
import { knownAccounts, knownPartners, loadPartners } from '../partner-list.js';
import { fail, toast } from '../toast.js';
import type { View } from '../view.js';
import { chaosCard } from './chaos-view.js';

export function scenariosView(): View {
  const drawnCatalogue = new Drawn();
  const drawnArmed = new Drawn();
  let data: CatalogueView = { built_ins: [], presets: [], armed: [] };

  const f = armFields();
  const { scenario, value, scope, help } = f;
  const armed = h('div', { id: 'armed-list' });
  const catalogue = h('div');
  const chaos = chaosCard();

  const offerTargets = () => offerTargetsOf(f);
  scope.onchange = offerTargets;

  const describe = () => describeScenario(f, data);
  scenario.onchange = describe;

  function pick(name: string) {
    scenario.value = name;
    describe();
    value.focus();
    window.scrollTo({ top: 0, behavior: 'smooth' });
  }

  function arm(event: SubmitEvent) {
    event.preventDefault();
    const request = armRequest(f);
    control((c) => c.scenarios.arm(request))
      .then((answer) => {
        const { remaining } = answer.armed;
        toast(`Armed ${answer.armed.scenario}${remaining ? ` for ${plural(remaining, 'call')}` : ''}`);
        return refresh();
      })
      .catch(fail);
  }

  const disarm = disarmButton(refresh);

  function drawCatalogue() {
    const keep = scenario.value;
    fill(scenario, scenarioOptions(data));
    if (keep) scenario.value = keep;
    describe();
    fill(catalogue, catalogueContent(data, pick));
  }

  const drawArmed = () => fill(armed, armedTable(data.armed));

  async function refresh() {
    data = await control((c) => c.scenarios.list());
    // Signed in as a partner (known once a call went through), Disarm covers its own alone.
    const mine = signedInPartner();
    disarm.textContent = mine ? `Disarm ${mine}'s` : 'Disarm all';
    if (drawnCatalogue.changed([data.built_ins, data.presets])) drawCatalogue();
    if (drawnArmed.changed(data.armed)) drawArmed();
    await chaos.refresh();
  }

  return {
    every: 2,
    async enter(root) {
      drawnCatalogue.forget();
      drawnArmed.forget();
      fill(
        root,
        viewHead('Scenarios', 'GET / PUT / DELETE /__sandbox/scenarios'),
        card('Arm a scenario', null, armForm(f, arm), help),
        card('Armed now', disarm, armed),
        chaos.element,
        catalogue,
      );
      await Promise.all([loadPartners().then(offerTargets).then(chaos.enter), refresh()]);
    },
    refresh,
  };
}

/** The form's fields of the arming form, and the help line under it. */
function armFields() {
  const scenario = h('select', { id: 'arm-scenario' });
  const value = h('input', { id: 'arm-value', class: 'narrow', placeholder: 'default' });
  const scope = h(
    'select',
    { id: 'arm-scope' },
    h('option', { value: 'parent_account_id' }, 'Parent account'),
    h('option', { value: 'account_id' }, 'Account'),
  );
  const target = h('input', {
    id: 'arm-target',
    class: 'wide mono',
    list: 'arm-targets',
    placeholder: 'pa_… or acct_…',
  });
  const targets = h('datalist', { id: 'arm-targets' });
  const times = h('input', {
    id: 'arm-times',
    class: 'narrow',
    type: 'number',
    min: 1,
    placeholder: 'every call',
  });
  const help = h('div', { class: 'muted gap-top', id: 'arm-help' });
  return { scenario, value, scope, target, targets, times, help };
}
type ArmFields = ReturnType<typeof armFields>;

/** The target list follows the scope: partners, or accounts. */
function offerTargetsOf({ scope, target, targets }: ArmFields) {
  const options =
    scope.value === 'parent_account_id'
      ? knownPartners().map((p) => [p.parent_account_id, p.name] as const)
      : knownAccounts().map((a) => [a.account_id, a.brand] as const);
  fill(
    targets,
    options.map(([id, name]) => h('option', { value: id }, name)),
  );
  if (!options.some(([id]) => id === target.value)) target.value = options[0]?.[0] ?? '';
}

/** What the chosen scenario's value means; a preset or a scenario without a value takes none. */
function describeScenario({ scenario, value, help }: ArmFields, data: CatalogueView) {
  const builtIn = data.built_ins.find((b) => b.name === scenario.value);
  const preset = data.presets.find((p) => p.name === scenario.value);
  value.disabled = preset !== undefined || builtIn?.value === 'no value';
  if (value.disabled) value.value = '';
  fill(
    help,
    builtIn
      ? ['Value: ', builtIn.value, '. ', builtIn.description]
      : preset
        ? ['Preset: ', preset.description]
        : '',
  );
}

/** The scenario picker's options: built-ins, then presets. */
function scenarioOptions(data: CatalogueView) {
  return [
    h(
      'optgroup',
      { label: 'Built-in' },
      data.built_ins.map((b) => h('option', { value: b.name }, b.name)),
    ),
    h(
      'optgroup',
      { label: 'Presets' },
      data.presets.map((p) => h('option', { value: p.name }, p.name)),
    ),
  ];
}

/** The catalogue: a card for each built-in and each preset, each with its Arm… button. */
function catalogueContent(data: CatalogueView, pick: (name: string) => void) {
  return [
    h('h3', null, 'Built-in scenarios'),
    h(
      'div',
      { class: 'catalogue' },
      data.built_ins.map((b) =>
        h(
          'div',
          { class: 'scenario-card' },
          h('div', { class: 'name' }, b.name),
          h('p', null, b.description),
          h(
            'div',
            { class: 'chips' },
            b.applies_to.map((x) => h('span', { class: 'chip' }, x)),
          ),
          h(
            'div',
            { class: 'foot' },
            h('span', { class: 'value' }, `value: ${b.value}`),
            armButton(b.name, pick),
          ),
        ),
      ),
    ),
    h('h3', null, 'Presets'),
    h(
      'div',
      { class: 'catalogue' },
      data.presets.length
        ? data.presets.map((p) =>
            h(
              'div',
              { class: 'scenario-card' },
              h('div', { class: 'name' }, p.name),
              h('p', null, p.description),
              h('div', { class: 'chips' }, p.effects.map(effectChip)),
              h(
                'div',
                { class: 'foot' },
                h('span', { class: 'value mono' }, p.source.split('/').slice(-2).join('/')),
                armButton(p.name, pick),
              ),
            ),
          )
        : h('div', { class: 'empty' }, 'No presets loaded.'),
    ),
  ];
}

/** What is armed now, a row each. */
function armedTable(list: CatalogueView['armed']) {
  return table(
    ['Scenario', 'Effects', 'Scope', 'Remaining', 'Armed at'],
    list.map((a) =>
      h(
        'tr',
        { dataset: { scenario: a.scenario } },
        h('td', { class: 'mono' }, a.scenario),
        h('td', null, h('div', { class: 'chips' }, a.effects.map(effectChip))),
        h(
          'td',
          null,
          a.account_id
            ? ['account ', mono(a.account_id)]
            : a.parent_account_id
              ? ['parent ', mono(a.parent_account_id)]
              : 'every partner',
        ),
        h('td', null, a.remaining ?? 'every call'),
        h('td', { class: 'muted' }, time(a.armed_at)),
      ),
    ),
    'Nothing armed: calls behave normally.',
  );
}

/** The arming form: its fields and its Arm button. */
function armForm(f: ArmFields, arm: (event: SubmitEvent) => void) {
  return h(
    'form',
    { class: 'inline', id: 'arm-form', onsubmit: arm },
    label('Scenario', f.scenario),
    label('Value', f.value),
    label('Scope', f.scope),
    label('Target', f.target),
    f.targets,
    label('Times', f.times),
    h('button', { type: 'submit', class: 'primary', id: 'arm-submit' }, 'Arm'),
  );
}

/** What the form asks to arm. */
function armRequest({ scenario, value, scope, target, times }: ArmFields): ArmInput {
  const at = target.value.trim();
  const request: ArmInput =
    scope.value === 'account_id'
      ? { scenario: scenario.value, account_id: at }
      : { scenario: scenario.value, parent_account_id: at };
  const v = value.value.trim();
  if (v) request.value = /^-?\d+(\.\d+)?$/.test(v) ? Number(v) : v;
  if (times.value) request.times = Number(times.value);
  return request;
}

/** Disarm all (or, signed in as a partner, its own), then the view drawn again. */
function disarmButton(refresh: () => Promise<void>) {
  const disarm = h('button', { type: 'button', class: 'danger', id: 'disarm-all' }, 'Disarm all');
  disarm.onclick = () =>
    control((c) => c.scenarios.disarm())
      .then(() => {
        const mine = signedInPartner();
        toast(mine ? `Disarmed the scenarios armed for ${mine}` : 'Disarmed every scenario');
        return refresh();
      })
      .catch(fail);
  return disarm;
}

/** A catalogue card's Arm… button: picks its scenario in the form. */
function armButton(name: string, pick: (name: string) => void) {
  return h(
    'button',
    { type: 'button', class: 'small', dataset: { arm: name }, onclick: () => pick(name) },
    'Arm…',
  );
}
