"""Histories built by hand, for the renderers: rows with the verdicts, maxima, releases and
links a real run gives, without judging anything.

    history = sample_history()      # 6 rows over 3 releases and an unreleased tail
"""

from __future__ import annotations

from needs_microversion.model.change import Change
from needs_microversion.model.history import History, HistoryRow, summarize
from needs_microversion.model.snapshot import OpKey
from needs_microversion.model.verdict import BUG_FIX, REQUIRED, Finding, Report
from needs_microversion.model.versions import Version, parse_version

LINK = "https://opendev.org/openstack/nova/commit/{commit}"


def report(verdict: str | None, finding: str = "attribute-added", message: str = "",
           gated: str | None = None, old: str = "2.1", new: str = "2.1") -> Report:
    """A report with one finding of `verdict` (none for None); `gated`: the microversion
    the change sits behind (a required change the maximum reaches is provided)."""
    findings: tuple[Finding, ...] = ()
    if verdict is not None:
        change = Change("response-body", "added", "", "GET /servers/{server_id}",
                        OpKey("GET", "/servers/{}"), "/locked",
                        gated=parse_version(gated) if gated else None)
        findings = (Finding(finding, "rule", "question?", verdict, change,  # type: ignore[arg-type]
                            message or f"response attribute /locked added ({finding})"),)
    return Report("old", "new", parse_version(old), parse_version(new), findings)


def row(number: int, subject: str, old: str | None, new: str | None, release: str | None,
        verdict: str | None = None, *, gated: str | None = None, error: str | None = None,
        message: str = "") -> HistoryRow:
    commit = f"{number:02d}" + "ab" * 19
    reports = () if error else (("api-ref/source", report(
        verdict, message=message, gated=gated, old=old or "2.1", new=new or "2.1")),)
    dates = {"1.0.0": "2021-04-01", "2.0.0": "2021-10-01", "3.0.0": "2022-04-01"}
    return HistoryRow(commit, f"2021-{1 + number % 12:02d}-{1 + number:02d}", subject,
                      _v(old), _v(new), release, reports, error,
                      release_date=dates.get(release or ""),
                      link=LINK.replace("{commit}", commit))


def _v(text: str | None) -> Version | None:
    return parse_version(text) if text else None


def sample_history() -> History:
    rows = (
        row(1, "Microversion 2.2: locked", "2.1", "2.2", "1.0.0", REQUIRED, gated="2.2"),
        row(2, "api-ref: a better title", "2.2", "2.2", "1.0.0"),
        row(3, "pinned, with no microversion", "2.2", "2.2", "2.0.0", REQUIRED),
        row(4, "Fix a 500", "2.2", "2.2", "2.0.0", BUG_FIX, message="status 500 removed"),
        row(5, "Microversion 2.3 with nothing documented", "2.2", "2.3", "3.0.0"),
        row(6, "a broken commit", None, None, None, error="cannot read api-ref/source"),
        row(7, "Microversion 2.4: \x1b[31mred\x1b[0m <script>alert(1)</script> & more words "
            "to make a subject longer than any column", "2.3", "2.4", None, REQUIRED,
            gated="2.4"),
    )
    return History(rows, summarize(rows))
