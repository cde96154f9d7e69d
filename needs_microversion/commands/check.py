"""`needs-microversion check`: the repository's API documents against a base revision.

    result = run_check(CheckRequest(files=("api-ref/source/servers.inc",), base="HEAD",
                                    staged=True))
    result.documents   # [(service name, Report)], one per compared document

Which two sides are compared:
  --from-ref A --to-ref B (or PRE_COMMIT_FROM_REF/PRE_COMMIT_TO_REF, set by pre-commit for a
      range, as in pre-push): the merge-base of A and B against B, the change `A...B` makes.
      Everything is read from the two revisions through git (a CI clone made without a
      checkout works), the configuration file too when none is on disk.
  otherwise: the merge-base of HEAD with --base (default: the upstream branch, else
      origin/HEAD, main or master) against the working tree, or the index with --staged.

Which documents, and what else is read: the configured services' documents when a
configuration names some; otherwise the repository's own layout (`repository.layout`: the
api-ref tree, or OpenAPI documents; with neither, a microversioned API's version record:
its version file and history document, judged alone), with its version file, version
history document, release notes and release tags as evidence (`repository.evidence`). A
configured setting (version-file, released-max, profile) overrides what was found.
Files given as arguments (pre-commit passes the staged ones) keep only the documents they
touch (the file itself, anything inside an api-ref folder, a JSON/YAML file in a document's
folder tree) or the evidence they change (the version file, the history document, release
notes). None touched: nothing is run, exit code 0.

Each document is one `run_diff`; the exit code is the worst (2 > 1 > 0) under `--fail-on`
(`model.fail_on`). Warnings that stand in the repository: the baseline silences those it
lists, one line sums up the rest about untouched files (`baseline.settle`). The reports stay
values: `report.render` combines them in each format.
"""

from __future__ import annotations

import fnmatch
import os
import posixpath
from dataclasses import dataclass, field, replace
from collections.abc import Callable
from functools import cache, partial
from pathlib import Path

from needs_microversion.collector import collector_paused, linger
from needs_microversion.commands.baseline import Silencing, Standing, check_baseline, settle
from needs_microversion.config import CONFIG_NAMES, Config, ServiceConfig, load_config, \
    parse_config
from needs_microversion.documents.files import current_folder, possible_path
from needs_microversion.errors import InputError
from needs_microversion.loaders.git import Repo, cached
from needs_microversion.model.fail_on import DEFAULT_FAIL_ON, FailOn, exit_code
from needs_microversion.model.verdict import Report
from needs_microversion.report.common import in_worktree
from needs_microversion import forked
from needs_microversion.repository.code import CODE_PROJECTS, SideReader, touches_api_code
from needs_microversion.repository.evidence import RepositoryEvidence, gather
from needs_microversion.repository.layout import Layout, detect, version_record
from needs_microversion.repository.releases import Release
from needs_microversion.repository.revision import Revision, changed_paths
from needs_microversion.repository.sides import choose_sides

# Files in a document's folder tree that a `$ref` may point at.
_REF_SUFFIXES = (".yaml", ".yml", ".json")


@dataclass(frozen=True)
class CheckRequest:
    files: tuple[str, ...] = ()  # relative to the current folder (pre-commit: to the top)
    base: str | None = None
    staged: bool = False
    from_ref: str | None = None
    to_ref: str | None = None
    validate: bool = True
    config: str | None = None
    # How to judge, as for diff (None/empty: the configuration, then the profile, decides).
    silent_failures: tuple[str, ...] = ()
    exempt_error_codes: bool | None = None
    free_form: tuple[str, ...] = ()
    disabled: tuple[str, ...] = ()
    profile: str | None = None
    catch_up: bool | None = None
    count_corrections: bool | None = None
    all_warnings: bool = False  # list warnings about untouched files one by one
    fail_on: FailOn | None = None  # None: the configuration's, else required
    baseline: str | None = None  # a baseline file; None: the configuration's, if any


