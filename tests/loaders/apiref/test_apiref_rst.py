"""The line-based RST reader, checked against docutils (the RST authority)."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from needs_microversion.loaders.apiref.reader import load_apiref
from needs_microversion.loaders.apiref.rst import Directive, Paragraph, RstDoc, Title, read_rst
from needs_microversion.loaders.apiref.rst_docutils import read_with_docutils
from test_apiref_helpers import DATA, operation, parameters

CORPUS = DATA.parents[2].parent / "shared" / "corpus" / "apiref"

SAMPLE = """\
.. -*- rst -*-

=========
 Servers
=========

List
====

.. rest_method:: GET /servers
   min_version: 2.1

Normal response codes: 200

Error codes:
    - 400 (Invalid)

Request
-------

.. rest_parameters:: parameters.yaml

  - name: name

- item

  .. note:: inner
     text

.. versionadded: 1.83
   Introduced the ``x`` field.

.. note::
   .. versionadded:: 2.3
      Added ``y``.

Literal::

  Not a title
  ===========
"""


def structure(doc: RstDoc) -> list[tuple[object, ...]]:
    """What both readers must agree on: titles and directives, with lines."""
    return [(b.text, b.level, b.line) if isinstance(b, Title) else (b.name, b.head, b.body, b.line)
            for b in doc.blocks if isinstance(b, (Title, Directive))]


def test_titles_levels_and_lines() -> None:
    titles = [b for b in read_rst(SAMPLE).blocks if isinstance(b, Title)]
    assert [(t.text, t.level, t.line) for t in titles] == [
        ("Servers", 1, 4), ("List", 2, 7), ("Request", 3, 18)]


def test_directives_keep_their_head_body_and_lines() -> None:
    directives = [b for b in read_rst(SAMPLE).blocks if isinstance(b, Directive)]
    assert [(d.name, d.head, d.line) for d in directives] == [
        ("rest_method", "GET /servers", 10), ("rest_parameters", "parameters.yaml", 21),
        ("note", "inner", 27), ("versionadded", "1.83", 30), ("note", "", 33),
        ("versionadded", "2.3", 34)]
    assert directives[0].body == ((11, "min_version: 2.1"),)


def test_section_level_paragraphs_only() -> None:
    paragraphs = [b for b in read_rst(SAMPLE).blocks if isinstance(b, Paragraph)]
    assert ("Error codes:\n- 400 (Invalid)", 15) in [(p.text, p.line) for p in paragraphs]
    assert not any("Not a title" in p.text for p in paragraphs)  # literal block


def test_one_colon_versionadded_is_read_with_a_message() -> None:
    assert any("one colon" in m for _, m in read_rst(SAMPLE).messages)


def test_both_readers_agree_on_the_sample() -> None:
    assert structure(read_rst(SAMPLE)) == structure(read_with_docutils(SAMPLE))


@pytest.mark.parametrize("path", sorted(DATA.rglob("*.inc")) + sorted(DATA.rglob("*.rst")),
                         ids=lambda p: str(p.relative_to(DATA)))
def test_both_readers_agree_on_the_fixtures(path: Path) -> None:
    text = path.read_text()
    assert structure(read_rst(text)) == structure(read_with_docutils(text))


@pytest.mark.skipif(not CORPUS.is_dir(), reason=f"{CORPUS} is absent")
@pytest.mark.parametrize("project", ["nova", "placement", "cinder", "manila", "ironic"])
def test_both_readers_agree_on_the_corpus(project: str) -> None:
    """Every distinct .inc/.rst of the project's old and new trees (titles, directives and
    their bodies, all line numbers)."""
    texts = {p.read_text() for p in CORPUS.glob(f"{project}-*/*/**/*")
             if p.suffix in (".inc", ".rst")}
    differ = [t.splitlines()[0:3] for t in texts
              if structure(read_rst(t)) != structure(read_with_docutils(t))]
    assert len(texts) > 20 and differ == []


def test_docutils_messages_are_collected_not_printed(capsys: pytest.CaptureFixture[str]
                                                     ) -> None:
    doc = read_with_docutils("Title\n==\n\n.. rest_method:: GET /x\n\n`unclosed\n\n"
                             ":unknownrole:`x`\n\n.. code-block::\n")
    assert doc.messages and all(isinstance(line, int) for line, _ in doc.messages)
    out, err = capsys.readouterr()
    assert out == "" and err == ""


def test_a_broken_file_is_a_warning_never_a_crash(tmp_path: Path,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "broken.inc").write_text(
        "Broken\n====\nglued\nTitle\n=====\n\n.. rest_method:: GET /x\n\n"
        ".. rest_parameters:: parameters.yaml\n\n  - a: [b\n\n.. include:: /etc/passwd\n"
        "\x00\ufffd\n   .. weird::\n")
    result = load_apiref(tmp_path)
    assert "get" in result.document["paths"]["/x"]
    assert any(w.startswith("broken.inc:") for w in result.warnings)
    assert capsys.readouterr().err == ""


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet=st.sampled_from(list("=-~`*:.|_ \n\tabc{}/-2")) | st.characters(),
               max_size=400))
def test_the_reader_never_raises(text: str) -> None:
    read_rst(text)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.sampled_from([
    "Title\n=====\n", "Request\n-------\n", "Response (microversions 1.2 - )\n----\n",
    ".. rest_method:: GET /a/{b}\n", ".. rest_method::\n   POST /v2/{project_id}/a/action\n",
    ".. rest_parameters:: parameters.yaml\n\n  - a: a\n  - a.b: b\n  - c: missing\n",
    ".. rest_status_code:: success status.yaml\n\n  - 200\n  - x\n",
    "Normal response codes: 200 (microversions 2.0 - ), 202\n",
    "Error codes:\n  - 400\n", ".. versionadded:: 2.5\n   Added ``a``.\n",
    ".. literalinclude:: ex.json\n", "**Request**\n", "\n", "text ``x`` or ``y``\n"]),
    max_size=25))
def test_the_loader_never_raises(tmp_path_factory: pytest.TempPathFactory,
                                 parts: list[str]) -> None:
    source = tmp_path_factory.mktemp("tree")
    (source / "a.inc").write_text("\n".join(parts))
    (source / "parameters.yaml").write_text(
        "a:\n  in: body\n  type: object\n  min_version: 2.10\nb:\n  in: body\n  type: int\n")
    (source / "ex.json").write_text('{"a": {"b": 1}')
    result = load_apiref(source)
    assert isinstance(result.document["paths"], dict)


def test_a_title_that_skips_a_level_goes_to_docutils() -> None:
    """docutils (and Sphinx) refuse a new title style below a shallower title."""
    doc = read_rst("Group\n=====\n\nOther\n-----\n\nShow\n====\n\nResponse\n~~~~~~~~\n")
    assert doc.suspicious and doc.messages[0][0] == 10
    assert not read_rst("A\n=\n\nB\n-\n\nC\n~\n\nD\n=\n\nE\n-\n").suspicious


# -- a part of an operation underlined like the operation --------------------------------------
_LEVELS_INC = """\
Backups
=======

