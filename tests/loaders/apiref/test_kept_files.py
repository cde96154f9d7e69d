"""A tree read with its files' readings kept, and replayed where still valid, is read the
same as a fresh reading: the document, every warning in its order, the maximum. Real trees
(the corpus's old and new sides: the new side replays the files the change left alone) and
small trees built to move what a file's reading shares with the others (a warning said
once, the first read of a parameters file or an example, a name that finds another file)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from needs_microversion import forked
from needs_microversion.loaders.apiref import kept_files
from needs_microversion.loaders.apiref.reader import ApiRefResult, load_apiref
from test_apiref_helpers import DATA

CORPUS = DATA.parents[2].parent / "shared" / "corpus" / "apiref"


@pytest.fixture
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "cache"
    monkeypatch.setenv("NEEDS_MICROVERSION_CACHE", str(folder))
    return folder


@pytest.fixture
def reads(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The files read afresh (not replayed)."""
    read: list[str] = []
    real = kept_files.read_sections

    def spy(file, ctx):  # type: ignore[no-untyped-def]
        read.append(file.rel)
        return real(file, ctx)

    monkeypatch.setattr(kept_files, "read_sections", spy)
    return read


def _load(tree: Path, keep: bool) -> ApiRefResult:
    result = load_apiref(tree, sandbox=tree.resolve(), keep_files=keep)
    forked.wait_answered()  # the records are written by a child: wait for it
    return result


def _same(a: ApiRefResult, b: ApiRefResult) -> None:
    assert json.dumps(a.document) == json.dumps(b.document)
    assert a.warnings == b.warnings
    assert a.max_version == b.max_version


def _pairs() -> list[Path]:
    if not CORPUS.is_dir():
        return []
    return [case for case in sorted(CORPUS.iterdir()) if (case / "old").is_dir()]


@pytest.mark.skipif(not CORPUS.is_dir(), reason=f"{CORPUS} is absent (it ships beside the repo)")
@pytest.mark.parametrize("case", _pairs(), ids=lambda p: p.name)
def test_a_real_change_replays_what_it_left_alone(case: Path, cache: Path,
                                                   reads: list[str]) -> None:
    """The new side, read after the old one kept its files, equals its fresh reading; read
    again, nothing is read afresh."""
    fresh = load_apiref(case / "new", sandbox=(case / "new").resolve())
    _load(case / "old", keep=True)
    reads.clear()
    _same(_load(case / "new", keep=True), fresh)
    total = len(reads)
    reads.clear()
    _same(_load(case / "new", keep=True), fresh)
    assert reads == [] or total == 0


