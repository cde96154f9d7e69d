from __future__ import annotations

from needs_microversion.model.change import Change
from needs_microversion.model.verdict import Finding
from needs_microversion.rules.base import Context, Rule


class Drift(Rule):
    """Do the code and the API reference describe the same operations?

    What it checks
        At one revision, the operations the code declares (nova's routes, decorators and
        schemas) against those api-ref documents, and for each operation both have, its
        microversion range and the names of its query parameters: an operation the code
        serves that api-ref does not document (`operation-undocumented`; one the code
        retires with 410 Gone is said so), one api-ref documents that the code does not serve
        (`operation-unserved`), a microversion range that differs (`version-range-differs`),
        a query parameter only the code accepts (`parameter-undocumented`) or only api-ref
        names (`parameter-unserved`). `needs-microversion drift` reports it; it judges no
        change.

    Why
        api-ref lags the code: of 100 commits that raised a maximum microversion in nova,
        cinder, placement, manila and ironic since 2021, 37 did not name the new version in
        api-ref, and 19 never did (nova 2.103 removed seven routes and api-ref never said
        so). A drift report shows what to document, at the level a reader of api-ref needs;
        a schema-by-schema comparison would be noise (2954 findings for nova at HEAD).

    Example
        nova at HEAD: `PUT /os-cloudpipe/{id}` is served (410 Gone since 16.0.0) and
        documented nowhere; `GET /versions/{id}` likewise.

    No microversion needed when
        Always: it is a report, not a verdict (exit code 0).

    Options
        `needs-microversion drift [REV]`.
    """

    id = "drift"
    order = 100  # outside the chart: never asked of a change
    question = "Do the code and the API reference describe the same operations?"
    finding_ids = ("operation-undocumented", "operation-unserved", "version-range-differs",
                   "parameter-undocumented", "parameter-unserved")
    review = True

    def evaluate(self, change: Change, context: Context) -> Finding | None:
        return None  # a report of its own (commands/drift.py), not a question of the chart
