"""Reading and editing api-ref sources as text, the way a contributor edits them.

An api-ref folder holds `index.rst` (which includes the `.inc` files), the `.inc` files
(one RST section per operation, opened by `.. rest_method::`), and `parameters.yaml`.
This module finds, in one `.inc` file, each operation's span, its parameter tables (request
or response, by the nearest section title) and its status codes (prose lines such as
`Error response codes: badRequest(400), ...` or `.. rest_status_code:: error status.yaml`
lists), and edits them line by line, so a case commit changes only the lines a person
would change. `parameters.yaml` is edited as text too (an entry inserted in the file's
sort order, with its neighbour's field order and indentation).

This is an independent, deliberately small reader: it must not share code with the tool
it measures.
"""

from __future__ import annotations

import posixpath
import re
import textwrap
from dataclasses import dataclass, field

import yaml

_ADORN = re.compile(r"^([=\-~^\"'`#*+:._])\1{2,}\s*$")
_INCLUDE = re.compile(r"^\.\.\s+include::\s+(\S+)\s*$")
_REST_METHOD = re.compile(r"^\.\.\s+rest_method::\s*(.*)$")
_REST_PARAMS = re.compile(r"^\.\.\s+rest_parameters::\s+(\S+)\s*$")
_REST_STATUS = re.compile(r"^\.\.\s+rest_status_code::\s+(success|error)\s+(\S+)\s*$")
_PROSE_CODES = re.compile(r"^(Normal|Error)\s+(?:response\s+)?codes?\s*:", re.I)
_ITEM = re.compile(r"^(\s+)-\s+(.+?):\s+(\S+)\s*$")
_CODE_ITEM = re.compile(r"^(\s+)-\s+(\d{3})\b")


def split_lines(text: str) -> tuple[list[str], str]:
    """Lines without their ends, and the file's line end ("\\r\\n" for CRLF files)."""
    newline = "\r\n" if "\r\n" in text else "\n"
    body = text.replace("\r\n", "\n")
    lines = body.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    return lines, newline


def join_lines(lines: list[str], newline: str) -> str:
    return newline.join(lines) + newline


# ---------------------------------------------------------------------------------------
# The folder


def included_files(folder: str, index_text: str | None, present: tuple[str, ...]) -> list[str]:
    """The `.inc` files `index.rst` includes (paths in the repository), in document order;
    with no index, every `.inc` file of the folder."""
    found: list[str] = []
    if index_text:
        for line in index_text.splitlines():
            match = _INCLUDE.match(line.strip())
            if match:
                path = posixpath.normpath(posixpath.join(folder, match.group(1)))
                if path in present and path not in found:
                    found.append(path)
    if not found:
        found = sorted(p for p in present if p.endswith(".inc")
                       and posixpath.dirname(p) == folder)
    return found


# ---------------------------------------------------------------------------------------
# One .inc file


@dataclass
class Title:
    line: int  # index of the title text line
    text: str
    style: str
    level: int = 0
    underline: int = 0  # index of the underline


@dataclass
class Table:
    directive: int  # line index of `.. rest_parameters::`
    param_file: str  # as written (`parameters.yaml`)
    role: str  # "request", "response" or "unknown"
    title: str  # the nearest section title
    items: list[tuple[int, str, str]] = field(default_factory=list)  # (line, name, refkey)
    indent: str = "  "


@dataclass
class Codes:
    kind: str  # "success" or "error"
    style: str  # "prose", "bullets" or "directive"
    start: int  # first line of the paragraph / directive line
    end: int  # last line (inclusive)
    codes: list[int] = field(default_factory=list)
    status_file: str = ""


@dataclass
class Operation:
    file: str
    title: Title
    method: str
    url: str
    method_line: int
    start: int  # title line (or overline)
    end: int  # exclusive
    tables: list[Table] = field(default_factory=list)
    codes: list[Codes] = field(default_factory=list)

    @property
    def key(self) -> str:
        return f"{self.method} {self.url}"

    def table(self, role: str) -> Table | None:
        for table in self.tables:
            if table.role == role:
                return table
        return None

    def codes_of(self, kind: str) -> Codes | None:
        for codes in self.codes:
            if codes.kind == kind:
                return codes
        return None


