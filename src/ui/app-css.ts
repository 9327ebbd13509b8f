/** The dashboard's stylesheet (served as /__sandbox/ui/app.css; see index.tsx). */
export const APP_CSS = `
:root {
  --bg: #f5f6f8;
  --panel: #ffffff;
  --ink: #1d2330;
  --muted: #667085;
  --line: #e3e6ec;
  --accent: #3358d4;
  --accent-soft: #e8eeff;
  --ok: #137a3f;
  --ok-soft: #e3f6ea;
  --warn: #9a5b00;
  --warn-soft: #fff3dc;
  --bad: #b42318;
  --bad-soft: #fde8e6;
  --grey-soft: #eef0f3;
  --mono: ui-monospace, SFMono-Regular, Menlo, Consolas, "Liberation Mono", monospace;
  font-family: system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif;
  font-size: 14px;
  color: var(--ink);
  background: var(--bg);
}
* { box-sizing: border-box; }
body { margin: 0; }
a { color: var(--accent); text-decoration: none; }
a:hover { text-decoration: underline; }
code, .mono { font-family: var(--mono); font-size: 12.5px; }
h1 { font-size: 20px; margin: 0 0 4px; }
h2 { font-size: 16px; margin: 0 0 12px; }
h3 { font-size: 13px; margin: 18px 0 8px; text-transform: uppercase; letter-spacing: .04em; color: var(--muted); }
[hidden] { display: none !important; }

header.top {
  position: sticky; top: 0; z-index: 5;
  display: flex; align-items: center; gap: 24px;
  padding: 0 24px; height: 52px;
  background: #141a2a; color: #e8ebf2;
}
.brand { display: flex; align-items: center; gap: 8px; font-weight: 600; white-space: nowrap; }
.logo { color: #8fa8ff; }
.tabs { display: flex; gap: 4px; height: 100%; }
.tabs a {
  display: flex; align-items: center; padding: 0 12px; color: #b9c0d0;
  border-bottom: 2px solid transparent; text-decoration: none;
}
.tabs a:hover { color: #fff; }
.tabs a.active { color: #fff; border-bottom-color: #8fa8ff; }
.top-right { margin-left: auto; display: flex; align-items: center; gap: 12px; }
.clock-chip { font-family: var(--mono); font-size: 12px; background: #232b40; padding: 4px 10px; border-radius: 12px; }
.clock-chip.shifted { background: #4a3b12; color: #ffd98a; }
button.link { background: none; border: 0; color: #b9c0d0; cursor: pointer; padding: 0; font: inherit; height: auto; }
button.link:hover { color: #fff; text-decoration: underline; }

main { padding: 20px 24px 48px; max-width: 1440px; margin: 0 auto; }
.view-head { display: flex; align-items: baseline; gap: 12px; margin-bottom: 16px; flex-wrap: wrap; }
.view-head .sub { color: var(--muted); }
.view-head .spacer { flex: 1; }

.card { background: var(--panel); border: 1px solid var(--line); border-radius: 8px; padding: 16px 18px; margin-bottom: 16px; }
.card-head { display: flex; align-items: center; gap: 10px; flex-wrap: wrap; margin-bottom: 10px; }
.card-head h2 { margin: 0; }
.grid2 { display: grid; grid-template-columns: 1fr 1fr; gap: 16px; align-items: start; }
.grid3 { display: grid; grid-template-columns: repeat(3, 1fr); gap: 16px; }
@media (max-width: 1000px) { .grid2, .grid3 { grid-template-columns: 1fr; } }
.muted { color: var(--muted); }
.empty { color: var(--muted); padding: 12px 0; font-style: italic; }

dl.kv { display: grid; grid-template-columns: max-content 1fr; gap: 6px 16px; margin: 0; align-content: start; }
dl.kv dt { color: var(--muted); }
dl.kv dd { margin: 0; overflow-wrap: anywhere; }

table { width: 100%; border-collapse: collapse; }
th { text-align: left; font-weight: 600; color: var(--muted); font-size: 12px; text-transform: uppercase; letter-spacing: .03em; }
th, td { padding: 7px 10px; border-bottom: 1px solid var(--line); vertical-align: top; }
tr:last-child td { border-bottom: 0; }
tbody tr.clickable { cursor: pointer; }
tbody tr.clickable:hover { background: #f7f9ff; }
tbody tr.selected, tbody tr.selected:hover { background: var(--accent-soft); }
tr.archived td { color: var(--muted); }
tr.archived td.name { text-decoration: line-through; }

.badge {
  display: inline-block; padding: 1px 8px; border-radius: 10px; font-size: 12px; font-weight: 600;
  background: var(--grey-soft); color: var(--muted); white-space: nowrap;
}
.badge.ok { background: var(--ok-soft); color: var(--ok); }
.badge.warn { background: var(--warn-soft); color: var(--warn); }
.badge.bad { background: var(--bad-soft); color: var(--bad); }
.badge.info { background: var(--accent-soft); color: var(--accent); }
.chips { display: flex; gap: 4px; flex-wrap: wrap; }
.chip { font-family: var(--mono); font-size: 11.5px; background: var(--grey-soft); border-radius: 4px; padding: 1px 6px; }
.chip.scenario { background: var(--warn-soft); color: var(--warn); }

.method { font-family: var(--mono); font-weight: 700; font-size: 12px; }
.method.GET { color: #1565c0; } .method.POST { color: #2e7d32; } .method.PUT { color: #8e5b00; }
.method.PATCH { color: #6a1b9a; } .method.DELETE { color: var(--bad); }
.status { font-family: var(--mono); font-weight: 700; }
.status.s2 { color: var(--ok); } .status.s4 { color: var(--warn); } .status.s5 { color: var(--bad); }
td.path { font-family: var(--mono); font-size: 12.5px; overflow-wrap: anywhere; }

form.inline, .toolbar { display: flex; gap: 8px; align-items: end; flex-wrap: wrap; }
label.field { display: flex; flex-direction: column; gap: 4px; font-size: 12px; color: var(--muted); }
input, select {
  font: inherit; color: var(--ink); background: #fff;
  border: 1px solid #cfd4dd; border-radius: 6px; padding: 0 8px; min-width: 0; height: 32px;
}
input:focus, select:focus { outline: 2px solid var(--accent-soft); border-color: var(--accent); }
input.wide { width: 300px; }
input.narrow { width: 90px; }
button {
  font: inherit; cursor: pointer; border-radius: 6px; padding: 0 12px; height: 32px;
  border: 1px solid #cfd4dd; background: #fff; color: var(--ink);
}
button:hover { background: #f3f5f9; }
button.primary { background: var(--accent); border-color: var(--accent); color: #fff; }
button.primary:hover { background: #2747b5; }
button.danger { color: var(--bad); border-color: #f0c4bf; }
button.danger:hover { background: var(--bad-soft); }
button.small { padding: 0 9px; height: 26px; font-size: 12.5px; }
button:disabled { opacity: .5; cursor: default; }

.filters { margin: -4px 0 14px; }
.filters .muted { margin-left: auto; align-self: center; }
.journal-list { max-height: 36vh; overflow: auto; padding: 0; }
.journal-list table th { position: sticky; top: 0; background: var(--panel); z-index: 1; }
.live { display: inline-flex; align-items: center; gap: 6px; font-size: 12px; color: var(--ok); }
.live::before { content: ""; width: 8px; height: 8px; border-radius: 50%; background: var(--ok); }
.live.paused { color: var(--muted); }
.live.paused::before { background: var(--muted); }
.bodies { display: grid; grid-template-columns: 1fr 1fr; gap: 16px; margin-top: 6px; }
.bodies h3 { margin-top: 4px; }
pre.body {
  margin: 0; padding: 10px 12px; background: #0f1524; color: #dfe6f5; border-radius: 6px;
  font-family: var(--mono); font-size: 12px; line-height: 1.45;
  white-space: pre-wrap; overflow-wrap: anywhere; max-height: 420px; overflow: auto;
}
pre.body.none { background: var(--grey-soft); color: var(--muted); font-style: italic; }
details summary { cursor: pointer; color: var(--muted); }
details ul { margin-top: 6px !important; }
.gap-top { margin-top: 14px; }
ul.plain { margin: 0; padding-left: 18px; }
ul.plain li { margin: 2px 0; }
.warning-item { color: var(--warn); }

.scenario-card { border: 1px solid var(--line); border-radius: 8px; padding: 12px 14px; background: #fff; display: flex; flex-direction: column; gap: 8px; }
.scenario-card .name { font-family: var(--mono); font-weight: 700; }
.scenario-card p { margin: 0; color: #3a4253; line-height: 1.4; }
.scenario-card .foot { display: flex; align-items: center; gap: 8px; margin-top: auto; }
.scenario-card .foot .value { color: var(--muted); font-size: 12px; flex: 1; }
.catalogue { display: grid; grid-template-columns: repeat(auto-fill, minmax(320px, 1fr)); gap: 12px; }

.big-clock { font-family: var(--mono); font-size: 26px; font-weight: 600; margin: 4px 0 2px; }
.summary { display: flex; gap: 10px; margin: 8px 0 14px; }
.summary .count { border-radius: 8px; padding: 8px 14px; min-width: 110px; }
.summary .count b { display: block; font-size: 22px; }
.check { display: flex; gap: 12px; padding: 10px 0; border-bottom: 1px solid var(--line); }
.check:last-child { border-bottom: 0; }
.check .outcome { width: 120px; flex: none; }
.check .title { font-weight: 600; }
.check ul { margin: 6px 0 0; padding-left: 18px; color: #3a4253; font-size: 13px; }

.toast {
  position: fixed; bottom: 20px; right: 20px; max-width: 480px; z-index: 20;
  background: #141a2a; color: #fff; padding: 10px 14px; border-radius: 8px;
  box-shadow: 0 6px 24px rgba(0,0,0,.2); overflow-wrap: anywhere;
}
.toast.bad { background: var(--bad); }

dialog { border: 0; border-radius: 10px; padding: 22px 24px; width: 420px; box-shadow: 0 18px 48px rgba(0,0,0,.3); }
dialog::backdrop { background: rgba(15, 21, 36, .55); }
dialog p { color: #3a4253; line-height: 1.45; }
dialog input { width: 100%; }
dialog .actions { display: flex; justify-content: flex-end; margin-top: 14px; }
.error { color: var(--bad); }
`;
