"""url-still-documented: an operation removed while the old document described the same
route a second way (same method, a placeholder segment written `{component}` there and
`{ind_ident}@{component}` here) that the new document keeps. One handler serves one dynamic
segment, so the URL is still there: the old document contradicted itself and the new one
keeps one of its two descriptions (ironic's indicators)."""

from __future__ import annotations

from collections.abc import Sequence

from needs_microversion.model.change import Change, Correction
from needs_microversion.rules.catch_up.urls import Urls, route
from needs_microversion.rules.finder import Finder, Found, Sides

ID = "url-still-documented"


def find(changes: Sequence[Change], sides: Sides, prior: Found) -> Found:
    wanted = [c for c in changes if c.area == "operation" and c.kind == "removed"]
    if not wanted:
        return {}
    urls = Urls(*sides)
    found = {}
    for change in wanted:
        key = change.op_key
        twins = [k for k in urls.kept.get((key.method, key.action, route(key.shape)), [])
                 if k.shape != key.shape]
        if twins:
            other = urls.new.operations[twins[0]].display
            found[id(change)] = Correction(
                ID, f"the old document also described this route as {other}, which the new "
                "one keeps: one dynamic segment is one route, so the URL is still served and "
                "only one of its two descriptions is removed; check the code answers both "
                "forms alike")
    return found


FINDER = Finder("url_still_documented", (ID,), find, per_change=True)
