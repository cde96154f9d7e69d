"""Reading the two sides of a pair side by side (the old api-ref tree in a forked child)
gives what reading them one after the other gives, leaves no copy behind, and falls back
to reading here when the child fails."""

from __future__ import annotations

import os
import re
import shutil
import sys
import tempfile
import time
from pathlib import Path

import pytest
from gitrepo import commit, make_repo, quiet_git  # noqa: F401  (fixture)

from needs_microversion import forked, load
from needs_microversion.errors import InputError
from needs_microversion.model.snapshot import Snapshot

SOURCE = Path(__file__).parent / "data" / "apiref" / "basic"
pytestmark = pytest.mark.skipif(not forked.can_fork(), reason="this platform does not fork")


def _tree(folder: Path, extra: str = "") -> dict[str, str]:
    files = {f"api-ref/source/{p.relative_to(SOURCE).as_posix()}": p.read_text()
             for p in SOURCE.rglob("*") if p.is_file()}
    files["api-ref/source/parameters.yaml"] += extra
    return files


def _facts(pair: tuple[Snapshot, Snapshot, load.Validation]) -> list[tuple[object, ...]]:
    return [(s.document.data, s.warnings, s.max_version, s.display) for s in pair[:2]]


def _one_after_the_other(monkeypatch: pytest.MonkeyPatch, old: str, new: str
                         ) -> list[tuple[object, ...]]:
    with monkeypatch.context() as patch:
        patch.setattr(forked, "can_fork", lambda: False)
        return _facts(load.load_pair(old, new, validate=False))


