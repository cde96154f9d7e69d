"""When the cyclic collector runs, and what a command leaves referenced (`collector.py`).

A plain `check` or `diff` from the console script ends its process at once when it answers
(`launch.run`): the collector stays off and what the command is done with is left
referenced, not freed object by object. Anywhere else (a test, a library caller, another
command) nothing lingers and the collector comes back as it was."""

from __future__ import annotations

import gc
import subprocess
import sys
import weakref

import pytest

from needs_microversion import collector

from test_launch import EXAMPLES


class _Value:
    pass


def test_nothing_lingers_in_a_process_that_goes_on(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(collector, "_lingering", None)
    value = _Value()
    gone = weakref.ref(value)
    collector.linger(value)
    del value
    assert gone() is None


def test_a_process_that_ends_at_once_keeps_what_lingers(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(collector, "_lingering", None)
    was = gc.isenabled()
    try:
        collector.ends_at_once()
        assert not gc.isenabled()
        value = _Value()
        kept = weakref.ref(value)
        collector.linger(value)
        del value
        assert kept() is not None
        with collector.collector_paused():  # a paused block leaves it off
            pass
        assert not gc.isenabled()
    finally:
        if was:
            gc.enable()


@pytest.mark.parametrize("ends, collecting", [(True, False), (False, True)])
def test_the_console_script_ends_a_plain_diff_at_once(ends: bool, collecting: bool) -> None:
    """`run` (ends) leaves the collector off after a plain diff; `main` alone does not."""
    code = ("import gc, sys; from needs_microversion import launch, collector; "
            f"code = launch.main(ends={ends}); "
            "print(gc.isenabled(), collector._lingering is not None, file=sys.stderr)")
    done = subprocess.run([sys.executable, "-c", code, "diff", str(EXAMPLES / "old.yaml"),
                           str(EXAMPLES / "new.yaml"), "--no-validate"],
                          capture_output=True, text=True, timeout=120, check=False)
    assert done.stderr.splitlines()[-1] == f"{collecting} {ends}"
