"""One api-ref file's blocks -> `Section` records (one per `rest_method`).

A section runs from its `rest_method` to the next title at its own level or above. Inside
it, each `rest_parameters` table is a request or a response table by the nearest enclosing
title that says so ("Request", "Response Paramters", "Response (microversions 1.20 - )",
keystone's "Parameters" under "Request", "First Request"), else by the nearest bold
`**Request**` / `**Response**` paragraph, else by the method (a GET table is a response).

A section's description is its prose up to its first subsection, bold Request/Response
paragraph or table: the paragraphs after its title (before or after the `rest_method`),
admonitions (`note`, `warning`...) with their text as written, and version notes as Sphinx
shows them ("New in version 2.26: ..."). Status-code lines are not prose: they are read as
codes.

An operation's bounds: its `rest_method` options, narrowed by the version ranges of its own
title and the titles above it ("Remote consoles (microversions 2.6 - 2.98)"); without a
lower bound, an inferred one from a nameless `versionadded` or an availability sentence
("This API is available starting with microversion 2.55.", `availability`) in its
description or in the prose of a section above it, before its first operation.
"""

from __future__ import annotations

import http
import re
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import PurePosixPath

from needs_microversion.loaders.apiref import availability, prose
from needs_microversion.loaders.apiref.context import TreeContext
from needs_microversion.loaders.apiref.include import Selection, directive_options
from needs_microversion.loaders.apiref.parameters_yaml import YamlFile
from needs_microversion.loaders.apiref.records import Code, Example, Row, Section, Table
from needs_microversion.loaders.apiref.rows import read_row, with_complements
from needs_microversion.loaders.apiref.rst import Directive, Paragraph, Title
from needs_microversion.loaders.apiref.tree import SourceFile
from needs_microversion.model.versions import ALL, Version, VersionRange

_BOLD = re.compile(r"^\*\*([^*]+)\*\*:?$")
_REQ_FILE = re.compile(r"(?:^|[-_.])req(?:uest)?s?(?:[-_.]|$)", re.IGNORECASE)
_RESP_FILE = re.compile(r"(?:^|[-_.])resp(?:onse)?s?(?:[-_.]|$)", re.IGNORECASE)
_DEPRECATED = re.compile(r"\(\s*deprecated\s*\)", re.IGNORECASE)
_ADMONITIONS = frozenset({"note", "warning", "important", "caution", "attention", "danger",
                          "tip", "hint", "admonition", "seealso"})
_VERSION_NOTES = {"versionadded": "New in version", "versionchanged": "Changed in version",
                  "deprecated": "Deprecated since version", "versionremoved": "Removed in version"}


def classify(title: str) -> str | None:
    """"request" / "response" when a title names one (first such word wins)."""
    for word in re.findall(r"[a-z]+", title.lower()):
        if word.startswith("request"):
            return "request"
        if word.startswith("respon"):  # Response, Responses, "Response Paramters"
            return "response"
    return None


@dataclass
class _Open:
    """A section being read."""

    method: str
    url: str
    title: str
    level: int
    location: str
    versions: VersionRange
    inferred: bool
    explicit_min: bool  # rest_method has min_version: notes never override it
    tables: list[Table] = field(default_factory=list)
    codes: list[Code] = field(default_factory=list)
    examples: list[Example] = field(default_factory=list)
    notes: list[tuple[Version, list[str]]] = field(default_factory=list)
    seen_added: bool = False  # a versionadded was met: later ones are never operation-wide
    bare_label: str | None = None  # "Error codes:" with the codes in the next paragraph
    action_hint: str | None = None
    intro: bool = True  # before the first subsection, bold Request/Response or table
    prose: list[str] = field(default_factory=list)
    # Where else the section names versions: its groups' introductions, notes and captions
    # after the intro, example files (`v2.28/...-resp.json`). Documentation, read only for
    # the microversions it announces.
    asides: list[str] = field(default_factory=list)
    example_bodies: set[str] = field(default_factory=set)