@dataclass(frozen=True)
class CheckResult:
    """The report of every compared document, labelled with its service's name, and the
    warnings of the whole run in the order they arose (each report's among them)."""

    documents: list[tuple[str, Report]] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    fail_on: FailOn = DEFAULT_FAIL_ON
    silencing: Silencing = Silencing(None)
    standing: tuple[Standing, ...] = ()  # every warning left, summed up or not (a baseline's)

    @property
    def exit_code(self) -> int:
        """The worst of the reports' under `fail_on` (0 when nothing was compared)."""
        return max((exit_code(report, self.fail_on) for _, report in self.documents),
                   default=0)


@dataclass(frozen=True)
class Target:
    service: ServiceConfig
    path: str  # relative to the repository top, "/"-separated
    configured: bool  # named by a configuration file (else found in the layout)
    record: bool = False  # no documents: the version file's record is judged (`path`)


def run_check(request: CheckRequest) -> CheckResult:
    """The reports of the documents the request compares."""
    with cached():  # nothing changes the repository during a run
        here = current_folder()
        repo = Repo.find(here, "not inside a git repository, so there is nothing to compare "
                               "the documents with", str(here))
        warnings: list[str] = []
        sides = choose_sides(repo, request.from_ref, request.to_ref, request.base,
                             request.staged, warnings)
        if sides is None:
            return CheckResult(warnings=warnings, fail_on=request.fail_on or DEFAULT_FAIL_ON)
        return diff_targets(repo, *sides, request, warnings, with_baseline=True)


# What a change reads (trees, code, snapshots) is no cyclic garbage (see collector.py): the
# code reader's parse of ~160 modules alone spent 30% of its time in collections.
@collector_paused()
def diff_targets(repo: Repo, old: Revision, new: Revision, request: CheckRequest,
                 warnings: list[str] | None = None, *, with_baseline: bool = False
                 ) -> CheckResult:
    """Every API document of the repository, from `old` to `new`, with the evidence: the
    targets first (`plan_change`), then one diff per target; `with_baseline`, the warnings
    the baseline lists silenced (`check`: `history` judges past commits, for which today's
    baseline says nothing)."""
    warnings = [] if warnings is None else warnings
    changed = changed_paths(repo, old, new)
    # The code's contract is read (both sides, each in a child process) while the
    # documents are compared: the two cost about the same and do not depend on each other.
    # The children start as soon as the change is seen to edit some project's API code
    # (the longest part of the run), and are ended if the plan reads no code after all.
    readers: list[SideReader] = []
    try:
        if any(touches_api_code(changed, project) for project in CODE_PROJECTS):
            new.files()  # listed once, here: the child starts with it, the plan needs it
            readers.append(SideReader(new, fork=True))  # the longest: started first
            readers.insert(0, SideReader(old))  # may fail (its version file): new is ended
        plan = plan_change(repo, old, new, request, changed)
    except BaseException:
        for side in readers:
            side.stop()
        raise
    sides = (readers[0], readers[1]) if readers else None
    if sides is not None and not _reads_code(plan, request):
        for side in sides:
            side.stop()
        sides = None
    documents: list[tuple[str, Report]] = []  # none when no API document is touched
    evidence: dict[str, Evidence] = {}  # by service: it may name its version file
    # So is the evidence (the version gates the changed code adds, the release tags): the
    # documents' judge asks for it once their trees are read.
    children: list[Callable[[], object]] = [s.stop for s in sides or ()]
    if sides is not None:  # the documents' additions are asked whether the base code served them
        found = forked.Later(partial(_evidence, plan.old, plan.new, plan.layout, plan.service,
                                     plan.config, plan.repo, plan.changed))
        children.append(found.stop)
        evidence[plan.service.service.name] = cache(
            lambda: replace(found(), served=sides[0].snapshot))
    try:
        for target in plan.targets:
            documents += _diff_target(plan, target, request, evidence, warnings)
        if sides is not None:
            documents += _diff_code(plan, request, evidence, documents, warnings, sides)
    finally:  # a child whose answer was not taken (the run failed first) is ended
        for stop in children:
            stop()
    baseline = check_baseline(request.baseline, plan.config, new) if with_baseline else None
    # A check of some files reads their documents only: the baseline's other entries are
    # not stale for that.
    settled = settle(documents, warnings, baseline,
                     tuple(in_worktree(new.name(path)) for path in plan.changed),
                     list_all=request.all_warnings, whole=not request.files)
    linger(plan, sides, evidence, documents)  # the readings: never freed one by one
    return CheckResult(settled.documents, settled.warnings,
                       request.fail_on or plan.config.fail_on or DEFAULT_FAIL_ON,
                       settled.silencing, settled.standing)


