"""`needs-microversion check`: the configured API documents against a base revision.

    result = run_check(CheckRequest(files=("api-ref/source/servers.inc",), base="HEAD",
                                    staged=True))
    result.documents   # [(service name, Report)], one per compared document

Which two sides are compared, for every configured document (services' `documents`):
  --from-ref A --to-ref B (or PRE_COMMIT_FROM_REF/PRE_COMMIT_TO_REF, set by pre-commit for a
      range, as in pre-push): the merge-base of A and B against B, the change `A...B` makes.
  otherwise: the merge-base of HEAD with --base (default: the upstream branch, else
      origin/HEAD, main or master) against the working tree, or the index with --staged.
Files given as arguments (pre-commit passes the staged ones) keep only the documents they
touch: the file itself, anything inside an api-ref folder, a JSON/YAML file in a document's
folder tree (a `$ref` target). None touched: nothing is run, exit code 0.

Each document is one `run_diff` with its service's settings; the exit code is the worst
(2 > 1 > 0). The reports stay values: `report.render` combines them in each format.
"""

from __future__ import annotations

import os
import posixpath
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import TYPE_CHECKING, Any

from needs_microversion.config import Config, ServiceConfig, load_config
from needs_microversion.errors import InputError
from needs_microversion.loaders.git import Repo, cached, snapshot_name
from needs_microversion.model.verdict import Report

if TYPE_CHECKING:
    from needs_microversion.commands.diff import DiffRequest

DEFAULT_BASES = ("@{upstream}", "origin/HEAD", "main", "master")
# Files in a document's folder tree that a `$ref` may point at.
_REF_SUFFIXES = (".yaml", ".yml", ".json")


@dataclass(frozen=True)
class CheckRequest:
    files: tuple[str, ...] = ()  # relative to the current folder (pre-commit: to the top)
    base: str | None = None
    staged: bool = False
    from_ref: str | None = None
    to_ref: str | None = None
    fmt: str = "text"
    explain: bool = False
    validate: bool = True
    config: str | None = None


@dataclass(frozen=True)
class Side:
    """One side of every comparison: a commit, the index, or the working tree."""

    label: str | None  # REV for REV:PATH; "" the index; None the working tree
    commit: str | None  # None for the index and the working tree

    def name(self, repo: Repo, path: str) -> str:
        """What `load_snapshot` reads, and what reports show."""
        if self.label is None:
            return os.path.relpath(repo.top / path) if path else os.path.relpath(repo.top)
        return snapshot_name(self.label, path)


@dataclass(frozen=True)
class CheckResult:
    """The report of every compared document, labelled with its service's name, and the
    warnings of the whole run in the order they arose (each report's among them)."""

    documents: list[tuple[str, Report]] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)

    @property
    def exit_code(self) -> int:
        """The worst of the reports' (0 when nothing was compared)."""
        return max((report.exit_code for _, report in self.documents), default=0)


@dataclass(frozen=True)
class Target:
    service: ServiceConfig
    path: str  # relative to the repository top, "/"-separated


def run_check(request: CheckRequest) -> CheckResult:
    """The reports of the configured documents the request compares."""
    with cached():  # nothing changes the repository during a run
        return _run_check(request)


