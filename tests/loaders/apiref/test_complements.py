"""Two rows of one name at one place, one bounded on one side and the other with no bounds
(nova's `events: instance_action_events_2_50` with `max_version: 2.50` beside `events:
instance_action_events_2_51` whose `min_version` was forgotten): the unbounded row is the
rest of the range. Read row by row, then a nova-like tree end to end."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from needs_microversion.loaders.apiref.records import Row
from needs_microversion.loaders.apiref.rows import with_complements
from needs_microversion.model.versions import ALL, Version, VersionRange


def _row(name: str, versions: VersionRange = ALL, where: str = "body") -> Row:
    return Row(name, where, {}, f"{name} (parameters.yaml:1)", "parameters.yaml:1", versions)


def _ranges(rows: tuple[Row, ...]) -> list[tuple[str, str, bool]]:
    return [(r.name, str(r.versions), r.inferred_versions) for r in rows]


def test_the_unbounded_row_starts_after_a_capped_one() -> None:
    rows = with_complements([_row("events", VersionRange(None, Version(2, 50))),
                             _row("events"), _row("id")])
    assert _ranges(rows) == [("events", "- 2.50", False), ("events", "2.51 -", True),
                             ("id", "all versions", False)]


def test_the_unbounded_row_ends_before_rows_that_start_later() -> None:
    rows = with_complements([_row("name"), _row("name", VersionRange(Version(2, 10), None)),
                             _row("name", VersionRange(Version(2, 20), None))])
    assert _ranges(rows)[0] == ("name", "- 2.9", True)


@pytest.mark.parametrize("rows", [
    pytest.param([_row("a"), _row("a")], id="two-unbounded-rows"),
    pytest.param([_row("a"), _row("a"), _row("a", VersionRange(None, Version(2, 5)))],
                 id="two-unbounded-beside-a-capped-one"),
    pytest.param([_row("a"), _row("a", VersionRange(Version(2, 3), Version(2, 9)))],
                 id="bounded-on-both-sides"),
    pytest.param([_row("a"), _row("a", VersionRange(None, Version(2, 5))),
                  _row("a", VersionRange(Version(2, 9), None))], id="bounded-on-different-sides"),
    pytest.param([_row("a"), _row("a", VersionRange(Version(2, 0), None))],
                 id="nothing-before-x.0"),
    pytest.param([_row("a", where="query"), _row("a", VersionRange(None, Version(2, 5)))],
                 id="another-place"),
])
def test_rows_left_as_written(rows: list[Row]) -> None:
    assert with_complements(rows) == tuple(rows)


INC = """
Show Server Action Details
==========================

.. rest_method:: GET /servers/{{server_id}}/os-instance-actions/{{request_id}}

Normal response codes: 200

Response
--------

.. rest_parameters:: parameters.yaml

  - instanceAction: instance_action
  - action: action
{events}
"""
PARAMETERS = """instance_action:
  in: body
  required: true
  type: object
  description: The action.
action:
  in: body
  required: true
  type: string
  description: The name of the action.
events:
  in: body
  required: false
  type: array
  description: The events.
events_2_50:
  in: body
  required: false
  type: array
  max_version: 2.50
  description: The events.
events_2_51:
  in: body
  required: false
  type: object
  description: The events, by name.
"""


def _tree(top: Path, events: str) -> Path:
    top.mkdir()
    (top / "index.rst").write_text("Compute\n=======\n\n.. include:: actions.inc\n")
    (top / "actions.inc").write_text(INC.format(events=events))
    (top / "parameters.yaml").write_text(PARAMETERS)
    return top


def test_a_new_variant_without_its_min_version_is_the_next_microversion(tmp_path: Path,
                                                                        run_cli) -> None:
    old = _tree(tmp_path / "old", "  - events: events\n")
    new = _tree(tmp_path / "new", "  - events: events_2_50\n  - events: events_2_51\n")
    code, out, _ = run_cli("diff", str(old), str(new), "--format", "json", "--no-validate")
    report = json.loads(out)
    # Read as always there, the second row would overlap the first (a warning, the row
    # dropped) and `events` would seem removed above 2.50.
    assert [(c["id"], c["pointer"], c["gated"], c["inferred"]) for c in report["changes"]] \
        == [("attribute-changed", "/instanceAction/events", "2.51", True)]
    assert (report["verdict"], code, report["warnings"]) == ("required", 1, [])
