"""The REST API version history: which microversions a project has written down.

Every service keeps one entry per microversion, as an RST section titled with the version
(`2.104`, `2.103 (Maximum in 2026.1 Gazpacho)`, `1.39 - Support for the any-traits syntax`,
`1.115 (Hibiscus)`), as a bold bullet in nova's first history document (`- **2.4**`), and,
in nova, cinder, manila and masakari, as a line of the version file's
REST_API_VERSION_HISTORY string (`    * 2.104 - Add ...`). A change that adds an
entry announces that microversion; "(Maximum in <release>)" marks what a release shipped.
"""

from __future__ import annotations

import re

from needs_microversion.model.versions import Version, parse_version

_UNDERLINE = re.compile(r"^([=\-~^\"'`#*+.:_])\1{2,}\s*$")
_TITLE = re.compile(r"^\s*\**v?(\d{1,4}\.\d{1,4})\**(?![\d.])(.*)$")
_BULLET = re.compile(r"^\s*[*-]\s+v?(\d{1,4}\.\d{1,4})(?![\d.])\s*[-:]")
_BOLD_BULLET = re.compile(r"^\s*[*-]\s+\*\*v?(\d{1,4}\.\d{1,4})\*\*(?![\d.])")
_MAXIMUM_IN = re.compile(r"\(\s*maximum\s+in\s+([^)]+)\)", re.IGNORECASE)


def versions_listed(text: str) -> frozenset[Version]:
    """Every microversion with an entry: a section title or a history bullet."""
    return frozenset(version for version, _ in _entries(text))


def released_by_headings(text: str) -> tuple[str, Version] | None:
    """(release, version) of the newest "X.Y (Maximum in <release>)" entry, or None."""
    found = [(version, match.group(1).strip()) for version, rest in _entries(text)
             if (match := _MAXIMUM_IN.search(rest))]
    if not found:
        return None
    version, release = max(found)
    return release, version


def _entries(text: str) -> list[tuple[Version, str]]:
    """(version, the rest of its title) of every entry; bullets have no title."""
    lines = text.splitlines()
    found = []
    for number, line in enumerate(lines):
        match = _BULLET.match(line) or _BOLD_BULLET.match(line)
        if match is None and number + 1 < len(lines) and _UNDERLINE.match(lines[number + 1]) \
                and line.strip() and not _UNDERLINE.match(line):
            match = _TITLE.match(line)
        version = parse_version(match.group(1)) if match else None
        if version is not None and match is not None:
            found.append((version, match.group(2) if match.re is _TITLE else ""))
    return found
