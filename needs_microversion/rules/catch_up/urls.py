"""The two documents' operations by URL, indexed once (a spec has thousands): what the
URL finders (`method_corrected`, `url_still_documented`) read."""

from __future__ import annotations

import re

from needs_microversion.model.snapshot import OpKey, Snapshot

_DYNAMIC = re.compile(r"[^/]*\{\}[^/]*")  # a path segment holding a placeholder


def route(shape: str) -> str:
    """The route a router matches: any segment with a placeholder (`{}`, `{}@{}`) is one
    dynamic segment, so `/indicators/{}` and `/indicators/{}@{}` are served by one route."""
    return _DYNAMIC.sub("{}", shape)


class Urls:
    def __init__(self, old: Snapshot, new: Snapshot) -> None:
        self.old, self.new = old, new
        self.kept: dict[tuple[str, str | None, str], list[OpKey]] = {}
        for key in sorted((k for k in old.operations if k in new.operations), key=OpKey.order):
            self.kept.setdefault((key.method, key.action, route(key.shape)), []).append(key)
        self.by_url: dict[tuple[str, str | None], list[OpKey]] = {}
        for key in sorted({*old.operations, *new.operations}):
            self.by_url.setdefault((key.shape, key.action), []).append(key)
