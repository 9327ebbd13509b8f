/**
 * The dashboard's one hand-written vanilla JS file, served as /__sandbox/ui/app.js (see
 * index.tsx). Plain browser JS, no build step, kept as a string so the esbuild bundle
 * carries it. It talks only to the control-plane JSON routes and builds every piece of
 * DOM with createElement/textContent: nothing it shows goes through innerHTML.
 * (Written without backticks or dollar-brace so it can live in a String.raw literal.)
 */
export const APP_JS = String.raw`'use strict';
(() => {
  const TOKEN_KEY = 'partnership-sandbox.admin-token';
  const $ = (sel, root) => (root || document).querySelector(sel);

  // ---- DOM building: elements and text nodes only ------------------------------------
  function h(tag, props, ...children) {
    const el = document.createElement(tag);
    for (const [k, v] of Object.entries(props || {})) {
      if (v === undefined || v === null || v === false) continue;
      if (k === 'class') el.className = v;
      else if (k.startsWith('on') && typeof v === 'function') el.addEventListener(k.slice(2), v);
      else if (k === 'dataset') Object.assign(el.dataset, v);
      else if (k === 'value' || k === 'checked' || k === 'disabled' || k === 'selected') el[k] = v;
      else if (k.startsWith('on')) throw new Error('refusing a string event handler');
      else el.setAttribute(k, v === true ? '' : String(v));
    }
    add(el, children);
    return el;
  }
  function add(el, children) {
    for (const c of [children].flat(Infinity)) {
      if (c === undefined || c === null || c === false) continue;
      el.append(c instanceof Node ? c : document.createTextNode(String(c)));
    }
    return el;
  }
  const fill = (el, ...children) => {
    el.replaceChildren();
    return add(el, children);
  };
  const badge = (text, kind) => h('span', { class: 'badge ' + (kind || '') }, text);
  const mono = (text) => h('span', { class: 'mono' }, text);
  const kv = (pairs) =>
    h('dl', { class: 'kv' }, pairs.filter(Boolean).map(([k, v]) => [h('dt', null, k), h('dd', null, v)]));
  const table = (heads, rows, empty) =>
    rows.length
      ? h('table', null, h('thead', null, h('tr', null, heads.map((t) => h('th', null, t)))), h('tbody', null, rows))
      : h('div', { class: 'empty' }, empty || 'Nothing yet.');
  const card = (title, extra, ...body) =>
    h('div', { class: 'card' }, title ? h('div', { class: 'card-head' }, h('h2', null, title), extra) : null, body);
  const time = (iso) => (typeof iso === 'string' ? iso.replace('T', ' ').replace('Z', '') : '');
  const statusKind = (s) => ({ active: 'ok', paused: 'warn', mixed: 'bad' })[s] || '';
  const pretty = (text) => {
    if (text === null || text === undefined || text === '') return null;
    try {
      return JSON.stringify(JSON.parse(text), null, 2);
    } catch {
      return String(text);
    }
  };
  const bodyBlock = (text) => {
    const p = pretty(text);
    return p === null ? h('pre', { class: 'body none' }, '(no body)') : h('pre', { class: 'body' }, p);
  };

  let toastTimer;
  function toast(message, bad) {
    const el = $('#toast');
    el.textContent = message;
    el.className = 'toast' + (bad ? ' bad' : '');
    el.hidden = false;
    clearTimeout(toastTimer);
    toastTimer = setTimeout(() => (el.hidden = true), bad ? 6000 : 3000);
  }

  // ---- the control-plane API, with the admin token -----------------------------------
  let tokenWait = null;
  function askToken(rejected) {
    if (tokenWait) return tokenWait;
    tokenWait = new Promise((resolve) => {
      const dialog = $('#token-dialog');
      const input = $('#token-input');
      const error = $('#token-error');
      error.textContent = rejected ? 'That token was refused (401). Try again.' : '';
      error.hidden = !rejected;
      input.value = '';
      $('#token-form').onsubmit = (ev) => {
        ev.preventDefault();
        const value = input.value.trim();
        if (!value) return;
        sessionStorage.setItem(TOKEN_KEY, value);
        dialog.close();
        tokenWait = null;
        tokenUi();
        resolve();
      };
      dialog.oncancel = (ev) => ev.preventDefault();
      if (!dialog.open) dialog.showModal();
      input.focus();
    });
    return tokenWait;
  }
  function tokenUi() {
    $('#forget-token').hidden = !sessionStorage.getItem(TOKEN_KEY);
  }

  class ApiFailure extends Error {
    constructor(status, message) {
      super(status + ': ' + message);
      this.status = status;
    }
  }

  async function api(method, path, body) {
    for (;;) {
      const token = sessionStorage.getItem(TOKEN_KEY);
      const headers = { Accept: 'application/json' };
      if (token) headers.Authorization = 'Bearer ' + token;
      if (body !== undefined) headers['Content-Type'] = 'application/json';
      const res = await fetch(path, {
        method,
        headers,
        body: body === undefined ? undefined : JSON.stringify(body),
        cache: 'no-store',
        credentials: 'omit',
      });
      if (res.status === 401) {
        if (token && token !== sessionStorage.getItem(TOKEN_KEY)) continue; // changed meanwhile
        if (token) sessionStorage.removeItem(TOKEN_KEY);
        tokenUi();
        await askToken(Boolean(token));
        continue;
      }
      const text = await res.text();
      let data = null;
      try {
        data = text ? JSON.parse(text) : null;
      } catch {
        data = null;
      }
      if (!res.ok) throw new ApiFailure(res.status, (data && data.message) || text || res.statusText);
      return data;
    }
  }
  const qs = (params) => {
    const q = new URLSearchParams();
    for (const [k, v] of Object.entries(params)) if (v !== undefined && v !== null && v !== '') q.set(k, v);
    const s = q.toString();
    return s ? '?' + s : '';
  };
  const fail = (err) => toast(err instanceof Error ? err.message : String(err), true);

  // ---- shared state --------------------------------------------------------------------
  let partners = [];
  async function loadPartners() {
    partners = (await api('GET', '/__sandbox/partners')).partners;
    return partners;
  }
  const allAccounts = () =>
    partners.flatMap((p) => p.accounts.map((a) => Object.assign({ parent_account_id: p.parent_account_id }, a)));
  /** Renders only when the data changed, so polling does not disturb the page. */
  function changed(holder, data) {
    const sig = JSON.stringify(data);
    if (holder.sig === sig) return false;
    holder.sig = sig;
    return true;
  }

  // ---- view: partners and their accounts ---------------------------------------------
  const partnersView = {
    every: 2,
    enter(root) {
      fill(
        root,
        h('div', { class: 'view-head' }, h('h1', null, 'Partners and accounts'), h('span', { class: 'sub mono' }, 'GET /__sandbox/partners')),
        (this.body = h('div')),
      );
      this.sig = null;
      return this.refresh();
    },
    async refresh() {
      const list = await loadPartners();
      if (!changed(this, list)) return;
      fill(
        this.body,
        list.length ? null : h('div', { class: 'empty' }, 'No partners.'),
        list.map((p) =>
          card(
            p.name,
            [
              p.seeded ? badge('taxonomy seeded', 'ok') : badge('taxonomy not seeded', 'warn'),
              badge(p.accounts.length + (p.accounts.length === 1 ? ' account' : ' accounts'), 'info'),
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
                  h('td', null, h('a', { href: '#/account/' + encodeURIComponent(a.account_id) }, mono(a.account_id))),
                  h('td', null, mono(a.external_account_id)),
                  h('td', { class: 'muted' }, time(a.created_at)),
                ),
              ),
              'No accounts yet: register one with POST /v1/accounts/register/partnership.',
            ),
          ),
        ),
      );
    },
  };

  // ---- view: one account -------------------------------------------------------------
  const accountView = {
    every: 2,
    enter(root, id) {
      this.id = id || this.id || null;
      this.sig = null;
      const input = h('input', { class: 'wide mono', id: 'account-id', placeholder: 'acct_…', list: 'account-ids', value: this.id || '' });
      const datalist = h('datalist', { id: 'account-ids' });
      loadPartners()
        .then(() => fill(datalist, allAccounts().map((a) => h('option', { value: a.account_id }, a.brand))))
        .catch(fail);
      fill(
        root,
        h(
          'div',
          { class: 'view-head' },
          h('h1', null, 'Account'),
          h('span', { class: 'sub mono' }, 'GET /__sandbox/accounts/{account_id}'),
          h('span', { class: 'spacer' }),
          h(
            'form',
            {
              class: 'inline',
              onsubmit: (ev) => {
                ev.preventDefault();
                if (input.value.trim()) go('account', input.value.trim());
              },
            },
            input,
            datalist,
            h('button', { type: 'submit' }, 'Open'),
          ),
        ),
        (this.body = h('div')),
      );
      if (!this.id) {
        fill(this.body, h('div', { class: 'card empty' }, 'Pick an account in Partners, or enter its ID above.'));
        return;
      }
      return this.refresh();
    },
    async refresh() {
      if (!this.id) return;
      let d;
      try {
        d = await api('GET', '/__sandbox/accounts/' + encodeURIComponent(this.id));
      } catch (err) {
        if (err.status === 404) {
          if (changed(this, 404)) fill(this.body, h('div', { class: 'card empty' }, 'No account ' + this.id + '.'));
          return;
        }
        throw err;
      }
      if (!changed(this, d)) return;
      const a = d.account;
      const pages = new Map(d.pages.map((p) => [p.page_id, p]));
      const layouts = new Map(d.layouts.map((l) => [l.page_id, l]));
      const tr = d.controls.translated || {};
      const mcl = tr.marketplace_controls_list || {};
      const policy = (p) => badge(p, p === 'Block' ? 'bad' : 'ok');
      fill(
        this.body,
        card(
          a.brand,
          [
            h('span', { id: 'account-status' }, badge(d.status, statusKind(d.status))),
            d.propagation.pending
              ? badge('authorisation propagating until ' + time(d.propagation.ready_at), 'warn')
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
              ['vertical / sub-vertical', mono(a.vertical_id + ' / ' + a.sub_vertical_id)],
              ['country_code', a.country_code],
              ['created_at', time(a.created_at)],
              ['auth ready at', time(d.propagation.ready_at)],
            ]),
          ),
        ),
        card(
          'Pages and variants',
          badge('aggregate status: ' + d.status, statusKind(d.status)),
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
                h('td', null, l ? l.layout_type + ' (' + l.name + ')' : '—'),
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
                h('td', null, (pages.get(v.page_id) || {}).surface || mono(v.page_id)),
                h('td', null, v.enabled ? badge('enabled', 'ok') : badge('disabled', 'warn')),
                h('td', null, v.archived ? badge('archived', '') : badge('live', 'info')),
                h('td', null, mono(v.variant_id)),
              ),
            ),
            'No variants.',
          ),
        ),
        card(
          'Marketplace controls',
          [badge('version ' + d.controls.version, 'info'), d.controls.domains.length ? badge(d.controls.domains.length + ' blocked domains', 'bad') : null],
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
                (tr.translated_verticals || []).map((t) =>
                  h('tr', null, h('td', null, mono(t.vertical_id)), h('td', null, policy(t.policy)), h('td', null, policy(t.position_1_policy))),
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
                (mcl.domains || d.controls.domains).map((x) => h('tr', null, h('td', null, mono(x.domain)), h('td', null, policy(x.policy)))),
                'No blocked domains.',
              ),
              h('h3', null, 'Internal blocked verticals'),
              table(
                ['Internal vertical', 'Policy', 'Position 1'],
                d.controls.blocked_internal.map((b) =>
                  h('tr', null, h('td', null, b.vertical_name), h('td', null, policy(b.policy)), h('td', null, policy(b.position_1_policy))),
                ),
                'Nothing blocked.',
              ),
            ),
          ),
        ),
      );
    },
  };

  // ---- view: the request journal, live ---------------------------------------------
  const journalView = {
    every: 1,
    paused: false,
    selected: null,
    entries: new Map(),
    enter(root) {
      this.sig = null;
      const f = (this.filters = {
        method: h('select', { id: 'filter-method' }, ['', 'GET', 'POST', 'PUT', 'PATCH', 'DELETE'].map((m) => h('option', { value: m }, m || 'any'))),
        status: h('input', { id: 'filter-status', class: 'narrow', type: 'number', placeholder: 'any' }),
        account: h('input', { id: 'filter-account', class: 'wide mono', placeholder: 'acct_…' }),
        path: h('input', { id: 'filter-path', class: 'wide mono', placeholder: '/v1/…' }),
      });
      const again = () => this.refresh().catch(fail);
      for (const el of Object.values(f)) el.addEventListener(el.tagName === 'SELECT' ? 'change' : 'input', again);
      this.live = h('span', { class: 'live' }, 'live');
      const pause = h('button', { type: 'button', id: 'journal-pause' }, 'Pause');
      pause.onclick = () => {
        this.paused = !this.paused;
        pause.textContent = this.paused ? 'Resume' : 'Pause';
        this.live.className = 'live' + (this.paused ? ' paused' : '');
        this.live.textContent = this.paused ? 'paused' : 'live';
      };
      const clear = h('button', { type: 'button', class: 'danger', id: 'journal-clear' }, 'Clear journal');
      clear.onclick = () =>
        api('DELETE', '/__sandbox/requests')
          .then(() => {
            this.selected = null;
            this.showDetail();
            return this.refresh();
          })
          .catch(fail);
      const label = (text, el) => h('label', { class: 'field' }, text, el);
      fill(
        root,
        h('div', { class: 'view-head' }, h('h1', null, 'Request journal'), this.live, h('span', { class: 'sub mono' }, 'GET /__sandbox/requests'), h('span', { class: 'spacer' }), pause, clear),
        h('div', { class: 'toolbar filters' }, label('Method', f.method), label('Status', f.status), label('Account ID', f.account), label('Path contains', f.path), (this.count = h('span', { class: 'muted' }))),
        (this.list = h('div', { class: 'card journal-list' })),
        (this.detail = h('div', { class: 'card', id: 'journal-detail' })),
      );
      this.showDetail();
      return this.refresh();
    },
    async refresh(fromPoll) {
      if (fromPoll && this.paused) return;
      const f = this.filters;
      const data = await api(
        'GET',
        '/__sandbox/requests' + qs({ method: f.method.value, status: f.status.value, account_id: f.account.value.trim(), path: f.path.value.trim(), limit: 200 }),
      );
      const ids = data.requests.map((e) => e.id);
      if (!changed(this, ids)) return;
      this.entries = new Map(data.requests.map((e) => [e.id, e]));
      this.count.textContent = data.requests.length + ' shown (journal keeps the last ' + data.max + ')';
      fill(
        this.list,
        table(
          ['Time', 'Method', 'Path', 'Status', 'Account', 'Scenarios', 'ms'],
          data.requests.map((e) =>
            h(
              'tr',
              {
                class: 'clickable' + (e.id === this.selected ? ' selected' : ''),
                dataset: { id: e.id },
                onclick: () => {
                  this.selected = e.id;
                  for (const row of this.list.querySelectorAll('tr.selected')) row.classList.remove('selected');
                  this.list.querySelector('tr[data-id="' + e.id + '"]').classList.add('selected');
                  this.showDetail(e);
                },
              },
              h('td', { class: 'mono muted' }, e.time.slice(11, 23)),
              h('td', null, h('span', { class: 'method ' + e.method }, e.method)),
              h('td', { class: 'path' }, e.path),
              h('td', null, h('span', { class: 'status s' + String(e.status)[0] }, e.status)),
              h('td', null, e.account_id ? mono(e.account_id) : h('span', { class: 'muted' }, '—')),
              h('td', null, h('div', { class: 'chips' }, e.scenarios_applied.map((s) => h('span', { class: 'chip scenario' }, s)), e.warnings.length ? badge(e.warnings.length + ' warning' + (e.warnings.length > 1 ? 's' : ''), 'warn') : null)),
              h('td', { class: 'mono muted' }, e.duration_ms),
            ),
          ),
          'No requests match. Partnership and token calls appear here as they happen.',
        ),
      );
    },
    showDetail(e) {
      if (!e) {
        fill(this.detail, h('div', { class: 'empty' }, 'Select a request to see its request and response side by side.'));
        return;
      }
      const query = Object.entries(e.query || {});
      fill(
        this.detail,
        h('div', { class: 'card-head' }, h('span', { class: 'method ' + e.method }, e.method), h('h2', { class: 'mono' }, e.path), h('span', { class: 'status s' + String(e.status)[0] }, e.status)),
        h(
          'div',
          { class: 'grid2' },
          kv([
            ['request_id', mono(e.request_id)],
            ['time (sandbox clock)', time(e.time)],
            ['duration', e.duration_ms + ' ms'],
            ['parent_account_id', e.parent_account_id ? mono(e.parent_account_id) : '—'],
            ['account_id', e.account_id ? mono(e.account_id) : '—'],
            query.length ? ['query', mono(query.map(([k, v]) => k + '=' + v).join('&'))] : null,
          ]),
          h(
            'div',
            null,
            kv([
              ['scenarios applied', e.scenarios_applied.length ? h('div', { class: 'chips', id: 'detail-scenarios' }, e.scenarios_applied.map((s) => h('span', { class: 'chip scenario' }, s))) : 'none'],
              ['warnings', e.warnings.length ? h('ul', { class: 'plain', id: 'detail-warnings' }, e.warnings.map((w) => h('li', { class: 'warning-item' }, w))) : 'none'],
            ]),
            h(
              'details',
              { class: 'gap-top' },
              h('summary', null, 'Request headers (' + Object.keys(e.request_headers || {}).length + ')'),
              h('ul', { class: 'plain mono' }, Object.entries(e.request_headers || {}).map(([k, v]) => h('li', null, k + ': ' + v))),
            ),
          ),
        ),
        h(
          'div',
          { class: 'bodies' },
          h('div', { id: 'detail-request' }, h('h3', null, 'Request body'), bodyBlock(e.request_body)),
          h('div', { id: 'detail-response' }, h('h3', null, 'Response body'), bodyBlock(e.response_body)),
        ),
      );
    },
  };

  // ---- view: scenarios ------------------------------------------------------------------
  const scenariosView = {
    every: 2,
    enter(root) {
      this.sig = null;
      this.armedSig = null;
      const scenario = h('select', { id: 'arm-scenario' });
      const value = h('input', { id: 'arm-value', class: 'narrow', placeholder: 'default' });
      const scope = h('select', { id: 'arm-scope' }, h('option', { value: 'parent_account_id' }, 'Parent account'), h('option', { value: 'account_id' }, 'Account'));
      const target = h('input', { id: 'arm-target', class: 'wide mono', list: 'arm-targets', placeholder: 'pa_… or acct_…' });
      const targets = h('datalist', { id: 'arm-targets' });
      const times = h('input', { id: 'arm-times', class: 'narrow', type: 'number', min: 1, placeholder: 'every call' });
      this.help = h('div', { class: 'muted gap-top', id: 'arm-help' });
      this.form = { scenario, value, scope, target, times, targets };
      const label = (text, el) => h('label', { class: 'field' }, text, el);
      const syncTargets = () => {
        const byParent = scope.value === 'parent_account_id';
        const options = byParent ? partners.map((p) => [p.parent_account_id, p.name]) : allAccounts().map((a) => [a.account_id, a.brand]);
        fill(targets, options.map(([v, l]) => h('option', { value: v }, l)));
        if (!target.value || !options.some(([v]) => v === target.value)) target.value = options.length ? options[0][0] : '';
      };
      scope.onchange = syncTargets;
      scenario.onchange = () => this.describe();
      const form = h(
        'form',
        {
          class: 'inline',
          id: 'arm-form',
          onsubmit: (ev) => {
            ev.preventDefault();
            const body = { scenario: scenario.value };
            const v = value.value.trim();
            if (v) body.value = /^-?\d+(\.\d+)?$/.test(v) ? Number(v) : v;
            body[scope.value] = target.value.trim();
            if (times.value) body.times = Number(times.value);
            api('PUT', '/__sandbox/scenarios', body)
              .then((r) => {
                toast('Armed ' + r.armed.scenario + (r.armed.remaining ? ' for ' + r.armed.remaining + ' call(s)' : ''));
                return this.refresh();
              })
              .catch(fail);
          },
        },
        label('Scenario', scenario),
        label('Value', value),
        label('Scope', scope),
        label('Target', target),
        targets,
        label('Times', times),
        h('button', { type: 'submit', class: 'primary', id: 'arm-submit' }, 'Arm'),
      );
      const disarm = h('button', { type: 'button', class: 'danger', id: 'disarm-all' }, 'Disarm all');
      disarm.onclick = () =>
        api('DELETE', '/__sandbox/scenarios')
          .then(() => {
            toast('Disarmed every scenario');
            return this.refresh();
          })
          .catch(fail);
      fill(
        root,
        h('div', { class: 'view-head' }, h('h1', null, 'Scenarios'), h('span', { class: 'sub mono' }, 'GET / PUT / DELETE /__sandbox/scenarios')),
        card('Arm a scenario', null, form, this.help),
        card('Armed now', disarm, (this.armed = h('div', { id: 'armed-list' }))),
        (this.catalogue = h('div')),
      );
      return Promise.all([loadPartners().then(syncTargets), this.refresh()]);
    },
    describe() {
      const name = this.form.scenario.value;
      const b = (this.data.built_ins || []).find((x) => x.name === name);
      const p = (this.data.presets || []).find((x) => x.name === name);
      this.form.value.disabled = Boolean(p) || (b && b.value === 'no value');
      if (this.form.value.disabled) this.form.value.value = '';
      fill(this.help, b ? ['Value: ', b.value, '. ', b.description] : p ? ['Preset: ', p.description] : '');
    },
    armScenario(name) {
      this.form.scenario.value = name;
      this.describe();
      this.form.value.focus();
      window.scrollTo({ top: 0, behavior: 'smooth' });
    },
    async refresh() {
      const data = await api('GET', '/__sandbox/scenarios');
      this.data = data;
      if (changed(this, [data.built_ins, data.presets])) {
        const keep = this.form.scenario.value;
        fill(
          this.form.scenario,
          h('optgroup', { label: 'Built-in' }, data.built_ins.map((b) => h('option', { value: b.name }, b.name))),
          h('optgroup', { label: 'Presets' }, data.presets.map((p) => h('option', { value: p.name }, p.name))),
        );
        if (keep) this.form.scenario.value = keep;
        this.describe();
        const armBtn = (name) => h('button', { type: 'button', class: 'small', dataset: { arm: name }, onclick: () => this.armScenario(name) }, 'Arm…');
        fill(
          this.catalogue,
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
                h('div', { class: 'chips' }, b.applies_to.map((x) => h('span', { class: 'chip' }, x))),
                h('div', { class: 'foot' }, h('span', { class: 'value' }, 'value: ' + b.value), armBtn(b.name)),
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
                    h('div', { class: 'chips' }, p.effects.map((e) => h('span', { class: 'chip scenario' }, e.name + (e.value === undefined ? '' : '=' + e.value)))),
                    h('div', { class: 'foot' }, h('span', { class: 'value mono' }, p.source.split('/').slice(-2).join('/')), armBtn(p.name)),
                  ),
                )
              : h('div', { class: 'empty' }, 'No presets loaded.'),
          ),
        );
      }
      const armedSig = JSON.stringify(data.armed);
      if (armedSig === this.armedSig) return;
      this.armedSig = armedSig;
      fill(
        this.armed,
        table(
          ['Scenario', 'Effects', 'Scope', 'Remaining', 'Armed at'],
          data.armed.map((a) =>
            h(
              'tr',
              { dataset: { scenario: a.scenario } },
              h('td', { class: 'mono' }, a.scenario),
              h('td', null, h('div', { class: 'chips' }, a.effects.map((e) => h('span', { class: 'chip scenario' }, e.name + (e.value === undefined ? '' : '=' + e.value))))),
              h('td', null, a.account_id ? ['account ', mono(a.account_id)] : ['parent ', mono(a.parent_account_id)]),
              h('td', null, a.remaining === undefined ? 'every call' : a.remaining),
              h('td', { class: 'muted' }, time(a.armed_at)),
            ),
          ),
          'Nothing armed: calls behave normally.',
        ),
      );
    },
  };

  // ---- view: clock and integration report ---------------------------------------------
  const clockView = {
    every: 2,
    enter(root) {
      this.reportSig = null;
      this.parent = this.parent || '';
      const advance = (seconds) =>
        api('POST', '/__sandbox/clock/advance', { seconds })
          .then((c) => {
            toast('Clock advanced by ' + seconds + ' s');
            showClock(c);
          })
          .catch(fail);
      const seconds = h('input', { id: 'advance-seconds', class: 'narrow', type: 'number', min: 1, value: '90' });
      const parent = (this.select = h('select', { id: 'report-parent' }));
      parent.onchange = () => {
        this.parent = parent.value;
        this.reportSig = null;
        this.refresh().catch(fail);
      };
      fill(
        root,
        h('div', { class: 'view-head' }, h('h1', null, 'Clock and integration report')),
        h(
          'div',
          { class: 'grid2' },
          card(
            'Sandbox clock',
            h('span', { class: 'sub mono muted' }, 'GET /__sandbox/clock'),
            (this.now = h('div', { class: 'big-clock', id: 'clock-now' }, '…')),
            (this.offset = h('div', { class: 'muted', id: 'clock-offset' })),
            h('p', { class: 'muted' }, 'Token expiry, the idempotency window and authorisation propagation all follow this clock.'),
            h('div', { class: 'toolbar' }, [15, 30, 120, 3600, 86400].map((s) => h('button', { type: 'button', dataset: { seconds: s }, onclick: () => advance(s) }, '+' + humanSeconds(s)))),
            h(
              'form',
              {
                class: 'inline gap-top',
                onsubmit: (ev) => {
                  ev.preventDefault();
                  const n = Number(seconds.value);
                  if (n > 0) advance(n);
                },
              },
              h('label', { class: 'field' }, 'Seconds', seconds),
              h('button', { type: 'submit', class: 'primary', id: 'advance-submit' }, 'Advance'),
            ),
          ),
          card(
            'Integration report',
            h('span', { class: 'sub mono muted' }, 'GET /__sandbox/report'),
            h('div', { class: 'toolbar' }, h('label', { class: 'field' }, 'Parent account', parent)),
            (this.report = h('div', { id: 'report' })),
          ),
        ),
      );
      this.clockBox = true;
      return loadPartners().then(() => {
        fill(parent, partners.map((p) => h('option', { value: p.parent_account_id }, p.name + ' (' + p.parent_account_id + ')')));
        if (this.parent && partners.some((p) => p.parent_account_id === this.parent)) parent.value = this.parent;
        this.parent = parent.value;
        return this.refresh();
      });
    },
    async refresh() {
      if (!this.parent) return;
      const r = await api('GET', '/__sandbox/report' + qs({ parent_account_id: this.parent }));
      if (JSON.stringify([r.checks, r.requests_analyzed]) === this.reportSig) return;
      this.reportSig = JSON.stringify([r.checks, r.requests_analyzed]);
      const kind = { passed: 'ok', failed: 'bad', not_exercised: '' };
      fill(
        this.report,
        h(
          'div',
          { class: 'summary' },
          h('div', { class: 'count badge ok' }, h('b', null, r.summary.passed), 'passed'),
          h('div', { class: 'count badge bad' }, h('b', null, r.summary.failed), 'failed'),
          h('div', { class: 'count badge' }, h('b', null, r.summary.not_exercised), 'not exercised'),
        ),
        h('div', { class: 'muted' }, r.requests_analyzed + ' requests analysed · generated ' + time(r.generated_at)),
        r.checks.map((c) =>
          h(
            'div',
            { class: 'check', dataset: { check: c.id } },
            h('div', { class: 'outcome' }, badge(c.outcome.replace('_', ' '), kind[c.outcome])),
            h('div', null, h('div', { class: 'title' }, c.title), c.evidence.length ? h('ul', null, c.evidence.map((e) => h('li', null, e))) : null),
          ),
        ),
      );
    },
  };
  function humanSeconds(s) {
    if (s >= 86400 && s % 86400 === 0) return s / 86400 + ' d';
    if (s >= 3600 && s % 3600 === 0) return s / 3600 + ' h';
    if (s >= 60 && s % 60 === 0) return s / 60 + ' min';
    return s + ' s';
  }

  // ---- the clock in the header (and on the clock view) --------------------------------
  function showClock(c) {
    const text = time(c.now).slice(0, 19);
    const shift = c.offset_seconds ? ' (+' + humanSeconds(Math.round(c.offset_seconds)) + ')' : '';
    const top = $('#top-clock');
    top.textContent = text + shift;
    top.classList.toggle('shifted', c.offset_seconds > 0);
    if (current === 'clock' && clockView.now) {
      clockView.now.textContent = text;
      clockView.offset.textContent = c.offset_seconds
        ? 'Ahead of real time by ' + c.offset_seconds + ' s'
        : 'In step with real time';
    }
  }
  const refreshClock = () => api('GET', '/__sandbox/clock').then(showClock);

  // ---- routing and polling --------------------------------------------------------------
  const views = { partners: partnersView, account: accountView, journal: journalView, scenarios: scenariosView, clock: clockView };
  let current = null;
  function go(view, arg) {
    location.hash = '#/' + view + (arg ? '/' + encodeURIComponent(arg) : '');
  }
  function route() {
    const [, name, arg] = (location.hash || '#/partners').split('/');
    const view = views[name] ? name : 'partners';
    current = view;
    for (const s of document.querySelectorAll('section.view')) s.hidden = s.dataset.view !== view;
    for (const a of document.querySelectorAll('#tabs a')) a.classList.toggle('active', a.dataset.view === view);
    const root = $('#view-' + view);
    Promise.resolve(views[view].enter(root, arg ? decodeURIComponent(arg) : undefined))
      .then(() => (view === 'clock' ? refreshClock() : null))
      .catch(fail);
  }

  let tick = 0;
  let busy = false;
  async function poll() {
    if (busy || tokenWait || document.hidden) return;
    busy = true;
    tick++;
    try {
      await refreshClock();
      const v = views[current];
      if (v && tick % v.every === 0) await v.refresh(true);
    } catch (err) {
      fail(err);
    } finally {
      busy = false;
    }
  }

  document.addEventListener('DOMContentLoaded', () => {
    $('#forget-token').onclick = () => {
      sessionStorage.removeItem(TOKEN_KEY);
      tokenUi();
      toast('Token forgotten for this tab');
    };
    tokenUi();
    window.addEventListener('hashchange', route);
    route();
    refreshClock().catch(fail);
    setInterval(poll, 1000);
  });
})();
`;
