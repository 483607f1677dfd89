/// The web UI's style sheet: plain CSS, light and dark, no web fonts.
enum WebStyle {
    static let css = #"""
:root { --bg: #fff; --fg: #1b1f24; --muted: #5b6570; --line: #d8dde3; --accent: #0a58ca; --hi: #fff3b0;
  --unread: #0a58ca; --panel: #f5f7f9; --bad: #b42318; color-scheme: light dark; }
@media (prefers-color-scheme: dark) {
  :root { --bg: #14171a; --fg: #e6e9ec; --muted: #9aa4ae; --line: #2c3238; --accent: #6ea8fe; --hi: #5a4b00;
    --unread: #6ea8fe; --panel: #1c2025; --bad: #ff8a80; }
}
* { box-sizing: border-box; }
body { margin: 0; font: 15px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; background: var(--bg); color: var(--fg); }
a { color: var(--accent); }
.bar { display: flex; gap: 1.5rem; align-items: center; padding: .6rem 1rem; border-bottom: 1px solid var(--line); position: sticky; top: 0; background: var(--bg); z-index: 2; }
.brand { font-weight: 700; text-decoration: none; color: var(--fg); }
nav a { margin-right: 1rem; text-decoration: none; }
nav a[aria-current="page"] { font-weight: 700; text-decoration: underline; }
.live { margin-left: auto; font-size: .85rem; color: var(--muted); }
.live.on::before { content: "● "; color: #2da44e; }
main { padding: 1rem; max-width: 1200px; margin: 0 auto; }
main:focus { outline: none; }
.toolbar { display: flex; flex-wrap: wrap; gap: .5rem; align-items: center; margin-bottom: .75rem; }
.toolbar input[type="search"] { flex: 1 1 20rem; }
input, select, textarea, button { font: inherit; color: inherit; background: var(--bg); border: 1px solid var(--line); border-radius: 6px; padding: .35rem .55rem; }
textarea { width: 100%; font-family: ui-monospace, SFMono-Regular, Menlo, monospace; font-size: .85rem; }
button { cursor: pointer; background: var(--panel); }
button:hover { border-color: var(--accent); }
button.danger { color: var(--bad); }
:focus-visible { outline: 2px solid var(--accent); outline-offset: 1px; }
.muted { color: var(--muted); }
.error { color: var(--bad); }
ol.messages { list-style: none; margin: 0; padding: 0; border-top: 1px solid var(--line); }
ol.messages li { display: grid; grid-template-columns: 1rem minmax(10rem, 16rem) 1fr auto; gap: .25rem .75rem; padding: .5rem .5rem; border-bottom: 1px solid var(--line); cursor: pointer; }
ol.messages li[aria-selected="true"] { background: var(--panel); outline: 2px solid var(--accent); outline-offset: -2px; }
ol.messages li .dot { width: .6rem; height: .6rem; border-radius: 50%; margin-top: .45rem; }
ol.messages li.unread .dot { background: var(--unread); }
ol.messages li.unread .subject { font-weight: 700; }
ol.messages li.fresh { animation: fresh 2s ease-out; }
@keyframes fresh { from { background: var(--hi); } to { background: transparent; } }
.who { overflow: hidden; text-overflow: ellipsis; white-space: nowrap; }
.who .to { display: block; font-size: .8rem; color: var(--muted); }
.line { overflow: hidden; text-overflow: ellipsis; white-space: nowrap; }
.snippet { color: var(--muted); margin-left: .5rem; }
.when { font-size: .8rem; color: var(--muted); white-space: nowrap; }
.chip { display: inline-block; font-family: ui-monospace, Menlo, monospace; background: var(--hi); border-radius: 4px; padding: 0 .35rem; margin-left: .4rem; font-size: .85rem; }
.pager { display: flex; gap: .5rem; align-items: center; margin-top: .75rem; }
.keys { font-size: .8rem; color: var(--muted); margin-top: 1rem; }
kbd { border: 1px solid var(--line); border-radius: 3px; padding: 0 .25rem; font-size: .8rem; }
h1 { font-size: 1.35rem; margin: .25rem 0 .75rem; word-break: break-word; }
h2 { font-size: 1.05rem; margin: 1.25rem 0 .5rem; }
table.kv { border-collapse: collapse; width: 100%; }
table.kv th { text-align: left; vertical-align: top; color: var(--muted); font-weight: 500; width: 9rem; padding: .15rem .5rem .15rem 0; }
table.kv td { padding: .15rem 0; word-break: break-all; }
.codes, .links { list-style: none; padding: 0; margin: 0; }
.codes li, .links li { display: flex; gap: .5rem; align-items: center; padding: .25rem 0; flex-wrap: wrap; }
.otp { font: 700 1.4rem ui-monospace, Menlo, monospace; letter-spacing: .08em; background: var(--hi); padding: .1rem .5rem; border-radius: 6px; }
.purpose { font-size: .75rem; border: 1px solid var(--line); border-radius: 999px; padding: 0 .5rem; color: var(--muted); }
.links .url { word-break: break-all; }
.tabs { display: flex; gap: .25rem; border-bottom: 1px solid var(--line); margin-top: 1rem; }
.tabs button { border-bottom: none; border-radius: 6px 6px 0 0; }
.tabs button[aria-selected="true"] { background: var(--bg); font-weight: 700; border-color: var(--accent); }
.pane { border: 1px solid var(--line); border-top: none; padding: .75rem; }
iframe.mail { width: 100%; height: 70vh; border: 0; background: #fff; }
pre { white-space: pre-wrap; word-break: break-word; margin: 0; font: .85rem/1.45 ui-monospace, SFMono-Regular, Menlo, monospace; }
mark { background: var(--hi); color: inherit; font-weight: 700; }
.grid2 { display: grid; grid-template-columns: repeat(auto-fit, minmax(22rem, 1fr)); gap: 1.25rem; }
form.mint label { display: block; margin: .4rem 0 .15rem; font-size: .9rem; }
form.mint input, form.mint select { width: 100%; }
.panel { background: var(--panel); border-radius: 8px; padding: .75rem 1rem; }
code.setting { font-family: ui-monospace, Menlo, monospace; font-size: .85rem; word-break: break-all; }
"""#
}