def _tree(folder: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        (folder / name).write_text(text)
    return folder


PARAMS = """\
name:
  in: body
  required: true
  type: string
  description: The name.
name:
  in: body
  required: true
  type: string
  description: Written twice.
size:
  in: body
  required: false
  type: integer
  description: The size.
  min_version: 2.x
"""


def _inc(title: str, url: str, rows: str, sample: str = "sample.json") -> str:
    return (f"{title}\n{'=' * len(title)}\n\n.. rest_method:: POST {url}\n\nRequest\n-------\n\n"
            f".. rest_parameters:: parameters.yaml\n\n{rows}\n\n"
            f".. literalinclude:: {sample}\n   :language: javascript\n")


def _files(first_rows: str = "  - name: name\n  - size: size",
           second_sample: str = '{"name": "b"}') -> dict[str, str]:
    return {"index.rst": "API\n===\n\n.. include:: a.inc\n.. include:: b.inc\n",
            "a.inc": _inc("First", "/a", first_rows),
            "b.inc": _inc("Second", "/b", "  - name: name\n  - size: size\n  - gone: nothere",
                          "second.json"),
            "parameters.yaml": PARAMS, "sample.json": '{"name": "a"}',
            "second.json": second_sample}


@pytest.mark.parametrize("change", [
    # the first file no longer reads parameters.yaml: the second's replay is its first read
    # (the duplicate key is said there) and says the warning said once
    {"a.inc": "First\n=====\n\n.. rest_method:: GET /a\n"},
    # the second file's example changes: it is read again, the first replays
    {"second.json": '{"name": "b", "size": 3}'},
    # an example that is no JSON now
    {"second.json": '{"name": '},
    # the first file reads another row: it is read again, the second replays
    {"a.inc": _inc("First", "/a", "  - size: size")},
    # the definitions change: both are read again
    {"parameters.yaml": PARAMS.replace("The size.", "The size, in GiB.")},
])
def test_a_changed_tree_reads_the_same_as_afresh(tmp_path: Path, cache: Path, reads: list[str],
                                                  change: dict[str, str]) -> None:
    old = _tree(tmp_path / "old", _files())
    new = _tree(tmp_path / "new", {**_files(), **change})
    fresh = _load(new, keep=False)
    first = _load(old, keep=True)
    assert any("duplicate key" in w for w in first.warnings)
    assert any("not a microversion" in w for w in first.warnings)
    reads.clear()
    _same(_load(new, keep=True), fresh)
    assert 0 < len(reads) < 3 or "parameters.yaml" in change
    reads.clear()
    _same(_load(new, keep=True), fresh)
    assert reads == []


def test_a_name_that_finds_another_file_is_read_again(tmp_path: Path, cache: Path,
                                                      reads: list[str]) -> None:
    """The example a file names is gone: its record does not hold."""
    old = _tree(tmp_path / "old", _files())
    new = _tree(tmp_path / "new", _files())
    (new / "second.json").unlink()
    fresh = _load(new, keep=False)
    _load(old, keep=True)
    reads.clear()
    _same(_load(new, keep=True), fresh)
    assert reads == ["b.inc"]


def test_a_record_this_tool_did_not_write_is_a_miss(tmp_path: Path, cache: Path,
                                                    reads: list[str]) -> None:
    """Damaged or planted records (a path out of the tree among them) are read past: the
    file is read again, never a traceback."""
    tree = _tree(tmp_path / "tree", _files())
    fresh = _load(tree, keep=True)
    entries = sorted(cache.rglob("*.json"))
    assert entries
    for damage in ('{"format": 1, "data": [["../../etc/passwd", "-"]]}\n{}',
                   '{"format": 1, "data": []}\n{"events": [["r", 1]]}',
                   '{"format": 1, "data": []}\n{"events": [], "sections": [[1]]}',
                   "not json"):
        for entry in entries:
            entry.write_text(damage)
        reads.clear()
        _same(_load(tree, keep=True), fresh)
        assert sorted(reads) == ["a.inc", "b.inc", "index.rst"]  # none replayed


def test_no_cache_keeps_nothing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                reads: list[str]) -> None:
    monkeypatch.setenv("NEEDS_MICROVERSION_CACHE", "")
    tree = _tree(tmp_path / "tree", _files())
    _load(tree, keep=True)
    reads.clear()
    _load(tree, keep=True)
    assert sorted(reads) == ["a.inc", "b.inc", "index.rst"]


def test_a_value_with_no_exact_form_is_not_kept(tmp_path: Path, cache: Path,
                                                reads: list[str]) -> None:
    """A definition holding what JSON does not give back (a key that is no string) is read
    again each time, and reads the same."""
    files = _files()
    files["parameters.yaml"] += "when:\n  in: body\n  type: string\n" \
                                "  description: {200: ok}\n"
    files["a.inc"] = _inc("First", "/a", "  - when: when")
    tree = _tree(tmp_path / "tree", files)
    fresh = _load(tree, keep=True)
    reads.clear()
    _same(_load(tree, keep=True), fresh)
    assert reads == ["a.inc"]


def test_the_replayed_tree_counts_its_bytes(tmp_path: Path, cache: Path,
                                            monkeypatch: pytest.MonkeyPatch) -> None:
    """The tree's byte limit holds on replay: what the replayed files read counts."""
    from needs_microversion.loaders.apiref import tree as apiref_tree
    from needs_microversion.errors import InputError

    tree = _tree(tmp_path / "tree", _files())
    _load(tree, keep=True)
    monkeypatch.setattr(apiref_tree, "MAX_TREE_BYTES", 200)
    with pytest.raises(InputError, match="add up to more than"):
        _load(tree, keep=True)
    shutil.rmtree(cache)
    with pytest.raises(InputError, match="add up to more than"):
        _load(tree, keep=True)


@pytest.mark.parametrize("text", [
    PARAMS, "200:\n  default: OK\n404:\n  default: Not found\n", "a: [1, 2\n", "",
    "- a list\n", "a:\n  b: 1.10\n  c: {x: [1, {y: null}]}\n"])
