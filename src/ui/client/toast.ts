/** The toast at the bottom right: what an action did, or why it failed. */
import { byId } from './dom.js';

let timer: ReturnType<typeof setTimeout> | undefined;

export function toast(message: string, bad = false): void {
  const el = byId('toast');
  el.textContent = message;
  el.className = bad ? 'toast bad' : 'toast';
  el.hidden = false;
  clearTimeout(timer);
  timer = setTimeout(
    () => {
      el.hidden = true;
    },
    bad ? 6000 : 3000,
  );
}

/** For `.catch(fail)`: shows the error's message. */
export const fail = (err: unknown): void => toast(err instanceof Error ? err.message : String(err), true);
