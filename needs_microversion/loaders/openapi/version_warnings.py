"""Microversions written where a reader cannot read them: `x-openstack` bounds that are not
X.Y, crossed, or spelled twice differently, and an unreadable `info.version`.

Reading such a bound as "no bound" is no error (the element is then compared at every
microversion, which can only report more), but the author should hear of it: each problem
is a warning with file and line.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from needs_microversion.documents.locate import lines_of
from needs_microversion.loaders.openapi.keywords import DATA_KEYS, NAME_MAPS
from needs_microversion.model.document import Document
from needs_microversion.model.extensions import (
    LOCATION_KEY, MAX_VERSION_KEYS, MIN_VERSION_KEYS, OPENSTACK_KEY, openstack_range)
from needs_microversion.model.schema import canonical
from needs_microversion.model.snapshot import Location
from needs_microversion.model.versions import Version, VersionRange, version_problem


@dataclass(frozen=True)
class Marks:
    """What the walk of a document the tool made (the code's contract) finds, when it finds
    no `$ref` and nothing to warn of: kept with the document, so it is walked once (7 MB,
    ~20 ms for nova's code), not on each run that reads it."""

    bounds: frozenset[Version]  # where each x-openstack range starts or stops
    top: Version | None  # the highest version any range names


def marks_of(doc: Document) -> Marks | None:
    """The document's marks; None when it holds a `$ref` or an unreadable bound (then the
    loader walks it, and says what it found)."""
    refs: list[bool] = []
    nodes = openstack_nodes(doc, refs)
    marks, warnings = walk_marks([(doc, nodes)])
    return None if refs or warnings else marks


def walk_marks(docs: list[tuple[Document, list[tuple[_Link, Mapping[str, Any]]] | None]]
               ) -> tuple[Marks, tuple[str, ...]]:
    """The marks of a document and the files it refers to, with their warnings: one walk
    per file (none for one given with its walk)."""
    marked = [(doc, openstack_nodes(doc) if nodes is None else nodes) for doc, nodes in docs]
    return (_marks(openstack_range(node) for _, nodes in marked for _, node in nodes),
            tuple(w for doc, nodes in marked for w in version_warnings(doc, nodes)))


def written_marks(nodes: Iterable[Mapping[str, Any]]) -> Marks | None:
    """The marks of a document the tool writes, from the nodes its writer gave `x-openstack`
    (it knows them, and that no other node holds one); None when one cannot be read."""
    ranges = []
    for node in nodes:
        if openstack_problems(node):
            return None
        ranges.append(openstack_range(node))
    return _marks(ranges)


def _marks(ranges: Iterable[VersionRange]) -> Marks:
    ranges = list(ranges)
    return Marks(frozenset(b for r in ranges for b in r.bounds()),
                 max((v for r in ranges for v in (r.lo, r.hi) if v is not None), default=None))


def openstack_problems(node: Mapping[str, Any]) -> list[str]:
    """What in a node's `x-openstack` cannot be read as microversions (and so is ignored)."""
    ext = node.get(OPENSTACK_KEY)
    if ext is None:
        return []
    if not isinstance(ext, dict):
        return [f"x-openstack {canonical(ext)[:40]} is not a mapping; its microversions "
                f"are ignored"]
    problems = []
    for spellings, effect in ((MIN_VERSION_KEYS, "the element is not gated"),
                              (MAX_VERSION_KEYS, "the element is never removed")):
        written = [key for key in spellings if key in ext]
        if len(written) == 2 and canonical(ext[written[0]]) != canonical(ext[written[1]]):
            problems.append(f"x-openstack has both {written[0]} and {written[1]}, with "
                            f"different values; {written[0]} is read")
        problem = version_problem(ext[written[0]]) if written else None
        if problem is not None:
            problems.append(f"x-openstack {written[0]} {problem}; ignored, so {effect}")
    rng = openstack_range(node)
    if rng.empty:
        problems.append(f"x-openstack min-ver {rng.lo} is above max-ver {rng.hi}: the element "
                        f"is present at no microversion")
    return problems


def openstack_nodes(doc: Document, refs: list[bool] | None = None
                    ) -> list[tuple[_Link, Mapping[str, Any]]]:
    """Every node of the document carrying `x-openstack`, with its place: one walk serves
    the loader's ranges and these warnings. Examples and author-chosen names (a property
    called `x-openstack`) are not extensions. `refs`: told (True appended) when a node of
    the walk holds a `$ref` (a document the tool made has none: no walk to check them)."""
    if doc.text and OPENSTACK_KEY not in doc.text and refs is None:
        return []  # the common case costs one text search
    found: list[tuple[_Link, Mapping[str, Any]]] = []
    # Each entry links to its parent's (a pointer is spelled out only for what is reported).
    pending: list[tuple[Any, _Link, bool]] = [(doc.data, None, False)]
    push = pending.append  # plain loops: a 2 MB document's walk is a hot path of `check`
    while pending:
        node, link, names = pending.pop()
        if type(node) is dict:
            if OPENSTACK_KEY in node and not names:
                found.append((link, node))
            if refs is not None and "$ref" in node and not refs:
                refs.append(True)
            for key, value in node.items():
                kind = type(value)
                if (kind is dict or kind is list) and (names or key not in DATA_KEYS):
                    push((value, (link, key), not names and key in NAME_MAPS))
        elif type(node) is list:
            for i, value in enumerate(node):
                kind = type(value)
                if kind is dict or kind is list:
                    push((value, (link, i), False))
    return found


def version_warnings(doc: Document, nodes: list[tuple[_Link, Mapping[str, Any]]] | None = None
                     ) -> tuple[str, ...]:
    """"file:line: problem" for every unreadable `x-openstack` in the document, in file order
    (`nodes`: what `openstack_nodes` found, when the caller walked already).

    Reading one as "no bound" is no error (the element is then compared at every
    microversion, which can only report more), but the author should hear of it.
    """
    if nodes is None:
        nodes = openstack_nodes(doc)
    if not nodes:
        return ()
    found: list[tuple[tuple[str, ...], Mapping[str, Any], list[str]]] = []
    for link, node in nodes:
        problems = openstack_problems(node)
        if problems:
            found.append(((*_pointer(link), OPENSTACK_KEY), node, problems))
    info = doc.data.get("info") if type(doc.data) is dict else None
    version = info.get("version") if type(info) is dict else None
    problem = version_problem(version) if doc.text and version is not None else None
    if problem is not None:  # a microversioned document whose maximum cannot be read
        found.append((("info", "version"), {}, [
            f"info.version {problem}; the document's maximum microversion is read from its "
            f"x-openstack bounds instead"]))
    lines = lines_of(doc, [pointer for pointer, _, _ in found])
    located: list[tuple[Location, str]] = []
    for pointer, node, problems in found:
        written = node.get(LOCATION_KEY)  # api-ref: the row the loader read it from
        where = Location.parse(written, doc) if isinstance(written, str) else Location(
            doc.display, lines[pointer])
        located.extend((where, problem) for problem in problems)
    # The walk is depth first from the end: put the file's order back.
    located.sort(key=lambda item: (item[0].file, item[0].line or 0))
    return tuple(dict.fromkeys(f"{where}: {problem}" for where, problem in located))


_Link = tuple[Any, Any] | None  # (parent's link, key); None at the top


def _pointer(link: _Link) -> tuple[str, ...]:
    segments = []
    while link is not None:
        link, key = link
        segments.append(str(key))
    return tuple(reversed(segments))
