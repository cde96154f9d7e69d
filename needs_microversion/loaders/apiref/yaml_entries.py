"""A parameters file as the texts of its top-level entries, so that a new version of it is
parsed only where its text changed.

nova's parameters.yaml is 1,100 entries (0.2 MiB, ~50 ms to parse); a change adds or edits
a few. When every line at column 0 is a plain key (`name:`, `OS-EXT-AZ:host:`, `200:`), a
comment or blank, each entry means the same on its own as in the file, but for the anchors
it refers to (`<<: *quota_class_id`): parsed with the entries that define them, its key and
value are what a parse of the whole file gives, and its line is where its text starts.
Anything else (a merge key or an alias at the top, a quoted or complex key, a document
marker, a tab, a line break YAML counts that Python's split does not, an anchor defined
twice) is parsed whole, as before.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Container
from dataclasses import dataclass
from itertools import pairwise


# A key that begins a top-level entry: a plain scalar written at column 0, then `:` and a
# space or the end of the line (a `:` inside the key, as in `OS-EXT-AZ:host`, is text).
_TOP_KEY = re.compile(r"[A-Za-z0-9_][^#\n]*?:(?=[ \n]|\Z)")
# Where an anchor (`&name`) or an alias (`*name`) may be written: a token's start. Text that
# only looks like one (`*emphasis*` in a description) counts too: it costs a parse, never a
# wrong answer.
_ANCHOR = re.compile(r"(?:^|(?<=[\s\[{,]))&([^\s\[\]{},]+)")
_ALIAS = re.compile(r"(?:^|(?<=[\s\[{,]))\*([^\s\[\]{},]+)")
# A line's first character where it is neither indented, a comment nor blank.
_COLUMN_ZERO = re.compile(r"^[^ #\n]", re.MULTILINE)
# Line breaks YAML counts besides "\n" (and "\r\n"): text holding one is parsed whole, so
# the lines counted here are the parser's.
_OTHER_BREAKS = re.compile("[\r\x85\u2028\u2029\x0b\x0c\x1c\x1d\x1e]")


@dataclass(frozen=True)
class Entry:
    """One top-level entry's text: where it starts (1-based line), its digest, and the
    anchors it may define and refer to."""

    line: int
    text: str
    digest: str
    anchors: frozenset[str] = frozenset()
    aliases: frozenset[str] = frozenset()


def split_entries(text: str) -> list[Entry] | None:
    """The file's top-level entries in order, or None when it cannot be read entry by entry
    (see the module doc). Comments and blank lines go with the entry above them; before
    the first entry they belong to none."""
    if _OTHER_BREAKS.search(text):
        return None
    starts = [found.start() for found in _COLUMN_ZERO.finditer(text)]
    if not all(_TOP_KEY.match(text, at) and not text.startswith("<<", at) for at in starts):
        return None
    entries = []
    line = 1 + text.count("\n", 0, starts[0]) if starts else 1
    for at, end in pairwise([*starts, len(text)]):
        body = text[at:end]
        entries.append(Entry(line, body, _digest(body), frozenset(_ANCHOR.findall(body))
                             if "&" in body else frozenset(),
                             frozenset(_ALIAS.findall(body)) if "*" in body else frozenset()))
        line += body.count("\n")
    defined = [name for entry in entries for name in entry.anchors]
    return entries if len(defined) == len(set(defined)) else None


def to_parse(entries: list[Entry], known: Container[str]) -> list[Entry]:
    """The entries to parse (together, in file order) when those whose digest is `known`
    are read as kept: the others, with every entry they share an anchor with, and every
    entry whose alias names no anchor above it (its parse says why)."""
    definer = {name: i for i, entry in enumerate(entries) for name in entry.anchors}
    users: dict[str, list[int]] = {}
    for i, entry in enumerate(entries):
        for name in entry.aliases:
            users.setdefault(name, []).append(i)
    chosen = {i for i, entry in enumerate(entries) if entry.digest not in known or any(
        definer.get(name, i) >= i for name in entry.aliases)}
    pending = list(chosen)
    while pending:
        entry = entries[pending.pop()]
        for j in [*(definer[n] for n in entry.aliases if n in definer),
                  *(u for n in entry.anchors for u in users.get(n, ()))]:
            if j not in chosen:
                chosen.add(j)
                pending.append(j)
    return [entries[i] for i in sorted(chosen)]


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()
