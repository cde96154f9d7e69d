"""corrected: an existing attribute's, parameter's or header's type, required flag,
nullability, constraints or openness (`additionalProperties`) changed at every microversion,
as if it had always been so (a scalar corrected to an array brings its items with it). Not
its allowed values: values added are an addition, like any other; not prose."""

from __future__ import annotations

from needs_microversion.model.change import BODY_AREAS, HEADER_AREAS, Area, Change

ID = "corrected"
_CORRECTED_ASPECTS = frozenset({"type", "nullable", "required", "constraint", "composition",
                                "free-form", "serialization"})
ELEMENT_AREAS: tuple[Area, ...] = (*BODY_AREAS, *HEADER_AREAS, "path-parameter",
                                   "query-parameter", "cookie-parameter")


def reason(change: Change) -> str | None:
    if change.kind == "changed" and change.area in ELEMENT_AREAS \
            and set(change.aspect.split("+")) <= _CORRECTED_ASPECTS:
        return "changed at every microversion, as if it had always been so"
    return None
