/** The dashboard's tabs, in order: the shell (shell.tsx) draws them, the client (client/dashboard-main.ts) routes them. */
export const VIEWS = [
  ['partners', 'Partners'],
  ['account', 'Account'],
  ['journal', 'Journal'],
  ['scenarios', 'Scenarios'],
  ['clock', 'Clock & report'],
  ['snapshots', 'Snapshots'],
] as const;

export type ViewName = (typeof VIEWS)[number][0];