def _run_check(request: CheckRequest) -> CheckResult:
    config = load_config(request.config)
    if not config.services:
        raise InputError(f"no API documents configured ({config.display}): add services "
                         "with documents to .needs-microversion.yaml or [tool.needs-microversion]"
                         " in pyproject.toml, or compare two files with 'diff'")
    repo = Repo.find(config.root, "not inside a git repository, so there is nothing to "
                                  "compare the documents with", str(config.root))
    targets = _targets(config, repo)
    if request.files:
        touched = {_in_repo(repo, Path(name).absolute()) for name in request.files}
        targets = [t for t in targets if _touches(touched, t, repo)]
        if not targets:  # pre-commit on a commit that touches no API document
            return CheckResult()
    _same_repository(repo)
    warnings: list[str] = []
    sides = _sides(repo, request, warnings)
    if sides is None:
        return CheckResult(warnings=warnings)
    old, new = sides
    # The comparison machinery is imported only when there is something to compare.
    from needs_microversion.commands.diff import run_diff

    documents: list[tuple[str, Report]] = []
    changed: tuple[str, ...] | None = None
    for target in targets:
        at_base, present = bool(repo.entry(old.commit, target.path)[0]), \
            _present(repo, new, target.path)
        if not present:
            raise InputError(f"configured in {config.display} but missing {_where(new)}"
                             f"{'' if at_base else ' and at the base'}",
                             new.name(repo, target.path))
        if not at_base:
            warnings.append(f"{new.name(repo, target.path)}: new since "
                            f"{old.label}; nothing to compare with")
            continue
        if changed is None:
            changed = _changed_paths(repo, config, old, new)
        extra = _bookkeeping(repo, config, target.service, old, new, changed)
        diff = _request(old.name(repo, target.path), new.name(repo, target.path), request,
                        config, target.service, extra)
        report = run_diff(diff)
        warnings.extend(report.warnings)
        documents.append((target.service.name, report))
    return CheckResult(documents, warnings)


# -- the two sides ---------------------------------------------------------------------------

def _same_repository(repo: Repo) -> None:
    """REV:PATH names are read in the current folder's repository: it must be this one."""
    here = Repo.find(Path.cwd(), "run 'check' inside the git repository of the configured "
                                 "documents", str(Path.cwd()))
    if os.path.realpath(here.top) != os.path.realpath(repo.top):
        raise InputError(f"run 'check' inside {repo.top}, the repository of the configured "
                         f"documents", str(Path.cwd()))


def _sides(repo: Repo, request: CheckRequest, warnings: list[str]) -> tuple[Side, Side] | None:
    from_ref, to_ref = request.from_ref or None, request.to_ref or None
    if bool(from_ref) != bool(to_ref):
        raise InputError("--from-ref and --to-ref (PRE_COMMIT_FROM_REF and PRE_COMMIT_TO_REF) "
                         "go together")
    if from_ref and to_ref:
        to_commit = _commit(repo, to_ref, "--to-ref")
        return (_base_side(repo, from_ref, (to_commit, to_ref), "--from-ref"),
                Side(to_ref, to_commit))
    head = repo.commit("HEAD")
    if head is None:
        # No commit yet: every document is new.
        warnings.append(f"{repo.top}: no commit yet; nothing to compare with")
        return None
    base = request.base or _default_base(repo)
    return (_base_side(repo, base, (head, "HEAD"), "--base"),
            Side("" if request.staged else None, None))


def _default_base(repo: Repo) -> str:
    for candidate in DEFAULT_BASES:
        if repo.commit(candidate) is not None:
            return candidate
    raise InputError("no base to compare with (no upstream branch, origin/HEAD, main or "
                     "master): pass --base REV", str(repo.top))


def _base_side(repo: Repo, rev: str, other: tuple[str, str], option: str) -> Side:
    """The merge-base of `rev` and the other side's (commit, name), named `rev` when it is
    that very commit, else by its abbreviated id."""
    commit = _commit(repo, rev, option)
    base = repo.merge_base(commit, other[0], f"{rev} and {other[1]}")
    return Side(rev if base == commit else base[:12], base)


def _commit(repo: Repo, rev: str, option: str) -> str:
    commit = repo.commit(rev)
    if commit is None:
        raise InputError(f"{option} {rev}: unknown revision in {repo.top}")
    return commit


def _where(side: Side) -> str:
    if side.label is None:
        return "from the working tree"
    return "from the index" if side.label == "" else f"at revision {side.label}"


def _present(repo: Repo, side: Side, path: str) -> bool:
    if side.label is None:
        return (repo.top / path).exists()
    return bool(repo.entry(side.commit, path)[0])


# -- the documents ---------------------------------------------------------------------------

def _targets(config: Config, repo: Repo) -> list[Target]:
    """Every configured document once (first service wins), as a repository path."""
    seen: dict[str, Target] = {}
    for service in config.services:
        for entry in service.documents:
            for path in _expand(config.root, entry):
                rel = _in_repo(repo, path)
                if rel is None:
                    raise InputError(f"document {entry!r} of service {service.name!r} is "
                                     f"outside the repository {repo.top}", config.display)
                seen.setdefault(rel, Target(service, rel))
    return list(seen.values())