def test_two_folders_side_by_side_are_one_after_the_other(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    old, new = tmp_path / "old", tmp_path / "new"
    shutil.copytree(SOURCE, old)
    shutil.copytree(SOURCE, new)
    (new / "parameters.yaml").write_text((new / "parameters.yaml").read_text() + "\n# more\n")
    started = []
    real_start = forked.start
    monkeypatch.setattr(forked, "start", lambda work, hook=None: started.append(1) or
                        real_start(work, hook))
    side_by_side = _facts(load.load_pair(str(old), str(new), validate=False))
    assert started == [1]  # the old tree was read by a child
    assert side_by_side == _one_after_the_other(monkeypatch, str(old), str(new))


def test_revisions_side_by_side_leave_no_copy_behind(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    repo = make_repo(tmp_path / "repo", _tree(tmp_path))
    commit(repo, {"api-ref/source/parameters.yaml": _tree(tmp_path)[
        "api-ref/source/parameters.yaml"] + "\n# a comment\n"}, "second")
    temp = tmp_path / "temp"
    temp.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(temp))
    monkeypatch.chdir(repo)
    side_by_side = _facts(load.load_pair("HEAD~1:api-ref/source", "HEAD:api-ref/source",
                                         validate=False))
    # A revision's tree is read into memory: nothing is written, by the child (it never runs
    # exit handlers) or by this process (`history` reads thousands).
    assert os.listdir(temp) == []
    assert side_by_side == _one_after_the_other(monkeypatch, "HEAD~1:api-ref/source",
                                                "HEAD:api-ref/source")


def test_here_only_reads_both_sides_in_this_process(tmp_path: Path) -> None:
    """A `history` worker shares the cores with the others: it forks no child of its own,
    and what it reads stays in its memory."""
    old = tmp_path / "old"
    shutil.copytree(SOURCE, old)
    with forked.here_only():
        assert not forked.can_fork() and forked.start(lambda: 1) is None
        facts = _facts(load.load_pair(str(old), str(old), validate=False))
    assert forked.can_fork() == sys.platform.startswith("linux")
    assert facts == _facts(load.load_pair(str(old), str(old), validate=False))


def test_a_failed_child_is_made_up_for_here(tmp_path: Path,
                                            monkeypatch: pytest.MonkeyPatch) -> None:
    old = tmp_path / "old"
    shutil.copytree(SOURCE, old)
    monkeypatch.setattr(forked, "result", lambda child: (
        os.close(child.pipe), os.waitpid(child.pid, 0), None)[-1])
    assert _facts(load.load_pair(str(old), str(old), validate=False)) == \
        _one_after_the_other(monkeypatch, str(old), str(old))


def test_an_error_of_the_old_side_is_the_same_error(tmp_path: Path) -> None:
    old, new = tmp_path / "old", tmp_path / "new"
    shutil.copytree(SOURCE, old)
    shutil.copytree(SOURCE, new)
    (old / "parameters.yaml").write_text("a: [unclosed\n")
    with pytest.raises(InputError) as raised:
        load.load_pair(str(old), str(new), validate=False)
    assert "parameters.yaml" in str(raised.value)


def test_a_file_in_git_is_read_here(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Only a tree is worth a child: an OpenAPI file out of git is read in this process."""
    repo = make_repo(tmp_path / "repo", {"api.yaml": "openapi: 3.0.3\ninfo: {title: t, "
                                         "version: '1'}\npaths: {}\n"})
    monkeypatch.chdir(repo)
    started = []
    monkeypatch.setattr(forked, "start", lambda work, hook=None: started.append(1))
    old, new, _ = load.load_pair("HEAD:api.yaml", "HEAD:api.yaml", validate=False)
    assert started == [] and old.document.data == new.document.data


def _big_yaml(path: Path, operations: int, extra: str = "") -> Path:
    """An OpenAPI YAML document above the size worth a child (`_CHILD_PARSE_BYTES`)."""
    lines = ["openapi: 3.0.3", "info: {title: big, version: '1'}", "paths:"]
    for i in range(operations):
        lines += [f"  /things{i}:", "    get:", f"      description: {'thing ' * 40}",
                  "      responses:", "        '200': {description: ok}"]
    path.write_text("\n".join(lines) + "\n" + extra)
    return path


def _started(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    started: list[int] = []
    real_start = forked.start
    monkeypatch.setattr(forked, "start", lambda work, hook=None: started.append(1) or
                        real_start(work, hook))
    return started


def test_a_large_yaml_file_is_parsed_beside_the_other(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    old = _big_yaml(tmp_path / "old.yaml", 1200)
    new = _big_yaml(tmp_path / "new.yaml", 1201)
    assert new.stat().st_size >= load._CHILD_PARSE_BYTES
    started = _started(monkeypatch)
    side_by_side = _facts(load.load_pair(str(old), str(new), validate=False))
    assert started == [1]  # the new file was parsed by a child
    assert side_by_side == _one_after_the_other(monkeypatch, str(old), str(new))


@pytest.mark.parametrize("name, text", [
    ("small.yaml", "openapi: 3.0.3\ninfo: {title: t, version: '1'}\npaths: {}\n"),
    ("big.json", '{"openapi": "3.0.3", "info": {"title": "t", "version": "1"}, '
                 '"paths": {}, "x-pad": "' + "x" * 300_000 + '"}'),
])
def test_a_small_or_json_file_is_parsed_here(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                             name: str, text: str) -> None:
    """JSON parses about as fast as a parsed document comes back from a child."""
    path = tmp_path / name
    path.write_text(text)
    started = _started(monkeypatch)
    load.load_pair(str(path), str(path), validate=False)
    assert started == []


def test_a_fifo_is_not_opened_to_decide(tmp_path: Path) -> None:
    """Deciding whether a file is worth a child never waits on a pipe with no writer."""
    fifo = tmp_path / "pipe.yaml"
    os.mkfifo(fifo)
    assert not load._slow_to_parse(str(fifo))


@pytest.mark.parametrize("bad_old", [True, False])
def test_errors_name_the_side_read_first(tmp_path: Path, bad_old: bool) -> None:
    """Both bad: the old side's error, as when read one after the other; only the new one
    bad: the child fails, and reading it here reports its error (with its line)."""
    old = _big_yaml(tmp_path / "old.yaml", 1200, "x: [unclosed\n" if bad_old else "")
    new = _big_yaml(tmp_path / "new.yaml", 1200, "y: [unclosed\n")
    with pytest.raises(InputError) as raised:
        load.load_pair(str(old), str(new), validate=False)
    assert str(raised.value).startswith(str(old if bad_old else new))
    assert re.search(r"\.yaml:600\d: invalid YAML", str(raised.value))


def test_a_failure_here_ends_the_child(monkeypatch: pytest.MonkeyPatch) -> None:
    stopped: list[int] = []
    real_stop = forked.stop
    monkeypatch.setattr(forked, "stop", lambda child: stopped.append(1) or real_stop(child))

    def fails() -> None:
        raise InputError("bad", "here")

    with pytest.raises(InputError):
        forked.alongside(lambda: __import__("time").sleep(30), fails)
    assert stopped == [1]


def _after(go: Path, done: Path) -> None:
    """A child's `after`: waits (at most 20 s) for this process to say go, then marks."""
    import time

    deadline = time.monotonic() + 20
    while not go.exists() and time.monotonic() < deadline:
        time.sleep(0.01)
    if go.exists():
        done.write_text("kept")


def test_a_child_answers_before_its_after_and_is_waited_for_at_the_end(tmp_path: Path
                                                                       ) -> None:
    """The answer is taken while the child still keeps (writes the cache): `after` here
    waits until the answer has arrived, so a `result` that waited for the child's end
    would leave it nothing to mark. The child is then waited for, never left behind."""
    go, done = tmp_path / "go", tmp_path / "done"
    child = forked.start(lambda: 42, after=lambda: _after(go, done))
    assert child is not None
    assert forked.result(child) == 42
    go.touch()
    forked.wait_answered()
    assert done.read_text() == "kept"
    assert forked._pending == []
    with pytest.raises(ChildProcessError):
        os.waitpid(child.pid or 0, os.WNOHANG)  # already waited for


def test_a_child_failing_after_its_answer_still_answers() -> None:
    def fails() -> None:
        raise OSError("the cache folder went away")

    child = forked.start(lambda: "answer", after=fails)
    assert child is not None and forked.result(child) == "answer"
    forked.wait_answered()


def test_a_child_failing_before_its_answer_gives_none() -> None:
    def fails() -> str:
        raise InputError("bad", "there")

    child = forked.start(fails, after=lambda: None)
    assert child is not None and forked.result(child) is None


def test_later_takes_the_childs_answer_once() -> None:
    """The answer is the child's (a different pid's work), taken at the first call."""
    later = forked.Later(os.getpid, here=lambda: -1)
    assert later() not in (os.getpid(), -1)
    assert later() == later()
    later.stop()  # taken: nothing to end


def test_later_does_the_work_here_when_the_child_fails() -> None:
    """A child that raises gives no answer: the work is done here, and fails here as it
    must (the error is this process's, exit 2, not a lost child)."""
    def fails() -> str:
        raise InputError("bad", "there")

    assert forked.Later(fails, here=lambda: "made up here")() == "made up here"
    with pytest.raises(InputError, match="bad"):
        forked.Later(fails)()


def test_later_never_taken_is_ended(tmp_path: Path) -> None:
    """A run that fails before asking ends the child: none is left behind."""
    later = forked.Later(lambda: time.sleep(30))
    assert later.child is not None
    pid = later.child.pid or 0
    later.stop()
    with pytest.raises(ChildProcessError):
        os.waitpid(pid, os.WNOHANG)  # already waited for


def test_later_in_a_here_only_block_is_done_here() -> None:
    with forked.here_only():
        later = forked.Later(os.getpid)
    assert later.child is None and later() == os.getpid()


def test_work_no_one_waits_for_yields_the_processor(tmp_path: Path) -> None:
    """A child's answer is worked out at this process's priority; what it keeps after
    answering, and work done aside, at a lower one (`forked._behind`)."""
    here = os.nice(0)
    answered, kept, aside = tmp_path / "answered", tmp_path / "kept", tmp_path / "aside"
    child = forked.start(lambda: answered.write_text(str(os.nice(0))),
                         after=lambda: kept.write_text(str(os.nice(0))))
    assert child is not None
    forked.result(child)
    assert forked.aside(lambda: aside.write_text(str(os.nice(0))))
    forked.wait_answered()
    assert int(answered.read_text()) == here
    assert int(kept.read_text()) == int(aside.read_text()) == min(here + forked._BEHIND, 19)