class IncFile:
    """One `.inc` file, parsed into titles and operations."""

    def __init__(self, path: str, text: str):
        self.path = path
        self.lines, self.newline = split_lines(text)
        self.titles = self._titles()
        self.operations = self._operations()

    def text(self) -> str:
        return join_lines(self.lines, self.newline)

    def _titles(self) -> list[Title]:
        lines = self.lines
        titles: list[Title] = []
        styles: list[str] = []
        i = 1
        while i < len(lines):
            under = _ADORN.match(lines[i])
            above = lines[i - 1]
            if under and above.strip() and not above.startswith((" ", "\t")) \
                    and not _ADORN.match(above) and not above.lstrip().startswith(".."):
                char = under.group(1)
                over = i >= 2 and lines[i - 2].strip() and _ADORN.match(lines[i - 2]) \
                    and lines[i - 2].strip()[0] == char
                style = ("o" if over else "u") + char
                if style not in styles:
                    styles.append(style)
                titles.append(Title(i - 1, above.strip(), style, styles.index(style), i))
                i += 2
                continue
            i += 1
        return titles

    def _title_before(self, line: int) -> Title | None:
        best = None
        for title in self.titles:
            if title.line < line:
                best = title
        return best

    def _operations(self) -> list[Operation]:
        ops: list[Operation] = []
        lines = self.lines
        for index, line in enumerate(lines):
            match = _REST_METHOD.match(line)
            if not match:
                continue
            content = match.group(1).strip()
            j = index
            if not content:
                j = index + 1
                while j < len(lines) and not lines[j].strip():
                    j += 1
                content = lines[j].strip() if j < len(lines) else ""
            parts = content.split()
            if len(parts) < 2:
                continue
            title = self._title_before(index)
            if title is None:
                continue
            start = title.line - 1 if title.style.startswith("o") else title.line
            end = len(lines)
            for other in self.titles:
                if other.line > title.line and other.level <= title.level:
                    end = other.line - 1 if other.style.startswith("o") else other.line
                    break
            op = Operation(self.path, title, parts[0].upper(), parts[1], index, start, end)
            self._read_op(op)
            ops.append(op)
        # two operations under one title (rare): the later one ends the earlier one
        for first, second in zip(ops, ops[1:], strict=False):
            if second.start < first.end:
                first.end = min(first.end, second.method_line)
        return ops

    def _read_op(self, op: Operation) -> None:
        lines = self.lines
        i = op.method_line + 1
        while i < op.end:
            line = lines[i]
            params = _REST_PARAMS.match(line)
            status = _REST_STATUS.match(line)
            prose = _PROSE_CODES.match(line)
            if params:
                op.tables.append(self._table(op, i, params.group(1)))
            elif status:
                op.codes.append(self._status_directive(i, status.group(1), status.group(2),
                                                       op.end))
            elif prose and not line.startswith((" ", "\t")):
                op.codes.append(self._prose_codes(i, prose.group(1).lower(), op.end))
            i += 1

    def _table(self, op: Operation, index: int, param_file: str) -> Table:
        title = self._title_before(index)
        role_text = title.text if title is not None and title.line > op.title.line else ""
        role = _role(role_text)
        if role == "unknown":  # bold markers (**Request**) between the title and the table
            for k in range(index - 1, op.method_line, -1):
                text = self.lines[k].strip().lower()
                if text.startswith("**") and ("request" in text or "response" in text):
                    role = _role(text)
                    break
        table = Table(index, param_file, role, role_text)
        k = index + 1
        while k < len(self.lines) and not self.lines[k].strip():
            k += 1
        while k < len(self.lines):
            match = _ITEM.match(self.lines[k])
            if not match:
                break
            table.indent = match.group(1)
            table.items.append((k, match.group(2).strip(), match.group(3).strip()))
            k += 1
        return table

    def _status_directive(self, index: int, kind: str, status_file: str, end: int) -> Codes:
        codes = Codes(kind, "directive", index, index, status_file=status_file)
        k = index + 1
        while k < end and not self.lines[k].strip():
            k += 1
        while k < end:
            match = _CODE_ITEM.match(self.lines[k])
            if not match:
                break
            codes.codes.append(int(match.group(2)))
            codes.end = k
            k += 1
        return codes

    def _prose_codes(self, index: int, kind: str, end: int) -> Codes:
        kind = "success" if kind == "normal" else "error"
        k = index
        while k + 1 < end and self.lines[k + 1].strip():
            k += 1
        text = " ".join(self.lines[index:k + 1])
        bullets = any(_CODE_ITEM.match(self.lines[j]) for j in range(index + 1, k + 1))
        codes = Codes(kind, "bullets" if bullets else "prose", index, k)
        codes.codes = [int(c) for c in re.findall(r"(?<!\d)([1-5]\d\d)(?!\d)",
                                                  text.split(":", 1)[1])]
        return codes


