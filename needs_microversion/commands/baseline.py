"""Warnings that stand in a repository whatever the change does (nova 3, ironic 7, cinder 8
at their HEAD): the baseline silences those it lists, each with the reason it may stand, so
that `--fail-on warning` fails on new ones only (as mypy-baseline, detekt or PHPStan let a
project adopt a stricter gate); `check` sums up the rest about files the change does not
touch in one line (`settle`).

    warnings:
    - file: api-ref/source/flavors.inc
      message: no definition for 'extra_specs' in parameters.yaml; skipped
      reason: the parameter is documented in the next cycle
    - finding: server-error-fixed
      operation: GET /servers/{server_id}
      pointer: ""
      message: "status code 500 removed: a server error no longer happens"
      reason: the fix shipped in 2.90

An entry is keyed by what survives unrelated edits: a warning by its file (from the
repository's top, the revision left out) and its message, a finding by its id, operation,
pointer and message; line numbers never count (`FILE:LINE` inside a message neither). What
an entry silences: a report warning leaves the report (and stderr); a finding that counts as
a warning (`model.fail_on.counts_as_warning`) stays, acknowledged with the entry's reason,
as a configured acknowledgement would. A required change is never silenced: the
configuration's `acknowledge` is for those.

The file is read as the configuration file is (`config.read_confined`: a regular file,
bounded, and when the configuration names it, inside the repository); a file named on the
command line is the user's choice, as `--config` is. Writing (`write_baseline`) never
changes what the tool did not write: a new file, or entries added at the end of the
baseline in use.
"""

from __future__ import annotations

import os
import posixpath
import re
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from needs_microversion.config import (
    MAX_CONFIG_BYTES, Config, display_name, read_confined, repository_top)
from needs_microversion.documents.files import possible_path
from needs_microversion.errors import InputError
from needs_microversion.model.fail_on import counts_as_warning
from needs_microversion.model.verdict import Finding, Report
from needs_microversion.report.common import warning_place

if TYPE_CHECKING:  # a plain diff never imports git
    from needs_microversion.repository.revision import Revision

Label = TypeVar("Label", bound="str | None")  # a check's service; a diff's pair (None: one)

_ENTRY_KEYS = frozenset({"finding", "operation", "pointer", "file", "message", "reason"})
_LINE_NUMBER = re.compile(r":\d+\b")
# What JSON writes as it is but YAML refuses, or reads as a line break, even inside double
# quotes: escaped (JSON escapes the other control characters itself).
_NOT_YAML = re.compile("[\x7f-\x9f\u2028\u2029\ud800-\udfff\ufeff\ufffe\uffff]")
HEADER = """\
# needs-microversion baseline: warnings that stand in this repository, each silenced with
# the reason it may stand. Written by `needs-microversion --write-baseline FILE`: give
# every entry its reason. Entries match a finding by id, operation, pointer and message, a
# warning by file and message, never by line number.
"""


@dataclass(frozen=True)
class Entry:
    """One silenced warning: a finding's (`finding` set) or a report warning's."""

    message: str
    reason: str = ""
    finding: str | None = None  # a finding id; None: a report warning
    operation: str = ""
    pointer: str = ""
    file: str | None = None  # a warning's file from the repository's top; None: no file
    line: int | None = None  # where the baseline writes it

    @property
    def key(self) -> tuple[str | None, str, str, str | None, str]:
        return (self.finding, self.operation, self.pointer, self.file,
                " ".join(_LINE_NUMBER.sub("", self.message).split()))

    def describe(self) -> str:
        if self.finding is not None:
            pointer = f" {self.pointer}" if self.pointer else ""
            return f"{self.finding} on {self.operation}{pointer}: {self.message}"
        return f"{self.file}: {self.message}" if self.file else self.message


@dataclass(frozen=True)
class Baseline:
    display: str  # how messages name the file
    path: Path | None  # on disk; None: read from a revision
    top: Path  # a warning's file is named from here (the repository's top)
    entries: tuple[Entry, ...]


# A warning (its text) or a finding that counts as one.
Standing = str | Finding


@dataclass(frozen=True)
class Silencing:
    """What a baseline did to a run's reports."""

    baseline: Baseline | None
    silenced: tuple[tuple[Standing, str], ...] = ()  # each with its entry's reason
    stale: tuple[Entry, ...] = ()  # entries that matched nothing (when the run saw it all)

    @property
    def silenced_warnings(self) -> frozenset[str]:
        return frozenset(item for item, _ in self.silenced if isinstance(item, str))


# -- reading ---------------------------------------------------------------------------------

