"""documents-released-microversion: an element added with a starting microversion
(`min_version: 2.26`) at or below the old document's maximum: that microversion was already
released, with its own bump, so the document catches up with it; the other changes of that
same entry (its required flag, its type) come with the correction. The released
microversion an element documents says more than a hint (an example, another operation)
does, so it wins over `pairable` corrections."""

from __future__ import annotations

from needs_microversion.model.change import Change, describe, element
from needs_microversion.rules.base import Context

ID = "documents-released-microversion"


def message(change: Change, context: Context) -> str | None:
    since = context.documented_late.get(element(change))
    if since is None:
        return None
    return f"{describe(change)}: documents {since}, already released; check the code agrees"
