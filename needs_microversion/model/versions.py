"""Microversions as (major, minor) integer pairs and inclusive ranges of them, and the
microversions that prose mentions.

Never floats: "2.10" is newer than "2.9", and a YAML float 2.10 must not become 2.1.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from typing import Literal, NamedTuple

_VERSION = re.compile(r"^\s*v?(\d+)\.(\d+)\s*$")


class Version(NamedTuple):
    major: int
    minor: int

    def __str__(self) -> str:
        return f"{self.major}.{self.minor}"

    def next(self) -> Version:
        return Version(self.major, self.minor + 1)


FLOOR = Version(0, 0)


def parse_version(value: object) -> Version | None:
    """Parse "2.10" (or a float that kept its source text) into Version; None if not X.Y."""
    text = getattr(value, "source_text", None) or value
    if isinstance(text, bool) or not isinstance(text, (str, int, float)):
        return None
    match = _VERSION.match(str(text))
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
        lo = max((v for v in (self.lo, other.lo) if v is not None), default=None)
        hi = min((v for v in (self.hi, other.hi) if v is not None), default=None)
        return VersionRange(lo, hi)

    @property
    def empty(self) -> bool:
        return self.lo is not None and self.hi is not None and self.lo > self.hi

    def bounds(self) -> tuple[Version, ...]:
        """The versions at which visibility starts or stops (hi+1 is where it stops)."""
        return tuple(v for v in (self.lo, self.hi.next() if self.hi else None) if v is not None)

    def __str__(self) -> str:
        if self.lo is None and self.hi is None:
            return "all versions"
        return f"{self.lo or ''} - {self.hi or ''}".strip()


ALL = VersionRange()


# How prose names a microversion. Two readers use this today, and they read differently:
#   "announcement" (compare: a description that starts naming a new microversion) finds
#       "microversion 2.31", "microversions 1.25 - 1.32" (the first), and "version X.Y" only
#       after new/added/introduced/available/changed + in/since/from: "new in version 2.37";
#   "availability" (the api-ref loader, inside whole-sentence patterns that say when an
#       element appeared) reads "version 2.26", "microversion 2.26", "API microversion
#       v1.20", "the 3.27 microversion" (the version before the word too), any word before.
# Both put the version in the group named `a` or `b`. A later change may unify them.
MentionForm = Literal["announcement", "availability"]
_MENTIONS: dict[MentionForm, str] = {
    "announcement": (
        r"micro-?versions?\s+v?(?P<a>\d+\.\d+)"
        r"|(?:new|added|introduced|available|changed)\s+(?:in|since|from)\s+"
        r"(?:micro-?)?version\s+v?(?P<b>\d+\.\d+)"),
    "availability": (
        r"(?:(?:the\s+)?(?:API\s+)?(?:micro-?)?version\s+v?(?P<a>\d+\.\d+)"
        r"|(?:the\s+)?v?(?P<b>\d+\.\d+)\s+(?:API\s+)?micro-?version)"),
}


def version_mention(form: MentionForm = "announcement") -> str:
    """The pattern (to compile case-insensitively, or to embed in a larger one) of a
    microversion named in prose; the version is in group `a` or `b`."""
    return _MENTIONS[form]


@lru_cache(maxsize=2)
def _mention(form: MentionForm) -> re.Pattern[str]:
    return re.compile(version_mention(form), re.IGNORECASE)


def mentioned_versions(text: str, form: MentionForm = "announcement") -> frozenset[Version]:
    """Microversions a description names: prose only, so findings built on it are inferred."""
    found = set()
    for match in _mention(form).finditer(text):
        version = parse_version(match.group("a") or match.group("b"))
        if version is not None:
            found.add(version)
    return frozenset(found)