def named_baseline(name: str) -> Baseline:
    """`--baseline FILE`, relative to the current folder."""
    if not possible_path(name):
        raise InputError("no such file", name)
    path = Path(name)
    return parse_baseline(read_confined(path, None), display_name(path), path=path,
                          top=repository_top(path.absolute().parent))


def check_baseline(name: str | None, config: Config, new: Revision) -> Baseline | None:
    """`check`'s baseline: `--baseline FILE`, else the configuration's, beside the file on
    disk or in the revision it was read from (a CI clone made without a checkout)."""
    if name is not None:
        return named_baseline(name)
    if config.baseline is None or config.path is not None:
        return configured_baseline(config)
    path = posixpath.normpath(config.baseline)
    if posixpath.isabs(path) or path == ".." or path.startswith("../"):
        raise InputError(f"'baseline' {config.baseline!r} is outside the repository",
                         config.display)
    text = new.text(path, MAX_CONFIG_BYTES)
    if text is None:
        raise InputError(f"'baseline' {config.baseline!r}: no such file in {new.name('')}",
                         config.display)
    return parse_baseline(text, new.name(path), path=None, top=new.repo.top)


def configured_baseline(config: Config) -> Baseline | None:
    """The configuration's `baseline`, relative to its folder and inside its repository."""
    if config.baseline is None:
        return None
    path = config.root / config.baseline
    if not possible_path(str(path)):
        raise InputError(f"'baseline' {config.baseline!r}: no such file", config.display)
    top = repository_top(config.root)
    return parse_baseline(read_confined(path, top), display_name(path), path=path, top=top)


def parse_baseline(text: str, display: str, *, path: Path | None, top: Path,
                   reasons: bool = True) -> Baseline:
    """A baseline's text; `reasons=False` takes entries whose reason is still to be given
    (a file being written)."""
    from needs_microversion.documents.document import parse_document
    from needs_microversion.documents.locate import line_of

    document = parse_document(text.encode("utf-8"), path=Path(display), display=display,
                              root=Path("."), empty={})
    data = document.data
    if not isinstance(data, dict):
        raise InputError("the top level must be a mapping with a 'warnings' list", display, 1)
    for key in data:
        if key != "warnings":
            raise InputError(f"unknown key {key!r} (a baseline has 'warnings')", display,
                             line_of(document, (str(key),)))
    items = data.get("warnings") or []
    if not isinstance(items, list):
        raise InputError("'warnings' must be a list of entries", display,
                         line_of(document, ("warnings",)))
    entries = tuple(_entry(item, display, line_of(document, ("warnings", str(i))) or 1,
                           reasons) for i, item in enumerate(items))
    return Baseline(display, path, top, entries)


def _entry(item: Any, display: str, line: int, reasons: bool) -> Entry:
    if not isinstance(item, dict):
        raise InputError("a baseline entry must be a mapping (message, reason, and finding, "
                         "operation, pointer or file)", display, line)
    for key in item:
        if key not in _ENTRY_KEYS:
            raise InputError(f"unknown key {key!r} in a baseline entry", display, line)
    values = {key: _text(item, key, display, line) for key in _ENTRY_KEYS}
    if not values["message"]:
        raise InputError("a baseline entry needs its 'message'", display, line)
    if reasons and not values["reason"].strip():
        raise InputError("a baseline entry needs a 'reason': say why the warning may stand",
                         display, line)
    finding = values["finding"] or None
    if finding is not None and not values["operation"]:
        raise InputError("a finding's baseline entry needs its 'operation'", display, line)
    if finding is not None and values["file"]:
        raise InputError("a finding's baseline entry names no 'file' (a warning's does)",
                         display, line)
    return Entry(message=values["message"], reason=values["reason"].strip(), finding=finding,
                 operation=values["operation"], pointer=values["pointer"],
                 file=values["file"] or None, line=line)


def _text(item: dict[str, Any], key: str, display: str, line: int) -> str:
    value = item.get(key)
    if value is None:
        return ""
    if not isinstance(value, str):
        raise InputError(f"{key!r} must be a string, got {value!r}", display, line)
    return value


# -- silencing -------------------------------------------------------------------------------

