"""The maximum microversion over time, as an inline SVG: a step line through every commit
that read the version file, a dot where the maximum went up, a red ring on a contract
change shipped without a microversion, and a dashed line at each release's tag date.

    svg = chart(history.rows)        # "<svg ...>...</svg>", drawn here, not in a browser

Drawn in Python so the page needs no script to show it and the same rows always give the
same picture. Dates are the x axis (days); within one major version the minor is the y
axis, and across majors (cinder's 2.x and 3.x) the rank of each version seen.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import date
from html import escape as _escape

from needs_microversion.model.history import HistoryRow
from needs_microversion.model.versions import Version
from needs_microversion.report.history_releases import by_release
from needs_microversion.report.history_rows import printable

WIDTH, HEIGHT = 960, 360
_LEFT, _RIGHT, _TOP, _BOTTOM = 56, 48, 72, 32  # margins: the release labels sit on top
_TICKS = 6
_Point = tuple[HistoryRow, Version]  # a row and the maximum after it


@dataclass(frozen=True)
class _Scale:
    x: Callable[[str], float]  # YYYY-MM-DD -> pixels
    y: Callable[[Version], float]
    days: tuple[int, int]
    levels: tuple[Version, ...]  # the versions seen, lowest first


def chart(rows: Sequence[HistoryRow]) -> str:
    points = [(row, row.new_max) for row in rows if row.error is None and row.new_max]
    head = (f'<svg class="chart" viewBox="0 0 {WIDTH} {HEIGHT}" role="img" '
            f'aria-label="The maximum microversion over time" '
            f'xmlns="http://www.w3.org/2000/svg">')
    if not points:
        return (f'{head}<text x="{WIDTH // 2}" y="{HEIGHT // 2}" text-anchor="middle">'
                f'No commit read a version file: no microversion to draw.</text></svg>')
    scale = _scale(rows, points)
    parts = [head, *_axes(scale), *_releases(rows, scale), _line(points, scale),
             *_dots(points, scale), "</svg>"]
    return "\n".join(parts)


def _scale(rows: Sequence[HistoryRow], points: Sequence[_Point]) -> _Scale:
    dates = [row.date for row in rows] + [row.release_date for row in rows if row.release_date]
    days = sorted(day for day in map(_day, dates) if day is not None) or [1]
    first, last = days[0], max(days[-1], days[0] + 1)
    seen = {version for row, _ in points for version in (row.old_max, row.new_max) if version}
    levels = tuple(sorted(seen))
    one_major = len({version.major for version in levels}) == 1
    low = levels[0].minor if one_major else 0
    high = max(levels[-1].minor if one_major else len(levels) - 1, low + 1)

    def x(text: str) -> float:
        day = _day(text)
        at = first if day is None else day
        return _LEFT + (at - first) / (last - first) * (WIDTH - _LEFT - _RIGHT)

    def y(version: Version) -> float:
        value = version.minor if one_major else levels.index(version)
        return HEIGHT - _BOTTOM - (value - low) / (high - low) * (HEIGHT - _TOP - _BOTTOM)

    return _Scale(x, y, (first, last), levels)


def _day(text: str) -> int | None:
    try:
        return date.fromisoformat(text[:10]).toordinal()
    except ValueError:
        return None


def _axes(scale: _Scale) -> list[str]:
    bottom, right = HEIGHT - _BOTTOM, WIDTH - _RIGHT
    parts = [f'<line class="axis" x1="{_LEFT}" y1="{bottom}" x2="{right}" y2="{bottom}"/>',
             f'<line class="axis" x1="{_LEFT}" y1="{_TOP}" x2="{_LEFT}" y2="{bottom}"/>']
    for version in _version_ticks(scale.levels):
        y = _n(scale.y(version))
        parts.append(f'<line class="grid" x1="{_LEFT}" y1="{y}" x2="{right}" y2="{y}"/>'
                     f'<text class="tick" x="{_LEFT - 6}" y="{y}" text-anchor="end" '
                     f'dominant-baseline="middle">{version}</text>')
    for label, day in _time_ticks(*scale.days):
        x = _n(scale.x(day))
        parts.append(f'<text class="tick" x="{x}" y="{bottom + 18}" '
                     f'text-anchor="middle">{label}</text>')
    return parts


def _version_ticks(levels: tuple[Version, ...]) -> list[Version]:
    """Evenly spaced minors (every 1, 2, 5, 10, 20... of them) within one major; across
    majors, some of the versions seen."""
    if len({version.major for version in levels}) > 1:
        return list(levels[::max(1, -(-len(levels) // _TICKS))])
    major, low, high = levels[0].major, levels[0].minor, levels[-1].minor
    step = next(step for step in (1, 2, 5, 10, 20, 50, 100, 200, 500, 10**9)
                if (high - low) // step < _TICKS)
    return [Version(major, minor) for minor in range(-(-low // step) * step, high + 1, step)]


def _time_ticks(first: int, last: int) -> list[tuple[str, str]]:
    """(label, date) of the x axis: years, or quarters over a short history; twelve at
    most."""
    start, end = date.fromordinal(first), date.fromordinal(last)
    if end.year - start.year >= 3:
        years = range(start.year + 1, end.year + 1)
        return [(str(year), f"{year}-01-01") for year in years[::max(1, -(-len(years) // 12))]]
    quarters = [(year, month) for year in range(start.year, end.year + 1)
                for month in (1, 4, 7, 10) if start < date(year, month, 1) <= end]
    return [(f"{year}-{month:02d}", f"{year}-{month:02d}-01") for year, month in quarters]


def _releases(rows: Sequence[HistoryRow], scale: _Scale) -> list[str]:
    parts = []
    for release in by_release(rows):
        if release.name is None or release.date is None:
            continue
        x = _n(scale.x(release.date))
        parts.append(
            f'<g class="release"><line x1="{x}" y1="{_TOP - 4}" x2="{x}" '
            f'y2="{HEIGHT - _BOTTOM}"/><text transform="translate({x} {_TOP - 8}) rotate(-45)"'
            f'>{escape(release.name)}</text><title>{escape(release.name)}, tagged '
            f'{escape(release.date)}: maximum {release.last or "?"}</title></g>')
    return parts


def _line(points: Sequence[_Point], scale: _Scale) -> str:
    """A step line: the maximum holds until a commit moves it."""
    first, start = points[0]
    path = [f"M{_n(scale.x(first.date))} {_n(scale.y(first.old_max or start))}"]
    path += [f"H{_n(scale.x(row.date))}V{_n(scale.y(new))}" for row, new in points]
    path.append(f"H{_n(WIDTH - _RIGHT)}")
    return f'<path class="maximum" d="{"".join(path)}"/>'


def _dots(points: Sequence[_Point], scale: _Scale) -> list[str]:
    parts = []
    for row, new in points:
        if not row.bumped and row.exit_code != 1:
            continue
        kind = "unprovided" if row.exit_code == 1 else "raised"
        title = escape(f"{new} {row.commit[:10]} {row.date} {row.subject}")
        dot = (f'<circle class="{kind}" cx="{_n(scale.x(row.date))}" cy="{_n(scale.y(new))}" '
               f'r="{4 if kind == "raised" else 6}"><title>{title}</title></circle>')
        if row.link and row.link.startswith(("https://", "http://")):
            dot = f'<a href="{escape(row.link)}">{dot}</a>'
        parts.append(dot)
    return parts


def escape(value: str) -> str:
    return _escape(printable(value))


def _n(value: float) -> str:
    """Pixels with one decimal at most: the same rows give the same bytes."""
    return f"{value:.1f}".rstrip("0").rstrip(".")