def _reads_code(plan: ChangePlan, request: CheckRequest) -> bool:
    """Whether the change edits the API's code of a project whose code declares its
    contract (`CODE_PROJECTS`), and no configuration names the documents instead."""
    project = plan.layout.project if plan.layout is not None else ""
    return project in CODE_PROJECTS and touches_api_code(plan.changed, project) \
        and not plan.config.services and not (request.files and not any(
            touches_api_code((name,), project) for name in _touched(plan, request)))


def _diff_code(plan: ChangePlan, request: CheckRequest,
               evidence: dict[str, Evidence], documents: list[tuple[str, Report]],
               warnings: list[str], sides: tuple[SideReader, SideReader]
               ) -> list[tuple[str, Report]]:
    """The contract the code declares, read at both revisions, judged beside the
    documents: a contract change only the code shows is a change all the same ("api-ref not
    updated" is said with it)."""
    from needs_microversion.commands.diff import DiffRequest, run_snapshots

    old_side, new_side = sides[0](), sides[1]()
    if old_side is None or new_side is None:
        return []
    target = plan.service
    service = target.service.name
    if service not in evidence:
        evidence[service] = _given(_evidence(plan.old, plan.new, plan.layout, target,
                                             plan.config, plan.repo, plan.changed))
    diff = DiffRequest(old=old_side.snapshot.display, new=new_side.snapshot.display,
                       validate=False, loaded_config=plan.config, evidence=evidence[service],
                       profile=request.profile or (plan.layout.profile if plan.layout else None),
                       silent_failures=request.silent_failures,
                       exempt_error_codes=request.exempt_error_codes,
                       free_form=request.free_form, disabled=request.disabled,
                       count_corrections=request.count_corrections)
    old_snapshot = replace(old_side.snapshot, warnings=old_side.warnings)
    new_snapshot = replace(new_side.snapshot, warnings=new_side.warnings)
    report = _api_reference_item(
        run_snapshots(diff, old_snapshot, new_snapshot, version_record=False), documents)
    if report.unprovided() and not any(r.findings for _, r in documents):
        report = replace(report, notes=(
            "api-ref not updated: the documents show none of these changes", *report.notes))
    warnings.extend(report.warnings)
    return [(f"{service} code", report)]


def _api_reference_item(report: Report, documents: list[tuple[str, Report]]) -> Report:
    """The code's report ticks "the API reference" only as the documents' report does (its
    own gated changes say nothing of the documents): unknown when no document was read."""
    books = report.bookkeeping
    if books is None:
        return report
    theirs = {item: done for _, other in documents if other.bookkeeping is not None
              for item, done in other.bookkeeping.checklist}
    checklist = tuple((item, theirs.get(item) if item.startswith("the API reference") else done)
                      for item, done in books.checklist)
    return replace(report, bookkeeping=replace(books, checklist=checklist))


def _touched(plan: ChangePlan, request: CheckRequest) -> tuple[str, ...]:
    return tuple(path for name in request.files
                 if possible_path(name) and (path := _in_repo(plan.repo,
                                                             Path(name).absolute())))


@dataclass(frozen=True)
class ChangePlan:
    """What one change compares: the documents (targets) and what else a reviewer reads."""

    repo: Repo
    old: Revision
    new: Revision
    config: Config
    layouts: tuple[Layout | None, Layout | None]  # found at the old and new revisions
    layout: Layout | None  # the one judged by: the new revision's, else the old's
    targets: tuple[Target, ...]  # those the request's files touch, when it names some
    service: Target  # the repository's first document (its service's settings, evidence)
    changed: tuple[str, ...]  # the paths that differ, from the top