def _role(text: str) -> str:
    low = text.lower()
    if "request" in low:
        return "request"
    if "response" in low:
        return "response"
    return "unknown"


# ---------------------------------------------------------------------------------------
# parameters.yaml


class _StrFloatLoader(yaml.SafeLoader):
    """os-api-ref's loader: YAML floats stay strings (2.10 is not 2.1)."""


def _float_as_str(loader: yaml.SafeLoader, node: yaml.Node) -> str:
    return loader.construct_scalar(node)


_StrFloatLoader.add_constructor("tag:yaml.org,2002:float", _float_as_str)

_TOP_KEY = re.compile(r"^([^\s#][^\n]*?):\s*(?:&\S+)?\s*$")


def load_params(text: str) -> dict:
    try:
        data = yaml.load(text, Loader=_StrFloatLoader)
    except yaml.YAMLError:
        return {}
    return data if isinstance(data, dict) else {}


class ParamsFile:
    """parameters.yaml as lines with the span of each top-level entry."""

    def __init__(self, path: str, text: str):
        self.path = path
        self.lines, self.newline = split_lines(text)
        self.data = load_params(text)
        self.spans: list[tuple[str, int, int]] = []  # (key, first line, end exclusive)
        self._index()

    def _index(self) -> None:
        """The span of each top-level entry (again after every edit of the lines)."""
        self.spans = []
        starts = [(i, m.group(1).strip().strip("'\"")) for i, line in enumerate(self.lines)
                  if (m := _TOP_KEY.match(line)) and not line.startswith("---")]
        for n, (i, key) in enumerate(starts):
            end = starts[n + 1][0] if n + 1 < len(starts) else len(self.lines)
            while end - 1 > i and not self.lines[end - 1].strip():
                end -= 1
            self.spans.append((key, i, end))

    def text(self) -> str:
        return join_lines(self.lines, self.newline)

    def entry(self, key: str) -> dict:
        value = self.data.get(key)
        return value if isinstance(value, dict) else {}

    def span(self, key: str) -> tuple[int, int] | None:
        for name, first, end in self.spans:
            if name == key:
                return first, end
        return None

    def has(self, key: str) -> bool:
        return key in self.data or self.span(key) is not None

    def blank_between(self) -> bool:
        """Entries separated by a blank line (nova, cinder) or not (ironic)."""
        blanks = sum(1 for _, _, end in self.spans[:-1]
                     if end < len(self.lines) and not self.lines[end].strip())
        return blanks * 2 >= max(1, len(self.spans) - 1)

    def style(self, near: str | None) -> tuple[list[str], str, str, str]:
        """(field order, field indent, description block marker, required spelling) of the
        entry `near` (else the first one that has a description)."""
        keys = [near] if near else []
        keys += [k for k, _, _ in self.spans]
        for key in keys:
            span = self.span(key)
            if span is None:
                continue
            first, end = span
            fields, indent, block, truth = [], "  ", "|", "true"
            for line in self.lines[first + 1:end]:
                match = re.match(r"^(\s+)([A-Za-z_]+):\s*(.*)$", line)
                if match and (not fields or len(match.group(1)) == len(indent)):
                    if not fields:
                        indent = match.group(1)
                    fields.append(match.group(2))
                    if match.group(2) == "description" and match.group(3) in ("|", ">",
                                                                              "|-", ">-"):
                        block = match.group(3)
                    if match.group(2) == "required":
                        truth = match.group(3).strip()
            if "description" in fields and "in" in fields:
                return fields, indent, block, truth
        return ["description", "in", "required", "type"], "  ", "|", "true"

    def insert_entry(self, key: str, values: dict[str, str], description: str) -> int:
        """Insert `key` in the file's sort order among entries with the same `in`; returns
        the line it starts at. `values`: in, required (bool text), type, min_version..."""
        where = values.get("in", "body")
        same_in = [(k, first, end) for k, first, end in self.spans
                   if self.entry(k).get("in") == where]
        position = None
        near = None
        for k, first, _end in same_in:
            if k.lower() > key.lower():
                position, near = first, k
                break
        if position is None:
            if same_in:
                near = same_in[-1][0]
                position = same_in[-1][2]
            else:
                position = len(self.lines)
        fields, indent, block, truth = self.style(near)
        truthy = {"true": ("true", "false"), "True": ("True", "False"),
                  "false": ("true", "false"), "False": ("True", "False")}.get(truth,
                                                                            ("true", "false"))
        order = [f for f in fields if f in ("description", "in", "required", "type",
                                            "min_version", "max_version")]
        for extra in ("description", "in", "required", "type", "min_version", "max_version"):
            if extra not in order:
                order.append(extra)
        body = [f"{key}:"]
        for name in order:
            if name == "description":
                body.append(f"{indent}description: {block}")
                for line in textwrap.wrap(description, 79 - 2 * len(indent)):
                    body.append(indent * 2 + line)
            elif name == "required":
                body.append(f"{indent}required: "
                            f"{truthy[0] if values.get('required') == 'true' else truthy[1]}")
            elif name in values and name != "required":
                body.append(f"{indent}{name}: {values[name]}")
        blank = self.blank_between()
        if near is not None and position == self.span(near)[0]:
            new = body + ([""] if blank else [])  # before the entry that sorts after it
        else:
            new = ([""] if blank else []) + body  # after the last entry of its kind
        self.lines[position:position] = new
        self._index()
        return position + (1 if new and new[0] == "" else 0)

    def set_field(self, key: str, name: str, value: str) -> bool:
        """Add or replace a scalar field of an entry (`min_version`, `max_version`)."""
        span = self.span(key)
        if span is None:
            return False
        first, end = span
        fields, indent, _, _ = self.style(key)
        for i in range(first + 1, end):
            if re.match(rf"^{indent}{name}:", self.lines[i]):
                self.lines[i] = f"{indent}{name}: {value}"
                self._index()
                return True
        # after the last field line of the entry, or in its sorted field position
        insert_at = end
        for i in range(first + 1, end):
            match = re.match(rf"^{indent}([A-Za-z_]+):", self.lines[i])
            if match and match.group(1) > name and fields == sorted(fields):
                insert_at = i
                break
        self.lines.insert(insert_at, f"{indent}{name}: {value}")
        self._index()
        return True

    def description_span(self, key: str) -> tuple[int, int, str] | None:
        """(first text line, end exclusive, indent) of an entry's block description."""
        span = self.span(key)
        if span is None:
            return None
        first, end = span
        for i in range(first + 1, end):
            match = re.match(r"^(\s+)description:\s*([|>]-?)\s*$", self.lines[i])
            if match:
                j = i + 1
                body_indent = None
                while j < end:
                    line = self.lines[j]
                    if line.strip():
                        lead = len(line) - len(line.lstrip())
                        if body_indent is None:
                            body_indent = lead
                        if lead < (body_indent or 0) or lead <= len(match.group(1)):
                            break
                    j += 1
                while j - 1 > i and not self.lines[j - 1].strip():
                    j -= 1
                if body_indent is None:
                    return None
                return i + 1, j, " " * body_indent
        return None


def prose_code_name(code: int, doc_texts: list[str]) -> str:
    """How the documents name a code in prose lists (`conflict(409)`), from their own use."""
    counts: dict[str, int] = {}
    for text in doc_texts:
        for name in re.findall(rf"([A-Za-z]+)\s?\({code}\)", text):
            counts[name] = counts.get(name, 0) + 1
    if counts:
        return max(sorted(counts), key=lambda n: counts[n])
    return {400: "badRequest", 401: "unauthorized", 403: "forbidden", 404: "itemNotFound",
            405: "badMethod", 409: "conflict", 413: "overLimit", 415: "badMediaType",
            500: "internalServerError", 501: "notImplemented",
            503: "serviceUnavailable"}[code]
