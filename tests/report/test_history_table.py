"""The terminal table: one line per commit, fitted to the width, releases as lines above
their first commit; the width from COLUMNS, the terminal, else 100 in a pipe."""

from __future__ import annotations

import re

import pytest
from history_samples import sample_history

from needs_microversion.report.history import render_history
from needs_microversion.report.history_table import table_layout, terminal_width

ROW = re.compile(r"^\d{4}-\d{2}-\d{2}  ")


@pytest.mark.parametrize("width", [60, 80, 100, 132, 200])
def test_one_line_per_commit_within_the_width(width: int) -> None:
    history = sample_history()
    text = render_history(history, "table", width=width)
    table = text[:text.index("\ncommits judged")].splitlines()
    assert all(len(line) <= width for line in table), [line for line in table if len(line) > width]
    rows = [line for line in table if ROW.match(line)]
    assert len(rows) == len(history.rows)
    assert [line[:10] for line in table if line.startswith("-- ")] == [
        "-- 1.0.0 (", "-- 2.0.0 (", "-- 3.0.0 (", "-- not rel"]
    assert "\x1b" not in text  # a subject's escape sequence is shown as spaces, not obeyed


@pytest.mark.parametrize(("width", "titles"), [
    (80, ["date", "commit", "max", "verdict", "finding / subject"]),
    (100, ["date", "commit", "max", "verdict", "finding / subject"]),
    (132, ["date", "commit", "max", "verdict", "exit", "finding", "subject"]),
])
def test_the_columns_that_fit(width: int, titles: list[str]) -> None:
    assert [column.title for column in table_layout(width).columns] == titles
    assert sum(column.width + 2 for column in table_layout(width).columns) - 2 == width


def test_a_long_finding_is_cut_in_the_table_only() -> None:
    history = sample_history()
    finding = history.rows[0].main_finding
    table = render_history(history, "table", width=80)
    line = next(line for line in table.splitlines() if line.startswith("2021-02-02"))
    assert line.endswith("...") and finding[:20] in line and finding not in table
    assert finding in render_history(history, "csv")
    wide = render_history(history, "table", width=200)
    assert finding in wide and "Microversion 2.2: locked" in wide


def test_a_commit_with_no_finding_shows_its_subject_in_one_column() -> None:
    table = render_history(sample_history(), "table", width=80)
    assert re.search(r"^2021-03-03  02abababab  2\.2 +not-required  api-ref: a better title$",
                     table, re.M)


def test_terminal_width(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COLUMNS", "77")
    assert terminal_width() == 77
    monkeypatch.setenv("COLUMNS", "0")  # no width: as unset
    assert terminal_width() == 100  # pytest's captured stdout is a pipe, not a terminal
    monkeypatch.delenv("COLUMNS")
    assert terminal_width() == 100
