"""`needs-microversion history`: every change to the API documents in a repository's past,
judged the way `check` judges a change, against the version file of its time.

    history = run_history(HistoryRequest(since="2024-01-01"))
    history.rows        # one per first-parent commit that touches the API documents
    history.summary     # shipped without a microversion, microversions with no documented
                        # change, agreement of the verdicts with the version file

The commits are the first-parent line of `--until` (default HEAD), from `--since` (a revision
or a date, YYYY-MM-DD; default the first commit), that change a file under the API
documents' folders (the api-ref tree and its samples, or the OpenAPI documents). Each is
judged against its first parent: `check --from-ref PARENT --to-ref COMMIT`, repository
evidence included, so the version file's maximum before and after and the release the commit
shipped in (the first release tag on the line at or after it) are in each row. A commit the
tool cannot read (exit 2) is a row with its reason; the run goes on. A commit from before
the API had documents or a version file on either side (samples kept before any api-ref) is
not listed: there is nothing to judge.

Files are parsed once per content (the api-ref reader caches by content, which git names by
blob id), so the documents two neighbouring commits share are read once.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import TextIO

from needs_microversion.commands.check import CheckRequest, judge_change
from needs_microversion.documents.files import current_folder
from needs_microversion.errors import InputError
from needs_microversion.loaders.git import Repo, cached
from needs_microversion.model.history import History, HistoryRow, HistorySummary
from needs_microversion.model.verdict import REQUIRED
from needs_microversion.model.versions import Version, parse_version
from needs_microversion.repository.layout import Layout, detect, version_record
from needs_microversion.repository.releases import is_release_tag
from needs_microversion.repository.revision import Revision

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


def run_history(request: HistoryRequest,
                progress: Callable[[int, int], None] | None = None) -> History:
    """Judge every commit of the range; `progress(done, total)` after each one."""
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
        commits = list(_commits(repo, until, request.since, layout))
        releases = _releases(repo, [commit for commit, *_ in commits])
    rows = []
    for done, (commit, parent, date, subject) in enumerate(commits, 1):
        row = _row(repo, commit, parent, date, subject, releases.get(commit), request)
        if row is not None:
            rows.append(row)
        if progress is not None:
            progress(done, len(commits))
    return History(tuple(rows), _summary(rows))


def _row(repo: Repo, commit: str, parent: str, date: str, subject: str, release: str | None,
         request: HistoryRequest) -> HistoryRow | None:
    """The commit judged against its parent; None for one from before the API had any
    documents or version file (nova moved its samples in 2012, three years before its
    api-ref and its first microversion): there is nothing to judge, and it is no error."""
    check = CheckRequest(from_ref=parent, to_ref=commit, validate=request.validate,
                         config=request.config, profile=request.profile,
                         catch_up=request.catch_up, disabled=request.disabled,
                         count_corrections=request.count_corrections)
    old, new = Revision(repo, parent, parent[:12]), Revision(repo, commit, commit[:12])
    try:
        with cached():  # one commit at a time: the cache stays small
            result = judge_change(repo, old, new, check)
    except InputError as exc:
        if not any(detect(side) or version_record(side) for side in (old, new)):
            return None
        return HistoryRow(commit, date, subject, None, None, release, error=str(exc))
    maxima = [(report.bookkeeping.old_max, report.bookkeeping.new_max)
              for _, report in result.documents if report.bookkeeping is not None]
    old_max, new_max = maxima[0] if maxima else (None, None)
    return HistoryRow(commit, date, subject, _version(old_max), _version(new_max), release,
                      tuple(result.documents))


def _version(text: str | None) -> Version | None:
    return parse_version(text) if text is not None else None


def _commits(repo: Repo, until: str, since: str | None, layout: Layout
             ) -> Iterator[tuple[str, str, str, str]]:
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
            yield commit, parents.split()[0], date, subject


def _folder(path: str) -> str:
    """api-ref/source -> api-ref; a file or another folder stays itself."""
    return path.split("/", 1)[0] if path.startswith("api-ref/") else path


def _releases(repo: Repo, commits: Sequence[str]) -> dict[str, str]:
    """Commit -> the first release tag on the first-parent line at or after it (release
    candidates are tagged on the main line where each stable branch starts)."""
    if not commits:
        return {}
    line = repo.git("rev-list", "--first-parent", commits[-1]).decode().split()[::-1]
    index = {commit: at for at, commit in enumerate(line)}
    listing = repo.git("for-each-ref", "--format=%(refname:short)%00%(*objectname)%00"
                       "%(objectname)", "refs/tags").decode("utf-8", "replace")
    tagged: dict[int, str] = {}
    for entry in listing.splitlines():
        name, peeled, target = (entry.split("\0") + ["", ""])[:3]
        at = index.get(peeled or target)
        if at is not None and is_release_tag(name) and (at not in tagged or name < tagged[at]):
            tagged[at] = name
    points = sorted(tagged.items())
    found: dict[str, str] = {}
    for commit in commits:
        position = index.get(commit)
        shipped = None if position is None else next(
            (tag for where, tag in points if where >= position), None)
        if shipped is not None:
            found[commit] = shipped
    return found


def _summary(rows: Sequence[HistoryRow]) -> HistorySummary:
    judged = [row for row in rows if row.error is None]
    unprovided = tuple(row.commit for row in judged if row.exit_code == 1)
    undocumented = tuple(row.commit for row in judged if any(
        f.id == "maximum-raised" for _, report in row.reports for f in report.findings))
    compared = [row for row in judged if row.bumped is not None]
    agree = sum(1 for row in compared if (row.verdict == REQUIRED) == bool(row.bumped))
    return HistorySummary(len(judged), len(rows) - len(judged),
                          sum(1 for row in judged if row.verdict == REQUIRED),
                          unprovided, undocumented, agree, len(compared))


def progress_bar(stream: TextIO | None = None) -> Callable[[int, int], None] | None:
    """A one-line progress bar on a terminal's stderr; None when stderr is not one."""
    out = sys.stderr if stream is None else stream
    if not out.isatty():
        return None

    def show(done: int, total: int) -> None:
        width = 30
        filled = width * done // max(total, 1)
        end = "\n" if done == total else ""
        out.write(f"\r[{'#' * filled}{'.' * (width - filled)}] {done}/{total} commits{end}")
        out.flush()

    return show
