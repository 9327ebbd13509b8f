/**
 * The dashboard's entry point (bundled by src/ui/build-assets.ts into /__sandbox/ui/app.js):
 * routes `#/view/arg` to one view per tab, polls the shown view and the header clock once
 * a second, and wires the shell's token controls. The shell is src/ui/shell.tsx.
 */
import './app.css';
import type { ClockState } from '../../client/control-client.js';
import { VIEWS, type ViewName } from '../views.js';
import { askingForToken, control, forgetToken, showForgetToken } from './control-call.js';
import { byId, humanSeconds, time } from './dom.js';
import { fail, toast } from './toast.js';
import type { View } from './view.js';
import { accountView } from './views/account-view.js';
import { clockView } from './views/clock-view.js';
import { journalView } from './views/journal-view.js';
import { partnersView } from './views/partners-view.js';
import { scenariosView } from './views/scenarios-view.js';
import { snapshotsView } from './views/snapshots-view.js';

let current: ViewName = 'partners';

function showClock(clock: ClockState): void {
  const shift = clock.offset_seconds ? ` (+${humanSeconds(Math.round(clock.offset_seconds))})` : '';
  const top = byId('top-clock');
  top.textContent = time(clock.now).slice(0, 19) + shift;
  top.classList.toggle('shifted', clock.offset_seconds > 0);
  if (current === 'clock') clockTab.show(clock);
}
const refreshClock = () => control((c) => c.clock.get()).then(showClock);

const clockTab = clockView(showClock);
const views: Record<ViewName, View> = {
  partners: partnersView(),
  account: accountView(),
  journal: journalView(),
  scenarios: scenariosView(),
  clock: clockTab,
  snapshots: snapshotsView(),
};
const isView = (name: string | undefined): name is ViewName => VIEWS.some(([id]) => id === name);

function route(): void {
  const [, name, arg] = (location.hash || '#/partners').split('/');
  current = isView(name) ? name : 'partners';
  for (const section of document.querySelectorAll<HTMLElement>('section.view')) {
    section.hidden = section.dataset.view !== current;
  }
  for (const tab of document.querySelectorAll<HTMLElement>('#tabs a')) {
    tab.classList.toggle('active', tab.dataset.view === current);
  }
  views[current].enter(byId(`view-${current}`), arg ? decodeURIComponent(arg) : undefined).catch(fail);
}

let tick = 0;
let busy = false;
async function poll(): Promise<void> {
  if (busy || askingForToken() || document.hidden) return;
  busy = true;
  tick++;
  try {
    await refreshClock();
    const view = views[current];
    if (tick % view.every === 0) await view.refresh(true);
  } catch (err) {
    fail(err);
  } finally {
    busy = false;
  }
}

document.addEventListener('DOMContentLoaded', () => {
  byId('forget-token').onclick = () => {
    forgetToken();
    toast('Token forgotten for this tab');
  };
  showForgetToken();
  window.addEventListener('hashchange', route);
  route();
  refreshClock().catch(fail);
  setInterval(poll, 1000);
});
