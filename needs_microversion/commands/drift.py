"""`needs-microversion drift`: the code's contract against api-ref at one revision, at the
level a reader of api-ref needs: operations, their microversion ranges, the names of their
query parameters (a schema-by-schema comparison would be noise).

    report = run_drift(DriftRequest(revision="HEAD"))   # a Report of rule `drift`

The report is a value like any other, rendered in every format; it judges no change, so
its exit code is 0.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from needs_microversion.documents.files import current_folder
from needs_microversion.errors import InputError
from needs_microversion.model.change import Area, Change, Kind
from needs_microversion.model.extensions import (
    OPAQUE_KEY, QUERY_KEY, REMOVED_KEY, UNDECLARED_KEY)
from needs_microversion.model.snapshot import Operation, OpKey, Snapshot
from needs_microversion.model.verdict import NOT_REQUIRED, Finding, Report
from needs_microversion.model.versions import FLOOR, VersionRange
from needs_microversion.rules import DRIFT


@dataclass(frozen=True)
class DriftRequest:
    revision: str | None = None  # None: the working tree


def run_drift(request: DriftRequest) -> Report:
    from needs_microversion.load import load_snapshot
    from needs_microversion.loaders.git import Repo, cached
    from needs_microversion.repository.code import code_side
    from needs_microversion.repository.layout import detect
    from needs_microversion.repository.revision import Revision

    here = current_folder()
    with cached():
        repo = Repo.find(here, "not inside a git repository: drift reads one", str(here))
        revision = Revision.at(repo, request.revision) if request.revision \
            else Revision.working(repo)
        layout = detect(revision)
        if layout is None or not layout.documents:
            raise InputError("no API reference found to compare the code with",
                             str(repo.top))
        code = code_side(revision, f"code:{request.revision or ''}")
        if code is None:
            raise InputError("the code declares no contract the tool can read (nova's and "
                             "masakari's routes, decorators and schemas)", str(repo.top))
        documents = load_snapshot(revision.name(layout.documents[0]), validate=False)
    findings = tuple(_finding(change) for change in drift(documents, code.snapshot))
    return Report(documents.display, code.snapshot.display, documents.max_version,
                  code.snapshot.max_version, findings,
                  warnings=(*documents.warnings, *code.warnings))


def drift(documents: Snapshot, code: Snapshot) -> Iterator[Change]:
    """What one side has that the other does not, operation by operation."""
    floor = min((op.versions.lo for side in (documents, code) for op in side.operations.values()
                 if op.versions.lo is not None), default=FLOOR)
    for key in sorted(set(documents.operations) | set(code.operations), key=OpKey.order):
        doc, served = documents.operations.get(key), code.operations.get(key)
        if key.shape in ("", "/"):
            continue  # the version document: a root every API serves
        if doc is None or served is None:
            yield _operation(key, doc, served, _removed(code, key))
            continue
        if _bounds(doc.versions, floor) != _bounds(served.versions, floor):
            yield _change("operation", "changed", served, doc, "", str(doc.versions),
                          str(served.versions))
        if not _declares_query(code, key):
            continue  # the code validates no query string there: it says nothing of names
        named = {name for where, name in doc.parameters if where == "query"}
        accepted = {name for where, name in served.parameters if where == "query"}
        for name in sorted(accepted - named):
            yield _change("query-parameter", "added", served, doc, name, None, name)
        for name in sorted(named - accepted):
            yield _change("query-parameter", "removed", served, doc, name, name, None)


def _declares_query(code: Snapshot, key: OpKey) -> bool:
    """Whether the code declares a query schema for the operation (manila's older
    controllers, and nova's before 2.75's schemas, read the query string by hand)."""
    raw = code.operations.raw.get(key)
    node = raw[1] if isinstance(raw, tuple) and len(raw) > 1 else None
    query = node.get(QUERY_KEY) if isinstance(node, dict) else None
    # Undeclared, or a schema the reader could not compute: it names no parameter.
    return isinstance(query, dict) and not query.get(UNDECLARED_KEY) \
        and not _opaque(query)


def _opaque(schema: object) -> bool:
    """Whether a part of the schema is one the reader could not compute."""
    pending = [schema]
    while pending:
        node = pending.pop()
        if isinstance(node, dict):
            if OPAQUE_KEY in node:
                return True
            pending.extend(node.values())
        elif isinstance(node, list):
            pending.extend(node)
    return False


def _removed(code: Snapshot, key: OpKey) -> str:
    """The release that retired an operation the code still routes (410 Gone), or ""."""
    raw = code.operations.raw.get(key)
    node = raw[1] if isinstance(raw, tuple) and len(raw) > 1 else None
    value = node.get(REMOVED_KEY) if isinstance(node, dict) else None
    return value if isinstance(value, str) else ""


def _operation(key: OpKey, doc: Operation | None, served: Operation | None,
               removed: str) -> Change:
    op = served or doc
    assert op is not None
    return Change("operation", "added" if doc is None else "removed", "", op.display, key,
                  old=doc.display if doc else None, new=served.display if served else None,
                  old_location=doc.location if doc else None,
                  new_location=served.location if served else None,
                  detail=f"removed in {removed}" if removed else "")


def _change(area: Area, kind: Kind, served: Operation, doc: Operation, pointer: str,
            old: object, new: object) -> Change:
    return Change(area, kind, "", served.display, served.key, pointer=pointer, old=old,
                  new=new, old_location=doc.location, new_location=served.location)


def _bounds(versions: VersionRange, floor: object) -> tuple[object, object]:
    """An unbounded start is the API's first microversion."""
    return versions.lo or floor, versions.hi


_IDS = {("operation", "added"): "operation-undocumented",
        ("operation", "removed"): "operation-unserved",
        ("operation", "changed"): "version-range-differs",
        ("query-parameter", "added"): "parameter-undocumented",
        ("query-parameter", "removed"): "parameter-unserved"}


def _finding(change: Change) -> Finding:
    finding_id = _IDS[(change.area, change.kind)]
    message = {
        "operation-undocumented": f"{change.operation}: the code serves it, api-ref does not "
                                  "document it" + (f" ({change.detail}: 410 Gone)"
                                                   if change.detail else ""),
        "operation-unserved": f"{change.operation}: api-ref documents it, the code does not "
                              "serve it",
        "version-range-differs": f"{change.operation}: api-ref documents microversions "
                                 f"{change.old}, the code serves {change.new}",
        "parameter-undocumented": f"{change.operation}: the code accepts query parameter "
                                  f"`{change.pointer}`, api-ref does not name it",
        "parameter-unserved": f"{change.operation}: api-ref names query parameter "
                              f"`{change.pointer}`, the code's query schema does not",
    }[finding_id]
    return DRIFT.finding(finding_id, NOT_REQUIRED, change, message)
