"""outside-the-url: a path parameter added or removed whose name is no placeholder of the
URL (cyborg's `device_profile_uuid` row under `/device_profiles/{device_profile_name_or_uuid}`):
the URL is the whole path contract, so no client ever sent it; the row only corrects the
document (one moved to the query is `moved-location`, paired first)."""

from __future__ import annotations

from needs_microversion.model.change import Change, Correction
from needs_microversion.model.snapshot import placeholders
from needs_microversion.rules.finder import Sides, each_change

ID = "outside-the-url"


def check(change: Change, sides: Sides) -> Correction | None:
    if change.area != "path-parameter" or change.kind not in ("added", "removed"):
        return None
    op = (sides.new if change.kind == "added" else sides.old).operations.get(change.op_key)
    if op is None or change.pointer in placeholders(op.path):
        return None
    return Correction(ID, f"{op.path} has no placeholder {{{change.pointer}}}: a client never "
                      "sends this path parameter, so its row only corrects the document")


FINDER = each_change("outside_the_url", (ID,), check)
