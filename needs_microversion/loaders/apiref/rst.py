"""A line-based reader for the subset of reStructuredText that api-ref files use.

It returns the same flat block list as `rst_docutils.read_with_docutils`: section titles
with their level, explicit-markup blocks (directives, and comments that look like a
`versionadded` missing its second colon), and paragraphs. Everything else (inline markup,
tables, literal blocks) is skipped.

Why not docutils for every file: docutils builds a fresh state machine for every nested
block, so nova's 67 `.inc` files take ~0.75 s, more than the whole 0.7 s budget. This reader
follows docutils' rules for the constructs it reports (title adornment styles and levels,
directive blocks by indentation, paragraphs up to a blank line), a test checks that both
readers agree on every corpus file, and files this reader finds suspicious are re-read by
docutils so its system messages become the warnings.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

# docutils: any non-alphanumeric printable 7-bit ASCII character repeated.
_ADORNMENT = re.compile(r"^([!-/:-@\[-`{-~])\1*\s*$")
# docutils' directive marker: ".. name::" with a "simple name" (no leading underscore).
_DIRECTIVE = re.compile(r"^\.\.[ ]+((?:(?!_)\w)+(?:[-._+:](?:(?!_)\w)+)*)[ ]?::(?:[ ]+|$)(.*)$")
# A comment that is a `versionadded`/`versionchanged` with one colon: intent is obvious.
ONE_COLON = re.compile(r"^\.\.[ ]+(versionadded|versionchanged|deprecated):[ ]+(\S.*)$")
# Directives whose body is RST again (admonitions and containers): scanned for directives.
CONTAINERS = frozenset({
    "note", "warning", "important", "tip", "hint", "caution", "danger", "attention",
    "error", "admonition", "seealso", "only", "container", "topic", "sidebar", "versionadded",
    "versionchanged", "deprecated", "versionremoved", "rst-class", "compound"})


@dataclass(frozen=True)
class Title:
    text: str
    level: int  # 1 = outermost style seen in this file
    line: int  # the line of the title text


@dataclass(frozen=True)
class Directive:
    name: str
    head: str  # text after "::" on the marker line
    body: tuple[tuple[int, str], ...]  # (line, dedented text) of the indented block
    line: int


@dataclass(frozen=True)
class Paragraph:
    text: str  # lines joined with "\n", each stripped of its indentation
    line: int


Block = Title | Directive | Paragraph


@dataclass(frozen=True)
class RstDoc:
    blocks: tuple[Block, ...]
    messages: tuple[tuple[int, str], ...]  # (line, message): problems worth a warning
    suspicious: bool  # structure this reader may misread: let docutils have the last word


def one_colon_message(name: str) -> str:
    return f"'.. {name}: ' is a comment (one colon); read as the {name} directive"


def read_rst(text: str) -> RstDoc:
    """Scan one file's text into blocks (1-based line numbers)."""
    return _Scanner(text.expandtabs(8).splitlines()).run()


