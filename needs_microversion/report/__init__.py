"""Reports -> text, made once at the command line's edge: `render(reports, fmt)`.

One module per format, and one table (`_RENDERERS`) from a format's name to the module
that renders it; `resolve_format` is the one place `auto` is decided. Every renderer takes
the reports of one command: the one report of `diff`, or the labelled reports of `check`
(one per configured document), which each format combines its own way (a heading per
document in text and markdown, one JSON object, one SARIF log with a run per document, one
JUnit `testsuites` with a suite per document, GitHub commands one after the other).
"""

from __future__ import annotations

import importlib
from collections.abc import Mapping, Sequence
from typing import Protocol

from needs_microversion.model.fail_on import DEFAULT_FAIL_ON, FailOn
from needs_microversion.model.verdict import Report
from needs_microversion.report.common import Labelled
from needs_microversion.report.formats import FORMATS, check_format, resolve_format

__all__ = ["FORMATS", "check_format", "render", "renderer", "resolve_format"]


class Renderer(Protocol):
    def __call__(self, reports: Sequence[Labelled], *, explain: bool, colour: bool | None,
                 fail_on: FailOn) -> str: ...


# Format -> the module whose `render` makes it; imported on use (start-up cost).
_RENDERERS: Mapping[str, str] = {
    "text": "text", "json": "json_format", "markdown": "markdown", "github": "github",
    "sarif": "sarif", "junit": "junit",
}


def renderer(fmt: str) -> Renderer:
    """The renderer of a format (`auto` resolved); InputError for an unknown one."""
    check_format(fmt)
    module = importlib.import_module(f"{__name__}.{_RENDERERS[resolve_format(fmt)]}")
    render_reports: Renderer = module.render
    return render_reports


def render(reports: Report | Sequence[Labelled], fmt: str, *, explain: bool = False,
           colour: bool | None = None, fail_on: FailOn = DEFAULT_FAIL_ON) -> str:
    """Render the report of a diff, or the labelled reports of a check, in one format;
    `colour=None` lets text decide from stdout and NO_COLOR; `fail_on` is what the run's
    exit code was decided by (formats that state an exit code or pass/fail agree with it)."""
    labelled: Sequence[Labelled] = [(None, reports)] if isinstance(reports, Report) \
        else reports
    if not labelled:
        return ""  # a check that compared nothing
    return renderer(fmt)(labelled, explain=explain, colour=colour, fail_on=fail_on)
