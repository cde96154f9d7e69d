from __future__ import annotations

from needs_microversion.model.change import MEDIA_TYPE_AREAS, Change, describe
from needs_microversion.model.verdict import REQUIRED, Finding
from needs_microversion.rules.base import Context, Rule


class MediaType(Rule):
    """Did we add or remove a request or response media type?

    What it checks
        The media types (`application/json`, `text/plain`, ...) a request body is accepted in
        and a response is returned in, per status code.

    Why
        A response that changes `Content-Type` changes how clients process it (API-SIG
        interoperability guideline); a request media type is what the client may send.

    Example
        `GET /products` starts returning `application/json` beside `application/xml`.

    No microversion needed when
        Only parameters of the media type change (`; charset=utf-8`).

    Options
        None.
    """

    id = "media-type"
    order = 15
    question = "Did we add or remove a request or response media type?"
    finding_ids = ("media-type-added", "media-type-removed")

    def evaluate(self, change: Change, context: Context) -> Finding | None:
        if change.area not in MEDIA_TYPE_AREAS:
            return None
        return self.finding(f"media-type-{change.kind}", REQUIRED, change, describe(change))
