"""`needs-microversion history`: every change to the API documents in a repository's past,
judged the way `check` judges a change, against the version file of its time.

    history = run_history(HistoryRequest(since="2024-01-01"))
    history.rows        # one per first-parent commit that touches the API documents
    history.summary     # shipped without a microversion, microversions with no documented
                        # change, agreement of the verdicts with the version file

    plan = plan_history(request)             # the commits, their releases and links
    for row in judge_history(plan, request): # in order, one at a time (the CLI streams them)

The commits are the first-parent line of `--until` (default HEAD), from `--since` (a revision
or a date, YYYY-MM-DD; default the first commit), that change a file under the API
documents' folders (the api-ref tree and its samples, or the OpenAPI documents). Each is
judged against its first parent: `check --from-ref PARENT --to-ref COMMIT`, repository
evidence included, so the version file's maximum before and after and the release the commit
shipped in (the first release tag that contains it, `repository/shipped.py`) are in each
row, with a link to the commit on its forge (`repository/links.py`). A commit the tool
cannot read (exit 2) is a row with its reason; the run goes on. A commit from before the API
had documents or a version file on either side (samples kept before any api-ref) is not
listed: there is nothing to judge.

Files are parsed once per content (the api-ref reader caches by content, which git names by
blob id), so the documents two neighbouring commits share are read once. Commits are judged
on every core (`workers`): batches of neighbouring commits in forked children, their rows
given out in order as each batch is done.
"""

from __future__ import annotations

import itertools
import os
import re
import sys
from collections import deque
from collections.abc import Callable, Iterator, Mapping
from contextlib import nullcontext
from dataclasses import dataclass, replace
from functools import partial
from typing import TextIO

from needs_microversion import forked, streams
from needs_microversion.commands.check import CheckRequest, diff_targets
from needs_microversion.commands.history_kept import Judged, KeptRows, context
from needs_microversion.config import load_config
from needs_microversion.documents.files import current_folder
from needs_microversion.errors import InputError
from needs_microversion.loaders.git import Repo, cached
from needs_microversion.model.history import History, HistoryRow, summarize
from needs_microversion.model.versions import Version, parse_version
from needs_microversion.repository.layout import Layout, detect, version_record
from needs_microversion.repository.links import commit_link, link_template
from needs_microversion.repository.revision import Revision
from needs_microversion.repository.shipped import Shipped, shipped_in

_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$")


@dataclass(frozen=True)
class HistoryRequest:
    since: str | None = None  # a revision (exclusive) or a date YYYY-MM-DD
    until: str | None = None  # a revision (default HEAD)
    fmt: str = "table"
    validate: bool = False  # OpenAPI documents: validating every revision costs seconds each
    config: str | None = None
    profile: str | None = None
    catch_up: bool | None = None
    count_corrections: bool | None = None
    disabled: tuple[str, ...] = ()
    link_template: str | None = None  # "https://host/c/{commit}"; default: from the remote
    workers: int | None = None  # commits judged at once; None: one per core, 1: here alone


@dataclass(frozen=True)
class Commit:
    commit: str
    parent: str  # the first parent, which the commit is judged against
    date: str
    subject: str


@dataclass(frozen=True)
class HistoryPlan:
    """What is known before any commit is judged: which commits, in order, the release
    each shipped in and how to link to them."""

    repo: Repo
    commits: tuple[Commit, ...]
    releases: Mapping[str, Shipped]
    link_template: str | None
    kept: KeptRows  # rows judged by earlier runs


def run_history(request: HistoryRequest,
                progress: Callable[[int, int], None] | None = None) -> History:
    """Judge every commit of the range; `progress(done, total)` before the first and after
    each one."""
    rows = tuple(judge_history(plan_history(request), request, progress))
    return History(rows, summarize(rows))


