"""Renderers: Report -> text. One module per format; `render` picks one."""

from __future__ import annotations

from needs_microversion.errors import InputError
from needs_microversion.judge import Report

FORMATS = ("text", "json")


def render(report: Report, fmt: str, *, explain: bool = False) -> str:
    if fmt == "json":
        from needs_microversion.report.json_format import render_json

        return render_json(report)
    if fmt == "text":
        from needs_microversion.report.text import render_text

        return render_text(report, explain=explain)
    raise InputError(f"unknown format {fmt!r} (one of: {', '.join(FORMATS)})")
