"""The HTML report's stylesheet (inline, so the page needs nothing else)."""

CSS = """
:root { color-scheme: light; --ink: #1f2328; --muted: #656d76; --line: #d8dee4; }
* { box-sizing: border-box; }
body { margin: 0; background: #f6f8fa; color: var(--ink);
  font: 15px/1.5 system-ui, -apple-system, "Segoe UI", "Noto Sans", "Noto Sans CJK JP",
  "Hiragino Sans", "Yu Gothic", sans-serif; }
main { max-width: 960px; margin: 0 auto; padding: 24px 32px 64px; background: #fff;
  min-height: 100vh; }
h1 { font-size: 26px; margin: 8px 0 4px; overflow-wrap: anywhere; }
h2 { font-size: 18px; margin: 32px 0 8px; border-bottom: 1px solid var(--line);
  padding-bottom: 4px; }
.run { color: var(--muted); font-size: 13px; display: flex; flex-wrap: wrap; gap: 4px 16px;
  margin: 0; }
.run b { font-weight: 600; color: var(--ink); }
.note { color: var(--muted); font-size: 13px; margin: 4px 0 8px; }
.people { margin: 12px 0 0; }
.people .lead { font-size: 16px; margin: 0 0 6px; }
.people summary { cursor: pointer; font-size: 13px; }
.people ol { margin: 0; padding-left: 18px; }
.stats { display: grid; grid-template-columns: repeat(auto-fill, minmax(140px, 1fr)); gap: 8px; }
.stat { border: 1px solid var(--line); border-radius: 6px; padding: 8px 12px; }
.stat .value { font-size: 20px; font-weight: 600; }
.stat .label { color: var(--muted); font-size: 12px; }
.legend { display: flex; gap: 16px; font-size: 13px; margin-bottom: 6px; }
.legend i { display: inline-block; width: 12px; height: 12px; margin-right: 4px;
  vertical-align: -1px; border-radius: 2px; }
svg text { fill: var(--ink); }
table { border-collapse: collapse; width: 100%; }
th, td { text-align: left; padding: 6px 8px; vertical-align: top; }
th { font-size: 12px; color: var(--muted); border-bottom: 2px solid var(--line); }
.ranking > tbody > tr > td { border-bottom: 1px solid var(--line); }
.ranking tr.g1 > td { background: #f6f8fa; }
td.rank { font-weight: 700; font-size: 18px; width: 80px; white-space: nowrap; }
.tie { display: block; font-size: 11px; font-weight: 500; color: #9a6700; }
td.num { text-align: right; width: 60px; font-variant-numeric: tabular-nums; }
.item { overflow-wrap: anywhere; white-space: pre-wrap; }
summary.item { cursor: pointer; max-height: 4.5em; overflow: hidden; }
details[open] summary.item { color: var(--muted); max-height: 1.5em; }
.full { white-space: pre-wrap; overflow-wrap: anywhere; padding: 8px; margin: 6px 0;
  border-left: 3px solid #3a7cc3; background: #f0f6fc; }
.matches { font-size: 13px; margin: 4px 0 8px; background: #fff; }
.matches td { border-top: 1px solid #eaeef2; overflow-wrap: anywhere; }
.matches td:nth-child(3) { width: 64px; }
.matches td:nth-child(2) { width: 34%; }
.matches ol { margin: 0; padding-left: 18px; }
.calls td:nth-child(1) { width: 40px; }
.calls td:nth-child(2) { width: 50%; }
.calls td:nth-child(3) { width: auto; white-space: nowrap; }
.calls ol { padding-left: 22px; }
.won, .lost, .draw { white-space: nowrap; border-radius: 10px; padding: 1px 8px;
  font-size: 12px; font-weight: 600; }
.won { background: #dafbe1; color: #1a7f37; }
.lost { background: #ffebe9; color: #cf222e; }
.draw { background: #fff8c5; color: #9a6700; }
.cached { background: #eaeef2; border-radius: 8px; padding: 0 6px; }
.id { display: block; color: var(--muted); font-size: 12px; }
.excerpt > summary { cursor: pointer; }
.excerpt[open] > summary { color: var(--muted); }
.excerpt .full { font-size: 13px; }
.warn { background: #fff8c5; border: 1px solid #d4a72c; border-radius: 6px;
  padding: 8px 12px; margin: 8px 0; color: #4d2d00; }
.forest text.rank { font-weight: 700; }
.forest text.head, .forest text.rule { fill: var(--muted); font-size: 11px; }
.forest text.num { font-variant-numeric: tabular-nums; }
.warn code, .audit code { white-space: nowrap; font-size: 13px; }
.audit { padding-left: 20px; margin: 8px 0; }
.audit li { margin: 4px 0; }
.scroll { overflow-x: auto; max-width: 100%; }
.judges { font-size: 13px; }
.judges td { border-bottom: 1px solid #eaeef2; overflow-wrap: anywhere; }
.judges td.num { width: auto; white-space: nowrap; }
.judges td.who { font-size: 12px; min-width: 180px; }
.judge { background: #ddf4ff; border-radius: 8px; padding: 0 6px; }
.reliability th:not(:first-child) { text-align: right; }
.reliability { max-width: 560px; }
.prob { background: #fbefff; color: #6e40c9; border-radius: 8px; padding: 0 6px;
  font-size: 12px; font-variant-numeric: tabular-nums; white-space: nowrap; }
h3 { font-size: 15px; margin: 16px 0 4px; }
/* Each item's text is its own bidirectional island: a direction mark inside an item
   (U+202E...) cannot reorder the text around it. <bdi> does this in HTML; SVG labels
   carry the class. */
bdi, .iso { unicode-bidi: isolate; }
"""
