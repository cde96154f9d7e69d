"""The bounds every document is read within, and the number type that keeps its text."""

from __future__ import annotations

# Deeper than any real API document; shallow enough for recursive code downstream.
MAX_DEPTH = 500
# Values of the data once every YAML alias is expanded (real documents: ~40,000-150,000;
# a million take ~8 s and ~450 MB to compare with themselves).
MAX_NODES = 1_000_000
# YAML nodes as written: PyYAML composes ~100,000 a second and ~400 bytes each, so a YAML
# document is counted (cheaply, then exactly when that says it may be too many) before it
# is composed. JSON is parsed ten times faster: only MAX_NODES applies to it.
MAX_YAML_NODES = 500_000


class SourceFloat(float):
    """A float that remembers the text it was written as, so "2.10" never becomes 2.1."""

    __slots__ = ("source_text",)
    source_text: str

    def __new__(cls, text: str, value: float | None = None) -> SourceFloat:
        number = super().__new__(cls, text if value is None else value)
        number.source_text = text
        return number

    def __reduce__(self) -> tuple[type[SourceFloat], tuple[str, float]]:
        return SourceFloat, (self.source_text, float(self))
