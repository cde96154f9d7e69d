"""The output formats' names, and the one place `auto` is decided: light enough for the
command line to import at start-up (its options offer and complete these values)."""

from __future__ import annotations

import os
from collections.abc import Mapping

from needs_microversion.errors import InputError

FORMATS = ("text", "json", "markdown", "github", "sarif", "junit", "auto")
# `history`'s own (report/history.py renders them; the command line completes them).
HISTORY_FORMATS = ("table", "json", "jsonl", "csv", "markdown", "html")


def check_format(fmt: str) -> None:
    if fmt not in FORMATS:
        raise InputError(f"unknown format {fmt!r} (one of: {', '.join(FORMATS)})")


def resolve_format(fmt: str, environ: Mapping[str, str] | None = None) -> str:
    """`auto` is `github` under GitHub Actions, else `text`; other formats are themselves."""
    if fmt != "auto":
        return fmt
    environ = os.environ if environ is None else environ
    return "github" if environ.get("GITHUB_ACTIONS") == "true" else "text"
