"""The history as one self-contained html page: the maximum microversion over time (an SVG
chart with the releases marked), the microversions and findings release by release, the
commits where the verdict and the version file disagree, and every commit in a table that
filters by text and by verdict.

    html = page(history)

Nothing is fetched: the style and the script are inline, there is no font, image or
library to load, and the page's Content-Security-Policy forbids loading anything at all, so
it reads the same offline, from a CI artifact or an email. Every text from the repository
is escaped; a link is a link only when it is http(s).
"""

from __future__ import annotations

from collections.abc import Sequence
from html import escape as _escape

from needs_microversion.model.history import History, HistoryRow
from needs_microversion.report.history_chart import chart
from needs_microversion.report.history_releases import by_release
from needs_microversion.report.history_rows import (
    DISAGREEMENTS, SHORT, disagreeing, maxima, printable, summary_lines, text)

_POLICY = ("default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; "
           "img-src data:")
_VERDICTS = ("required", "not-required", "bug-fix", "error")

_STYLE = """
:root { color-scheme: light dark; --fg: #1f2328; --muted: #656d76; --line: #d0d7de;
  --bg: #ffffff; --band: #f6f8fa; --required: #d1242f; --raised: #0969da;
  --bug-fix: #8250df; --not-required: #656d76; --error: #9a6700; }
@media (prefers-color-scheme: dark) { :root { --fg: #e6edf3; --muted: #8d96a0;
  --line: #30363d; --bg: #0d1117; --band: #161b22; --raised: #4493f8; } }
body { font: 14px/1.45 system-ui, sans-serif; color: var(--fg); background: var(--bg);
  margin: 0 auto; padding: 1rem 1.5rem 3rem; max-width: 1200px; }
h1 { font-size: 1.4rem; margin: 0.5rem 0; } h2 { font-size: 1.1rem; margin: 1.6rem 0 0.5rem; }
.muted, .tick { color: var(--muted); fill: var(--muted); }
ul.summary { padding-left: 1.2rem; margin: 0.3rem 0; }
table { border-collapse: collapse; width: 100%; }
th, td { text-align: left; padding: 0.25rem 0.5rem; border-bottom: 1px solid var(--line);
  vertical-align: top; }
th { background: var(--band); position: sticky; top: 0; }
td.num { text-align: right; font-variant-numeric: tabular-nums; }
td.nowrap, td.num { white-space: nowrap; }
#commits td:last-child { min-width: 14rem; }
code, .commit { font-family: ui-monospace, monospace; font-size: 0.92em; }
.verdict-required { color: var(--required); font-weight: 600; }
.verdict-bug-fix { color: var(--bug-fix); } .verdict-error { color: var(--error); }
.verdict-not-required { color: var(--not-required); }
.bar { display: inline-block; height: 0.7rem; background: var(--raised); opacity: 0.7;
  vertical-align: middle; } .bar.required { background: var(--required); }
svg.chart { width: 100%; height: auto; display: block; background: var(--band);
  border-radius: 6px; }
svg .axis { stroke: var(--muted); } svg .grid { stroke: var(--line); }
svg .tick { font-size: 12px; }
svg .maximum { fill: none; stroke: var(--raised); stroke-width: 2; }
svg .raised { fill: var(--raised); } svg .unprovided { fill: none; stroke: var(--required);
  stroke-width: 2; }
svg .release line { stroke: var(--muted); stroke-dasharray: 3 3; }
svg .release text { font-size: 11px; fill: var(--muted); }
.legend span { margin-right: 1.2rem; } .legend .swatch { display: inline-block;
  width: 0.8rem; height: 0.8rem; border-radius: 50%; vertical-align: -0.1rem;
  margin-right: 0.3rem; }
.filters { display: flex; gap: 0.8rem; align-items: center; flex-wrap: wrap;
  margin: 0.5rem 0; } .filters input { min-width: 18rem; }
input, select { font: inherit; padding: 0.2rem 0.4rem; color: inherit;
  background: var(--bg); border: 1px solid var(--line); border-radius: 4px; }
"""

# Each row's text is read once; a filter hides the rows that do not match every word.
_SCRIPT = """
(function () {
  var box = document.getElementById("filter-text");
  var verdict = document.getElementById("filter-verdict");
  var shown = document.getElementById("shown");
  var rows = Array.prototype.slice.call(document.querySelectorAll("#commits tbody tr"));
  var texts = rows.map(function (row) { return row.textContent.toLowerCase(); });
  function apply() {
    var words = box.value.toLowerCase().split(/\\s+/).filter(Boolean);
    var wanted = verdict.value, count = 0;
    rows.forEach(function (row, at) {
      var kind = wanted === "" || row.dataset.verdict === wanted ||
        (wanted === "disagree" && row.dataset.disagree === "yes");
      var match = kind && words.every(function (word) {
        return texts[at].indexOf(word) >= 0; });
      row.hidden = !match;
      if (match) { count += 1; }
    });
    shown.textContent = count + " of " + rows.length + " commits shown";
  }
  box.addEventListener("input", apply);
  verdict.addEventListener("change", apply);
  apply();
})();
"""


def escape(value: str) -> str:
    return _escape(printable(value))


