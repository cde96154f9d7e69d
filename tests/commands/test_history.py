"""`history`: every change to the API documents, judged against its parent."""

from __future__ import annotations

import csv
import io
import json
import re
from pathlib import Path

import pytest
from repositories import (
    NOVA_PARAMETERS, NOVA_SERVERS, git, nova_before_api_ref, nova_like, nova_samples_first)

from needs_microversion.commands.history import HistoryRequest, ProgressBar, run_history
from needs_microversion.report.history import HISTORY_FORMATS, render_history

LOCKED = ("locked:\n  description: Locked.\n  in: body\n  required: true\n  type: boolean\n")


def history_repo(top: Path):  # type: ignore[no-untyped-def]
    repo = nova_like(top)
    repo.commit({"README.rst": "words\n"}, "not an API change")
    repo.commit({"api-ref/source/parameters.yaml": NOVA_PARAMETERS + LOCKED + "  min_version: 2.2\n",
                 "api-ref/source/servers.inc": NOVA_SERVERS.replace(
                     "  - status: status\n", "  - status: status\n  - locked: locked\n"),
                 "nova/api/openstack/compute/servers.py": "# locked\n"},
                "Microversion 2.2: locked", max_version="2.2", history="2.2")
    repo.tag("2.0.0.0rc1")
    repo.commit({"api-ref/source/servers.inc": NOVA_SERVERS.replace(
        "  - status: status\n", "  - status: status\n  - locked: locked\n").replace(
        "Show Server\n===========", "Show Server Details\n===================")},
        "api-ref: a better title")
    repo.commit({"api-ref/source/parameters.yaml": NOVA_PARAMETERS + LOCKED +
                 "  min_version: 2.2\n" + "pinned:\n  description: P.\n  in: body\n"
                 "  required: true\n  type: boolean\n",
                 "api-ref/source/servers.inc": NOVA_SERVERS.replace(
                     "  - status: status\n",
                     "  - status: status\n  - locked: locked\n  - pinned: pinned\n"),
                 "nova/api/openstack/compute/servers.py": "# pinned\n"},
                "pinned, with no microversion")
    return repo


def test_history_rows_and_summary(tmp_path: Path, monkeypatch, run_cli) -> None:
    repo = history_repo(tmp_path / "nova")
    monkeypatch.chdir(repo.top)
    code, out, err = run_cli("history", "--format", "json")
    assert code == 0, err
    data = json.loads(out)
    rows = [(c["subject"], c["old_max"], c["new_max"], c["release"], c["verdict"],
             c["exit_code"]) for c in data["commits"]]
    assert rows == [
        ("Microversion 2.2: locked", "2.1", "2.2", "2.0.0.0rc1", "required", 0),
        ("api-ref: a better title", "2.2", "2.2", None, "not-required", 0),
        ("pinned, with no microversion", "2.2", "2.2", None, "required", 1)]
    assert data["commits"][2]["finding"].startswith("[attribute-added]")
    summary = data["summary"]
    assert (summary["judged"], summary["required"], summary["agree_with_version_file"],
            summary["compared"]) == (3, 2, 2, 3)
    assert summary["shipped_without_microversion"] == [data["commits"][2]["commit"]]
    assert summary["required_but_maximum_not_raised"] == [data["commits"][2]["commit"]]
    assert summary["maximum_raised_but_nothing_required"] == []
    assert [c["disagreement"] for c in data["commits"]] == [None, None, "required-not-raised"]
    assert [c["link"] for c in data["commits"]] == [None] * 3  # no remote, no link


