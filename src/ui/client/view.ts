/** What every tab of the dashboard is, and the navigation between them. */
import type { ViewName } from '../views.js';

export interface View {
  /** Polled every this many seconds while shown. */
  readonly every: number;
  /** Draws the view into its section (again each time the tab is opened); `arg` is the rest of the hash. */
  enter(root: HTMLElement, arg: string | undefined): Promise<void>;
  /** Fetches and redraws what changed; `fromPoll` when the timer asks. */
  refresh(fromPoll: boolean): Promise<void>;
}

/** Opens a view: `#/account/acct_…`. */
export function go(view: ViewName, arg?: string): void {
  location.hash = `#/${view}${arg ? `/${encodeURIComponent(arg)}` : ''}`;
}

export const href = (view: ViewName, arg: string) => `#/${view}/${encodeURIComponent(arg)}`;