class _Scanner:
    def __init__(self, lines: list[str]) -> None:
        self.lines = lines
        self.blocks: list[Block] = []
        self.messages: list[tuple[int, str]] = []
        self.styles: list[tuple[str, bool]] = []
        self.level = 0  # the section level of the last title
        self.suspicious = False

    def run(self) -> RstDoc:
        self.scan(0, len(self.lines), top=True)
        return RstDoc(tuple(self.blocks), tuple(self.messages), self.suspicious)

    # -- helpers -------------------------------------------------------------------------
    def blank(self, i: int) -> bool:
        return not self.lines[i].strip()

    def indent(self, i: int) -> int:
        line = self.lines[i]
        return len(line) - len(line.lstrip(" "))

    def block_end(self, start: int, stop: int, indent: int) -> int:
        """First line after `start` that is neither blank nor indented beyond `indent`."""
        i = start
        while i < stop and (self.blank(i) or self.indent(i) > indent):
            i += 1
        return i

    def title_at(self, i: int, stop: int) -> tuple[int, str, tuple[str, bool]] | None:
        """A section title starting at line i: (lines used, text, style) or None."""
        line = self.lines[i]
        over = _ADORNMENT.match(line)
        if over and i + 2 < stop:
            text, closing = self.lines[i + 1], self.lines[i + 2]
            if text.strip() and closing.rstrip() == line.rstrip() and len(line.strip()) >= 2:
                if len(line.rstrip()) < len(text.rstrip()):
                    self.messages.append((i + 1, "Title overline too short."))
                return 3, " ".join(text.split()), (over.group(1), True)
        if over or not line.strip() or line[0] == " " or i + 1 >= stop:
            return None
        under_line = self.lines[i + 1]
        under = _ADORNMENT.match(under_line)
        if not under:
            return None
        width, length = len(line.rstrip()), len(under_line.rstrip())
        if length < width and length < 4:
            return None  # docutils: too short for the title, so ordinary text
        if length < width:
            self.messages.append((i + 2, "Title underline too short."))
        return 2, " ".join(line.split()), (under.group(1), False)

    # -- the scan ------------------------------------------------------------------------
    def scan(self, start: int, stop: int, *, top: bool) -> None:
        i = start
        while i < stop:
            if self.blank(i):
                i += 1
                continue
            line = self.lines[i]
            if top:
                title = self.title_at(i, stop)
                if title is not None:
                    used, text, style = title
                    self.check_level(style, i + 1)
                    if style not in self.styles:
                        self.styles.append(style)
                    self.level = self.styles.index(style) + 1
                    self.blocks.append(Title(text, self.level,
                                             i + 1 + (1 if style[1] else 0)))
                    i += used
                    continue
                if _ADORNMENT.match(line) and len(line.strip()) >= 4:
                    i += 1  # a transition
                    continue
            stripped = line.lstrip(" ")
            if stripped.startswith("..") and (stripped == ".." or stripped[2] == " "):
                i = self.explicit(i, stop)
                continue
            i = self.paragraph(i, stop, record=top)

    def check_level(self, style: tuple[str, bool], line: int) -> None:
        """docutils' rule: a title may go one level deeper than the last, never more; a new
        style opens the next level only below the deepest one seen. Sphinx stops on it, and
        the sections it builds differ from ours: docutils reads such a file."""
        level = self.styles.index(style) + 1 if style in self.styles else len(self.styles) + 1
        if level > self.level + 1:
            self.messages.append((line, "Title level inconsistent (a title style skips a "
                                        "level)"))
            self.suspicious = True

    def explicit(self, i: int, stop: int) -> int:
        indent = self.indent(i)
        marker = self.lines[i][indent:]
        end = self.block_end(i + 1, stop, indent)
        match = _DIRECTIVE.match(marker)
        if match is None:
            one_colon = ONE_COLON.match(marker)
            if one_colon:
                self.messages.append((i + 1, one_colon_message(one_colon.group(1))))
                self.blocks.append(Directive(one_colon.group(1), one_colon.group(2).strip(),
                                             self.body(i + 1, end), i + 1))
            return end  # a comment, target, footnote or substitution: nothing we read
        name = match.group(1).lower()
        directive = Directive(name, match.group(2).strip(), self.body(i + 1, end), i + 1)
        self.blocks.append(directive)
        if name in CONTAINERS:
            self.scan(i + 1, end, top=False)
        return end

    def body(self, start: int, end: int) -> tuple[tuple[int, str], ...]:
        while end > start and self.blank(end - 1):
            end -= 1
        rows = [(n + 1, self.lines[n]) for n in range(start, end)]
        widths = [len(t) - len(t.lstrip(" ")) for _, t in rows if t.strip()]
        cut = min(widths, default=0)
        return tuple((n, t[cut:].rstrip()) for n, t in rows)

    def paragraph(self, i: int, stop: int, *, record: bool) -> int:
        """Read up to a blank line; only section-level paragraphs are kept (`record`)."""
        start = i
        indent = self.indent(i)
        parts: list[str] = []
        while i < stop and not self.blank(i):
            if i > start and self.indent(i) == 0 and self.title_at(i, stop) is not None:
                self.suspicious = True  # a title glued to the text above: docutils decides
                break
            parts.append(self.lines[i].strip())
            i += 1
        text = "\n".join(parts)
        if record:
            self.blocks.append(Paragraph(text, start + 1))
        if text.endswith("::"):
            # A literal block follows: its lines are data (JSON, shell), never RST.
            j = i
            while j < stop and self.blank(j):
                j += 1
            if j < stop and self.indent(j) > indent:
                return self.block_end(j, stop, indent)
        return i