def _expand(root: Path, entry: str) -> list[Path]:
    """A path as written, or the working-tree matches of a glob (sorted)."""
    if not any(char in entry for char in "*?["):
        return [root / entry]
    return sorted(root.glob(entry))


def _in_repo(repo: Repo, path: Path) -> str | None:
    """`path` relative to the repository top, "/"-separated; None outside it."""
    rel = os.path.relpath(os.path.normpath(path), os.path.realpath(repo.top))
    if rel.startswith(os.pardir):
        # The path may run through a symlinked folder: compare real paths.
        rel = os.path.relpath(os.path.realpath(path), os.path.realpath(repo.top))
        if rel.startswith(os.pardir):
            return None
    rel = rel.replace(os.sep, "/")
    return "" if rel == "." else rel


def _touches(files: set[str | None], target: Target, repo: Repo) -> bool:
    path = target.path
    folder = (path + "/") if path else ""
    is_file = (repo.top / path).is_file()
    ref_tree = posixpath.dirname(path) + "/" if is_file and posixpath.dirname(path) else ""
    for name in files:
        if name is None:
            continue
        if name == path or (not is_file and name.startswith(folder)):
            return True
        if is_file and name.startswith(ref_tree) and name.endswith(_REF_SUFFIXES):
            return True
    return False


# -- the bookkeeping inputs: version files and changed paths ---------------------------------

def _changed_paths(repo: Repo, config: Config, old: Side, new: Side) -> tuple[str, ...]:
    """Paths that differ between the sides, relative to the configuration's folder."""
    args = ["diff", "--name-only", "-z", "--no-renames", "--no-ext-diff", "--no-textconv"]
    if new.commit is not None:
        out = repo.git(*args, str(old.commit), new.commit)
    else:
        out = repo.git(*args, *(["--cached"] if new.label == "" else []), str(old.commit))
    names = [name for name in out.decode("utf-8", "surrogateescape").split("\0") if name]
    if new.label is None:  # files not added yet count too: a new release note
        out = repo.git("ls-files", "-z", "--others", "--exclude-standard")
        names.extend(name for name in out.decode("utf-8", "surrogateescape").split("\0")
                     if name)
    found = []
    for name in sorted(set(names)):
        rel = os.path.relpath(repo.top / name, config.root).replace(os.sep, "/")
        if not rel.startswith("../"):
            found.append(rel)
    return tuple(found)


def _bookkeeping(repo: Repo, config: Config, service: ServiceConfig, old: Side, new: Side,
                 changed: tuple[str, ...]) -> dict[str, Any]:
    extra: dict[str, Any] = {"changed_paths": changed}
    if service.version_file:
        path = _in_repo(repo, config.root / service.version_file)
        if path is not None:
            extra["old_version_file_text"] = _text_at(repo, old, path)
            extra["new_version_file_text"] = _text_at(repo, new, path)
    return extra


def _text_at(repo: Repo, side: Side, path: str) -> str | None:
    if side.label is None:
        try:
            return (repo.top / path).read_text(encoding="utf-8", errors="replace")
        except OSError:
            return None
    kind, item = repo.entry(side.commit, path)
    if kind != "file" or item is None:
        return None
    return repo.blobs([item], snapshot_name(side.label, path))[item.sha].decode(
        "utf-8", "replace")


def _request(old: str, new: str, request: CheckRequest, config: Config,
             service: ServiceConfig, extra: dict[str, Any]) -> DiffRequest:
    """A diff with the service's settings; fields this DiffRequest lacks are left out."""
    from needs_microversion.commands.diff import DiffRequest

    known = {field.name for field in fields(DiffRequest)}
    wanted: dict[str, Any] = {
        "old": old, "new": new, "fmt": request.fmt, "explain": request.explain,
        "validate": request.validate, "service": service.name,
        "config": str(config.path) if config.path else None, **extra}
    return DiffRequest(**{key: value for key, value in wanted.items() if key in known})
