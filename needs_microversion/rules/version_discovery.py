from __future__ import annotations

import re

from needs_microversion.model.verdict import REQUIRED, Finding
from needs_microversion.rules.base import Context, OverrideRule

# The API's root and a major version's root: `/`, `/v2.1`, `/v3/`, senlin's `/{version}/`.
_ROOT = re.compile(r"^/(?:v\d+(?:\.\d+)?|\{[^}/]*version[^}/]*\})?/?$", re.IGNORECASE)


class VersionDiscovery(OverrideRule):
    """Is the changed operation the API's version discovery?

    What it checks
        Findings that need a microversion and sit behind none, on the API's root (`GET /`,
        which lists the major versions and the microversions each reaches) or a major
        version's root (`GET /v2.1`, `GET /{version}/`), in a document that writes
        microversions (gating an element, or listing them in its version-discovery sample).

    Why it needs no microversion
        A client reads these documents before it negotiates a microversion: that is what
        they are for. They answer alike at every microversion, so no microversion can change
        them, and a new one changes only the numbers they list (the maximum going up is its
        own finding). What their tables and codes say is documented, not versioned.

    Example
        senlin documents the `300 Multiple Choices` its `GET /` returns, and the `406` its
        `GET /{version}/` answers to an unsupported version: `version-discovery`, not
        `status-code-added`.

    No microversion needed when
        Always, for these findings. Not version discovery: any other URL, changes gated on a
        microversion, the maximum microversion itself, and a document that writes no
        microversion at all (its root is an ordinary resource).

    Options
        None.
    """

    id = "version-discovery"
    order = 19
    question = "Is the changed operation the API's version discovery?"
    finding_ids = ("version-discovery",)

    def override(self, finding: Finding, context: Context) -> Finding:
        change = finding.change
        if finding.verdict != REQUIRED or change.gated is not None or change.area == "version" \
                or not context.options.gated_documents or not is_root(change.operation):
            return finding
        return self.not_required(finding, "version discovery, read before a client negotiates "
                                 "a microversion, which cannot change it")


def is_root(operation: str) -> bool:
    """`GET /v2.1` (as the document writes an operation: method, path, action)."""
    parts = operation.split(" ")
    return len(parts) >= 2 and bool(_ROOT.match(parts[1]))
