"""What a kept reading is keyed by: the tool as installed. An installed wheel is known by its
RECORD (the same on every install of that wheel: a CI cache restored on a fresh machine
fits), a checkout by its files' times and sizes (an edit changes them)."""

from __future__ import annotations

import os
from pathlib import Path

from needs_microversion.documents.parsed import stamp_of


def _package(site: Path, record: str | None) -> Path:
    package = site / "needs_microversion"
    (package / "rules").mkdir(parents=True)
    (package / "__init__.py").write_text("VERSION = 1\n")
    (package / "rules" / "base.py").write_text("RULES = ()\n")
    if record is not None:
        info = site / "needs_microversion-1.0.dist-info"
        info.mkdir()
        (info / "RECORD").write_text(record)
    return package


def _touch(package: Path) -> None:
    for path in package.rglob("*.py"):
        os.utime(path, ns=(10**18, 10**18))


def test_an_installed_wheel_is_known_by_its_record(tmp_path: Path) -> None:
    record = ("needs_microversion/__init__.py,sha256=abc,12\n"
              "needs_microversion/rules/base.py,sha256=def,11\n")
    package = _package(tmp_path, record)
    before = stamp_of(package)
    _touch(package)  # installed again: new times, the same files
    assert stamp_of(package) == before
    (tmp_path / "needs_microversion-1.0.dist-info" / "RECORD").write_text(
        record.replace("def", "xyz"))  # another wheel
    assert stamp_of(package) != before


def test_a_checkout_is_known_by_its_files_times(tmp_path: Path) -> None:
    # An editable install's RECORD lists its loader, not the package's files.
    package = _package(tmp_path, "__editable___needs_microversion_finder.py,sha256=a,1\n")
    before = stamp_of(package)
    _touch(package)
    assert stamp_of(package) != before