def silence(reports: Sequence[tuple[Label, Report]], baseline: Baseline | None, *,
            whole: bool = True) -> tuple[list[tuple[Label, Report]], Silencing]:
    """The reports with what the baseline lists silenced; the first report's notes count
    them in one line and name each entry that matched nothing, when `whole` (the run saw
    every document: a `check` of some files leaves others unread)."""
    if baseline is None:
        return list(reports), Silencing(None)
    index = {entry.key: entry for entry in _unique(baseline.entries)}
    used: set[tuple[Any, ...]] = set()
    silenced: list[tuple[Standing, str]] = []

    def match(item: Standing) -> Entry | None:
        entry = index.get(as_entry(item, baseline.top).key)
        if entry is not None:
            used.add(entry.key)
            silenced.append((item, entry.reason))
        return entry

    def finding(item: Finding) -> Finding:
        entry = match(item) if counts_as_warning(item) else None
        return item if entry is None else replace(
            item, acknowledged=f"{entry.reason} (baseline {baseline.display})")

    out: list[tuple[Label, Report]] = []
    for label, report in reports:
        warnings = tuple(w for w in report.warnings if match(w) is None)
        findings = tuple(finding(f) for f in report.findings)
        out.append((label, replace(report, warnings=warnings, findings=findings)))
    stale = tuple(e for e in baseline.entries if e.key not in used) if whole else ()
    done = Silencing(baseline, tuple(silenced), stale)
    if out:
        label, first = out[0]
        out[0] = (label, replace(first, notes=(*first.notes, *notes(done))))
    return out, done


def notes(silencing: Silencing) -> list[str]:
    """One line counting what the baseline silenced; one per entry that matched nothing."""
    baseline = silencing.baseline
    if baseline is None:
        return []
    count = len(silencing.silenced)
    lines = [f"{count} standing warning(s) silenced by the baseline {baseline.display}"] \
        if count else []
    return lines + [f"{baseline.display}:{entry.line}: baseline entry matched nothing (stale; "
                    f"remove it): {entry.describe()}" for entry in silencing.stale]


def as_entry(item: Standing, top: Path, reason: str = "") -> Entry:
    """The entry that silences a warning or a finding."""
    if isinstance(item, Finding):
        return Entry(message=item.message, reason=reason, finding=item.id,
                     operation=item.change.operation, pointer=item.change.pointer)
    place = warning_place(item)
    if place is None:
        return Entry(message=item, reason=reason)
    file, _, text = place
    return Entry(message=text, reason=reason, file=_from_top(item, file, top))


def _from_top(warning: str, file: str, top: Path) -> str:
    """A warning's file from the repository's top, "/"-separated. `REV:PATH` names PATH from
    the top already (`warning_place` drops the revision); a file on disk is named from the
    current folder, which may be anywhere in the repository."""
    if not warning.startswith(file):
        return file
    absolute = os.path.realpath(file)
    relative = os.path.relpath(absolute, os.path.realpath(top))
    return absolute if relative.startswith(os.pardir) else relative.replace(os.sep, "/")


# -- check: silenced, then summed up --------------------------------------------------------

@dataclass(frozen=True)
class Settled:
    """A check's reports and warnings as shown, and what the baseline did."""

    documents: list[tuple[str, Report]]
    warnings: list[str]
    silencing: Silencing
    standing: tuple[Standing, ...]  # every warning left standing, summed up or not


def settle(documents: list[tuple[str, Report]], warnings: list[str], baseline: Baseline | None,
           touched: tuple[str, ...], *, list_all: bool, whole: bool) -> Settled:
    """The baseline's warnings silenced (in the reports and the run's `warnings`), then the
    rest about files the change does not touch summed up (`summed_up`)."""
    silenced, silencing = silence(documents, baseline, whole=whole)
    left = [w for w in warnings if w not in silencing.silenced_warnings]
    shown, shown_warnings = summed_up(silenced, left, touched, list_all)
    return Settled(shown, shown_warnings, silencing, tuple(standing(silenced)))


def summed_up(documents: list[tuple[str, Report]], warnings: list[str], touched: tuple[str, ...],
              list_all: bool) -> tuple[list[tuple[str, Report]], list[str]]:
    """Warnings about files the change does not touch stand in the repository whatever the
    change does: one line says how many, unless `list_all`; every report learns which files
    the change touched (annotations go on those only)."""
    shown = set(touched)

    def elsewhere(warning: str) -> bool:
        place = warning_place(warning)
        return place is not None and place[0] not in shown

    count = sum(1 for warning in warnings if elsewhere(warning))
    summary = (f"{count} warning(s) about files this change does not touch (they stand in "
               f"the repository; --all-warnings lists them)") if count and not list_all else ""
    out: list[tuple[str, Report]] = []
    for label, report in documents:
        kept = tuple(w for w in report.warnings if list_all or not elsewhere(w))
        if summary and not out:  # said once, with the first report
            kept = (*kept, summary)
        out.append((label, replace(report, warnings=kept, touched=touched)))
    left = [w for w in warnings if list_all or not elsewhere(w)]
    return out, left + ([summary] if summary else [])


# -- writing ---------------------------------------------------------------------------------