def plan_history(request: HistoryRequest) -> HistoryPlan:
    """The commits to judge and what the rows say of them besides the verdict; an
    InputError (a bad revision, no documents) before any is judged."""
    here = current_folder()
    repo = Repo.find(here, "not inside a git repository: history reads one", str(here))
    with cached():
        until = repo.commit(request.until or "HEAD")
        if until is None:
            raise InputError(f"--until {request.until or 'HEAD'}: unknown revision in "
                             f"{repo.top}")
        tip = Revision(repo, until, request.until or "HEAD")
        layout = detect(tip) or version_record(tip)
        if layout is None:
            raise InputError("no API documents found at this revision (looked for an api-ref "
                             "source tree, a specs/ folder, openapi/swagger files and a version "
                             "file)",
                             str(repo.top))
        commits = tuple(_commits(repo, until, request.since, layout))
        releases = shipped_in(repo, until, [commit.commit for commit in commits])
        template = link_template(repo, request.link_template)
        config = load_config(request.config)
        options = (request.validate, request.profile, request.catch_up, request.disabled,
                   request.count_corrections)
        kept = KeptRows(repo, context(repo, options, config), config)
    return HistoryPlan(repo, commits, releases, template, kept)


def judge_history(plan: HistoryPlan, request: HistoryRequest,
                  progress: Callable[[int, int], None] | None = None
                  ) -> Iterator[HistoryRow]:
    """The rows, oldest first, each as soon as its commit is judged (in this order
    whatever judges them: the formats write a row as it comes)."""
    if progress is not None and plan.commits:
        progress(0, len(plan.commits))  # the first commit can take seconds: show the total
    done = 0
    for rows in _judged(plan, request):
        for row in rows:
            done += 1
            if progress is not None:
                progress(done, len(plan.commits))
            if row is not None:
                yield row


# Commits a child judges at once: enough that forking and handing the rows back (a few ms)
# is little beside judging them (nova: ~0.5 s each), few enough that rows keep streaming.
_BATCH = 8


def _judged(plan: HistoryPlan, request: HistoryRequest) -> Iterator[list[HistoryRow | None]]:
    """The rows of the commits, a batch at a time and in order. With more than one worker,
    up to that many batches are judged at once in forked children (each commit is judged on
    its own, from git: the same rows whatever judges them); a batch whose child failed is
    judged here, and so fails here if it must."""
    batches = [plan.commits[start:start + _BATCH]
               for start in range(0, len(plan.commits), _BATCH)]
    # Each worker is a copy of this process judging a batch: more than a few per core
    # only adds memory, so a larger count is taken as that many.
    workers = min(request.workers or default_workers(), 4 * default_workers())
    if workers <= 1 or len(batches) <= 1 or not forked.can_fork():
        for batch in batches:
            yield _batch_rows(plan, request, batch)
        return
    work = partial(_batch_rows, plan, request, here=True)
    running: deque[tuple[tuple[Commit, ...], forked.Child[list[HistoryRow | None]] | None]] = \
        deque()
    waiting = iter(batches)
    try:
        for batch in itertools.islice(waiting, workers):
            running.append((batch, forked.start(partial(work, batch))))
        while running:
            batch, child = running.popleft()
            rows = forked.result(child) if child is not None else None
            for following in itertools.islice(waiting, 1):  # keep every worker busy
                running.append((following, forked.start(partial(work, following))))
            yield rows if rows is not None else _batch_rows(plan, request, batch)
    finally:  # the reader stopped (a closed pipe, an error): the children's rows are not wanted
        for _, child in running:
            if child is not None:
                forked.stop(child)


def default_workers() -> int:
    """One worker per core this process may run on."""
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):  # not Linux
        return os.cpu_count() or 1


def _batch_rows(plan: HistoryPlan, request: HistoryRequest, batch: tuple[Commit, ...],
                here: bool = False) -> list[HistoryRow | None]:
    """The rows of a batch; `here`: a worker, which forks no children of its own (the
    cores are the workers'; the blobs it reads stay in its memory for the next commit)."""
    rows: list[HistoryRow | None] = []
    with forked.here_only() if here else nullcontext():
        for commit in batch:
            judged = plan.kept.get(commit.commit, commit.parent)
            if judged is None:
                judged = Judged(_row(plan.repo, commit, request))
                plan.kept.put(commit.commit, commit.parent, judged.row)
            shipped = plan.releases.get(commit.commit)
            rows.append(None if judged.row is None else replace(
                judged.row, release=shipped.release if shipped is not None else None,
                release_date=shipped.date if shipped is not None else None,
                link=commit_link(plan.link_template, commit.commit)))
    return rows