def plan_change(repo: Repo, old: Revision, new: Revision, request: CheckRequest,
                changed: tuple[str, ...] | None = None) -> ChangePlan:
    """The documents to compare (those the request's files touch, when it names some);
    InputError when the repository has none at all."""
    old_layout, new_layout = detect(old), detect(new)
    config = _config(repo, new, request)  # after: asked of the listing, not of git
    layout = new_layout or old_layout or (None if config.services else version_record(new))
    targets = _targets(config, repo, new, layout)
    if not targets:
        raise InputError("no API documents found (looked for an api-ref source tree, a specs/ "
                         "folder, openapi/swagger files and a version file): name them in "
                         ".needs-microversion.yaml, or compare two files with 'diff'",
                         str(repo.top))
    changed = changed_paths(repo, old, new) if changed is None else changed
    first = targets[0]
    if request.files:
        touched = {_in_repo(repo, Path(name).absolute()) for name in request.files
                   if possible_path(name)}  # a name no file system takes touches nothing
        targets = [t for t in targets if _touches(touched, t, new, layout)]
    return ChangePlan(repo, old, new, config, (old_layout, new_layout), layout,
                      tuple(targets), first, changed)


def _diff_target(plan: ChangePlan, target: Target, request: CheckRequest,
                 evidence: dict[str, Evidence], warnings: list[str]
                 ) -> list[tuple[str, Report]]:
    """The reports of one target (several for a folder of OpenAPI documents); a target
    gone or new since the base is a warning, or an error when configured."""
    # The comparison machinery is imported only when there is something to compare.
    from needs_microversion.commands.diff import DiffRequest, run_diffs, run_record

    old, new, config = plan.old, plan.new, plan.config
    old_layout, new_layout = plan.layouts
    at_base = old.exists(target.path) if target.configured or target.record else \
        old_layout is not None and target.path in old_layout.documents
    base_path = target.path if at_base else None if target.configured or target.record \
        else _moved_from(old_layout, new_layout, new)
    if not new.exists(target.path):
        if target.configured:
            raise InputError(f"configured in {config.display} but missing "
                             f"{_where(new)}{'' if at_base else ' and at the base'}",
                             new.name(target.path))
        warnings.append(f"{new.name(target.path)}: removed {_where(new)}")
        return []
    if base_path is None:
        warnings.append(f"{new.name(target.path)}: new since {old.label}; nothing to "
                        "compare with")
        return []
    if target.service.name not in evidence:
        evidence[target.service.name] = _given(_evidence(old, new, plan.layout, target,
                                                         config, plan.repo, plan.changed))
    profile = request.profile or (None if target.service.profile or plan.layout is None
                                  else plan.layout.profile)
    diff = DiffRequest(old=old.name(base_path), new=new.name(target.path),
                       validate=request.validate,
                       service=target.service.name if target.configured else None,
                       loaded_config=config, evidence=evidence[target.service.name],
                       profile=profile, silent_failures=request.silent_failures,
                       exempt_error_codes=request.exempt_error_codes,
                       free_form=request.free_form, disabled=request.disabled,
                       catch_up=request.catch_up, count_corrections=request.count_corrections,
                       root=str(plan.repo.top) if new.on_disk else None)
    found = [(None, run_record(diff))] if target.record else run_diffs(diff)
    warnings.extend(w for _, report in found for w in report.warnings)
    return [(f"{target.service.name} {key}" if key else target.service.name, report)
            for key, report in found]


def _moved_from(old: Layout | None, new: Layout | None, at: Revision) -> str | None:
    """Where the one document tree of the new layout was moved from: the one tree of the old
    layout, gone at the new revision (placement's `git mv placement-api-ref api-ref`). A
    reviewer compares the moved tree with the tree it was."""
    if old is None or new is None or len(old.documents) != 1 or len(new.documents) != 1:
        return None
    before = old.documents[0]
    return before if not at.exists(before) else None


def _where(side: Revision) -> str:
    if side.on_disk:
        return "from the working tree"
    return "from the index" if side.label == "" else f"at revision {side.label}"


# -- configuration and documents -------------------------------------------------------------