List backups with detail
~~~~~~~~~~~~~~~~~~~~~~~~

.. rest_method::  GET /v3/{project_id}/backups/detail

Lists backups.

Response codes
~~~~~~~~~~~~~~

.. rest_status_code:: success status.yaml

   - 200

Request
-------

.. rest_parameters:: parameters.yaml

   - project_id: project_id_path
   - with_count: with_count

Notes
~~~~~

.. rest_parameters:: parameters.yaml

   - marker: marker

Show backup detail
~~~~~~~~~~~~~~~~~~

.. rest_method::  GET /v3/{project_id}/backups/{backup_id}

Normal response codes: 200
"""
_LEVELS_YAML = """\
project_id_path: {in: path, required: true, type: string, description: The project.}
backup_id: {in: path, required: true, type: string, description: The backup.}
with_count: {in: query, required: false, type: boolean, description: Count them.}
marker: {in: query, required: false, type: string, description: Where to start.}
"""


def test_a_request_part_underlined_like_its_operation_stays_in_it(tmp_path: Path) -> None:
    """cinder 12483f199 wrote "Response codes" with its operation's `~` underline (fixed the
    next day): the tables below still belong to the operation, and its codes are read. A
    title that names no request or response part ("Notes") still ends the operation."""
    (tmp_path / "index.rst").write_text(".. include:: backups.inc\n")
    (tmp_path / "backups.inc").write_text(_LEVELS_INC)
    (tmp_path / "parameters.yaml").write_text(_LEVELS_YAML)
    (tmp_path / "status.yaml").write_text("200:\n  default: OK\n")
    document = load_apiref(tmp_path).document
    listed = parameters(operation(document, "/backups/detail", "get"))
    assert ("query", "with_count") in listed and ("query", "marker") not in listed
    assert "200" in operation(document, "/backups/detail", "get")["responses"]
