"""What api-ref says in prose rather than in directives: status code lines, version ranges
in titles, allowed values in descriptions, field names in `versionadded` notes.

Every pattern here was read off the five corpus projects (nova, placement, cinder, manila,
ironic); the variants are listed next to each regex.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass

from needs_microversion.loaders.apiref.grid import first_column_values
from needs_microversion.model.versions import VersionRange, parse_version

# "(microversions 1.0 - 1.19)", "(microversion 2.101 - )", "(v2.1 - 2.5)", "(2.0 - 2.100)",
# manila's "(versions 2.5 to 2.14)".
_RANGE = re.compile(r"\(\s*(?:micro)?(?:versions?)?\s*v?(\d+\.\d+)\s*(?:-|\s+to\s+(?=v?\d))\s*"
                    r"(?:v?(\d+\.\d+))?\s*\)", re.IGNORECASE)
# "Normal response codes:", "Normal Response Codes:", "Normal response code:",
# "Error response codes:", "Error codes:", "Error Response Codes:".
_LABEL = re.compile(r"^\s*(normal|success(?:ful)?|error)\s+(?:response\s+|status\s+)?codes?\s*:",
                    re.IGNORECASE | re.MULTILINE)
# A status code, not part of a version ("2.100") or a longer number; an optional range
# may follow: "201 (microversions 1.0 - 1.19)".
_CODE = re.compile(r"(?<![\d.])([1-5]\d\d)(?![\d.])")
_BULLET = re.compile(r"^[-*+]\s")
_LITERAL = re.compile(r"``([^`\s]+)``")
# "(addFloatingIp Action)" in an action section's title.
_ACTION_TITLE = re.compile(r"\(([\w:.-]+)\s+[Aa]ction\)")
_ACTION_PROSE = re.compile(r"``([\w:.-]+)``\s+action\b")


@dataclass(frozen=True)
class CodeMention:
    status: int
    versions: VersionRange
    ranged: bool
    name: str  # "badRequest" in badRequest(400), "" when bare


def visible(text: str) -> str:
    """Without invisible format characters (manila has a zero-width space in a URL)."""
    return "".join(c for c in text if unicodedata.category(c) != "Cf")


def version_range(text: str) -> VersionRange | None:
    """The first "(microversions X - Y)" range in a title or note, None when there is none."""
    match = _RANGE.search(text)
    if match is None:
        return None
    return VersionRange(parse_version(match.group(1)),
                        parse_version(match.group(2)) if match.group(2) else None)


def code_label(text: str) -> str | None:
    """"normal" or "error" when a paragraph starts with a response-code label."""
    match = _LABEL.match(text)
    if match is None:
        return None
    return "error" if match.group(1).lower() == "error" else "normal"


def code_sections(text: str) -> list[tuple[str, str, int]]:
    """Split a paragraph into (label, text after the label, label offset) parts; one
    paragraph may hold both the normal and the error line."""
    marks = list(_LABEL.finditer(text))
    parts = []
    for i, match in enumerate(marks):
        end = marks[i + 1].start() if i + 1 < len(marks) else len(text)
        kind = "error" if match.group(1).lower() == "error" else "normal"
        parts.append((kind, text[match.end():end], match.start()))
    return parts


def codes_in(text: str) -> list[CodeMention]:
    """Every status code in a code line: "badRequest(400)", "400,401", "- 409 (Conflict)",
    "200 (microversions 2.0 - 2.100)", "computeFault(400, 500)", "itemNotFound (404)"."""
    ranges = [(m.start(), m.end(), m) for m in _RANGE.finditer(text)]
    found: list[CodeMention] = []
    for match in _CODE.finditer(text):
        if any(start <= match.start() < end for start, end, _ in ranges):
            continue  # a number inside "(microversions ...)" is a version, not a code
        after = text[match.end():]
        rng = next((m for start, _, m in ranges
                    if start >= match.end() and not after[:start - match.end()].strip(" )")),
                   None)
        versions = (VersionRange(parse_version(rng.group(1)),
                                 parse_version(rng.group(2)) if rng.group(2) else None)
                    if rng else VersionRange())
        name = re.search(r"([A-Za-z]\w*)\s*\(\s*(?:\d{3}\s*,\s*)*$", text[:match.start()])
        found.append(CodeMention(int(match.group(1)), versions, rng is not None,
                                 name.group(1) if name else ""))
    return found


def is_code_list(text: str) -> bool:
    """A paragraph that continues a bare "Error codes:" label: bullets or bare numbers."""
    lines = [line for line in text.splitlines() if line.strip()]
    return bool(lines) and all(_BULLET.match(line) or _CODE.match(line.strip())
                               for line in lines if not line.startswith(" "))


def action_in_title(title: str) -> str | None:
    match = _ACTION_TITLE.search(title)
    return match.group(1) if match else None


def action_in_prose(text: str) -> str | None:
    """"Specify the ``addFloatingIp`` action in the request body." -> addFloatingIp."""
    match = _ACTION_PROSE.search(text)
    return match.group(1) if match else None


def literal_names(text: str) -> list[str]:
    """``name`` literals in order, without duplicates."""
    return list(dict.fromkeys(_LITERAL.findall(text)))


_ADDED_WORDS = re.compile(r"\b(introduc\w*|add\w*|new|support\w* for)\b", re.IGNORECASE)


_OPERATION_WORDS = re.compile(r"\bintroduc\w*|\bAPIs?\b|\bendpoints?\b", re.IGNORECASE)


# A caption's version: "**Example Show Server Details (2.100)**", "Response Example (v3.65)",
# "(1.28 - 1.36)" (the first); an example file's: "v2.28/server-get-resp.json",
# "allocations-1.28.json".
_CAPTION_VERSION = re.compile(r"\(\s*v?(\d{1,4}\.\d{1,4})(?:\s*-\s*(?:v?\d{1,4}\.\d{1,4})?)?\s*\)")
_PATH_VERSION = re.compile(r"(?:^|[/_-])v?(\d{1,4}\.\d{1,4})(?=/|\.json|\.yaml|\.txt)")


def caption_versions(text: str) -> str:
    """A caption, note or example file name, with the versions it names spelt as prose
    ("microversion 2.100") so announcements read them like any other mention."""
    found = [*_PATH_VERSION.findall(text)]
    if "example" in text.lower() or text.lstrip().startswith("**"):
        found += _CAPTION_VERSION.findall(text)
    return " ".join([text, *(f"(microversion {version})" for version in found)])


def announces_operation(text: str) -> bool:
    """A `versionadded` without field names that dates the operation itself: no text
    (manila) or "Allocation API was introduced." (ironic), not "Added support for ..."
    nor "The API returns 409 Conflict when ..." (a status code's own version note)."""
    return not text.strip() or (bool(_OPERATION_WORDS.search(text))
                                and not _CODE.search(text))


def announces_addition(text: str) -> bool:
    """A `versionchanged` note that says something was added ("Added the ``x`` field")."""
    return bool(_ADDED_WORDS.search(text))


# Allowed values written in descriptions. Only clear shapes are read:
#   "``ssh`` or ``x509``"                          (two literals joined by "or")
#   "one of ``a``, ``b`` or ``c``", "one of: ..."  (an explicit "one of" list)
#   "- ``ACTIVE``. The server is active."         (a bullet list of literals)
#   a grid or simple table of values and meanings  (`grid`)
_ONE_OF = re.compile(r"\b(?:one of|possible values are|valid values are|allowed values are|"
                     r"valid values:|allowed values:|possible values:|either)\s*:?\s*"
                     r"((?:``[^`]+``\s*(?:,|\bor\b|\band\b)?\s*)+)",
                     re.IGNORECASE)
_PAIR = re.compile(r"\b(?:either|must be|can be|may be|could be|values? (?:is|are)|set to)\s+"
                   r"``([^`\s]+)``,?\s+or\s+``([^`\s]+)``", re.IGNORECASE)
_BULLET_LITERAL = re.compile(r"^\s*[-*+]\s+``([^`]+)``", re.MULTILINE)


def allowed_values(description: str) -> list[str] | None:
    """Allowed values named in a description, or None when no clear list is there."""
    match = _ONE_OF.search(description)
    if match:
        values = _LITERAL.findall(match.group(1))
        if len(values) >= 2:
            return list(dict.fromkeys(values))
    bullets = _BULLET_LITERAL.findall(description)
    if len(bullets) >= 2:
        return list(dict.fromkeys(b.strip() for b in bullets))
    tabled = first_column_values(description)
    if tabled:
        return tabled
    pairs = _PAIR.findall(description)
    if len(pairs) == 1 and len(_LITERAL.findall(description)) == 2:
        return list(pairs[0])
    return None


# An API documented as removed: nova's "Obsolete APIs" pages, "These APIs were removed in
# the 18.0.0 Rocky release", "This extension has been removed", "They are now obsolete".
_REMOVED = re.compile(
    r"\b(?:apis?|they|these|this|it|extensions?|operations?|resources?|calls?)\s+(?:\w+\s+)?"
    r"(?:was|were|has been|have been|is|are)\s+(?:now\s+)?(?:\w+ly\s+)?(?:removed|retired)\b"
    r"|\bobsolete\b",
    re.IGNORECASE)


def says_removed(text: str) -> bool:
    """Whether an operation's documentation says the API was removed (or is obsolete)."""
    return _REMOVED.search(text) is not None
