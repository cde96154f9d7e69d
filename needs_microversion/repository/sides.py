"""The two revisions a `check` compares, chosen as a reviewer would: the change's own
commits when named, else everything on this branch since it left the base branch.

    old, new = choose_sides(repo, None, None, None, staged=False, warnings=[])
"""

from __future__ import annotations

from needs_microversion.errors import InputError
from needs_microversion.loaders.git import Repo
from needs_microversion.repository.revision import Revision

DEFAULT_BASES = ("@{upstream}", "origin/HEAD", "main", "master")


def choose_sides(repo: Repo, from_ref: str | None, to_ref: str | None, base: str | None,
                 staged: bool, warnings: list[str]) -> tuple[Revision, Revision] | None:
    """The revisions `check` compares: --from-ref/--to-ref (the pre-push and CI way), else
    the merge-base with the base branch and the working tree (or the index, `staged`).
    None when the repository has no commit yet (a warning says so)."""
    from_ref, to_ref = from_ref or None, to_ref or None
    if bool(from_ref) != bool(to_ref):
        raise InputError("--from-ref and --to-ref (PRE_COMMIT_FROM_REF and PRE_COMMIT_TO_REF) "
                         "go together")
    if from_ref and to_ref:
        to_commit = _commit(repo, to_ref, "--to-ref")
        return (_base_side(repo, from_ref, (to_commit, to_ref), "--from-ref"),
                Revision(repo, to_commit, to_ref))
    head = repo.commit("HEAD")
    if head is None:
        # No commit yet: every document is new.
        warnings.append(f"{repo.top}: no commit yet; nothing to compare with")
        return None
    base = base or _default_base(repo)
    return (_base_side(repo, base, (head, "HEAD"), "--base"),
            Revision.index(repo) if staged else Revision.working(repo))


def _default_base(repo: Repo) -> str:
    for candidate in DEFAULT_BASES:
        if repo.commit(candidate) is not None:
            return candidate
    raise InputError("no base to compare with (no upstream branch, origin/HEAD, main or "
                     "master): pass --base REV", str(repo.top))


def _base_side(repo: Repo, rev: str, other: tuple[str, str], option: str) -> Revision:
    """The merge-base of `rev` and the other side's (commit, name), named `rev` when it is
    that very commit, else by its abbreviated id."""
    commit = _commit(repo, rev, option)
    base = repo.merge_base(commit, other[0], f"{rev} and {other[1]}")
    return Revision(repo, base, rev if base == commit else base[:12])


def _commit(repo: Repo, rev: str, option: str) -> str:
    commit = repo.commit(rev)
    if commit is None:
        raise InputError(f"{option} {rev}: unknown revision in {repo.top}")
    return commit
