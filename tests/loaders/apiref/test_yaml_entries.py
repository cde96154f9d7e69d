"""A new version of a parameters file is read entry by entry from the earlier version's kept
reading (`yaml_entries`, `parameters_yaml.load_yaml(text, previous)`): only the entries whose
text changed are parsed, with those they share an anchor with, and the result is exactly
what a parse of the whole file gives (entries, their order, lines, errors, duplicates)."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from needs_microversion.loaders.apiref import parameters_yaml
from needs_microversion.loaders.apiref.yaml_entries import split_entries, to_parse

BASE = """\
# parameters of the widget API
widget_id:
  in: path
  required: true
  type: string
  description: |
    The widget.

quota_id: &quota_id
  in: path
  type: string
  description: The quota of a widget.
OS-EXT-AZ:zone:
  in: body
  min_version: 2.10
  type: string
200:
  default: ok
alias_user:
  <<: *quota_id
  description: A user of the anchor.
"""


@pytest.fixture
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "cache"
    monkeypatch.setenv("NEEDS_MICROVERSION_CACHE", str(folder))
    parameters_yaml.load_yaml.cache_clear()
    yield folder
    parameters_yaml.load_yaml.cache_clear()


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def _again(old: str, new: str, parsed: list[str] | None = None,
           monkeypatch: pytest.MonkeyPatch | None = None) -> parameters_yaml.YamlFile:
    """`new` read with `old` kept (what `load_yaml` parsed goes to `parsed`)."""
    parameters_yaml.load_yaml(old)
    parameters_yaml.load_yaml.cache_clear()
    if parsed is not None and monkeypatch is not None:
        real = parameters_yaml._parse
        monkeypatch.setattr(parameters_yaml, "_parse",
                            lambda text: parsed.append(text) or real(text))
    return parameters_yaml.load_yaml(new, _digest(old))


def _same(found: parameters_yaml.YamlFile, whole: parameters_yaml.YamlFile) -> None:
    assert found == whole
    assert list(found.entries) == list(whole.entries)
    assert list(found.lines.items()) == list(whole.lines.items())
    assert [type(k) for k in found.entries] == [type(k) for k in whole.entries]


def test_the_entries_start_at_their_keys() -> None:
    entries = split_entries(BASE)
    assert entries is not None
    assert [e.line for e in entries] == [2, 9, 13, 17, 19]
    assert "".join(e.text for e in entries) == BASE.split("\n", 1)[1]
    assert entries[1].anchors == {"quota_id"}
    assert entries[4].aliases == {"quota_id"}


def test_text_that_looks_like_an_alias_is_parsed_each_time() -> None:
    """`*emphasis*` may be an alias for all a look at the text can tell: its entry is
    parsed, with nothing else."""
    entries = split_entries("a:\n  description: An *emphasis* here.\nb: 1\n")
    assert entries is not None and entries[0].aliases == {"emphasis*"}
    assert [e.line for e in to_parse(entries, {e.digest for e in entries})] == [1]


@pytest.mark.parametrize("text", [
    "---\na: 1\n", "a: 1\n...\n", "%YAML 1.1\n---\na: 1\n", "'a': 1\n", "? a\n: 1\n",
    "<<: {a: 1}\nb: 2\n", "- a\n", "a: 1\r\nb: 2\r\n", "a: 1\n\tb: 2\n", "\ufeffa: 1\n",
    "a: &x 1\nb: &x 2\n", "a:\tb\n",
])
def test_what_is_not_plain_entries_is_parsed_whole(text: str) -> None:
    assert split_entries(text) is None


def test_only_the_changed_entries_are_parsed(cache: Path,
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    new = BASE.replace("min_version: 2.10", "min_version: 2.11") + \
        "added:\n  in: query\n  type: integer\n"
    parsed: list[str] = []
    found = _again(BASE, new, parsed, monkeypatch)
    assert parsed == ["OS-EXT-AZ:zone:\n  in: body\n  min_version: 2.11\n  type: string\n"
                      "added:\n  in: query\n  type: integer\n"]
    _same(found, parameters_yaml._parse(new))
    assert found.entries["OS-EXT-AZ:zone"]["min_version"] == "2.11"  # text, as os-api-ref
    assert found.lines["added"] == 22


def test_an_entry_is_parsed_with_the_anchor_it_refers_to(
        cache: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A changed anchor changes its users, which are parsed with it; a changed user is
    parsed with its anchor."""
    new = BASE.replace("  in: path\n  type: string\n  description: The quota",
                       "  in: query\n  type: string\n  description: The quota")
    parsed: list[str] = []
    found = _again(BASE, new, parsed, monkeypatch)
    assert found.entries["alias_user"]["in"] == "query"
    assert parsed == [
        "quota_id: &quota_id\n  in: query\n  type: string\n  description: The quota of a "
        "widget.\nalias_user:\n  <<: *quota_id\n  description: A user of the anchor.\n"]
    _same(found, parameters_yaml._parse(new))
    parsed.clear()
    parameters_yaml.load_yaml.cache_clear()
    user = BASE.replace("A user of the anchor.", "A user of the anchor, changed.")
    again = parameters_yaml.load_yaml(user, _digest(BASE))
    assert [text.split(":")[0] for text in parsed] == ["quota_id"]  # with its anchor only
    _same(again, parameters_yaml._parse(user))
    assert [e.text.split(":")[0] for e in to_parse(split_entries(new) or [], {
        e.digest for e in split_entries(BASE) or [] if not e.text.startswith("alias")})] == [
            "quota_id", "alias_user"]


