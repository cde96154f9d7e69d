"""The version-gate index: where a project's API code names each microversion.

Cheap and for any of the services (nova, cinder, manila, ironic, placement, cyborg,
senlin, watcher, masakari, zun, magnum): the text of the API modules is scanned line by
line, nothing is parsed. A record says where the code gates on a version and how:

| kind | example |
| --- | --- |
| decorator | `@wsgi.api_version('2.1', '2.102')`, `@microversion.version_handler('1.6')`, `@validation.schema(s, mv.VOLUME_REVERT)` |
| check | `api_version_request.is_supported(req, '2.73')`, `want_version.matches((1, 15))`, `req_version >= api_version.APIVersionRequest('3.40')` |
| constant | a named version, defined or used: `UUID_FOR_ID_MIN_VERSION = '2.53'`, cinder's `mv.X`, ironic's `MINOR_52_ALLOCATION` |
| literal | another `'X.Y'` string in the API code |

A version named through a constant counts where the constant is used (in a decorator: a
decorator record) and where it is defined.
"""  # noqa: E501  (the table's rows)

from __future__ import annotations

import bisect
import itertools
import posixpath
import re
from collections.abc import Iterator, Sequence

from needs_microversion.loaders.code.records import Gate
from needs_microversion.loaders.code.source import Read, ReadMany, SourceTree
from needs_microversion.model.versions import Version, parse_version

_MAX_FILES = 3000  # nova's API is ~200 modules, ironic's ~100
_LITERAL = re.compile(r"""(?<![\w.])['"](\d{1,2}\.\d{1,4})['"]""")
_TUPLE = re.compile(r"\(\s*(\d{1,2})\s*,\s*(\d{1,4})\s*\)")
_CHECK = re.compile(r"\b(?:matches|is_supported|APIVersionRequest|allow_\w+|check_allow_\w+|"
                    r"version_handler|api_version|_version|ver|minor)\b\s*[(<>=!]", re.I)
_STRING_CONSTANT = re.compile(
    r"""^[ \t]*([A-Z][A-Z0-9_]*)[ \t]*=[ \t]*['"](\d{1,2}\.\d{1,4})['"]""", re.M)
_MINOR_CONSTANT = re.compile(r"^[ \t]*(MINOR_(\d{1,4})_[A-Z0-9_]+)[ \t]*=[ \t]*(\d{1,4})\b", re.M)
_BASE = re.compile(r"^\s*BASE_VERSION\s*=\s*(\d{1,2})\b", re.M)
_API_FILE = re.compile(r"(?:^|/)(?:api|handlers)/|(?:^|/)(?:handler|microversions?)\.py$")


def version_gates(read: Read, listing: Sequence[str], *,
                  read_many: ReadMany | None = None) -> tuple[Gate, ...]:
    """Every place the revision's API code names a microversion, sorted by version."""
    source = SourceTree(read, listing, read_many)
    paths = sorted(p for p in source.files if p.endswith(".py") and _API_FILE.search(p)
                   and not _is_test(p))[:_MAX_FILES]
    source.prefetch(paths)
    texts = {path: text for path in paths if (text := source.text(path)) is not None}
    constants = _constants(texts)
    gates = {gate for path, text in texts.items()
             for gate in _scan(path, text, constants, _names(constants, text))}
    return tuple(sorted(gates, key=lambda g: (g.version, g.file, g.line, g.kind)))


def _names(constants: dict[str, Version], text: str) -> re.Pattern[str] | None:
    """A pattern of the constants this text names (most files name none)."""
    used = sorted((name for name in constants if name in text), key=len, reverse=True)
    return re.compile(r"\b(" + "|".join(map(re.escape, used)) + r")\b") if used else None


def _is_test(path: str) -> bool:
    parts = path.split("/")
    return any(part in ("tests", "test", "functional", "unit") for part in parts) or \
        posixpath.basename(path).startswith("test_")


def _constants(texts: dict[str, str]) -> dict[str, Version]:
    """Module-level names bound to a version: `X = '2.53'`, ironic's `MINOR_52_X = 52`
    (its major from the same file's `BASE_VERSION`, else 1)."""
    found: dict[str, Version] = {}
    for text in texts.values():
        base = _BASE.search(text)
        major = int(base.group(1)) if base else 1
        for match in _STRING_CONSTANT.finditer(text):
            version = parse_version(match.group(2))
            if version is not None:
                found.setdefault(match.group(1), version)
        for match in _MINOR_CONSTANT.finditer(text):
            found.setdefault(match.group(1), Version(major, int(match.group(3))))
    return found


def _scan(path: str, text: str, constants: dict[str, Version],
          names: re.Pattern[str] | None) -> Iterator[Gate]:
    """The whole text is searched at once (a line at a time is ten times slower); each
    hit's line is then classified once."""
    lines = text.split("\n")
    starts = [0, *itertools.accumulate(len(line) + 1 for line in lines)]
    decorators = _decorator_lines(lines)
    kinds: dict[int, str] = {}

    def kind_of(number: int) -> str:
        if number not in kinds:
            code = lines[number - 1]
            kinds[number] = "decorator" if number in decorators else "constant" if (
                _STRING_CONSTANT.match(code) or _MINOR_CONSTANT.match(code)) else "check" if (
                _CHECK.search(code)) else "literal"
        return kinds[number]

    def hits(pattern: re.Pattern[str]) -> Iterator[tuple[re.Match[str], int]]:
        for match in pattern.finditer(text):
            number = bisect.bisect_right(starts, match.start())
            if not _in_comment(lines[number - 1], match.start() - starts[number - 1]):
                yield match, number

    for match, number in hits(_LITERAL):
        version = parse_version(match.group(1))
        if version is not None:
            yield Gate(version, path, number, kind_of(number))
    for match, number in hits(_TUPLE):
        if kind_of(number) in ("decorator", "check"):
            yield Gate(Version(int(match.group(1)), int(match.group(2))), path, number,
                       kind_of(number))
    if names is not None:
        for match, number in hits(names):
            kind = kind_of(number)
            yield Gate(constants[match.group(1)], path, number,
                       "constant" if kind == "literal" else kind)


def _decorator_lines(lines: list[str]) -> set[int]:
    """The lines of decorators (1-based), a decorator's arguments running on while its
    parentheses are open."""
    found: set[int] = set()
    depth = 0
    for number, line in enumerate(lines, 1):
        if depth == 0 and not line.lstrip().startswith("@"):
            continue
        found.add(number)
        depth = max(depth + line.count("(") - line.count(")"), 0)
    return found


def _in_comment(line: str, column: int) -> bool:
    """Whether `column` lies after a `#` that is not inside a string literal."""
    quote = ""
    for index, char in enumerate(line[:column]):
        if quote:
            if char == quote and line[index - 1] != "\\":
                quote = ""
        elif char in "'\"":
            quote = char
        elif char == "#":
            return True
    return False