def standing(reports: Sequence[tuple[Label, Report]]) -> list[Standing]:
    """Every warning the reports leave standing (what `--fail-on warning` fails on)."""
    items: list[Standing] = []
    for _, report in reports:
        items += report.warnings
        items += (f for f in report.findings if counts_as_warning(f))
    return items


def write_baseline(name: str, items: Sequence[Standing], silencing: Silencing) -> str:
    """Write the warnings a run leaves standing as entries whose reason is to be given: a
    new file holds the ones the baseline in use silenced too, with their reasons; the
    baseline in use gets the others added at its end. Any other file that exists is left
    as it is (InputError). The line that says what was written."""
    if not possible_path(name):
        raise InputError("no such file", name)
    path, in_use = Path(name), silencing.baseline
    if os.path.lexists(path):
        if in_use is None or in_use.path is None or not _same(path, in_use.path):
            raise InputError("exists: --write-baseline writes a new file, or adds to the "
                             "baseline in use (--baseline FILE or the configuration's); it "
                             "never rewrites another file", display_name(path))
        return _add_to(path, in_use, items)
    folder = path.absolute().parent
    if not folder.is_dir():
        raise InputError("no such folder to write the baseline in", name)
    top = repository_top(folder)
    entries = _unique([*(as_entry(item, top, reason) for item, reason in silencing.silenced),
                       *(as_entry(item, top) for item in items)])
    _write(path, HEADER + "warnings:\n" + "".join(_entry_text(e) for e in entries), "x")
    return f"{display_name(path)}: wrote {len(entries)} baseline entr{_ies(len(entries))}" + (
        ": give each its reason" if len(entries) > len(silencing.silenced) else "")


def _add_to(path: Path, baseline: Baseline, items: Sequence[Standing]) -> str:
    """New entries at the end of the baseline in use, the text before them untouched; the
    result is read back first, so an addition the file's shape would misplace is refused."""
    known = {entry.key for entry in baseline.entries}
    entries = [e for e in _unique([as_entry(item, baseline.top) for item in items])
               if e.key not in known]
    if not entries:
        return f"{baseline.display}: nothing to add to the baseline"
    text = read_confined(path, None)
    addition = ("" if not text or text.endswith("\n") else "\n") + (
        "" if _has_list(text, baseline) else "warnings:\n") + "".join(map(_entry_text, entries))
    try:
        grown = [e.key for e in parse_baseline(text + addition, baseline.display, path=path,
                                               top=baseline.top, reasons=False).entries]
    except InputError:
        grown = []
    if grown != [*(e.key for e in baseline.entries), *(e.key for e in entries)]:
        raise InputError("cannot add entries at its end (its 'warnings' list is not the last "
                         "thing in it, or not a block list): write a new file and copy them",
                         baseline.display)
    _write(path, addition, "a")
    return (f"{baseline.display}: added {len(entries)} baseline entr{_ies(len(entries))}: "
            "give each its reason")


def _has_list(text: str, baseline: Baseline) -> bool:
    return bool(baseline.entries) or re.search(r"^warnings\s*:", text, re.MULTILINE) is not None


def _write(path: Path, text: str, mode: str) -> None:
    try:
        with open(path, mode, encoding="utf-8") as stream:
            stream.write(text)
    except FileExistsError:  # made since it was looked for: still never overwritten
        raise InputError("exists: --write-baseline never rewrites a file it did not make",
                         display_name(path)) from None
    except OSError as exc:
        raise InputError(f"cannot write: {exc.strerror or exc}", display_name(path)) from None


def _same(one: Path, other: Path) -> bool:
    return os.path.realpath(one) == os.path.realpath(other)


def _unique(entries: Sequence[Entry]) -> list[Entry]:
    seen: dict[tuple[Any, ...], Entry] = {}
    for entry in entries:
        seen.setdefault(entry.key, entry)
    return list(seen.values())


def _ies(count: int) -> str:
    return "y" if count == 1 else "ies"


def _entry_text(entry: Entry) -> str:
    fields = ([("finding", entry.finding), ("operation", entry.operation),
               ("pointer", entry.pointer)] if entry.finding is not None
              else [("file", entry.file)] if entry.file is not None else [])
    fields += [("message", entry.message), ("reason", entry.reason)]
    return "".join(f"{'- ' if i == 0 else '  '}{key}: {_quoted(value or '')}\n"
                   for i, (key, value) in enumerate(fields))


def _quoted(text: str) -> str:
    """A YAML double-quoted scalar: JSON's escapes, and the characters YAML refuses even
    there escaped too (a warning may quote anything a document holds)."""
    import json

    return _NOT_YAML.sub(lambda m: f"\\u{ord(m.group()):04x}", json.dumps(text,
                                                                          ensure_ascii=False))
