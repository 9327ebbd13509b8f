/** The dashboard's tabs, in order: the shell (index.tsx) draws them, the client (client/main.ts) routes them. */
export const VIEWS = [
  ['partners', 'Partners'],
  ['account', 'Account'],
  ['journal', 'Journal'],
  ['scenarios', 'Scenarios'],
  ['clock', 'Clock & report'],
  ['snapshots', 'Snapshots'],
] as const;

export type ViewName = (typeof VIEWS)[number][0];
