"""Validating the documents of a diff in a forked child, beside the comparison, gives what
validating them here gives; the child process stays confined; the collector comes back as it
was; a strict run still fails on the first problem."""

from __future__ import annotations

import gc
import os
from pathlib import Path

import pytest

from needs_microversion import forked, load
from needs_microversion.errors import InputError
from needs_microversion.collector import collector_for_validation, collector_paused
from needs_microversion.documents.document import read_document
from needs_microversion.documents.refs import RefResolver, RefusedRef
from needs_microversion.loaders.openapi.validation import validate

VALID = """openapi: 3.0.3
info: {title: t, version: '1.0'}
paths:
  /a:
    get:
      responses:
        '200': {description: ok}
"""
INVALID = """openapi: 3.0.3
info: {title: t, version: '1.0'}
paths:
  /a/{id}:
    get:
      parameters:
        - {name: x, in: nowhere}
      responses:
        '200': {description: ok, content: {application/json: {schema: {$ref: 'b.yaml#/B'}}}}
"""


def _sides(tmp_path: Path, *texts: str) -> list[tuple]:
    (tmp_path / "b.yaml").write_text("B: {type: object, minimum: not-a-number}\n")
    sides = []
    for i, text in enumerate(texts):
        path = tmp_path / f"doc{i}.yaml"
        path.write_text(text)
        doc = read_document(path)
        sides.append((doc, RefResolver(doc)))
    return sides


@pytest.mark.parametrize("texts", [(VALID, INVALID), (INVALID, VALID), (INVALID, INVALID)],
                         ids=["valid-invalid", "invalid-valid", "invalid-invalid"])
def test_side_by_side_is_one_after_the_other(tmp_path: Path, texts: tuple[str, str]) -> None:
    alone = [validate.problems(doc, resolver) for doc, resolver in _sides(tmp_path, *texts)]
    assert any(alone)
    beside = validate.Beside(_sides(tmp_path, *texts))
    assert all(beside._children) or not forked.can_fork()  # the children do the work
    assert beside.problems() == alone


def test_a_failed_child_is_made_up_for_here(tmp_path: Path, monkeypatch) -> None:
    alone = [validate.problems(doc, resolver) for doc, resolver in _sides(tmp_path, VALID,
                                                                            INVALID)]
    monkeypatch.setattr(forked, "result", lambda child: (
        os.close(child.pipe), os.waitpid(child.pid, 0), None)[-1])
    assert validate.Beside(_sides(tmp_path, VALID, INVALID)).problems() == alone


def test_a_cancelled_child_is_ended(tmp_path: Path) -> None:
    beside = validate.Beside(_sides(tmp_path, VALID, INVALID))
    children = beside._children
    beside.cancel()
    for child in children:
        if child is not None:
            with pytest.raises(ChildProcessError):  # reaped: no zombie left behind
                os.waitpid(child.pid, 0)


def test_the_pair_strict_and_not(tmp_path: Path) -> None:
    old, new = tmp_path / "old.yaml", tmp_path / "new.yaml"
    old.write_text(VALID)
    new.write_text(INVALID)
    (tmp_path / "b.yaml").write_text("B: {type: object, minimum: not-a-number}\n")
    a, b, validation = load.load_pair(str(old), str(new))
    assert a.warnings == b.warnings == ()  # the problems are still being found
    a, b = validation.attach(a, b)
    assert a.warnings == () and b.warnings == tuple(
        validate.problems(read_document(new), RefResolver(read_document(new))))
    a, b, validation = load.load_pair(str(old), str(new), strict=True)
    with pytest.raises(InputError, match="not a valid OpenAPI document: .*new.yaml"):
        validation.attach(a, b)


def test_the_child_reads_nothing_outside_and_never_the_network(tmp_path: Path) -> None:
    hook = validate._confinement(str(tmp_path))
    hook("open", (str(tmp_path / "b.yaml"), "r", 0))  # inside the tree
    hook("open", (validate.__file__, "r", 0))  # the installation
    with pytest.raises(RefusedRef):
        hook("open", ("/etc/passwd", "r", 0))
    with pytest.raises(RefusedRef):
        hook("socket.connect", (None, ("example.com", 80)))
    with pytest.raises(RefusedRef):
        hook("urllib.Request", ("https://example.com/schema.json", None, {}, "GET"))


def test_the_collector_comes_back_as_it_was() -> None:
    thresholds = gc.get_threshold()
    assert gc.isenabled()
    with collector_paused():
        assert not gc.isenabled()
        with collector_for_validation():
            assert gc.isenabled() and gc.get_freeze_count() > 0
        assert not gc.isenabled() and gc.get_freeze_count() == 0
    assert gc.isenabled() and gc.get_threshold() == thresholds


# -- the helper: started before the documents are read, the validator imported meanwhile ----

needs_fork = pytest.mark.skipif(not forked.can_fork(), reason="this platform does not fork")


@needs_fork
@pytest.mark.parametrize("texts", [(VALID, INVALID), (INVALID,)], ids=["two", "one"])
def test_a_helper_finds_what_is_found_here(tmp_path: Path, texts: tuple[str, ...]) -> None:
    alone = [validate.problems(doc, resolver) for doc, resolver in _sides(tmp_path, *texts)]
    helper = forked.helper(validate.ready)
    assert helper is not None
    beside = validate.Beside(_sides(tmp_path, *texts), helper=helper)
    assert all(child is not None and child.pid is None for child in beside._children)
    assert beside.problems() == alone
    with pytest.raises(ChildProcessError):  # the helper was reaped
        os.waitpid(helper.pid, 0)


def _slow_ready() -> None:
    import time

    time.sleep(30)