def test_history_range_and_formats(tmp_path: Path, monkeypatch, run_cli) -> None:
    repo = history_repo(tmp_path / "nova")
    monkeypatch.chdir(repo.top)
    code, out, _ = run_cli("history", "--since", "HEAD~2", "--format", "csv")
    rows = list(csv.reader(io.StringIO(out)))
    assert code == 0 and rows[0][:3] == ["date", "commit", "max before"] and len(rows) == 3
    assert rows[0][-1] == "link"
    code, out, _ = run_cli("history", "--format", "markdown", "--until", "HEAD~1")
    assert out.startswith("| date | commit |") and out.count("\n| 20") == 2
    code, out, _ = run_cli("history")
    assert "verdict agrees with the version file" in out and "api-ref: a better title" in out
    code, out, _ = run_cli("history", "--format", "jsonl")
    lines = [json.loads(line) for line in out.splitlines()]
    assert [line.get("subject") for line in lines[:-1]] == [
        "Microversion 2.2: locked", "api-ref: a better title", "pinned, with no microversion"]
    assert lines[-1]["summary"]["judged"] == 3
    code, _, err = run_cli("history", "--format", "sarif")
    assert code == 2 and "unknown format 'sarif'" in err
    code, _, err = run_cli("history", "--since", "no-such-thing")
    assert code == 2 and "--since no-such-thing" in err


def test_progress_only_on_a_terminal() -> None:
    class Terminal(io.StringIO):
        def isatty(self) -> bool:
            return True

    assert ProgressBar.on_terminal(io.StringIO()) is None
    screen = Terminal()
    bar = ProgressBar.on_terminal(screen)
    assert bar is not None
    rows: list[str] = []
    write = bar.around(lambda text: rows.append(text) or True)
    bar(1, 2)
    assert write("a row\n")  # the bar goes away while the row is written, then comes back
    bar(2, 2)
    bar.finish()
    assert rows == ["a row\n"]
    assert screen.getvalue() == ("\r[###############...............] 1/2 commits\r\x1b[K"
                                 "\r[###############...............] 1/2 commits"
                                 "\r[##############################] 2/2 commits\r\x1b[K")


def test_history_in_a_repository_without_commits(tmp_path: Path, monkeypatch,
                                                 run_cli) -> None:
    top = tmp_path / "plain"
    top.mkdir()
    git(top, "init", "-q")
    monkeypatch.chdir(top)
    code, _, err = run_cli("history")
    assert code == 2 and err.count("\n") == 1


def test_history_before_api_ref_reads_the_version_record(tmp_path: Path, monkeypatch,
                                                         run_cli) -> None:
    repo = nova_before_api_ref(tmp_path / "nova")
    repo.commit({"doc/api_samples/servers/v2.2/server-get-resp.json": '{"locked": false}\n',
                 "nova/api/openstack/compute/servers.py": "# locked\n"},
                "Microversion 2.2: locked", max_version="2.2", history="2.2")
    repo.commit({"doc/api_samples/servers/server-get-resp.json": '{"name": "b"}\n'},
                "a better sample")
    repo.commit({"README.rst": "words\n"}, "not an API change")
    monkeypatch.chdir(repo.top)
    code, out, err = run_cli("history", "--format", "json")
    assert code == 0, err
    rows = [(c["subject"], c["old_max"], c["new_max"], c["verdict"], c["exit_code"])
            for c in json.loads(out)["commits"]]
    assert rows == [("Microversion 2.2: locked", "2.1", "2.2", "required", 0),
                    ("a better sample", "2.2", "2.2", "not-required", 0)]


def test_history_leaves_out_commits_from_before_any_document(tmp_path: Path, monkeypatch,
                                                              run_cli) -> None:
    """Samples kept before the API had documents or a version file (nova, 2012): nothing
    to judge, so no row, and no error; the commit that brings the documents is judged."""
    repo = nova_samples_first(tmp_path / "nova")
    monkeypatch.chdir(repo.top)
    code, out, err = run_cli("history", "--format", "json")
    assert code == 0, err
    data = json.loads(out)
    assert [(c["subject"], c["verdict"]) for c in data["commits"]] == [
        ("documents", "not-required"), ("pinned, with no microversion", "required")]
    assert data["summary"]["errors"] == 0