@pytest.mark.parametrize("new", [
    # the anchor gone, or moved below its user: the whole file's error, at its line
    BASE.replace("quota_id: &quota_id", "quota_id:"),
    BASE.replace("alias_user:\n  <<: *quota_id\n  description: A user of the anchor.\n", "")
    .replace("# parameters of the widget API\n",
             "alias_user:\n  <<: *quota_id\n  description: A user of the anchor.\n"),
    # a key written twice: the whole file says which line
    BASE + "widget_id:\n  in: body\n",
    # not YAML in a changed entry
    BASE.replace("  default: ok", "  default: [ok"),
    # a quoted text over two lines, its second at column 0: two entries that are not
    BASE + "a: 'one\nb: two'\n",
])
def test_what_an_entry_alone_cannot_say_is_said_by_the_whole_file(cache: Path,
                                                                  new: str) -> None:
    _same(_again(BASE, new), parameters_yaml._parse(new))


def test_an_unkept_or_foreign_earlier_reading_is_not_used(cache: Path) -> None:
    new = BASE + "added: {in: body}\n"
    assert parameters_yaml.load_yaml(new, "0" * 64) == parameters_yaml._parse(new)
    parameters_yaml.load_yaml.cache_clear()
    kept = parameters_yaml.ParsedCache("apiref-yaml")
    kept.put(parameters_yaml._key(kept, _digest(BASE)),
             {"chunks": [[[1], [2]]], "entries": [[[3], 4]]})  # no key a parse gives
    assert parameters_yaml.load_yaml(new, _digest(BASE)) == parameters_yaml._parse(new)


_LINE = st.sampled_from([
    "a:\n  in: body\n", "b: &b\n  type: string\n", "c:\n  <<: *b\n  in: query\n",
    "d: 1.10\n", "# note\n", "\n", "e: [1, 2]\n", "f:\n  - x\n  - *b\n", "200: ok\n",
    "g: |\n  text *b\n\n  more\n", "h:\n  description: R&D *emphasis*\n", "b: 2\n",
    "i: {unclosed\n", "j:\n  k: &k 1\n  l: *k\n",
])


@settings(max_examples=300, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(old=st.lists(_LINE, max_size=8), new=st.lists(_LINE, max_size=8))
def test_a_file_read_entry_by_entry_is_the_whole_files_reading(
        cache: Path, old: list[str], new: list[str]) -> None:
    parameters_yaml.load_yaml.cache_clear()
    _same(_again("".join(old), "".join(new)), parameters_yaml._parse("".join(new)))