def read_sections(file: SourceFile, ctx: TreeContext) -> list[Section]:
    return _FileReader(file, ctx).run()


class _FileReader:
    def __init__(self, file: SourceFile, ctx: TreeContext) -> None:
        self.file = file
        self.ctx = ctx
        self.stack: list[Title] = []
        # title level -> a nameless versionadded or an availability sentence above the
        # operations of that section
        self.section_min: dict[int, Version] = {}
        self.bold: str | None = None
        self.open: _Open | None = None
        self.done: list[Section] = []
        self.pending: list[str] = []  # prose since the last title, before any rest_method
        # title level -> the prose of that section before its first subsection: the
        # introduction of a group of operations (or of the whole file)
        self.intros: dict[int, list[str]] = {}
        self.quoted_until = 0  # the last line of an admonition whose text was taken whole

    def where(self, line: int) -> str:
        return f"{self.file.rel}:{line}"

    def run(self) -> list[Section]:
        for line, message in self.file.doc.messages:
            self.ctx.warn(self.where(line), message)
        handlers: dict[str, Callable[[Directive], None]] = {
            "rest_method": self.rest_method, "rest_parameters": self.rest_parameters,
            "rest_status_code": self.rest_status_code, "literalinclude": self.literalinclude,
            "versionadded": self.version_note, "versionchanged": self.version_note}
        for block in self.file.doc.blocks:
            if isinstance(block, Title):
                self.title(block)
            elif isinstance(block, Paragraph):
                self.paragraph(block)
            else:
                if self.open is not None:
                    self.open.bare_label = None
                self.describe_directive(block)
                handler = handlers.get(block.name)
                if handler is not None:
                    handler(block)
        self.close()
        return self.done

    # -- structure -----------------------------------------------------------------------
    def title(self, title: Title) -> None:
        if self.open is not None and title.level == self.open.level \
                and classify(title.text) is not None:
            # "Response codes" underlined like its operation's title (cinder 12483f199,
            # fixed the next day as "Fix api-ref response code title levels"): a part of
            # the operation, read as its subsection. A `rest_method` still opens a new one.
            title = replace(title, level=title.level + 1)
        if self.open is not None and title.level <= self.open.level:
            self.close()
        if self.open is not None:
            self.open.intro = False  # a subsection ("Request"): the description is over
        elif self.pending and self.stack:  # a group's introduction, before its operations
            self.intros[self.stack[-1].level] = self.pending
        self.pending = []
        self.stack = [t for t in self.stack if t.level < title.level] + [title]
        self.intros = {k: v for k, v in self.intros.items() if k < title.level}
        self.section_min = {k: v for k, v in self.section_min.items() if k < title.level}
        self.bold = None
        if self.open is not None:
            self.open.bare_label = None

    def inner_titles(self) -> list[Title]:
        """Titles between the open section and the current point, innermost first."""
        level = self.open.level if self.open is not None else 0
        return [t for t in reversed(self.stack) if t.level > level]

    def kind_here(self) -> str | None:
        for title in self.inner_titles():
            kind = classify(title.text)
            if kind is not None:
                return kind
        return self.bold

    def range_here(self) -> tuple[VersionRange, bool]:
        versions, ranged = ALL, False
        for title in self.inner_titles():
            found = prose.version_range(title.text)
            if found is not None:
                self.ctx.saw(found)
                versions, ranged = versions.intersect(found), True
        return versions, ranged

    # -- blocks --------------------------------------------------------------------------
    def rest_method(self, block: Directive) -> None:
        self.close()
        lines = ([(block.line, block.head)] if block.head else []) + list(block.body)
        text = [(n, t.strip()) for n, t in lines if t.strip()]
        where = self.where(block.line)
        if not text or len(text[0][1].split(None, 1)) < 2:
            self.ctx.warn(where, "rest_method without 'METHOD /url'; section skipped")
            return
        method, url = prose.visible(text[0][1]).split(None, 1)
        options = {}
        for _, line in text[1:]:
            name, sep, value = line.partition(":")
            if sep and name.strip() in ("min_version", "max_version"):
                options[name.strip()] = value.strip()
        versions, inferred = self.ctx.bounds(options, where), False
        titled, titled_inferred = self.title_range()
        if versions.intersect(titled).empty:
            self.ctx.warn(where, f"rest_method versions ({versions}) lie outside the range its "
                                 f"section titles give ({titled}); the titles are ignored")
        elif titled != ALL:
            versions, inferred = versions.intersect(titled), titled_inferred
        explicit_min = versions.lo is not None
        if versions.lo is None and self.section_min:
            versions = VersionRange(max(self.section_min.values()), versions.hi)
            inferred = True
        title = self.stack[-1] if self.stack else Title(self.file.rel, 0, block.line)
        self.open = _Open(method=method, url=url.split()[0] if url.split() else url,
                          title=title.text, level=title.level, location=where,
                          versions=versions, inferred=inferred, explicit_min=explicit_min,
                          prose=self.pending,
                          asides=[text for level, texts in sorted(self.intros.items())
                                  if level < title.level for text in texts])
        self.pending = []

    def title_range(self) -> tuple[VersionRange, bool]:
        """What the titles of the operation's section and of the sections around it say
        about its versions (a group "Server tags (microversion 2.26)" holds operations of
        2.26 on, as a ranged "Response (microversions 1.20 - )" title holds its table), and
        whether that was inferred: a range is read as written, a single version
        ("(Since version 2.15)") as the first one."""
        versions, inferred = ALL, False
        for title in self.stack:
            found = prose.version_range(title.text)
            if found is None:
                since = availability.title_since(title.text)
                if since is None:
                    continue
                found, inferred = VersionRange(since, None), True
            self.ctx.saw(found)
            versions = versions.intersect(found)
        return versions, inferred

    def stated_since(self, text: str) -> None:
        """A sentence of prose saying since when the open operation exists, or, before any
        operation, every operation of the current section ("Traits API requests are
        available starting from version 1.6." above placement's trait operations)."""
        since = availability.operation_since(text)
        current = self.open
        if since is None:
            return
        if current is None:
            if self.stack:
                self.ctx.versions.append(since)
                self.section_min.setdefault(self.stack[-1].level, since)
            return
        if current.intro and not current.explicit_min and \
                not VersionRange(since, current.versions.hi).empty:
            self.ctx.versions.append(since)
            current.versions = VersionRange(since, current.versions.hi)
            current.inferred = True

    def close(self) -> None:
        current, self.open = self.open, None
        if current is None:
            return
        tables = [self.apply_notes(t, current.notes) for t in current.tables]
        self.gate_codes(current)
        self.done.append(Section(
            method=current.method, url=current.url.split("?", 1)[0], title=current.title,
            location=current.location, versions=current.versions,
            inferred_versions=current.inferred,
            deprecated=bool(_DEPRECATED.search(current.title)), tables=tuple(tables),
            codes=tuple(current.codes), examples=tuple(current.examples),
            action_hint=current.action_hint, description="\n\n".join(current.prose),
            asides="\n\n".join(current.asides), example_bodies=frozenset(current.example_bodies)))

    def rest_parameters(self, block: Directive) -> None:
        current = self.open
        if current is None:
            return  # tables outside any operation (nova request-ids.inc): global headers
        current.intro = False
        where = self.where(block.line)
        if not block.head:
            self.ctx.warn(where, "rest_parameters without a parameters file; table skipped")
            return
        path = self.ctx.tree.resolve(block.head, self.file.base, where)
        params = self.ctx.yaml_file(path, where, "parameters file") if path else None
        if not any(t.strip() for _, t in block.body):
            self.ctx.warn(where, "rest_parameters without parameters")
            return
        kind = self.kind_here()
        rows = list(with_complements([row for row in (
            read_row(self.ctx, self.where(n), t, path, params, kind, self.open_url())
            for n, t in block.body) if row]))
        if kind is None:
            kind = self.guess_kind(current, rows, where)
        versions, ranged = self.range_here()
        title = self.inner_titles()[0].text if self.inner_titles() else current.title
        first = not any(t.kind == kind for t in current.tables)
        current.tables.append(Table(kind, versions, ranged, title, first, tuple(rows), where))

    def guess_kind(self, current: _Open, rows: list[Row], where: str) -> str:
        method = current.method.upper()
        has_request = any(t.kind == "request" for t in current.tables)
        kind = "response" if method in ("GET", "HEAD") or has_request else "request"
        if any(r.where in ("body", "header") for r in rows):
            self.ctx.warn(where, f"table is under no Request/Response title; read as {kind}")
        return kind

    def open_url(self) -> str:
        return self.open.url.split("?", 1)[0] if self.open is not None else ""

    def rest_status_code(self, block: Directive) -> None:
        current = self.open
        if current is None:
            return
        where = self.where(block.line)
        kind, _, name = block.head.partition(" ")
        if kind not in ("success", "error") or not name.strip():
            self.ctx.warn(where, "rest_status_code needs 'success|error <status file>'")
            return
        path = self.ctx.tree.resolve(name, self.file.base, where)
        status = self.ctx.yaml_file(path, where, "status file") if path else None
        for line, text in block.body:
            item = text.strip()
            if not item.startswith("-"):
                continue
            code_text, _, reason = item[1:].partition(":")
            try:
                code = int(code_text.strip())
            except ValueError:
                self.ctx.warn(self.where(line), f"{item!r} is not a status code; skipped")
                continue
            description = self.status_text(status, code, reason.strip(), self.where(line))
            current.codes.append(Code(code, ALL, description, self.where(line)))

    def status_text(self, status: YamlFile | None, code: int, reason: str, where: str) -> str:
        entry = status.entries.get(code, status.entries.get(str(code))) if status else None
        if isinstance(entry, dict):
            if reason and reason in entry:
                return str(entry[reason]).strip()
            if reason:
                self.ctx.warn(where, f"status {code} has no reason '{reason}'; default used")
            if "default" in entry:
                return str(entry["default"]).strip()
        elif status is not None:
            self.ctx.warn_once(where, f"status {code} is not in the status file")
        return _phrase(code)

    def literalinclude(self, block: Directive) -> None:
        current = self.open
        if current is None or not block.head:
            return
        where = self.where(block.line)
        name = block.head.strip()
        stem = PurePosixPath(name).stem
        kind = ("request" if _REQ_FILE.search(stem) else
                "response" if _RESP_FILE.search(stem) else self.kind_here())
        if kind is not None and PurePosixPath(name).suffix.lower() == ".json":
            current.example_bodies.add(kind)
        path = self.ctx.tree.resolve(name, self.file.base, where, quiet=True)
        if path is None:
            self.ctx.outside.append(where)  # summarised once: nova points at ../../doc
            return
        current.asides.append(prose.caption_versions(name))
        selection = Selection.from_options(directive_options(block.body))
        data = self.ctx.example(path, where, selection)
        if data is None:
            return
        current.examples.append(Example(kind, data))

    def version_note(self, block: Directive) -> None:
        where = self.where(block.line)
        head, _, rest = block.head.partition(" ")
        version = self.ctx.version(head, where, block.name)
        if version is None:
            return
        text = " ".join([rest, *(t for _, t in block.body)])
        names = prose.literal_names(text)
        current = self.open
        if current is None:
            if block.name == "versionadded" and not names and self.stack and \
                    prose.announces_operation(text):
                self.section_min.setdefault(self.stack[-1].level, version)
            return
        if block.name == "versionadded" and not current.seen_added and not names \
                and not current.tables and not current.explicit_min \
                and prose.announces_operation(text):
            current.versions = VersionRange(version, current.versions.hi)
            current.inferred = True
        if block.name == "versionadded" or prose.announces_addition(text):
            current.notes.append((version, names))
        if block.name == "versionadded":
            current.seen_added = True

    def apply_notes(self, table: Table, notes: list[tuple[Version, list[str]]]) -> Table:
        """versionadded notes that name a field give it a lower bound (inferred)."""
        if not notes:
            return table
        first: dict[str, Version] = {}
        for version, names in notes:
            for name in names:
                if name not in first or version < first[name]:
                    first[name] = version
        rows = []
        for row in table.rows:
            since = first.get(row.name) or first.get(row.name.rsplit(".", 1)[-1])
            if since is not None and row.where != "path" and row.versions.lo is None \
                    and "min_version" not in row.fields:
                rows.append(replace(row, versions=VersionRange(since, row.versions.hi),
                                    inferred_versions=True))
            else:
                rows.append(row)
        return Table(table.kind, table.versions, table.ranged, table.title, table.first,
                     tuple(rows), table.location)

    def paragraph(self, block: Paragraph) -> None:
        bold = _BOLD.match(block.text)
        if bold:
            kind = classify(bold.group(1))
            if kind is not None:
                self.bold = kind
                if self.open is not None:
                    self.open.intro = False
        current = self.open
        if current is None:
            if prose.code_label(block.text) is None:
                self.describe(block.text)
                self.stated_since(block.text)
            return
        if current.bare_label is not None and prose.is_code_list(block.text):
            self.codes(current, current.bare_label, block.text, block.line)
            return
        current.bare_label = None
        if current.action_hint is None:
            current.action_hint = prose.action_in_prose(block.text)
        if prose.code_label(block.text) is None:
            self.describe(block.text)
            self.stated_since(block.text)
            return
        for kind, text, start in prose.code_sections(block.text):
            line = block.line + block.text.count("\n", 0, start)
            if not text.strip():
                current.bare_label = kind
                continue
            self.codes(current, kind, text, line)

    # -- the description -----------------------------------------------------------------
    def describe(self, text: str) -> None:
        if not any(c.isalnum() for c in text):
            return  # "|" spacer lines
        if self.open is None:
            self.pending.append(text)
        elif self.open.intro:
            self.open.prose.append(text)
        else:  # a note or caption further down: it may still name a microversion
            self.open.asides.append(prose.caption_versions(text))

    def describe_directive(self, block: Directive) -> None:
        if block.line <= self.quoted_until:
            return  # inside an admonition already taken as written
        body = [t for _, t in block.body]
        if block.name in _ADMONITIONS:
            self.describe("\n".join([block.head, *body]).strip())
            self.stated_since("\n".join([block.head, *body]))
            self.quoted_until = block.body[-1][0] if block.body else block.line
        elif block.name in _VERSION_NOTES:
            version, _, rest = block.head.partition(" ")
            text = "\n".join([rest, *body]).strip()
            label = f"{_VERSION_NOTES[block.name]} {version}"
            self.describe(f"{label}: {text}" if text else f"{label}.")

    def gate_codes(self, current: _Open) -> None:
        """Codes the section's prose says start at a microversion ("Starting with
        microversion 2.102, this API returns 409"), where their list gives no range."""
        gates = dict(availability.code_gates("\n\n".join([*current.prose, *current.asides])))
        for i, code in enumerate(current.codes):
            since = gates.get(code.status)
            if since is not None and code.versions == ALL:
                self.ctx.saw(VersionRange(since, None))
                current.codes[i] = replace(code, versions=VersionRange(since, None))

    def codes(self, current: _Open, kind: str, text: str, line: int) -> None:
        for mention in prose.codes_in(text):
            self.ctx.saw(mention.versions)
            description = mention.name or _phrase(mention.status)
            current.codes.append(Code(mention.status, mention.versions, description,
                                      self.where(line)))


def _phrase(code: int) -> str:
    try:
        return http.HTTPStatus(code).phrase
    except ValueError:
        return f"HTTP {code}"