def test_links_from_the_remote_or_the_template(tmp_path: Path, monkeypatch, run_cli) -> None:
    repo = history_repo(tmp_path / "nova")
    git(repo.top, "remote", "add", "origin", "git@github.com:openstack/nova.git")
    monkeypatch.chdir(repo.top)
    _, out, _ = run_cli("history", "--format", "json")
    commits = json.loads(out)["commits"]
    assert [c["link"] for c in commits] == [
        f"https://github.com/openstack/nova/commit/{c['commit']}" for c in commits]
    _, out, _ = run_cli("history", "--format", "markdown")
    assert f"[{commits[0]['commit'][:12]}](https://github.com/openstack/nova/commit/" in out
    _, out, _ = run_cli("history", "--format", "csv", "--link-template",
                        "https://example.test/c/{commit}?x={y}")
    assert list(csv.reader(io.StringIO(out)))[1][-1] == (
        f"https://example.test/c/{commits[0]['commit']}?x={{y}}")
    code, out, err = run_cli("history", "--link-template", "https://example.test/c/")
    assert code == 2 and out == "" and "{commit}" in err and err.count("\n") == 1


def test_streamed_output_is_the_rendered_output(tmp_path: Path, monkeypatch,
                                                run_cli) -> None:
    """The CLI writes each row as it is judged; the text is what rendering the whole
    history gives, in every format, with the cache of validation problems on or off."""
    repo = history_repo(tmp_path / "nova")
    git(repo.top, "remote", "add", "origin", "https://review.opendev.org/openstack/nova")
    monkeypatch.chdir(repo.top)
    monkeypatch.delenv("COLUMNS", raising=False)
    history = run_history(HistoryRequest())
    for fmt in HISTORY_FORMATS:
        code, out, err = run_cli("history", "--format", fmt)
        assert (code, err) == (0, "") and out == render_history(history, fmt, 100), fmt
    monkeypatch.setenv("NEEDS_MICROVERSION_CACHE", str(tmp_path / "cache"))
    for _ in range(2):  # the first run fills the cache, the second reads it
        assert run_cli("history", "--format", "json")[1] == render_history(history, "json")


def test_each_row_is_written_before_the_next_commit_is_judged(
        tmp_path: Path, monkeypatch, run_cli, capsys: pytest.CaptureFixture[str]) -> None:
    from needs_microversion.commands import history as command

    repo = history_repo(tmp_path / "nova")
    monkeypatch.chdir(repo.top)
    judge = command.judge_history
    seen: list[str] = []

    def watched(*args, **kwargs):  # type: ignore[no-untyped-def]
        for row in judge(*args, **kwargs):
            seen.append(capsys.readouterr().out)  # what stdout holds before this row
            yield row

    monkeypatch.setattr(command, "judge_history", watched)
    code, out, _ = run_cli("history", "--format", "csv")
    assert code == 0
    written = [text.count("\n") for text in seen]
    assert written == [1, 1, 1]  # the header, then each row in its turn
    assert out.count("\n") == 1  # the last row, after which nothing is left to judge


def test_a_follow_up_of_a_microversion_already_served_agrees(tmp_path: Path, monkeypatch,
                                                             run_cli) -> None:
    """ironic's api-ref for 1.23 written after the code that raised to it: the follow-up
    documents `pinned` gated on 2.2, which the version file already serves. It is 2.2's
    (required, provided) and needs no new microversion, so the unraised version file agrees
    with it; a change gated on nothing the file serves still disagrees."""
    repo = nova_like(tmp_path / "nova")
    repo.commit({"api-ref/source/parameters.yaml": NOVA_PARAMETERS + LOCKED + "  min_version: 2.2\n",
                 "api-ref/source/servers.inc": NOVA_SERVERS.replace(
                     "  - status: status\n", "  - status: status\n  - locked: locked\n"),
                 "nova/api/openstack/compute/servers.py": "# locked\n"},
                "Microversion 2.2: locked", max_version="2.2", history="2.2")
    pinned = "pinned:\n  description: P.\n  in: body\n  required: true\n  type: boolean\n"
    rows = "  - status: status\n  - locked: locked\n  - pinned: pinned\n"
    repo.commit({"api-ref/source/parameters.yaml": NOVA_PARAMETERS + LOCKED + "  min_version: "
                 "2.2\n" + pinned + "  min_version: 2.2\n",
                 "api-ref/source/servers.inc": NOVA_SERVERS.replace("  - status: status\n",
                                                                    rows)},
                "api-ref: pinned, part of 2.2")
    monkeypatch.chdir(repo.top)
    code, out, err = run_cli("history", "--format", "json")
    data = json.loads(out)
    follow_up = data["commits"][-1]
    assert (follow_up["verdict"], follow_up["exit_code"], follow_up["disagreement"]) == (
        "required", 0, None), follow_up
    assert data["summary"]["agree_with_version_file"] == data["summary"]["compared"]


