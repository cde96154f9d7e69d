"""When Python's cyclic garbage collector runs during a comparison.

Loading a 4 MB document makes a few million containers that live until the report is made,
and none of them is cyclic garbage: every collection walks them all for nothing (9-18% of a
JSON run, more than half of a large YAML run, 40% of validation). So the collector is paused
while documents are loaded and compared; freed data is still freed at once by reference
counting. Validation (openapi-spec-validator, jsonschema) does make cyclic garbage, so it
runs with the collector on, the loaded documents frozen out of its sight (`gc.freeze`) and a
higher first threshold: memory stays bounded, and a collection walks only the validator's
own objects.

A plain `check` or `diff` from the console script ends its process without finalisation
(`launch.run`): there the collector stays off to the end, and what a command is done with
is left referenced (`linger`) rather than freed object by object just before the process
ends (10-15 ms for a `check` of nova, on the path to its answer).
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager

# Measured on validating the stripe JSON document: the default (700, 10, 10) 7.5 s frozen,
# this 5.9 s, collector off 5.5 s; peak memory the same in all three.
_VALIDATION_THRESHOLDS = (50_000, 50, 50)


_lingering: list[object] | None = None  # a list once the process is to end at once


def ends_at_once() -> None:
    """The process ends without finalisation when the command is done: no collection
    from now on, and what `linger` is given stays referenced."""
    global _lingering
    gc.disable()
    _lingering = []


def linger(*values: object) -> None:
    """Values the command is done with: kept referenced when the process ends at once (so
    never freed), else dropped as usual (a test's or a library caller's process goes on)."""
    if _lingering is not None:
        _lingering.append(values)


@contextmanager
def collector_paused() -> Iterator[None]:
    """No cyclic collection inside (reference counting still frees data at once)."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


@contextmanager
def collector_for_validation() -> Iterator[None]:
    """The collector on for what is made inside, everything made before frozen out of its
    sight; the state before (paused or not, thresholds) comes back after."""
    was_enabled, thresholds = gc.isenabled(), gc.get_threshold()
    gc.freeze()
    gc.set_threshold(*_VALIDATION_THRESHOLDS)
    gc.enable()
    try:
        yield
    finally:
        if not was_enabled:
            gc.disable()
        gc.set_threshold(*thresholds)
        gc.unfreeze()
