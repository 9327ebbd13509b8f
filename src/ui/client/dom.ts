/**
 * Building DOM: elements, attributes and text nodes only. Nothing here (or anywhere in the
 * dashboard) parses HTML, so a journal body or a brand that holds markup shows as text.
 */

/** What a child can be: a node, text (a number too), nothing, or a list of those. */
export type Child = Node | string | number | null | undefined | false | readonly Child[];

type Handler = (event: never) => void;

/** Attributes, `class`, `dataset`, the live properties value/checked/disabled/selected, and on* listeners. */
export interface Props {
  class?: string;
  dataset?: Record<string, string | number>;
  onclick?: (event: MouseEvent) => void;
  onsubmit?: (event: SubmitEvent) => void;
  onchange?: (event: Event) => void;
  oninput?: (event: Event) => void;
  [name: string]: string | number | boolean | null | undefined | Handler | Record<string, string | number>;
}

const LIVE_PROPERTIES = new Set(['value', 'checked', 'disabled', 'selected']);

export function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  props?: Props | null,
  ...children: Child[]
): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag);
  for (const [name, value] of Object.entries(props ?? {})) {
    if (value === undefined || value === null || value === false) continue;
    if (typeof value === 'function') {
      if (!name.startsWith('on')) throw new Error(`${name}: a function is only for an on* listener`);
      el.addEventListener(name.slice(2), value as EventListener);
    } else if (name === 'class') el.className = String(value);
    else if (typeof value === 'object') {
      for (const [key, item] of Object.entries(value)) el.dataset[key] = String(item);
    } else if (name.startsWith('on')) throw new Error('refusing a string event handler');
    else if (LIVE_PROPERTIES.has(name)) Reflect.set(el, name, value);
    else el.setAttribute(name, value === true ? '' : String(value));
  }
  return add(el, children);
}

export function add<E extends Element>(el: E, children: readonly Child[]): E {
  for (const child of children) {
    if (child === undefined || child === null || child === false) continue;
    if (Array.isArray(child)) add(el, child);
    else el.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return el;
}

/** Replaces an element's children. */
export function fill<E extends Element>(el: E, ...children: Child[]): E {
  el.replaceChildren();
  return add(el, children);
}

/** An element of the shell (src/ui/shell.tsx), which must be there. */
export function byId<E extends HTMLElement = HTMLElement>(id: string): E {
  const el = document.getElementById(id);
  if (!el) throw new Error(`the page has no #${id}`);
  return el as E;
}

// ---- small pieces every view uses ------------------------------------------------------

export type Tone = 'ok' | 'warn' | 'bad' | 'info' | 'chaos' | '';

export const badge = (text: string | number, tone: Tone = '') => h('span', { class: `badge ${tone}` }, text);
export const mono = (text: string | number) => h('span', { class: 'mono' }, text);
export const label = (text: string, control: HTMLElement) => h('label', { class: 'field' }, text, control);

/** A definition list; a null pair is left out. */
export const kv = (pairs: readonly ([string, Child] | null)[]) =>
  h(
    'dl',
    { class: 'kv' },
    pairs.map((pair) => (pair ? [h('dt', null, pair[0]), h('dd', null, pair[1])] : null)),
  );

/** A table with a header row, or a line of text when there are no rows. */
export const table = (heads: readonly string[], rows: readonly HTMLTableRowElement[], empty: string) =>
  rows.length
    ? h(
        'table',
        null,
        h(
          'thead',
          null,
          h(
            'tr',
            null,
            heads.map((text) => h('th', null, text)),
          ),
        ),
        h('tbody', null, rows),
      )
    : h('div', { class: 'empty' }, empty);

export const card = (title: string | null, extra: Child, ...body: Child[]) =>
  h(
    'div',
    { class: 'card' },
    title ? h('div', { class: 'card-head' }, h('h2', null, title), extra) : null,
    body,
  );

/** A view's heading: its title, the control-plane route it reads (if one), then `rest`. */
export const viewHead = (title: string, route: string | null, ...rest: Child[]) =>
  h(
    'div',
    { class: 'view-head' },
    h('h1', null, title),
    route ? h('span', { class: 'sub mono' }, route) : null,
    rest,
  );

/** An ISO time as "2026-01-02 03:04:05.678". */
export const time = (iso: string | null | undefined) => (iso ? iso.replace('T', ' ').replace('Z', '') : '');

export const effectChip = (effect: { name: string; value?: number | undefined }) =>
  h(
    'span',
    { class: 'chip scenario' },
    effect.value === undefined ? effect.name : `${effect.name}=${effect.value}`,
  );

/** "1 blocked domain", "2 blocked domains": `many` when the plural is not `one` + "s". */
export const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

export function humanSeconds(s: number): string {
  if (s >= 86_400 && s % 86_400 === 0) return `${s / 86_400} d`;
  if (s >= 3600 && s % 3600 === 0) return `${s / 3600} h`;
  if (s >= 60 && s % 60 === 0) return `${s / 60} min`;
  return `${s} s`;
}

/** Remembers what was last drawn, so that polling redraws only when the data changed. */
export class Drawn {
  private last: string | null = null;
  /** True (and remembered) when `data` differs from what was drawn last. */
  changed(data: unknown): boolean {
    const sig = JSON.stringify(data);
    if (sig === this.last) return false;
    this.last = sig;
    return true;
  }
  forget(): void {
    this.last = null;
  }
}

/**
 * A button for an action that destroys state (a reset, a restore): the first click asks
 * ("Really reset?"), a second click within five seconds does it. No native dialog.
 */
export function confirmButton(
  text: string,
  question: string,
  /** Reports its own failure (a toast): the button only waits for it. */
  action: () => Promise<void>,
  props: Props = {},
): HTMLButtonElement {
  let armedUntil = 0;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const button = h('button', { type: 'button', class: 'danger', ...props }, text);
  const settle = () => {
    armedUntil = 0;
    button.textContent = text;
    button.classList.remove('asking');
  };
  button.onclick = () => {
    clearTimeout(timer);
    if (Date.now() > armedUntil) {
      armedUntil = Date.now() + 5000;
      button.textContent = question;
      button.classList.add('asking');
      timer = setTimeout(settle, 5000);
      return;
    }
    settle();
    button.disabled = true;
    action().finally(() => {
      button.disabled = false;
    });
  };
  return button;
}

/** Hands `data` to the browser as a file download (a blob: link: the call that fetched it carried the token). */
export function download(fileName: string, data: unknown): void {
  const url = URL.createObjectURL(new Blob([JSON.stringify(data, null, 2)], { type: 'application/json' }));
  const link = h('a', { href: url, download: fileName, hidden: true });
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 60_000);
}
