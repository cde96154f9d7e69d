from __future__ import annotations

from needs_microversion.model.change import Change, describe
from needs_microversion.model.verdict import REQUIRED, Finding
from needs_microversion.rules.base import Context, Rule


class ResourceUrl(Rule):
    """Did we add or remove a resource url?

    What it checks
        Operations, keyed by method and path shape (`/servers/{id}` and
        `/servers/{server_id}` are one URL; actions on `.../action` count one each), and what
        their path parameters accept.

    Why
        The list of resource URLs that exist on the server is the contract: clients of older
        versions must get 404 (or 405) for what did not exist (chart question 6).

    Example
        Adding `GET /clusters/{cluster_id}/foo`, or a new `POST` on an existing URL. OpenAPI
        3.1 webhooks and operations' callbacks are requests the API makes and clients serve:
        one added or removed counts the same (`POST webhook newPet`).

    No microversion needed when
        Only a path parameter's name changes, or the path's documentation.

    Options
        None.
    """

    id = "resource-url"
    order = 12
    question = "Did we add or remove a resource url?"
    finding_ids = ("operation-added", "operation-removed", "path-parameter-changed")

    def evaluate(self, change: Change, context: Context) -> Finding | None:
        if change.area == "operation":
            return self.finding(f"operation-{change.kind}", REQUIRED, change, describe(change))
        if change.area == "path-parameter":
            return self.finding("path-parameter-changed", REQUIRED, change, describe(change))
        return None
