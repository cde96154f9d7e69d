"""Read one api-ref file with docutils, into the same blocks as `rst.read_rst`.

docutils is the RST authority: files the line reader finds ambiguous are read here, and its
system messages (WARNING and above) become our warnings; a test checks that both readers
agree on every file of the corpus. Every directive (os-api-ref's, Sphinx's `literalinclude`,
`versionadded`, `toctree`..., and docutils' own) is accepted by one recording directive,
so nothing runs, nothing is read and nothing is reported as unknown; unknown roles become
literals. File insertion stays disabled in the settings as well.
"""

from __future__ import annotations

import io
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from docutils import nodes, utils
from docutils.frontend import get_default_settings
from docutils.parsers.rst import Directive, Parser, directives, roles

from needs_microversion.loaders.apiref.rst import (
    CONTAINERS, ONE_COLON, Block, Directive as DirectiveBlock, Paragraph, RstDoc, Title,
    one_colon_message)

_PARSER = Parser()
_SETTINGS = get_default_settings(Parser)
_SETTINGS.report_level = 5  # nothing on stderr: messages are collected by an observer
_SETTINGS.halt_level = 5  # never raise on a broken file
_SETTINGS.warning_stream = io.StringIO()
_SETTINGS.file_insertion_enabled = False
_SETTINGS.raw_enabled = False
_SETTINGS.line_length_limit = 1_000_000


class _record(nodes.Element):  # type: ignore[misc]  # docutils has no type hints
    """A directive as written: name, marker-line text and raw block."""


class _Recorder(Directive):  # type: ignore[misc]  # docutils has no type hints
    has_content = True

    def run(self) -> list[nodes.Node]:
        node = _record()
        node["name"] = self.name.lower()
        node["lineno"] = self.lineno
        node["block"] = self.block_text
        if self.name.lower() in CONTAINERS and self.content:
            self.state.nested_parse(self.content, self.content_offset, node)
        return [node]


def _literal_role(name: str, rawtext: str, text: str, lineno: int, inliner: Any,
                  options: Any = None, content: Any = None) -> tuple[list[nodes.Node], list[Any]]:
    return [nodes.literal(rawtext, utils.unescape(text))], []


@contextmanager
def _sphinx_namespace() -> Iterator[None]:
    """Accept every directive and role for the duration of one parse.

    docutils looks names up through module-level functions; like Sphinx's
    `docutils_namespace`, swap them and restore them afterwards."""
    lookup_directive: Callable[..., Any] = directives.directive
    lookup_role: Callable[..., Any] = roles.role

    def directive(name: str, language: Any, document: Any) -> tuple[Any, list[Any]]:
        return _Recorder, []

    def role(name: str, language: Any, lineno: int, reporter: Any) -> tuple[Any, list[Any]]:
        found, _ = lookup_role(name, language, lineno, reporter)
        return (found or _literal_role), []

    setattr(directives, "directive", directive)  # noqa: B010 - a module function swap
    setattr(roles, "role", role)  # noqa: B010
    try:
        yield
    finally:
        setattr(directives, "directive", lookup_directive)  # noqa: B010
        setattr(roles, "role", lookup_role)  # noqa: B010


def read_with_docutils(text: str, name: str = "<api-ref>") -> RstDoc:
    document = utils.new_document(name, _SETTINGS)
    messages: list[tuple[int, str]] = []

    def observe(message: nodes.system_message) -> None:
        if message["level"] >= 2:
            line = message.get("line") or 1
            messages.append((int(line), " ".join(message.children[0].astext().split())
                             if message.children else ""))

    document.reporter.attach_observer(observe)
    with _sphinx_namespace():
        _PARSER.parse(text.expandtabs(8), document)
    blocks = list(_blocks(document, 0, messages))
    return RstDoc(tuple(blocks), tuple(sorted(messages)), False)


def _blocks(node: nodes.Element, depth: int, messages: list[tuple[int, str]]
            ) -> Iterator[Block]:
    for child in node.children:
        if isinstance(child, nodes.section):
            title = child.next_node(nodes.title)
            if title is not None:
                yield Title(" ".join(title.rawsource.split()), depth + 1, _title_line(title))
            yield from _blocks(child, depth + 1, messages)
        elif isinstance(child, _record):
            yield _directive(child)
            yield from _nested(child)
        elif isinstance(child, nodes.paragraph) and child.line:
            yield Paragraph(_stripped(child.rawsource), child.line)
        elif isinstance(child, nodes.definition_list):
            for item in child.children:
                if isinstance(item, nodes.definition_list_item):
                    yield Paragraph(_stripped(item.rawsource), item.line or 1)
        elif isinstance(child, nodes.comment):
            for block in _one_colon(child):
                messages.append((block.line, one_colon_message(block.name)))
                yield block
        elif isinstance(child, (nodes.system_message, nodes.title)):
            continue
        elif isinstance(child, nodes.Element) and not isinstance(child, nodes.section):
            yield from _nested(child)


def _nested(node: nodes.Element) -> Iterator[Block]:
    """Directives inside admonitions, lists and block quotes (their paragraphs are not
    section-level text, so they are not blocks)."""
    for child in node.findall(_record, include_self=False):
        yield _directive(child)


def _directive(node: _record) -> DirectiveBlock:
    lines = str(node["block"]).split("\n")
    marker = lines[0].lstrip(" ")
    head = marker.split("::", 1)[1].strip() if "::" in marker else ""
    rows = list(enumerate(lines[1:], start=int(node["lineno"]) + 1))
    while rows and not rows[-1][1].strip():
        rows.pop()
    cut = min((len(t) - len(t.lstrip(" ")) for _, t in rows if t.strip()), default=0)
    return DirectiveBlock(str(node["name"]), head, tuple((n, t[cut:].rstrip()) for n, t in rows),
                          int(node["lineno"]))


def _one_colon(comment: nodes.comment) -> Iterator[DirectiveBlock]:
    """`.. versionadded: 1.83` is a comment to docutils; the line reader reads it as the
    directive it was meant to be, and so does this one."""
    lines = comment.astext().split("\n")
    match = ONE_COLON.match(".. " + lines[0])
    if match and comment.line:
        first = max(comment.line - len(lines), 1)  # docutils marks the line after it
        yield DirectiveBlock(match.group(1), match.group(2).strip(),
                             tuple((first + i, t.strip()) for i, t in enumerate(lines[1:], 1)),
                             first)


def _title_line(title: nodes.title) -> int:
    return int(title.line or 1) - 1 if title.line else 1


def _stripped(raw: str) -> str:
    return "\n".join(line.strip() for line in raw.strip("\n").split("\n"))