def test_rows_are_the_same_with_one_worker_or_many(tmp_path: Path, monkeypatch,
                                                   run_cli) -> None:
    """Batches of commits judged in forked children give the rows one process gives, in
    order; a batch whose child could not start is judged in this process."""
    from needs_microversion import forked
    from needs_microversion.commands import history as command

    repo = history_repo(tmp_path / "nova")
    monkeypatch.chdir(repo.top)
    monkeypatch.setattr(command, "_BATCH", 1)  # three commits: three batches
    alone = run_cli("history", "--format", "json", "--workers", "1")
    started: list[object] = []
    start = forked.start

    def counted(work, hook=None, after=None):  # type: ignore[no-untyped-def]
        child = start(work, hook, after)
        started.append(child)
        return child

    monkeypatch.setattr(forked, "start", counted)
    many = run_cli("history", "--format", "json", "-j", "3")
    assert alone[0] == 0 and many == alone
    if forked.can_fork():
        assert len(started) >= 3 and all(child is not None for child in started)
    monkeypatch.setattr(forked, "start", lambda work, hook=None, after=None: None)
    assert run_cli("history", "--format", "json", "-j", "2") == alone
    code, _, err = run_cli("history", "--workers", "0")
    assert code == 2 and "--workers" in err


def test_a_second_run_reads_the_rows_the_first_judged(tmp_path: Path, monkeypatch,
                                                      run_cli) -> None:
    """Rows judged once are read back by the next run (nothing judged again), and the
    output is the same in every format; a new release tag (the release state every verdict
    reads) or an entry that is not what the tool writes is judged again."""
    from needs_microversion.commands import history as command

    repo = history_repo(tmp_path / "nova")
    monkeypatch.chdir(repo.top)
    monkeypatch.delenv("COLUMNS", raising=False)
    cold = {fmt: run_cli("history", "--format", fmt, "-j", "1") for fmt in HISTORY_FORMATS}
    monkeypatch.setenv("NEEDS_MICROVERSION_CACHE", str(tmp_path / "cache"))
    assert run_cli("history", "--format", "json", "-j", "1") == cold["json"]  # fills it
    judged: list[str] = []
    row = command._row

    def counted(repo_, item, request):  # type: ignore[no-untyped-def]
        judged.append(item.commit)
        return row(repo_, item, request)

    monkeypatch.setattr(command, "_row", counted)
    for fmt in HISTORY_FORMATS:
        assert run_cli("history", "--format", fmt, "-j", "1") == cold[fmt], fmt
    assert judged == []
    entries = sorted((tmp_path / "cache" / "parsed-history").glob("*.json"))
    assert len(entries) == 3
    planted = (
        (r'"~r":"HistoryRow"', '"~r":"Path"'),  # a class the rows do not hold
        (r'"~v":\[2,2\]', '"~v":[2,"2"]'),  # a version that is none
        (r'"~r":"HistoryRow","f":\["[0-9a-f]+"', '"~r":"HistoryRow","f":[7'))  # not a str
    for entry, (pattern, replacement) in zip(entries, planted, strict=True):
        text, count = re.subn(pattern, replacement, entry.read_text(), count=1)
        assert count == 1
        entry.write_text(text)
    assert run_cli("history", "--format", "json", "-j", "1") == cold["json"]
    assert len(judged) == 3
    judged.clear()
    assert run_cli("history", "--format", "json", "-j", "1") == cold["json"]
    assert judged == []  # what was judged again was kept again
    repo.tag("3.0.0")
    assert run_cli("history", "--format", "json", "-j", "1")[0] == 0
    assert len(judged) == 3
