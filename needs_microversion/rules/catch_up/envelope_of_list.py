"""envelope-matches-list: a detailed list (`GET /servers/detail`) whose top-level response
keys become exactly those its list (`GET /servers`) already had in the old document.
OpenStack's detailed lists return their list's envelope with more attributes per item, so
the old document had the envelope wrong (a `server` object copied from the show
operation)."""

from __future__ import annotations

from needs_microversion.model.change import Change, Correction
from needs_microversion.model.schema import schema_at
from needs_microversion.model.snapshot import OpKey, Snapshot
from needs_microversion.model.versions import FLOOR, Version
from needs_microversion.rules.finder import Sides, each_change

ID = "envelope-matches-list"


def check(change: Change, sides: Sides) -> Correction | None:
    old, new = sides
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
    return Correction(ID, f"{old.operations[listing].display} lists the same collection and "
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


FINDER = each_change("envelope_of_list", (ID,), check)