@needs_fork
def test_work_is_handed_over_without_waiting_for_the_helper(tmp_path: Path) -> None:
    """A small document fits in the pipe: this process goes on comparing meanwhile."""
    import time

    helper = forked.helper(_slow_ready)
    assert helper is not None
    started = time.monotonic()
    beside = validate.Beside(_sides(tmp_path, VALID, INVALID), helper=helper)
    assert time.monotonic() - started < 10
    beside.cancel()  # ends the helper, still getting ready
    with pytest.raises(ChildProcessError):
        os.waitpid(helper.pid, 0)


def _sleep() -> None:
    import time

    time.sleep(30)


@needs_fork
def test_ending_a_helper_ends_its_children(tmp_path: Path) -> None:
    import select

    helper = forked.helper(lambda: None)
    assert helper is not None
    children = forked.give(helper, [_sleep, _sleep])
    assert children is not None
    forked.end(helper.pid)
    for child in children:  # every holder of the write end is gone: end of file at once
        assert select.select([child.pipe], [], [], 10)[0]
        assert forked.result(child) is None


@needs_fork
def test_a_helper_gone_is_made_up_for(tmp_path: Path) -> None:
    import signal

    alone = [validate.problems(doc, resolver) for doc, resolver in _sides(tmp_path, VALID,
                                                                            INVALID)]
    helper = forked.helper(_slow_ready)
    assert helper is not None
    os.kill(helper.pid, signal.SIGKILL)
    os.waitpid(helper.pid, 0)
    beside = validate.Beside(_sides(tmp_path, VALID, INVALID), helper=helper)
    assert beside.problems() == alone  # by children of this process, or here


@needs_fork
def test_no_helper_when_both_documents_are_remembered(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("NEEDS_MICROVERSION_CACHE", str(tmp_path / "cache"))
    old, new = tmp_path / "old.yaml", tmp_path / "new.yaml"
    old.write_text(VALID)
    new.write_text(INVALID)
    (tmp_path / "b.yaml").write_text("B: {type: object, minimum: not-a-number}\n")
    started: list[int] = []
    real = forked.helper
    monkeypatch.setattr(forked, "helper", lambda *a, **k: started.append(1) or real(*a, **k))
    first = validation_warnings(old, new)
    assert started == [1]
    assert validation_warnings(old, new) == first  # remembered: nothing to get ready for
    assert started == [1]
    new.write_text(INVALID + "# edited\n")
    validation_warnings(old, new)
    assert started == [1, 1]


def validation_warnings(old: Path, new: Path) -> tuple[tuple[str, ...], ...]:
    a, b, validation = load.load_pair(str(old), str(new))
    a, b = validation.attach(a, b)
    return a.warnings, b.warnings


@needs_fork
def test_no_helper_for_large_documents(tmp_path: Path, monkeypatch) -> None:
    """Their pickled copy would cost the helper more memory than the import time it saves:
    copies of this process validate them."""
    monkeypatch.setenv("NEEDS_MICROVERSION_CACHE", "")
    monkeypatch.setattr(forked, "HELPER_BYTES", len(VALID) + len(INVALID) - 1)
    old, new = tmp_path / "old.yaml", tmp_path / "new.yaml"
    old.write_text(VALID)
    new.write_text(INVALID)
    (tmp_path / "b.yaml").write_text("B: {type: object, minimum: not-a-number}\n")
    started: list[int] = []
    monkeypatch.setattr(forked, "helper", lambda *a, **k: started.append(1))
    warnings = validation_warnings(old, new)
    assert started == [] and warnings[1]


@needs_fork
def test_the_helper_started_before_the_arguments_are_parsed_is_used(tmp_path: Path,
                                                                      monkeypatch) -> None:
    """`launch.py` guesses `diff OLD NEW` and starts the helper first; the pair loaded is
    validated by it, and finds what a helper started later finds."""
    from needs_microversion import launch

    monkeypatch.setenv("NEEDS_MICROVERSION_CACHE", "")
    old, new = tmp_path / "old.yaml", tmp_path / "new.yaml"
    old.write_text(VALID)
    new.write_text(INVALID)
    (tmp_path / "b.yaml").write_text("B: {type: object, minimum: not-a-number}\n")
    later = validation_warnings(old, new)
    launch.prepare_validation(["diff", str(old), str(new), "--format", "json"])
    early = forked.take_early((str(old), str(new)))
    assert early is not None
    forked._early[(str(old), str(new))] = early  # put back for load_pair to take
    started: list[int] = []
    monkeypatch.setattr(forked, "helper", lambda *a, **k: started.append(1))
    assert validation_warnings(old, new) == later
    assert started == [] and forked.take_early((str(old), str(new))) is None


@pytest.mark.parametrize("args", [
    ["diff", "--no-validate", "old.yaml", "new.yaml"],
    ["check", "old.yaml", "new.yaml"],
    ["diff", "old.yaml", "--format"],
    ["diff", "old.yaml", "missing.yaml"],
    ["diff", "old.yaml", "folder"],
    ["diff", "--config", "new.yaml", "old.yaml", "new.yaml"],
], ids=["not-validated", "another-command", "an-option-last", "a-file-missing", "a-folder",
        "three-files"])
def test_no_early_helper_where_the_guess_finds_no_pair(tmp_path: Path, monkeypatch,
                                                        args: list[str]) -> None:
    from needs_microversion import launch

    monkeypatch.chdir(tmp_path)
    (tmp_path / "old.yaml").write_text(VALID)
    (tmp_path / "new.yaml").write_text(VALID)
    (tmp_path / "folder").mkdir()
    started: list[int] = []
    monkeypatch.setattr(forked, "helper", lambda *a, **k: started.append(1))
    launch.prepare_validation(args)
    assert started == []
