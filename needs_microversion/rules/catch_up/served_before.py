"""served-before: an element the new document adds that the base revision's code already
served: the document catches up with the API, shown by the code itself.

api-ref lags the code (of 100 real raises of a maximum, 18 were documented later and 19
never). Where a project declares its contract in code (the routes, decorators and schemas
`loaders/code` reads statically: nova, masakari, manila, cinder, placement, ironic, zun),
the code at the base revision answers what the documents' wording only guesses: whether
the API served the element before this change. This is evidence, not wording
(`Correction.evidence`): it stands when the change edits the API's code too, and a raise of
the version file does not claim the element.

Read at the base code's maximum microversion, where every older client can reach it: an
operation the router serves, a query parameter its query schema names, a status code its
`expected_errors` or `@wsgi.response` declares, a body key its request or response schema
lists. Anything the code declares no schema for is not evidence (undeclared is not served),
nor is a key only an open object (`additionalProperties`) would take.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence

from needs_microversion.model.change import Area, Change, Correction
from needs_microversion.model.records import evolve
from needs_microversion.model.schema import RawSchema, Schema, schema_at
from needs_microversion.model.snapshot import Location, Operation, Snapshot
from needs_microversion.model.versions import Version

ID = "served-before"

# What a static reading of the code can show was served (headers and media types it
# does not declare).
_AREAS: frozenset[Area] = frozenset({"operation", "query-parameter", "status-code",
                                     "request-body", "response-body"})
_DEPTH = 64  # pointer segments followed, and alternatives opened per level: bounded
_ALTERNATIVES = 32


def attach_served(changes: Sequence[Change], code: Callable[[], Snapshot | None] | None
                  ) -> list[Change]:
    """The changes, each ungated addition the base code already served carrying that
    evidence. `code` reads the base revision's code contract (asked only when an addition
    could need it: reading it costs a child process's answer)."""
    candidates = [change for change in changes if _candidate(change)]
    if code is None or not candidates:
        return list(changes)
    snapshot = code()
    version = snapshot.max_version if snapshot is not None else None
    if snapshot is None or version is None:
        return list(changes)
    found = {id(change): where for change in candidates
             if (where := served(change, snapshot, version)) is not None}
    return [evolve(change, correction=Correction(
        ID, f"the code served it before this change ({where}); check the code agrees",
        evidence=True)) if id(change) in found else change for change in changes]


def _candidate(change: Change) -> bool:
    return change.gated is None and change.kind == "added" and change.area in _AREAS \
        and not change.free_form


def served(change: Change, code: Snapshot, version: Version) -> Location | None:
    """Where the code declared the element at `version`, or None."""
    op = code.operations.get(change.op_key) if change.op_key in code.operations else None
    if op is None or not op.versions.contains(version):
        return None
    if change.area == "operation":
        return op.location
    if change.area == "query-parameter":
        parameter = op.parameters.get(("query", change.pointer))
        return parameter.location if parameter is not None \
            and parameter.versions.contains(version) else None
    response = op.responses.get(change.status or "") if change.status else None
    if change.area == "status-code":
        return response.location if response is not None \
            and response.versions.contains(version) else None
    bodies = _bodies(op, change, version)
    return op.location if any(_has_key(code, raw, change.pointer, version) for raw in bodies) \
        else None


def _bodies(op: Operation, change: Change, version: Version) -> Iterable[RawSchema]:
    if change.area == "request-body":
        content = op.request_content
    else:
        response = op.responses.get(change.status or "")
        if response is None or not response.versions.contains(version):
            return ()
        content = response.content
    return [raw for media, raw in content.items() if raw is not None
            and (change.media is None or media == change.media)]


def _has_key(code: Snapshot, raw: RawSchema, pointer: str, version: Version) -> bool:
    """Whether the schema lists the key `pointer` names, at `version`: `/a/*/b` is `b` in
    the items of `a`; `{oneOf:1}` segments and alternatives are opened wherever they are."""
    segments = [_unescape(s) for s in pointer.strip("/").split("/") if s]
    if not segments or len(segments) > _DEPTH:
        return False
    level = _opened(code, [raw], version)
    for segment in segments:
        if segment.startswith("{") and segment.endswith("}") and segment != "{*}":
            continue  # an alternative's index: every alternative is open already
        below: list[RawSchema] = []
        for schema in level:
            if segment == "*":
                below += [schema.items] if schema.items is not None else []
            elif segment == "{*}":
                below += [schema.additional] if isinstance(schema.additional, RawSchema) else []
            else:
                prop = schema.properties.get(segment)
                below += [prop.schema] if prop is not None and prop.versions.contains(version) \
                    else []
        level = _opened(code, below, version)
        if not level:
            return False
    return True


def _opened(code: Snapshot, raws: list[RawSchema], version: Version) -> list[Schema]:
    """The schemas visible at `version`, their oneOf/anyOf alternatives opened (bounded)."""
    found: list[Schema] = []
    todo = list(raws)
    while todo and len(found) < _ALTERNATIVES:
        schema = schema_at(code.schemas, todo.pop(0), version)
        if schema is None:
            continue
        found.append(schema)
        todo += [branch for branches in schema.alternatives.values() for branch in branches]
    return found


def _unescape(segment: str) -> str:
    return segment.replace("~1", "/").replace("~0", "~")
