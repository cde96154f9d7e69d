"""A document validated once is not validated again while it, the files its `$ref`s read,
its name and the validator stay the same; anything else is validated afresh; the cache
never fails a run."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from needs_microversion import forked
from needs_microversion.cache_folder import ENV, CacheFolder
from needs_microversion.documents.document import read_document
from needs_microversion.documents.refs import RefResolver
from needs_microversion.loaders.openapi.validation import remembered, validate
from needs_microversion.loaders.openapi.validation.remembered import Checked, Remembered

INVALID = """openapi: 3.0.3
info: {title: t, version: '1.0'}
paths:
  /a/{id}:
    get:
      responses:
        '200': {description: ok, content: {application/json: {schema: {$ref: 'b.yaml#/B'}}}}
"""
B_BAD = "B: {type: object, minimum: not-a-number}\n"
B_GOOD = "B: {type: object}\n"


def _store(folder: Path) -> CacheFolder:
    return CacheFolder(folder, ".json")


def _side(tmp_path: Path, display: str | None = None) -> tuple:
    doc = read_document(tmp_path / "doc.yaml", display=display)
    resolver = RefResolver(doc)
    resolver.resolve("b.yaml#/B", doc)  # as the loader does before validation
    return doc, resolver


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    (tmp_path / "doc.yaml").write_text(INVALID)
    (tmp_path / "b.yaml").write_text(B_BAD)
    return tmp_path


def _no_children(monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(*_: object, **__: object) -> None:
        raise AssertionError("validated again")

    monkeypatch.setattr(forked, "start", refuse)
    monkeypatch.setattr(validate, "_checked", refuse)


def test_validated_once(tree: Path, tmp_path_factory, monkeypatch) -> None:
    cache = Remembered(_store(tmp_path_factory.mktemp("cache")))
    first = validate.Beside([_side(tree)], cache).problems()
    assert first == [validate.problems(*_side(tree))] and first[0]
    _no_children(monkeypatch)
    assert validate.Beside([_side(tree)], cache).problems() == first


@pytest.mark.parametrize("change", ["ref-target", "document", "name"])
def test_anything_else_is_validated_afresh(tree: Path, tmp_path_factory, change: str) -> None:
    cache = Remembered(_store(tmp_path_factory.mktemp("cache")))
    validate.Beside([_side(tree)], cache).problems()
    display = None
    if change == "ref-target":
        (tree / "b.yaml").write_text(B_GOOD)
    elif change == "document":
        (tree / "doc.yaml").write_text(INVALID.replace("/a/{id}", "/a/{id}/c"))
    else:
        display = "HEAD:doc.yaml"
    side = _side(tree, display)
    beside = validate.Beside([side], cache)
    assert beside._children != [None] or not forked.can_fork()  # a child validates it
    assert beside.problems() == [validate.problems(*_side(tree, display))]


@pytest.mark.parametrize("content", [b"{not json", b'{"format": 1}', b"[]",
                                     b'{"format": 1, "files": [], "problems": [3]}'],
                         ids=["broken", "incomplete", "not-an-entry", "wrong-types"])
def test_a_bad_entry_is_a_miss_and_is_replaced(tree: Path, tmp_path_factory,
                                               content: bytes) -> None:
    folder = tmp_path_factory.mktemp("cache")
    cache = Remembered(_store(folder))
    expected = validate.Beside([_side(tree)], cache).problems()
    (entry,) = folder.glob("*.json")  # the entry (its tag is CACHEDIR.TAG)
    entry.write_bytes(content)
    assert cache.recall(*_side(tree)) is None
    assert validate.Beside([_side(tree)], cache).problems() == expected
    assert json.loads(entry.read_text())["problems"] == expected[0]


def test_an_entry_too_large_is_a_miss(tree: Path, tmp_path_factory, monkeypatch) -> None:
    folder = tmp_path_factory.mktemp("cache")
    cache = Remembered(_store(folder))
    validate.Beside([_side(tree)], cache).problems()
    monkeypatch.setattr(remembered, "_MAX_ENTRY", 10)
    assert cache.recall(*_side(tree)) is None


def test_a_folder_that_cannot_be_written_is_no_cache(tree: Path, tmp_path_factory) -> None:
    blocker = tmp_path_factory.mktemp("cache") / "file"
    blocker.write_text("")  # the cache's folder would have to be made inside a file
    cache = Remembered(_store(blocker / "problems"))
    expected = [validate.problems(*_side(tree))]
    assert validate.Beside([_side(tree)], cache).problems() == expected
    assert cache.recall(*_side(tree)) is None


def test_an_unfinished_validation_is_not_kept(tree: Path, tmp_path_factory) -> None:
    folder = tmp_path_factory.mktemp("cache")
    doc, resolver = _side(tree)
    Remembered(_store(folder)).keep(doc, resolver, Checked(("cut short",), (), complete=False))
    assert not list(folder.iterdir())


def test_the_least_recently_used_half_goes(tree: Path, tmp_path_factory, monkeypatch) -> None:
    folder = tmp_path_factory.mktemp("cache")
    cache = Remembered(_store(folder))
    monkeypatch.setattr(remembered, "_KEEP", 4)
    sides = [_side(tree, display=f"doc{i}.yaml") for i in range(5)]
    for i, side in enumerate(sides):
        cache.keep(*side, Checked((), remembered.files_read(side[1]), complete=True))
        if i < 4:
            os.utime(folder / cache._entry(*side), ns=(i + 1, i + 1))  # entry i was used at time i
    assert [cache.recall(*side) is not None for side in sides] == [False] * 3 + [True] * 2


def test_where(monkeypatch, tmp_path: Path) -> None:
    monkeypatch.setenv(ENV, "")
    assert remembered.folder() is None
    monkeypatch.setenv(ENV, str(tmp_path))
    assert remembered.folder() == _store(tmp_path / "problems")
    monkeypatch.delenv(ENV)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert remembered.folder() == _store(tmp_path / "xdg" / "needs-microversion" / "problems")


def test_the_command_line_uses_it(tree: Path, tmp_path_factory, monkeypatch, run_cli) -> None:
    folder = tmp_path_factory.mktemp("cache")
    monkeypatch.setenv(ENV, str(folder))
    (tree / "new.yaml").write_text(INVALID.replace("/a/", "/b/"))
    argv = ("diff", str(tree / "doc.yaml"), str(tree / "new.yaml"), "--format", "json")
    first = run_cli(*argv)
    assert len(list((folder / "problems").glob("*.json"))) == 2
    _no_children(monkeypatch)
    assert run_cli(*argv) == first and "'id'" in first[2]
