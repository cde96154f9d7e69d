"""The history's formats: written row by row, the same text as rendered at once; links;
the disagreements and the releases in the summary."""

from __future__ import annotations

import csv
import io
import json

import pytest
from history_samples import sample_history

from needs_microversion.model.history import History
from needs_microversion.report.history import HISTORY_FORMATS, render_history, stream_history


@pytest.mark.parametrize("fmt", HISTORY_FORMATS)
def test_streaming_writes_what_rendering_gives(fmt: str) -> None:
    history = sample_history()
    parts: list[str] = []
    streamed = stream_history(iter(history.rows), fmt, lambda text: parts.append(text) or True,
                              width=90)
    assert streamed == history
    assert "".join(parts) == render_history(history, fmt, width=90)


@pytest.mark.parametrize("fmt", [fmt for fmt in HISTORY_FORMATS if fmt != "html"])
def test_each_row_is_written_before_the_next_is_asked_for(fmt: str) -> None:
    history = sample_history()
    parts: list[str] = []

    def rows():  # type: ignore[no-untyped-def]
        for at, row in enumerate(history.rows):
            # the start and every earlier row are out before this row exists
            assert len([part for part in parts if part]) >= at + (fmt != "jsonl")
            yield row

    stream_history(rows(), fmt, lambda text: parts.append(text) or True)


def test_a_closed_reader_stops_the_rows() -> None:
    history = sample_history()
    asked: list[int] = []

    def rows():  # type: ignore[no-untyped-def]
        for row in history.rows:
            asked.append(1)
            yield row

    written: list[str] = []

    def write(text: str) -> bool:
        written.append(text)
        return len(written) < 3  # the reader goes away at the second row

    assert stream_history(rows(), "csv", write) is None
    assert len(asked) == 2 and len(written) == 3


def test_json_streamed_is_one_document() -> None:
    history = sample_history()
    text = render_history(history, "json")
    data = json.loads(text)
    assert text == json.dumps(data, indent=2) + "\n"
    assert len(data["commits"]) == 7
    assert data["commits"][2]["disagreement"] == "required-not-raised"
    assert data["summary"]["maximum_raised_but_nothing_required"] == [data["commits"][4]["commit"]]
    empty = render_history(History((), sample_history().summary), "json")
    assert json.loads(empty)["commits"] == [] and '"commits": [],' in empty


def test_full_text_and_links_in_csv_markdown_and_json() -> None:
    history = sample_history()
    last = history.rows[-1]
    rows = list(csv.reader(io.StringIO(render_history(history, "csv"))))
    assert rows[-1][7] == last.main_finding and rows[-1][8] == last.subject  # uncut
    assert rows[-1][-1] == last.link
    markdown = render_history(history, "markdown")
    assert f"[{last.commit[:12]}]({last.link})" in markdown
    assert "\x1b" not in markdown and "longer than any column |" in markdown
    assert json.loads(render_history(history, "json"))["commits"][-1]["subject"] == last.subject


def test_the_summary_lists_the_disagreements_and_the_releases() -> None:
    history = sample_history()
    text = render_history(history, "table", width=100)
    summary = text[text.index("commits judged"):]
    assert ("microversion required, maximum not raised (1):\n  03abababab  2021-04-04  "
            "pinned, with no microversion\n") in summary
    assert history.rows[2].link and f"\n                          {history.rows[2].link}\n" \
        in summary
    assert "maximum raised, no microversion required (1):\n  05abababab" in summary
    releases = summary[summary.index("release by release:"):].splitlines()[1:]
    assert [line.split()[:3] for line in releases] == [
        ["release", "tagged", "maximum"], ["1.0.0", "2021-04-01", "2.1->2.2"],
        ["2.0.0", "2021-10-01", "2.2"], ["3.0.0", "2022-04-01", "2.2->2.3"],
        ["not", "released", "2.3->2.4"]]
    markdown = render_history(history, "markdown")
    assert "| 2.0.0 | 2021-10-01 | 2.2 | +0 | 2 | 1 | 2 | 1 | 1 |" in markdown
