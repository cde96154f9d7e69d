"""`history`: the release each commit shipped in is the first release tag that contains it,
wherever the tag sits (repository/shipped.py)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from repositories import PLACEMENT_PARAMETERS, Project, git, placement_like

from needs_microversion.repository.shipped import release_order


def _describe(repo: Project, words: str) -> dict[str, str]:
    """A documentation-only change to the api-ref: judged, needing no microversion."""
    return {"api-ref/source/parameters.yaml": PLACEMENT_PARAMETERS.replace(
        "A list of traits.", f"A list of traits ({words}).")}


def placement_shaped(top: Path) -> Project:
    """Placement's shape (issue: an empty release for a commit shipped in 9.0.0): the
    series' candidates and final release tagged on its stable branch only, annotated; the
    next release tagged on the main line after the last change to the documents."""
    repo = placement_like(top)
    repo.commit(_describe(repo, "shipped in 2.0.0"), "A: before the stable branch")
    git(repo.top, "checkout", "-q", "-b", "stable/two")
    repo.commit({"README.rst": "a backport\n"}, "a backport on the stable branch")
    for name in ("2.0.0.0rc1", "2.0.0"):
        git(repo.top, "tag", "-a", "-m", f"placement {name}", name)
    git(repo.top, "checkout", "-q", "main")
    repo.commit(_describe(repo, "shipped in 3.0.0"), "B: after the branch point")
    git(repo.top, "tag", "3.0.0.0b1")  # a milestone: no release
    repo.commit(_describe(repo, "also in 3.0.0"), "C: the last change to the documents")
    repo.commit({"README.rst": "release notes\n"}, "D: no document changed")
    git(repo.top, "tag", "-a", "-m", "placement 3.0.0", "3.0.0")
    return repo


def _releases(run_cli) -> list[tuple[str, str | None, bool]]:  # type: ignore[no-untyped-def]
    code, out, err = run_cli("history", "--format", "json")
    assert code == 0, err
    return [(c["subject"][:1], c["release"], c["release_date"] is not None)
            for c in json.loads(out)["commits"]]


def test_release_tags_off_the_line_and_after_the_last_change(
        tmp_path: Path, monkeypatch, run_cli) -> None:
    repo = placement_shaped(tmp_path / "placement")
    monkeypatch.chdir(repo.top)
    assert _releases(run_cli) == [("A", "2.0.0", True), ("B", "3.0.0", True),
                                  ("C", "3.0.0", True)]
    repo.commit(_describe(repo, "not released"), "E: after the last release")
    assert _releases(run_cli)[-2:] == [("C", "3.0.0", True), ("E", None, False)]


def test_a_release_on_a_merged_side_branch(tmp_path: Path, monkeypatch, run_cli) -> None:
    """A release tagged on a side branch that was merged later: it holds the line's commits
    up to where the branch left, not those merged beside it."""
    repo = placement_like(tmp_path / "placement")
    repo.commit(_describe(repo, "before the side branch"), "A: before the side branch")
    git(repo.top, "checkout", "-q", "-b", "side")
    repo.commit({"README.rst": "side\n"}, "on the side branch")
    git(repo.top, "tag", "4.0.0")
    git(repo.top, "checkout", "-q", "main")
    repo.commit(_describe(repo, "beside the side branch"), "B: beside the side branch")
    git(repo.top, "merge", "-q", "--no-ff", "-m", "Merge side", "side")
    monkeypatch.chdir(repo.top)
    assert _releases(run_cli) == [("A", "4.0.0", True), ("B", None, False)]


@pytest.mark.parametrize("names", [
    ["12.0.0", "12.0.0.0rc1", "12.0.0.0rc2", "12.0.1", "13.0.0.0rc1"],
    ["2015.1.0", "2015.1.0rc1", "2015.1.1", "2015.2.0"],
    ["9.0.0", "9.0.0.rc1", "10.0.0"],
], ids=["openstack", "dated", "dotted-candidate"])
def test_release_order_puts_a_final_release_before_its_candidates(names: list[str]) -> None:
    assert sorted(reversed(names), key=release_order) == names


def test_a_tag_of_a_missing_commit_costs_the_releases_not_the_history(
        tmp_path: Path, monkeypatch, run_cli) -> None:
    repo = placement_shaped(tmp_path / "placement")
    (repo.top / ".git" / "refs" / "tags" / "9.9.9").write_text("1" * 40 + "\n")
    monkeypatch.chdir(repo.top)
    assert [release for _, release, _ in _releases(run_cli)] == [None, None, None]
