"""Microversions as (major, minor) integer pairs and inclusive ranges of them, and the
microversions that prose mentions.

Never floats: "2.10" is newer than "2.9", and a YAML float 2.10 must not become 2.1.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass
from typing import NamedTuple

# Longer numbers are no microversion (and int() refuses thousands of digits).
_VERSION = re.compile(r"^\s*v?(\d{1,9})\.(\d{1,9})\s*$")


class Version(NamedTuple):
    major: int
    minor: int

    def __str__(self) -> str:
        return f"{self.major}.{self.minor}"

    def next(self) -> Version:
        return Version(self.major, self.minor + 1)


FLOOR = Version(0, 0)


def raised(old: Version | None, new: Version | None) -> bool | None:
    """Whether a maximum went up from `old` to `new` (None: one of them is unknown)."""
    if old is None or new is None:
        return None
    return new > old


_PARSED: dict[str, object] = {}
_UNSEEN = object()


def parse_version(value: object) -> Version | None:
    """Parse "2.10" (or a float that kept its source text) into Version; None if not X.Y."""
    if type(value) is str:  # a document's bounds are a few strings, asked thousands of times
        found = _PARSED.get(value, _UNSEEN)
        if found is _UNSEEN:
            if len(_PARSED) > 4096:
                _PARSED.clear()
            found = _PARSED[value] = _parsed(value)
        return found  # type: ignore[return-value]
    text = getattr(value, "source_text", None) or value
    if isinstance(text, bool) or not isinstance(text, (str, int, float)):
        return None
    return _parsed(str(text))


def _parsed(text: str) -> Version | None:
    match = _VERSION.match(text)
    return Version(int(match.group(1)), int(match.group(2))) if match else None


def version_problem(value: object) -> str | None:
    """Why a value written where a microversion belongs is not one, or None if it is.

    For warnings: an unreadable bound would otherwise quietly read as "no bound".
    """
    if parse_version(value) is not None:
        return None
    if value is None:
        return "is empty (null), not a microversion X.Y"
    if isinstance(value, (list, dict)):
        return f"is a {'list' if isinstance(value, list) else 'mapping'}, not a microversion X.Y"
    text = getattr(value, "source_text", None) or value
    return f"{str(text)!r} is not a microversion X.Y"


@dataclass(frozen=True)
class VersionRange:
    """Inclusive microversion bounds; None means unbounded on that side."""

    lo: Version | None = None
    hi: Version | None = None

    def contains(self, version: Version) -> bool:
        return (self.lo is None or self.lo <= version) and (self.hi is None or version <= self.hi)

    def intersect(self, other: VersionRange) -> VersionRange:
        if other.lo is None and other.hi is None:  # most ranges are every version
            return self
        if self.lo is None and self.hi is None:
            return other
        lo = max((v for v in (self.lo, other.lo) if v is not None), default=None)
        hi = min((v for v in (self.hi, other.hi) if v is not None), default=None)
        return VersionRange(lo, hi)

    @property
    def empty(self) -> bool:
        return self.lo is not None and self.hi is not None and self.lo > self.hi

    def bounds(self) -> tuple[Version, ...]:
        """The versions at which visibility starts or stops (hi+1 is where it stops)."""
        lo, hi = self.lo, self.hi
        if hi is None:
            return () if lo is None else (lo,)
        return (hi.next(),) if lo is None else (lo, hi.next())

    def __str__(self) -> str:
        if self.lo is None and self.hi is None:
            return "all versions"
        return f"{self.lo or ''} - {self.hi or ''}".strip()


ALL = VersionRange()


# How prose names a microversion, one pattern for every reader (compare's announcements,
# the api-ref availability sentences, release notes): "microversion 2.31", "microversions
# 1.25 - 1.32" (the first), "the 2.31 microversion", "API version 3.66", "version 2.42",
# "API microversion v1.20", "since 1.37", and where a `v` says it is a version, "from v2.60"
# ("as of v2.85", "added in v2.12"), and compared: "microversion less than 1.10", "equal or
# greater than 1.10". The version is in group `a`, `b`, `c`, `d` or `e`.
_MENTION = (r"(?:(?:the\s+)?(?:API\s+)?(?:micro-?)?versions?\s+v?(?P<a>\d{1,4}\.\d{1,4})"
            r"|(?:the\s+)?v?(?P<b>\d{1,4}\.\d{1,4})\s+(?:API\s+)?micro-?versions?"
            r"|\bsince\s+v?(?P<c>\d{1,4}\.\d{1,4})"
            r"|\b(?:from|after|as\s+of|starting\s+(?:with|from|in|at)|beginning\s+(?:with|from|in)"
            r"|(?:added|new|introduced|available)\s+in)\s+v(?P<d>\d{1,4}\.\d{1,4})"
            r"|(?:API\s+)?micro-?versions?\s+(?:is\s+)?(?:(?:(?:equal\s+(?:to\s+)?or\s+)?"
            r"(?:less|lower|older|earlier|greater|higher|newer|later)\s+than"
            r"(?:\s+or\s+equal\s+to)?|below|above|prior\s+to)\s+v?(?P<e>\d{1,4}\.\d{1,4}))"
            r")(?![\d.]*\d)")
_MENTIONED = re.compile(_MENTION, re.IGNORECASE)
# RST inline markup around words: ``literal``, **strong**, *emphasis*, `interpreted`.
_MARKUP = re.compile(r"``|\*\*|`|(?<![\w*])\*(?=\S)|(?<=\S)\*(?![\w*])")


def version_mention() -> str:
    """The pattern (to compile case-insensitively, or to embed in a larger one) of a
    microversion named in prose; the version is in group `a` to `e` (`mention_of`)."""
    return _MENTION


def mention_of(match: re.Match[str]) -> str:
    """The version text a match of `version_mention` found."""
    return next(found for found in match.group("a", "b", "c", "d", "e") if found)


def plain(text: str) -> str:
    """Prose without RST inline markup: "since ``1.37``" reads "since 1.37"."""
    return _MARKUP.sub("", text)


def mentioned_versions(text: str, major: int | None = None) -> frozenset[Version]:
    """Microversions prose names (of one major version when given): prose only, so findings
    built on it are inferred."""
    found = set()
    for match in _MENTIONED.finditer(plain(text)):
        version = parse_version(mention_of(match))
        if version is not None and (major is None or version.major == major):
            found.add(version)
    return frozenset(found)


def names_a_microversion(text: str) -> bool:
    """Whether prose names a microversion as one ("The API v2.12 microversion returns the
    network ID"; not "API version 2.0", which any versioned API may write). Only the text
    around the word is read: a large document that never writes it costs one search."""
    for stem in _MICROVERSION_STEMS:  # str.find: 50 times faster than a case-blind regex
        at = text.find(stem)
        while at >= 0:
            around = plain(text[max(0, at - 40):at + 50])
            if any("micro" in m.group(0).lower() for m in _MENTIONED.finditer(around)):
                return True
            at = text.find(stem, at + 1)
    return False


def newly_mentioned(old_text: str, new_text: str, major: int | None = None
                    ) -> frozenset[Version]:
    """Microversions that more paragraphs name in `new_text` than in `old_text`: prose newly
    written about a microversion documents it, even where the old text named it elsewhere (a
    caption "(v2.40)" before, and now also "Microversion 2.40 added pagination ..." in the
    group's introduction). A paragraph only reworded (a link fixed) names what it named."""
    def counted(text: str) -> Counter[Version]:
        return Counter(version for paragraph in _BLANK_LINE.split(text)
                       for version in mentioned_versions(paragraph, major))

    return frozenset(counted(new_text) - counted(old_text))


_MICROVERSION_STEMS = ("icroversion", "icro-version", "ICROVERSION")
_BLANK_LINE = re.compile(r"\n[ \t]*\n")
