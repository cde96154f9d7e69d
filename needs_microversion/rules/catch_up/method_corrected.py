"""method-corrected: the old document gave a bodiless method (GET, HEAD, DELETE) a request
body, and the new one documents the same URL with another method: it described that request
all along, under the wrong method (such a request cannot carry a body)."""

from __future__ import annotations

from collections.abc import Sequence

from needs_microversion.model.change import Change, Correction
from needs_microversion.rules.catch_up.urls import Urls
from needs_microversion.rules.finder import Finder, Found, Sides

ID = "method-corrected"
_BODILESS = ("GET", "HEAD", "DELETE")  # methods whose requests carry no body


def find(changes: Sequence[Change], sides: Sides, prior: Found) -> Found:
    wanted = [c for c in changes if c.area == "operation"]
    if not wanted:
        return {}
    urls = Urls(*sides)
    found = {}
    for change in wanted:
        same_url = urls.by_url.get((change.op_key.shape, change.op_key.action), [])
        wrong = [k for k in same_url if k.method in _BODILESS and k in urls.old.operations
                 and k not in urls.new.operations and any(
                     raw is not None for raw in urls.old.operations[k].request_content.values())]
        fixed = [k for k in same_url if k.method not in _BODILESS and k in urls.new.operations
                 and k not in urls.old.operations]
        if wrong and fixed:
            found[id(change)] = Correction(
                ID, f"the old document gave {wrong[0].method} a request body; the URL is now "
                f"documented as {fixed[0].method}")
    return found


FINDER = Finder("method_corrected", (ID,), find, per_change=True)
