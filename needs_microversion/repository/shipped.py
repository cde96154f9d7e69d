"""The release each commit of a first-parent line shipped in: the first release tag that
contains it.

    shipped = shipped_in(repo, until, commits)   # {commit: Shipped("9.0.0", "2023-03-22")}

A release tag contains a line commit when the commit is one of its ancestors, wherever the
tag sits. OpenStack tags each release candidate on the main line where the stable branch
starts, but not always: the final release and later candidates sit on the stable branch
(placement 2.0.0, 6.0.0), and a project may tag its releases there only. So each release
tag's reach is the newest line commit it contains (the tag itself when it is on the line,
else where its branch left the line), and a commit shipped in the tag of least reach at or
after it; at equal reach the final release wins over its candidates (`9.0.0`, not
`9.0.0.0rc1`, both on one commit) and the lower version over the higher (a stable point
release has the reach of its series' first one).

The line is `until`'s whole first-parent line, not just the judged commits: the last commit
that touched the documents precedes the tag of the release that shipped it (placement's
last API change of 2022 shipped in 9.0.0, tagged months later on a commit that changed no
document).
"""

from __future__ import annotations

import re
from bisect import bisect_left
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from needs_microversion.errors import InputError
from needs_microversion.loaders.git import Repo
from needs_microversion.repository.releases import is_release_tag

# 33.0.0.0rc1 -> numbers 33.0.0.0, candidate 1; 2015.1.0 -> 2015.1.0, final.
_PARTS = re.compile(r"^(\d+(?:\.\d+)*?)(?:\.?rc(\d+))?$")
_UNREACHED = -1  # a tag with no line commit among its ancestors (an unrelated history)


@dataclass(frozen=True)
class Shipped:
    release: str  # the release tag
    date: str  # the tag's date (a tagger's, else its commit's), YYYY-MM-DD


@dataclass(frozen=True)
class _Tag:
    name: str
    commit: str
    date: str


def shipped_in(repo: Repo, until: str, commits: Sequence[str]) -> dict[str, Shipped]:
    """Commit -> the first release that contains it, for the commits of `until`'s
    first-parent line; a commit no release contains yet is left out."""
    if not commits:
        return {}
    line = repo.git("rev-list", "--first-parent", until).decode().split()[::-1]
    index = {commit: at for at, commit in enumerate(line)}
    tags = _release_tags(repo)
    reach = _reach(repo, until, index, {tag.commit for tag in tags})
    points = sorted((reach[tag.commit], release_order(tag.name), tag.name, tag.date)
                    for tag in tags if reach[tag.commit] != _UNREACHED)
    wheres = [point[0] for point in points]
    found: dict[str, Shipped] = {}
    for commit in commits:
        position = index.get(commit)
        at = len(points) if position is None else bisect_left(wheres, position)
        if at < len(points):
            found[commit] = Shipped(points[at][2], points[at][3])
    return found


def release_order(name: str) -> tuple[int, ...]:
    """Sort key of a release tag: by its numbers, the final release before its candidates
    (`12.0.0` < `12.0.0.0rc1` < `12.0.0.0rc2` < `12.0.1`)."""
    match = _PARTS.match(name)
    if match is None:
        return (0,)
    numbers = [int(part) for part in match.group(1).split(".")]
    if match.group(2) is not None:
        # 12.0.0.0rc1: the fourth 0 belongs to the candidate's spelling, not the version.
        while len(numbers) > 3 and numbers[-1] == 0:
            numbers.pop()
    numbers += [0] * (4 - len(numbers))
    candidate = (1, int(match.group(2))) if match.group(2) is not None else (0, 0)
    return (*numbers, *candidate)


def _release_tags(repo: Repo) -> list[_Tag]:
    """Every release tag with the commit it names (annotated tags peeled) and its date."""
    try:
        listing = repo.git("for-each-ref", "--format=%(refname)%00%(objecttype)%00"
                           "%(objectname)%00%(*objecttype)%00%(*objectname)%00"
                           "%(creatordate:short)", "refs/tags").decode("utf-8", "replace")
    except InputError:  # a tag naming a missing object: no release is known, rows go on
        return []
    tags = []
    for entry in listing.splitlines():
        fields = (entry.split("\0") + [""] * 6)[:6]
        name = fields[0].removeprefix("refs/tags/")
        if not is_release_tag(name):
            continue
        kind, target, peeled_kind, peeled, date = fields[1:]
        commit = target if kind == "commit" else peeled if peeled_kind == "commit" else None
        if kind == "tag" and peeled_kind == "tag":  # a tag of a tag: peel it all the way
            commit = repo.commit(f"refs/tags/{name}^{{commit}}")
        if commit:
            tags.append(_Tag(name, commit, date))
    return tags


def _reach(repo: Repo, until: str, index: dict[str, int], commits: Iterable[str]
           ) -> dict[str, int]:
    """Tag commit -> the position of the newest line commit among its ancestors.

    One walk covers every tag off the line: the commits they hold that `until` does not
    (their stable branches), parents before children, each taking the best of its parents;
    a parent `until` holds is where the branch left (the line, or a merged side branch)."""
    reach = {commit: index[commit] for commit in commits if commit in index}
    off_line = sorted(commit for commit in commits if commit not in index)
    if not off_line:
        return reach
    try:
        out = repo.git("rev-list", "--topo-order", "--parents", *off_line, f"^{until}")
        graph = [line.split() for line in out.decode().splitlines() if line.strip()]
        outside = {entry[0] for entry in graph}
        below: dict[str, int] = {}
        joined: dict[str, int] = {}  # an ancestor of `until` off the line -> its position
        for commit, *parents in reversed(graph):  # parents first
            below[commit] = max((below[parent] if parent in outside
                                 else _joined(repo, index, parent, joined)
                                 for parent in parents), default=_UNREACHED)
        for commit in off_line:
            reach[commit] = below[commit] if commit in outside \
                else _joined(repo, index, commit, joined)
    except InputError:
        # A clone without the tags' commits (a missing object): the releases on the line
        # still count; a row's release is a help, not a reason to stop the history.
        reach.update({commit: _UNREACHED for commit in off_line})
    return reach


def _joined(repo: Repo, index: dict[str, int], commit: str, memo: dict[str, int]) -> int:
    """The newest line commit among the ancestors of `commit`, which `until` holds (on the
    line: itself; on a merged side branch: the line commits it was built on)."""
    if commit in index:
        return index[commit]
    if commit not in memo:
        ancestors = repo.git("rev-list", commit).decode().split()
        memo[commit] = max((index[a] for a in ancestors if a in index), default=_UNREACHED)
    return memo[commit]
