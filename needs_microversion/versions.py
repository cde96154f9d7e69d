"""Microversions as (major, minor) integer pairs and inclusive ranges of them.

Never floats: "2.10" is newer than "2.9", and a YAML float 2.10 must not become 2.1.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import NamedTuple

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