def _row(repo: Repo, item: Commit, request: HistoryRequest) -> HistoryRow | None:
    """The commit judged against its parent (its release and link are the plan's); None
    for one from before the API had any documents or version file (nova moved its samples
    in 2012, three years before its api-ref and its first microversion): there is nothing
    to judge, and it is no error."""
    commit, parent = item.commit, item.parent
    check = CheckRequest(from_ref=parent, to_ref=commit, validate=request.validate,
                         config=request.config, profile=request.profile,
                         catch_up=request.catch_up, disabled=request.disabled,
                         count_corrections=request.count_corrections)
    old, new = Revision(repo, parent, parent[:12]), Revision(repo, commit, commit[:12])
    try:
        with cached():  # one commit at a time: the cache stays small
            result = diff_targets(repo, old, new, check)
    except InputError as exc:
        if not any(detect(side) or version_record(side) for side in (old, new)):
            return None
        return HistoryRow(commit, item.date, item.subject, None, None, None,
                          error=str(exc))
    maxima = [(report.bookkeeping.old_max, report.bookkeeping.new_max)
              for _, report in result.documents if report.bookkeeping is not None]
    old_max, new_max = maxima[0] if maxima else (None, None)
    return HistoryRow(commit, item.date, item.subject, _version(old_max), _version(new_max),
                      None, tuple(result.documents))


def _version(text: str | None) -> Version | None:
    return parse_version(text) if text is not None else None


def _commits(repo: Repo, until: str, since: str | None, layout: Layout) -> Iterator[Commit]:
    """(commit, first parent, date, subject), oldest first, of the commits that touch the
    documents' folders (api-ref/ as a whole: trees moved inside it over the years); with no
    documents, the version record (the version file and history document)."""
    record = () if layout.documents else tuple(
        path for path in (layout.version_file, *layout.history_docs) if path)
    places = sorted({_folder(path) for path in (*layout.documents, *layout.samples, *record)})
    args = ["log", "--first-parent", "--reverse", "-z", "--format=%H%x00%P%x00%cs%x00%s"]
    if since is not None and _DATE.match(since):
        args.append(f"--since={since}")
        revisions = [until]
    elif since is not None:
        start = repo.commit(since)
        if start is None:
            raise InputError(f"--since {since}: neither a date (YYYY-MM-DD) nor a revision of "
                             f"{repo.top}")
        revisions = [f"{start}..{until}"]
    else:
        revisions = [until]
    out = repo.git(*args, *revisions, "--", *places).decode("utf-8", "replace")
    fields = out.split("\0")
    for index in range(0, len(fields) - 3, 4):
        commit, parents, date, subject = fields[index:index + 4]
        commit = commit.strip()
        if commit and parents.split():  # the first commit has nothing to compare with
            yield Commit(commit, parents.split()[0], date, subject)


def _folder(path: str) -> str:
    """api-ref/source -> api-ref; a file or another folder stays itself."""
    return path.split("/", 1)[0] if path.startswith("api-ref/") else path


class ProgressBar:
    """A one-line progress bar on a terminal's stderr. Rows printed to the same terminal
    meanwhile go through `around`, which takes the bar away while they are written and
    draws it again below them; `finish` takes it away for good."""

    def __init__(self, out: TextIO) -> None:
        self.out = out
        self.line = ""

    @classmethod
    def on_terminal(cls, stream: TextIO | None = None) -> ProgressBar | None:
        """A bar on `stream` (default stderr); None when it is no terminal (a pipe, a file,
        CI's log), where a bar would be noise."""
        out = sys.stderr if stream is None else stream
        return cls(out) if out is not None and out.isatty() else None

    def __call__(self, done: int, total: int) -> None:
        width = 30
        filled = width * done // max(total, 1)
        self.line = f"[{'#' * filled}{'.' * (width - filled)}] {done}/{total} commits"
        self._draw()

    def around(self, write: Callable[[str], bool]) -> Callable[[str], bool]:
        def written(text: str) -> bool:
            if not text:
                return True
            self._erase()
            ok = write(text)
            self._draw()
            return ok

        return written

    def finish(self) -> None:
        self._erase()
        self.line = ""

    def _draw(self) -> None:
        if self.line:
            streams.write(self.out, f"\r{self.line}")

    def _erase(self) -> None:
        if self.line:  # back to the line's start, and clear to its end
            streams.write(self.out, "\r\x1b[K")