def test_a_parameters_file_is_kept_as_it_was_read(text: str, cache: Path,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    """Read back from the cache as the parse gave it (int keys of a status file, an
    error, duplicates), without parsing."""
    from needs_microversion.loaders.apiref import parameters_yaml

    parameters_yaml.load_yaml.cache_clear()
    first = parameters_yaml.load_yaml(text)
    parameters_yaml.load_yaml.cache_clear()
    monkeypatch.setattr(parameters_yaml, "_parse", lambda text: pytest.fail("parsed again"))
    again = parameters_yaml.load_yaml(text)
    assert again == first
    assert [type(k) for k in again.entries] == [type(k) for k in first.entries]
    parameters_yaml.load_yaml.cache_clear()


def test_a_parameters_file_with_no_exact_form_is_parsed_each_time(cache: Path) -> None:
    from needs_microversion.loaders.apiref import parameters_yaml

    text = "a:\n  codes: {200: ok}\n  when: 2024-01-01\n"
    parameters_yaml.load_yaml.cache_clear()
    first = parameters_yaml.load_yaml(text)
    assert not list(cache.rglob("*.json"))
    parameters_yaml.load_yaml.cache_clear()
    assert parameters_yaml.load_yaml(text) == first
    parameters_yaml.load_yaml.cache_clear()


OTHER = "other:\n  in: body\n  required: false\n  type: string\n  description: Other.\n"


@pytest.mark.parametrize("edit, read_again", [
    # a definition only the first file reads, changed in place: the second replays
    (lambda text: text.replace("Other.", "Other, changed."), ["a.inc"]),
    # a definition added above every other: their lines move, the files replay (saying
    # the lines as they are now)
    (lambda text: "added:\n  in: body\n  type: string\n  description: x\n" + text, []),
    # ... and one of the definitions changed too: the file that reads it is read again
    (lambda text: "added:\n  in: body\n  type: string\n  description: x\n" +
     text.replace("Other.", "Other, changed."), ["a.inc"]),
    # one added below the others: nothing the files read moved
    (lambda text: text + "added:\n  in: body\n  type: string\n  description: x\n", []),
])
@pytest.mark.parametrize("inside", ["", "api-ref/source"])
def test_a_parameters_file_edited_elsewhere_leaves_the_other_files_kept(
        tmp_path: Path, cache: Path, reads: list[str], edit, read_again: list[str],  # type: ignore[no-untyped-def]
        inside: str) -> None:
    """`inside`: the tree is a folder of the repository (locations name its files from
    the tree's folder, the cache from the repository's)."""
    files = _files(first_rows="  - name: name\n  - other: other")
    files["parameters.yaml"] += OTHER
    old = _tree(tmp_path / "old" / inside, files)
    new = _tree(tmp_path / "new" / inside,
                {**files, "parameters.yaml": edit(files["parameters.yaml"])})
    results = []
    for tree, keep in ((new, False), (old, True), (new, True)):
        reads.clear()
        results.append(load_apiref(tree, sandbox=tree.parents[len(Path(inside).parts) - 1]
                                   if inside else tree.resolve(), keep_files=keep))
        forked.wait_answered()
    _same(results[2], results[0])
    assert sorted(reads) == read_again


def test_a_record_naming_a_line_elsewhere_holds_only_at_that_line(tmp_path: Path, cache: Path,
                                                                   reads: list[str]) -> None:
    """A definition's text that names its own place (`parameters.yaml:18`) cannot be told
    from a place the reader wrote: the record then holds only while the lines are the same."""
    files = _files(first_rows="  - name: name\n  - other: other")
    line = files["parameters.yaml"].count("\n") + 1
    files["parameters.yaml"] += OTHER.replace("Other.", f"See parameters.yaml:{line}.")
    old = _tree(tmp_path / "old", files)
    new = _tree(tmp_path / "new", {**files, "parameters.yaml": "added:\n  in: body\n"
                                   "  type: string\n  description: x\n" + files["parameters.yaml"]})
    fresh = _load(new, keep=False)
    _load(old, keep=True)
    reads.clear()
    _same(_load(new, keep=True), fresh)
    assert reads == ["a.inc"]  # the second file's record marks every line it writes


@pytest.mark.parametrize("damage", [
    lambda record: record["sections"][0].__setitem__(0, 5),  # a method that is no text
    lambda record: record["sections"][0].__setitem__(4, [[2], None]),  # half a version
    lambda record: record["events"].append(["e", "sample.json", "a.inc:9",
                                             [["a list"], None, None, None, None],
                                             [True, 1, None, None, None, []]]),
    lambda record: record["events"].append(["y", "../outside.yaml", "a.inc:9", "file",
                                             [True, 1, None, [], False]]),
    lambda record: record["fields"].append([1, 2]),
])
def test_a_record_of_the_wrong_shape_is_a_miss(tmp_path: Path, cache: Path, reads: list[str],
                                               damage) -> None:  # type: ignore[no-untyped-def]
    """Values of the wrong type in a record (someone else's cache) never reach the writer:
    the file is read again."""
    tree = _tree(tmp_path / "tree", _files())
    fresh = _load(tree, keep=True)
    for entry in cache.rglob("*.json"):
        head, newline, text = entry.read_text().partition("\n")
        if not newline or not text.startswith('{"events"'):
            continue
        record = json.loads(text)
        if not record["sections"]:
            continue
        damage(record)
        entry.write_text(f"{head}\n{json.dumps(record)}")
    reads.clear()
    _same(_load(tree, keep=True), fresh)
    assert "a.inc" in reads and "b.inc" in reads


def test_a_replayed_file_is_never_scanned(tmp_path: Path, cache: Path,
                                         monkeypatch: pytest.MonkeyPatch) -> None:
    """Only a file that may include others is scanned to find them; one whose reading is
    kept is not scanned at all (nova: 67 of 68 files)."""
    from needs_microversion.loaders.apiref import tree as apiref_tree

    files = {**_files(), "c.inc": "Third\n=====\n\n..\tINCLUDE::  d.inc\n",
             "d.inc": _inc("Fourth", "/d", "  - name: name")}
    files["index.rst"] += ".. include:: c.inc\n"
    folder = _tree(tmp_path / "t", files)
    fresh = _load(folder, keep=True)
    assert "/d" in fresh.document["paths"]  # a tab and capitals: still an include
    apiref_tree.parse_cached.cache_clear()
    scanned: list[str] = []
    real = apiref_tree.read_rst
    monkeypatch.setattr(apiref_tree, "read_rst",
                        lambda text: scanned.append(text.splitlines()[0]) or real(text))
    _same(_load(folder, keep=True), fresh)
    assert sorted(scanned) == ["API", "Third"]


@pytest.fixture
def built(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The operations built afresh (not taken as kept), by title."""
    from needs_microversion.loaders.apiref import to_openapi

    made: list[str] = []
    real = to_openapi._operation

    def spy(group, warn):  # type: ignore[no-untyped-def]
        made.append(group.sections[0].title)
        return real(group, warn)

    monkeypatch.setattr(to_openapi, "_operation", spy)
    return made


@pytest.mark.parametrize("change, again", [
    ({"a.inc": _inc("First", "/a", "  - size: size")}, ["First"]),
    # a definition added above the others: their lines move, no operation is built again
    ({"parameters.yaml": "added:\n  in: body\n  type: string\n  description: New.\n" + PARAMS},
     []),
    # the definitions change: both files are read again, both operations built
    ({"parameters.yaml": PARAMS.replace("The size.", "The size, in GiB.")},
     ["First", "Second"]),
])
def test_a_replayed_file_s_operations_are_not_built_again(
        tmp_path: Path, cache: Path, built: list[str], change: dict[str, str],
        again: list[str]) -> None:
    old = _tree(tmp_path / "old", _files())
    new = _tree(tmp_path / "new", {**_files(), **change})
    fresh = _load(new, keep=False)
    _load(old, keep=True)
    built.clear()
    found = _load(new, keep=True)
    _same(found, fresh)  # the warnings the builds gave too, in order
    assert built == again
    if "added:" in change.get("parameters.yaml", ""):
        assert any("parameters.yaml:" in json.dumps(op) for op in found.document["paths"]
                   ["/b"].values())  # the lines as now, not as kept
    built.clear()
    _same(_load(new, keep=True), fresh)
    assert built == []


def test_operations_kept_by_another_reading_of_a_file_are_not_taken(
        tmp_path: Path, cache: Path, built: list[str]) -> None:
    """Two readings of one file (the same text, a different example) are kept under one
    record key, written in turn by processes reading other revisions (`history`): one
    writes its record, the other its operations last. The operations are kept by the very
    record they were built with, so the other's are never taken."""
    one = _tree(tmp_path / "one", _files())
    two = _tree(tmp_path / "two", _files(second_sample='{"name": "b", "size": 3}'))
    fresh = _load(two, keep=False)
    _load(one, keep=True)
    operations = cache / "parsed-apiref-operations"
    first = {path.name: path.read_bytes() for path in operations.glob("*.json")}
    _load(two, keep=True)
    for name, data in first.items():  # the first reading's operations written last
        (operations / name).write_bytes(data)
    built.clear()
    _same(_load(two, keep=True), fresh)
    assert built == []  # its own operations, kept beside its own record
