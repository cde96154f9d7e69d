"""The order the finders are asked in (rules/corrections.py): the first to explain a change
wins; a change gated on a new microversion takes none; with rule catch-up off only rule
correction's finders run; every finding id a finder can attach is its rule's."""

from __future__ import annotations

from small_snapshots import OK, snapshot

from needs_microversion.compare import compare
from needs_microversion.rules import RULES
from needs_microversion.rules.catch_up import FINDERS as CATCH_UP
from needs_microversion.rules.correction import FINDERS as CORRECTION
from needs_microversion.rules.corrections import FIRST, ORDER, attach


def test_every_finder_id_is_declared_by_its_rule() -> None:
    declared = {rule.id: set(rule.finding_ids) for rule in RULES}
    assert all(set(f.ids) <= declared["catch-up"] for f in CATCH_UP)
    assert all(set(f.ids) <= declared["correction"] for f in CORRECTION)
    assert {f.name for f in (*FIRST, *ORDER)} == {f.name for f in (*CATCH_UP, *CORRECTION)}
    names = [f.name for f in ORDER]
    for finder in ORDER:  # what a finder reads was found before it
        assert all(names.index(seen) < names.index(finder.name) for seen in finder.sees)


def test_the_first_finder_wins_and_catch_up_off_runs_corrections_only() -> None:
    old = snapshot({"/a": {"get": {"responses": {"404": OK}}}})
    new = snapshot({"/a": {"get": {"responses": {"404": OK, "200": OK}}}})
    [change] = attach(compare(old, new), old, new)
    assert change.correction is not None
    assert change.correction.finding == "success-code-first-documented"
    [change] = attach(compare(old, new), old, new, catch_up=False)
    assert change.correction is None


def test_a_gated_change_takes_no_correction() -> None:
    old = snapshot({"/a": {"get": {"responses": {"404": OK}}}})
    new = snapshot({"/a": {"get": {"responses": {"404": OK, "200": {
        "description": "ok", "x-openstack": {"min-ver": "2.2"}}}}}}, info={"version": "2.2"})
    changes = attach(compare(old, new), old, new)
    assert changes and all(c.correction is None for c in changes if c.gated is not None)