def page(history: History) -> str:
    rows = history.rows
    span = f"{rows[0].date} to {rows[-1].date}, " if rows else ""
    return "\n".join([
        "<!DOCTYPE html>", '<html lang="en">', "<head>", '<meta charset="utf-8">',
        f'<meta http-equiv="Content-Security-Policy" content="{_POLICY}">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        '<link rel="icon" href="data:,">',
        "<title>Microversion history</title>", f"<style>{_STYLE}</style>", "</head>", "<body>",
        "<h1>Microversion history</h1>",
        f'<p class="muted">{escape(span)}{len(rows)} commits that changed the API documents, '
        f"each judged against its parent (needs-microversion history).</p>",
        '<ul class="summary">', *(f"<li>{escape(line)}</li>"
                                  for line in summary_lines(history.summary)), "</ul>",
        "<h2>The maximum microversion over time</h2>", _LEGEND, chart(rows),
        "<h2>Release by release</h2>", _releases(rows),
        *_disagreements(history),
        "<h2>Commits</h2>", _FILTERS, _commits(rows),
        f"<script>{_SCRIPT}</script>", "</body>", "</html>", ""])


_LEGEND = ('<p class="legend muted"><span><span class="swatch" style="background:'
           'var(--raised)"></span>maximum raised</span><span><span class="swatch" '
           'style="border:2px solid var(--required)"></span>contract change shipped without '
           'a microversion</span><span>dashed: a release, at its tag\'s date</span></p>')

_FILTERS = ('<div class="filters"><input id="filter-text" type="search" '
            'placeholder="Filter: words in any column" aria-label="Filter the commits">'
            '<select id="filter-verdict" aria-label="Verdict"><option value="">every verdict'
            '</option>' + "".join(f'<option value="{verdict}">{verdict}</option>'
                                  for verdict in _VERDICTS)
            + '<option value="disagree">disagrees with the version file</option></select>'
            '<span id="shown" class="muted"></span></div>')


def _releases(rows: Sequence[HistoryRow]) -> str:
    stats = by_release(rows)
    if not stats:
        return '<p class="muted">No commit.</p>'
    widest = max(release.commits for release in stats)  # at least 1: no empty release
    lines = ["<table><thead><tr><th>release</th><th>tagged</th><th>maximum</th>"
             "<th>microversions</th><th>commits</th><th>required</th><th>findings</th>"
             "<th>without a microversion</th><th>disagreeing</th><th>errors</th>"
             "<th>commits (required in red)</th></tr></thead><tbody>"]
    for release in stats:
        added = release.microversions
        lines.append(
            f"<tr><td>{escape(release.name or 'not released yet')}</td>"
            f'<td class="nowrap">{escape(release.date or "")}</td>'
            f'<td class="nowrap">{maxima(release.first, release.last)}</td>'
            f'<td class="num">{"" if added is None else added}</td>'
            + "".join(f'<td class="num">{value}</td>' for value in (
                release.commits, release.required, release.findings, release.unprovided,
                release.disagree, release.errors))
            + f'<td class="nowrap">{_bar(release.required, release.commits, widest)}</td></tr>')
    return "\n".join([*lines, "</tbody></table>"])


def _bar(required: int, commits: int, widest: int) -> str:
    """Two bars end to end, 12rem for the release with the most commits."""
    def span(kind: str, part: int) -> str:
        return f'<span class="{kind}" style="width:{12 * part / widest:.2f}rem"></span>'

    return span("bar required", required) + span("bar", commits - required)


def _disagreements(history: History) -> list[str]:
    groups = disagreeing(history)
    if not groups:
        return []
    parts = ["<h2>Where the verdict and the version file disagree</h2>"]
    for kind, rows in groups:
        parts += [f"<h3>{escape(DISAGREEMENTS[kind])} ({len(rows)})</h3>", "<ul>"]
        parts += [f"<li>{_commit(row)} {escape(row.date)} {escape(row.subject)}</li>"
                  for row in rows]
        parts.append("</ul>")
    return parts


def _commit(row: HistoryRow) -> str:
    short = escape(row.commit[:SHORT])
    if row.link and row.link.startswith(("https://", "http://")):
        return f'<a class="commit" href="{escape(row.link)}">{short}</a>'
    return f'<span class="commit">{short}</span>'


def _commits(rows: Sequence[HistoryRow]) -> str:
    lines = ['<table id="commits"><thead><tr><th>date</th><th>commit</th><th>maximum</th>'
             "<th>release</th><th>verdict</th><th>exit</th><th>finding</th><th>subject</th>"
             "</tr></thead><tbody>"]
    for row in rows:
        lines.append(
            f'<tr data-verdict="{escape(row.verdict)}" '
            f'data-disagree="{"yes" if row.disagreement else "no"}">'
            f'<td class="nowrap">{escape(row.date)}</td><td>{_commit(row)}</td>'
            f'<td class="nowrap">{maxima(row.old_max, row.new_max)}</td>'
            f'<td class="nowrap">{escape(text(row.release))}</td>'
            f'<td class="nowrap verdict-{escape(row.verdict)}">{escape(row.verdict)}</td>'
            f'<td class="num">{row.exit_code}</td><td>{escape(row.main_finding)}</td>'
            f"<td>{escape(row.subject)}</td></tr>")
    return "\n".join([*lines, "</tbody></table>"])