def _config(repo: Repo, new: Revision, request: CheckRequest) -> Config:
    """The configuration on disk; for two revisions without one on disk (a CI clone made
    without a checkout), the one the new revision holds at the repository's top."""
    config = load_config(request.config)
    if config.path is not None or request.config or new.on_disk or new.label == "":
        if config.path is not None:
            _same_repository(repo, config)
        return config
    for name in CONFIG_NAMES:
        text = new.text(name)
        if text is not None:
            found = parse_config(text, name, repo.top, new.name(name))
            if found is not None:
                return found
    return config


def _same_repository(repo: Repo, config: Config) -> None:
    """The configured documents are read in the current folder's repository."""
    if _in_repo(repo, config.root) is None:
        raise InputError(f"run 'check' inside the repository of {config.display}",
                         str(current_folder()))


def _targets(config: Config, repo: Repo, new: Revision, layout: Layout | None
             ) -> list[Target]:
    """The configured documents (first service wins), else the layout's."""
    if not config.services:
        if layout is None:
            return []
        service = ServiceConfig(name=layout.project or repo.top.name,
                                documents=layout.documents)
        if not layout.documents and layout.version_file is not None:
            return [Target(service, layout.version_file, configured=False, record=True)]
        return [Target(service, path, configured=False) for path in layout.documents]
    seen: dict[str, Target] = {}
    for service in config.services:
        for entry in service.documents:
            for rel in _expand(config, repo, new, entry, service):
                seen.setdefault(rel, Target(service, rel, configured=True))
    return list(seen.values())


def _expand(config: Config, repo: Repo, new: Revision, entry: str, service: ServiceConfig
            ) -> list[str]:
    """A path as written, or the matches of a glob among the new revision's files."""
    root = _in_repo(repo, config.root)
    if root is None or os.path.isabs(entry):
        raise InputError(f"document {entry!r} of service {service.name!r} is outside the "
                         f"repository {repo.top}", config.display)
    joined = posixpath.normpath(posixpath.join(root, entry)) if root else \
        posixpath.normpath(entry)
    if joined == ".." or joined.startswith("../"):
        raise InputError(f"document {entry!r} of service {service.name!r} is outside the "
                         f"repository {repo.top}", config.display)
    if not any(char in entry for char in "*?["):
        return ["" if joined == "." else joined]
    return sorted({name for name in new.files() if fnmatch.fnmatchcase(name, joined)})


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


def _touches(files: set[str | None], target: Target, new: Revision, layout: Layout | None
             ) -> bool:
    """A touched file is the document, inside its folder, a `$ref` target beside it, or
    evidence: the version file, the history document, a release note."""
    path = target.path
    folder = (path + "/") if path else ""
    is_file = path in new.files() if not new.on_disk else (new.repo.top / path).is_file()
    ref_tree = posixpath.dirname(path) + "/" if is_file and posixpath.dirname(path) else ""
    evidence = ({layout.version_file, *layout.history_docs} - {None}) if layout else set()
    notes = (layout.release_notes + "/") if layout and layout.release_notes else None
    for name in files:
        if name is None:
            continue
        if name == path or (not is_file and name.startswith(folder)) or name in evidence:
            return True
        if is_file and name.startswith(ref_tree) and name.endswith(_REF_SUFFIXES):
            return True
        if notes and name.startswith(notes):
            return True
    return False


# -- the evidence ----------------------------------------------------------------------------

# A service's evidence, found when first asked (a child process may be finding it).
Evidence = Callable[[], RepositoryEvidence]


def _given(found: RepositoryEvidence) -> Evidence:
    return lambda: found


def _evidence(old: Revision, new: Revision, layout: Layout | None, target: Target,
              config: Config, repo: Repo, changed: tuple[str, ...]) -> RepositoryEvidence:
    """The repository's evidence for one document; configured settings win."""
    service = target.service
    layout = layout or Layout("", "generic", (target.path,))
    if service.version_file:
        path = _in_repo(repo, config.root / service.version_file)
        if path is None:
            raise InputError(f"'version-file' {service.version_file!r} is outside the "
                             f"repository {repo.top}", config.display)
        layout = replace(layout, version_file=path)
    found = gather(old, new, layout, changed, strict=bool(service.version_file))
    if service.released_max is not None:
        found = replace(found, released=Release(
            "configured", service.released_max, f"released-max in {config.display}"))
    return found
