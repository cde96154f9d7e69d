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
from needs_microversion.loaders.openapi import validate

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
