"""An api-ref tree and an OpenAPI document that describe the same small API (a compute-like
servers API: a list with query filters, a create with a response header and a
microversioned request attribute, a show with a 2.9 attribute) are one contract, and the
same change made to both is judged the same (tests/data/equivalence).

The change: a response attribute added at 2.10 with the maximum bumped to it, a query
parameter added beside it with no version note (read as 2.10's too, inferred), and a 404
newly documented on create.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

DATA = Path(__file__).resolve().parent / "data" / "equivalence"
SIDES = {"old": ("apiref-old", "openapi-old.yaml"), "new": ("apiref-new", "openapi-new.yaml")}


def _report(run_cli, old: str, new: str) -> tuple[int, dict]:
    code, out, err = run_cli("diff", str(DATA / old), str(DATA / new), "--format", "json")
    assert code in (0, 1), err
    return code, json.loads(out)


@pytest.mark.parametrize("side", sorted(SIDES))
@pytest.mark.parametrize("forward", [True, False], ids=["apiref-to-openapi", "openapi-to-apiref"])
def test_both_formats_are_one_contract(run_cli, side: str, forward: bool) -> None:
    apiref, openapi = SIDES[side]
    code, report = _report(run_cli, *((apiref, openapi) if forward else (openapi, apiref)))
    assert (code, report["verdict"], report["changes"]) == (0, "not-required", [])
    assert report["old_version"] == report["new_version"] == ("2.9" if side == "old" else "2.10")


def _judged(report: dict) -> list[tuple]:
    """What a change is and how it was judged, whatever the format wrote around it."""
    return sorted((c["id"], c["rule"], c["verdict"], re.sub(r"\{[^}]*\}", "{}", c["operation"]),
                   c["kind"], c["change"], c["pointer"], c["status"], c["gated"])
                  for c in report["changes"])


def test_the_same_change_is_judged_the_same(run_cli) -> None:
    code_a, apiref = _report(run_cli, SIDES["old"][0], SIDES["new"][0])
    code_o, openapi = _report(run_cli, SIDES["old"][1], SIDES["new"][1])
    assert _judged(apiref) == _judged(openapi)
    assert [c[0] for c in _judged(apiref)] == [
        "attribute-added", "error-code-exempt", "query-parameter-added"]
    keys = ("verdict", "old_version", "new_version", "bumped")
    assert code_a == code_o == 0
    assert {c[0]: c[-1] for c in _judged(apiref)} == {
        "attribute-added": "2.10", "error-code-exempt": "2.10", "query-parameter-added": "2.10"}
    assert [apiref[k] for k in keys] == [openapi[k] for k in keys] == [
        "required", "2.9", "2.10", True]
