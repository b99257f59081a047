/** The dashboard's one stylesheet, served at /dashboard/assets/dashboard.css (the pages' CSP allows only it). */
export const STYLESHEET_PATH = '/dashboard/assets/dashboard.css';

export const STYLESHEET = `
:root { --ink: #1c2330; --muted: #5c677a; --line: #d9dee7; --bg: #f6f7f9; --accent: #2457d6; --danger: #b42318; --ok: #067647; }
* { box-sizing: border-box; }
body { margin: 0; font: 15px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: var(--ink); background: var(--bg); }
header.top { display: flex; align-items: center; gap: 1.5rem; padding: .75rem 1.5rem; background: #fff; border-bottom: 1px solid var(--line); }
header.top .brand { font-weight: 700; color: var(--ink); text-decoration: none; }
header.top nav { display: flex; gap: 1rem; flex: 1; }
header.top nav a { color: var(--muted); text-decoration: none; padding: .25rem 0; }
header.top nav a.current { color: var(--accent); border-bottom: 2px solid var(--accent); }
header.top .who { color: var(--muted); font-size: 14px; display: flex; gap: .75rem; align-items: center; }
main { max-width: 1080px; margin: 1.5rem auto; padding: 0 1.5rem; }
main.narrow { max-width: 420px; margin-top: 4rem; }
h1 { font-size: 1.5rem; margin: 0 0 1rem; }
h2 { font-size: 1.1rem; margin: 1.75rem 0 .75rem; }
.card { background: #fff; border: 1px solid var(--line); border-radius: 8px; padding: 1.25rem; margin-bottom: 1rem; }
table { width: 100%; border-collapse: collapse; background: #fff; border: 1px solid var(--line); border-radius: 8px; }
th, td { text-align: left; padding: .55rem .75rem; border-bottom: 1px solid var(--line); vertical-align: top; font-size: 14px; }
th { color: var(--muted); font-weight: 600; background: #fafbfc; }
tr:last-child td { border-bottom: none; }
code, .mono { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; font-size: 13px; }
label { display: block; font-weight: 600; margin: .75rem 0 .25rem; }
label.inline { display: inline-flex; gap: .35rem; font-weight: 400; margin: .25rem 1rem .25rem 0; }
input[type=text], input[type=email], input[type=password], select { width: 100%; padding: .5rem .6rem; border: 1px solid var(--line); border-radius: 6px; font: inherit; }
button, .button { display: inline-block; padding: .45rem .9rem; border-radius: 6px; border: 1px solid var(--accent); background: var(--accent); color: #fff; font: inherit; cursor: pointer; text-decoration: none; }
button.secondary, .button.secondary { background: #fff; color: var(--accent); }
button.danger { background: #fff; color: var(--danger); border-color: var(--danger); }
button.link { background: none; border: none; color: var(--muted); padding: 0; text-decoration: underline; }
form.inline { display: inline; }
.actions { margin-top: 1rem; display: flex; gap: .5rem; align-items: center; }
.error { background: #fef3f2; border: 1px solid #fecdca; color: var(--danger); padding: .6rem .8rem; border-radius: 6px; margin-bottom: 1rem; }
.notice { background: #ecfdf3; border: 1px solid #abefc6; color: var(--ok); padding: .6rem .8rem; border-radius: 6px; margin-bottom: 1rem; }
.secret { display: block; padding: .75rem; background: #101828; color: #fff; border-radius: 6px; word-break: break-all; margin: .5rem 0; }
.muted { color: var(--muted); }
.badge { display: inline-block; padding: 0 .45rem; border-radius: 999px; font-size: 12px; border: 1px solid var(--line); color: var(--muted); }
.badge.live { color: var(--accent); border-color: #b2c7f5; }
.badge.revoked, .badge.expired, .badge.failed, .badge.disabled { color: var(--danger); border-color: #fecdca; }
.badge.active, .badge.succeeded, .badge.delivered { color: var(--ok); border-color: #abefc6; }
.grid { display: grid; grid-template-columns: repeat(auto-fit, minmax(180px, 1fr)); gap: 1rem; }
.figure { font-size: 1.6rem; font-weight: 700; }
.chart { width: 100%; height: auto; }
.chart .bar { fill: var(--accent); }
.chart .axis { stroke: var(--line); }
.chart text { fill: var(--muted); font-size: 11px; }
.steps { padding-left: 1.25rem; }
.steps li { margin-bottom: .5rem; }
`;
