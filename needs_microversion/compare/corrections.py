"""Evidence across operations that a change corrects the document, not the API.

Some documents contradict themselves, and the new one resolves the contradiction; some
changes move only what a loader inferred; some change what the old tree said it had not
checked against the code, or a frozen older major version (`majors.py`). Either way the
change describes the API as it always was. Each finder here reads a change beside the
other changes or the other operations of the two documents, and attaches the `Evidence`
that rule catch-up judges (api-ref trees; off for OpenAPI documents, which are generated
from the code), or that rule correction judges (`rewrites.py`: one element written
differently in place). Changes that sit behind a new microversion are left alone: they are
the new microversion's content, not a correction.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable

from needs_microversion.compare.majors import older_major
from needs_microversion.compare.representation import Listing, documented_on_resource
from needs_microversion.compare.rewrites import rewrites
from needs_microversion.model.change import (
    ADDED_OR_REMOVED, BODY_AREAS, HEADER_AREAS, MEDIA_TYPE_AREAS, Area, Change, Evidence,
    direction)
from needs_microversion.model.extensions import UNREAD_KEY, UNVERIFIED_KEY
from needs_microversion.model.records import evolve
from needs_microversion.model.schema import schema_at
from needs_microversion.model.snapshot import OpKey, Snapshot, placeholders
from needs_microversion.model.versions import FLOOR, Version

_DYNAMIC = re.compile(r"[^/]*\{\}[^/]*")  # a path segment holding a placeholder
_BODILESS = ("GET", "HEAD", "DELETE")  # methods whose requests carry no body


def with_evidence(changes: Iterable[Change], old: Snapshot, new: Snapshot,
                  catch_up: bool = True) -> list[Change]:
    """Changes with the evidence found for them; with rule catch-up off (OpenAPI documents,
    generated from the code), only a rewrite's, which rule correction reads: the other
    finders' evidence would only keep changes from rules that judge them (looking for it
    is 6% of a Stripe or Kubernetes run)."""
    changes = list(changes)
    if not catch_up:
        paired = rewrites(changes, old, new)
        return _attached(changes, lambda change: paired.get(id(change))
                         or outside_the_url(change, old, new))
    moved = nesting_reread(changes)
    moved.update(wrapper_reread(changes, old, new, moved))
    paired = rewrites([c for c in changes if id(c) not in moved], old, new)
    urls: _Urls | None = None
    marked = _Unverified(old, new)
    unread = _Unread(old)
    frozen = older_major(changes, old, new)
    resource = documented_on_resource(changes, old, new)

    def found(change: Change) -> Evidence | None:
        nonlocal urls
        evidence = moved.get(id(change))
        if evidence is None and change.area == "operation":
            urls = urls or _Urls(old, new)
            evidence = urls.method_corrected(change) or urls.still_documented(change)
        return evidence or envelope_of_list(change, old, new) \
            or body_shown(change, old) or first_documented_code(change, old) \
            or frozen.get(id(change)) or paired.get(id(change)) \
            or outside_the_url(change, old, new) \
            or marked.evidence(change) or resource.get(id(change)) \
            or unread.evidence(change)

    return _attached(changes, found)


def _attached(changes: list[Change], find: Callable[[Change], Evidence | None]
              ) -> list[Change]:
    """Each change with the evidence `find` gives it; those gated on a new microversion are
    its content, not a correction, and evidence already found stays."""
    out = []
    for change in changes:
        if change.evidence is None and change.gated is None:
            evidence = find(change)
            if evidence is not None:
                change = evolve(change, evidence=evidence)
        out.append(change)
    return out


# What each os-api-ref verification phase checks against the code: the methods, URLs and
# status codes; every row of the parameter tables; the body tables (a body documented where
# none was shows as a media type).
_PHASE_AREAS: dict[str, frozenset[Area]] = {
    "method": frozenset({"operation", "status-code"}),
    "parameter": frozenset({"path-parameter", "query-parameter", "cookie-parameter",
                            *HEADER_AREAS, *BODY_AREAS}),
    "body": frozenset({*BODY_AREAS, *MEDIA_TYPE_AREAS}),
}


class _Unverified:
    """The old tree says a file is not yet checked against the code (`.. needs:
    method_verification` atop nova's 2016 files): what it documents there may be wrong, and a
    change of that part is the document being verified, not the API changing."""

    def __init__(self, old: Snapshot, new: Snapshot) -> None:
        marked = old.info(UNVERIFIED_KEY)  # an OpenAPI document may write anything there
        self.marked = {file: [p for p in phases if isinstance(p, str)]
                       for file, phases in marked.items() if isinstance(phases, list)
                       } if isinstance(marked, dict) else {}
        self.sides = (old, new)

    def evidence(self, change: Change) -> Evidence | None:
        if not self.marked:
            return None
        file = _written_in(change, self.sides)
        phases = self.marked.get(file, ()) if file else ()
        phase = next((p for p in phases if change.area in _PHASE_AREAS.get(p, ())), None)
        if phase is None:
            return None
        return Evidence("unverified-section", f"the old document marks {file} `needs:{phase}_"
                        "verification` (not yet checked against the code); check the code "
                        "agrees")


class _Unread:
    """A row the old table already listed, by name, whose reference parameters.yaml did not
    define (so it was read as nothing): defining it documents the element late (nova's
    os-services `binary`, listed in 2016 before any definition of it existed)."""

    def __init__(self, old: Snapshot) -> None:
        listed = old.info(UNREAD_KEY)  # an OpenAPI document may write anything there
        self.listed = {file: {n for n in names if isinstance(n, str)}
                       for file, names in listed.items() if isinstance(names, list)
                       } if isinstance(listed, dict) else {}
        self.old = old

    def evidence(self, change: Change) -> Evidence | None:
        if not self.listed or change.kind != "added" or change.op_key not in \
                self.old.operations or change.area not in _ROW_AREAS:
            return None
        file = _written_in(change, (self.old,))
        name = change.pointer.rstrip("/").rsplit("/", 1)[-1]
        if file is None or name not in self.listed.get(file, ()):
            return None
        return Evidence("listed-undefined", f"the old {file} already listed `{name}` in its "
                        "table, with no definition to read; it is documented late")


# What a `rest_parameters` row can document.
_ROW_AREAS: frozenset[Area] = frozenset({"path-parameter", "query-parameter",
                                         "cookie-parameter", *HEADER_AREAS, *BODY_AREAS})


def _written_in(change: Change, sides: Iterable[Snapshot]) -> str | None:
    """The file the operation is written in: the first side's that has it."""
    for side in sides:
        if change.op_key in side.operations:
            # api-ref locations are named from the tree's folder; the marks are not
            return side.operations[change.op_key].location.file.removeprefix(
                side.document.display + "/")
    return None


def nesting_reread(changes: list[Change]) -> dict[int, Evidence]:
    """A body attribute removed at one place and the same one (name, type, required) added
    at another, where either place was inferred: api-ref tables are flat, and where a row
    sits was guessed (from an example, or from the row order and a wrapper row). A sample
    added, or rows reordered, moves the guess, not the field. Then, among the rest, the only
    removal and the only addition of a name: the same row, its definition corrected with
    the wrapper it sits in (nova's `length`: a string at the top, an integer inside
    `os-getConsoleOutput` once that is an object)."""
    def leaf(change: Change) -> tuple[object, ...]:
        return (change.op_key, change.area, change.status, change.media,
                change.pointer.rsplit("/", 1)[-1])

    def value(change: Change) -> str:
        return repr(change.old if change.kind == "removed" else change.new)

    body = [c for c in changes if c.area in BODY_AREAS and c.gated is None
            and c.kind in ADDED_OR_REMOVED and c.pointer]
    added: dict[tuple[object, ...], list[Change]] = {}
    removed: dict[tuple[object, ...], list[Change]] = {}
    for change in body:
        (added if change.kind == "added" else removed).setdefault(leaf(change), []).append(
            change)
    found: dict[int, Evidence] = {}
    for gone in (c for c in body if c.kind == "removed"):
        match = next((c for c in added.get(leaf(gone), []) if id(c) not in found
                      and (c.inferred or gone.inferred) and value(c) == value(gone)), None)
        if match is not None:
            found[id(gone)] = found[id(match)] = _reread(gone, match, "")
    for key, gone_list in removed.items():
        rest = [c for c in gone_list if id(c) not in found]
        came = [c for c in added.get(key, []) if id(c) not in found]
        if len(rest) == 1 and len(came) == 1 and (rest[0].inferred or came[0].inferred):
            found[id(rest[0])] = found[id(came[0])] = _reread(
                rest[0], came[0], f"; its definition is corrected too "
                f"({_differences(rest[0].old, came[0].new)})")
    return found


def wrapper_reread(changes: list[Change], old: Snapshot, new: Snapshot,
                   found: dict[int, Evidence]) -> dict[int, Evidence]:
    """A wrapper that only an example implied (an inferred object, no row of its own) gone,
    and rows the old document placed inside it now at its level, with the same types (or the
    other way round): ironic's vendor passthru methods sat inside `lookup` while a sample
    showed them so, and moved up when the sample went. The rows did not move; the guess
    did. Changes in `found` are already explained."""
    body = [c for c in changes if c.area in BODY_AREAS and c.gated is None and c.pointer
            and c.kind in ADDED_OR_REMOVED and id(c) not in found]
    wrappers = [c for c in body if c.inferred and _summary_type(c) == "object"]
    if not wrappers:
        return {}
    listing = Listing(old, new)
    moved: dict[int, Evidence] = {}
    for wrapper in wrappers:
        parent = wrapper.pointer.rsplit("/", 1)[0]
        place = (wrapper.op_key, wrapper.area, wrapper.status, wrapper.media)
        # The rows left the wrapper (it was the old document's) or went into it (the new's).
        document = 0 if wrapper.kind == "removed" else 1
        held = False
        for row in body:
            row_parent, name = row.pointer.rsplit("/", 1)
            if row.kind == wrapper.kind or id(row) in moved or row_parent != parent \
                    or (row.op_key, row.area, row.status, row.media) != place \
                    or not listing.listed_at(document, row.op_key, direction(row),
                                             f"{wrapper.pointer[1:]}/{name}",
                                             row.old or row.new):
                continue
            inside = f"{wrapper.pointer}/{name}"
            before, now = (inside, row.pointer) if document == 0 else (row.pointer, inside)
            moved[id(row)] = Evidence(
                "nesting-reread", f"the table documents the same field; where it sits was "
                f"inferred ({before} before, {now} now), so the document did not move it; "
                "check an example shows it there")
            held = True
        if held:
            moved[id(wrapper)] = Evidence(
                "nesting-reread", f"{wrapper.pointer} was only inferred (from an example), "
                f"and the rows it held are now documented at its level; check an example "
                "shows them there")
    return moved


def _summary_type(change: Change) -> object:
    summary = change.old if change.kind == "removed" else change.new
    return summary.get("type") if isinstance(summary, dict) else None


def _differences(old: object, new: object) -> str:
    """"type 'string' -> 'integer'" for two summaries of an element."""
    if not (isinstance(old, dict) and isinstance(new, dict)):
        return f"{old!r} -> {new!r}"
    return ", ".join(f"{key} {old.get(key)!r} -> {new.get(key)!r}"
                     for key in sorted({*old, *new}) if old.get(key) != new.get(key))


def _reread(gone: Change, came: Change, also: str) -> Evidence:
    return Evidence("nesting-reread", f"the table documents the same field; where it sits "
                    f"was inferred ({gone.pointer} before, {came.pointer} now), so the "
                    f"document did not move it{also}; check an example shows it there")


def route(shape: str) -> str:
    """The route a router matches: any segment with a placeholder (`{}`, `{}@{}`) is one
    dynamic segment, so `/indicators/{}` and `/indicators/{}@{}` are served by one route."""
    return _DYNAMIC.sub("{}", shape)


class _Urls:
    """The two documents' operations by URL, indexed once (a spec has thousands)."""

    def __init__(self, old: Snapshot, new: Snapshot) -> None:
        self.old, self.new = old, new
        self.kept: dict[tuple[str, str | None, str], list[OpKey]] = {}
        for key in sorted((k for k in old.operations if k in new.operations), key=OpKey.order):
            self.kept.setdefault((key.method, key.action, route(key.shape)), []).append(key)
        self.by_url: dict[tuple[str, str | None], list[OpKey]] = {}
        for key in sorted({*old.operations, *new.operations}):
            self.by_url.setdefault((key.shape, key.action), []).append(key)

    def still_documented(self, change: Change) -> Evidence | None:
        """An operation removed while the old document described the same route a second
        way (same method, a placeholder segment written `{component}` there and
        `{ind_ident}@{component}` here) that the new document keeps. One handler serves one
        dynamic segment, so the URL is still there: the old document contradicted itself
        and the new one keeps one of its two descriptions."""
        if change.area != "operation" or change.kind != "removed":
            return None
        key = change.op_key
        twins = [k for k in self.kept.get((key.method, key.action, route(key.shape)), [])
                 if k.shape != key.shape]
        if not twins:
            return None
        other = self.new.operations[twins[0]].display
        return Evidence("url-still-documented",
                        f"the old document also described this route as {other}, which the "
                        "new one keeps: one dynamic segment is one route, so the URL is still "
                        "served and only one of its two descriptions is removed; check the "
                        "code answers both forms alike")

    def method_corrected(self, change: Change) -> Evidence | None:
        """The old document gave a bodiless method (GET, HEAD, DELETE) a request body, and
        the new one documents the same URL with another method: it described that request
        all along, under the wrong method."""
        if change.area != "operation":
            return None
        same_url = self.by_url.get((change.op_key.shape, change.op_key.action), [])
        wrong = [k for k in same_url if k.method in _BODILESS and k in self.old.operations
                 and k not in self.new.operations and any(
                     raw is not None for raw in self.old.operations[k].request_content.values())]
        fixed = [k for k in same_url if k.method not in _BODILESS and k in self.new.operations
                 and k not in self.old.operations]
        if not (wrong and fixed):
            return None
        return Evidence("method-corrected",
                        f"the old document gave {wrong[0].method} a request body; the URL is "
                        f"now documented as {fixed[0].method}")


def outside_the_url(change: Change, old: Snapshot, new: Snapshot) -> Evidence | None:
    """A path parameter added or removed whose name is no placeholder of the URL (cyborg's
    `device_profile_uuid` row under `/device_profiles/{device_profile_name_or_uuid}`): the
    URL is the whole path contract, so no client ever sent it; the row only corrects the
    document (one moved to the query is `moved-location`, paired first)."""
    if change.area != "path-parameter" or change.kind not in ("added", "removed"):
        return None
    op = (new if change.kind == "added" else old).operations.get(change.op_key)
    if op is None or change.pointer in placeholders(op.path):
        return None
    return Evidence("outside-the-url", f"{op.path} has no placeholder {{{change.pointer}}}: "
                    "a client never sends this path parameter, so its row only corrects the "
                    "document")


def body_shown(change: Change, old: Snapshot) -> Evidence | None:
    """A body documented at every version where the old document had none, though its own
    example showed one (api-ref: a `-req.json` or `-resp.json` beside no table, read or
    not): the operation sent or returned that body before this change."""
    if change.area not in MEDIA_TYPE_AREAS or change.kind != "added" or not change.everywhere:
        return None
    side = direction(change)
    op = old.operations.get(change.op_key)
    if op is None or side not in op.example_bodies:
        return None
    return Evidence("shown-in-example", f"the old document's example already shows a {side} "
                    "body here; the table documents it late", pairable=True)


def first_documented_code(change: Change, old: Snapshot) -> Evidence | None:
    """A success code added at every version to an operation the old document named no
    success code for (an api-ref section with no `Normal response codes`, or one listing only
    errors there): the old document never said what the operation returns; it does not
    say something else now. Any code, an error too, where the old section named none at
    all: it said nothing about codes, so it cannot have said something else."""
    if change.area != "status-code" or change.kind != "added" or not change.everywhere:
        return None
    op = old.operations.get(change.op_key)
    if op is None:
        return None
    if not op.responses:  # a section with no codes at all: not a word on errors either
        return Evidence("codes-first-documented", f"the old document named no status code "
                        f"for {op.display} (its changes could not be seen); {change.status} "
                        "is documented for the first time")
    if not (change.status or "").startswith("2") \
            or any(code.startswith("2") for code in op.responses):
        return None
    return Evidence("success-code-first-documented", "the old document named no success "
                    f"code for {op.display}; {change.status} is documented for the first time")


def envelope_of_list(change: Change, old: Snapshot, new: Snapshot) -> Evidence | None:
    """A detailed list (`GET /servers/detail`) whose top-level response keys become exactly
    those its list (`GET /servers`) already had in the old document. OpenStack's detailed
    lists return their list's envelope with more attributes per item, so the old document
    had the envelope wrong (a `server` object copied from the show operation)."""
    if change.area != "response-body" or change.kind == "changed" \
            or change.pointer.count("/") != 1 or change.op_key.method != "GET" \
            or not change.op_key.shape.endswith("/detail"):
        return None
    detail = change.op_key
    listing = OpKey("GET", detail.shape.removesuffix("/detail") or "/", detail.action)
    version = old.max_version or FLOOR
    media = (change.media or "").split(", ")[0]
    envelope = _top_keys(old, listing, change.status, media, version)
    if envelope is None or envelope != _top_keys(new, listing, change.status, media, version) \
            or envelope != _top_keys(new, detail, change.status, media, version) \
            or envelope == _top_keys(old, detail, change.status, media, version):
        return None
    return Evidence("envelope-matches-list",
                    f"{old.operations[listing].display} lists the same collection and "
                    f"already documented its envelope ({', '.join(sorted(envelope))}); a "
                    "detailed list has its list's envelope, so the table's envelope is "
                    "corrected")


def _top_keys(snapshot: Snapshot, key: OpKey, status: str | None, media: str,
              version: Version) -> frozenset[str] | None:
    """The top-level attributes of an operation's response body at one version."""
    op = snapshot.operations.get(key)
    response = op.responses.get(status or "") if op is not None else None
    if response is None or not response.versions.contains(version):
        return None
    schema = schema_at(snapshot.schemas, response.content.get(media), version)
    if schema is None:
        return None
    return frozenset(name for name, prop in schema.properties.items()
                     if prop.versions.contains(version))
