"""What reaches the terminal, with no command-line parser imported: a `diff`'s and a
`check`'s reports rendered (the one place their text is made), warnings on stderr, a
baseline written, and the one place an error becomes an exit code (2 for bad input or
usage, 3 for a bug, never a traceback).

`cli` runs every command through `guarded`; `launch` runs a plain `diff OLD NEW` here
directly, so the most common run does not import typer (a third of its start-up).
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from needs_microversion import streams
from needs_microversion.errors import InputError

if TYPE_CHECKING:
    from needs_microversion.commands.baseline import Silencing, Standing
    from needs_microversion.commands.check import CheckRequest
    from needs_microversion.commands.diff import DiffRequest
    from needs_microversion.model.fail_on import FailOn
    from needs_microversion.model.verdict import Report


@dataclass(frozen=True)
class Output:
    """How a report is written: a rendering choice, made and checked at the edge (the
    commands never see it), and a baseline file to write the run's warnings to."""

    fmt: str = "text"
    explain: bool = False
    write_baseline: str | None = None


def diff(request: DiffRequest, output: Output = Output()) -> int:
    """Run `diff` and print its report (one per document pair of two spec folders), its
    baseline's warnings silenced, its exit code as `--fail-on` says."""
    from needs_microversion.commands.baseline import (
        configured_baseline, named_baseline, silence, standing)
    from needs_microversion.commands.diff import diff_config, run_diffs
    from needs_microversion.model.fail_on import DEFAULT_FAIL_ON, exit_code

    config = diff_config(request)
    reports = run_diffs(replace(request, loaded_config=config))
    baseline = named_baseline(request.baseline) if request.baseline is not None \
        else configured_baseline(config)
    reports, silencing = silence(reports, baseline)
    fail_on = request.fail_on or config.fail_on or DEFAULT_FAIL_ON
    write(output, standing(reports), silencing)
    return emit(_rendered(reports, output, fail_on),
                [w for _, report in reports for w in report.warnings],
                max(exit_code(report, fail_on) for _, report in reports))


def check(request: CheckRequest, output: Output = Output()) -> int:
    """Run `check` and print its reports (none when it compared nothing)."""
    from needs_microversion.commands.check import run_check

    result = run_check(request)
    write(output, result.standing, result.silencing)
    return emit(_rendered(result.documents, output, result.fail_on), result.warnings,
                result.exit_code)


def _rendered(reports: Sequence[tuple[str | None, Report]], output: Output,
              fail_on: FailOn) -> str:
    from needs_microversion.report import render

    return render(reports, output.fmt, explain=output.explain, fail_on=fail_on)


def write(output: Output, items: Sequence[Standing], silencing: Silencing) -> None:
    """The run's warnings written to `--write-baseline FILE` (before the report: a file
    that cannot be written is the run's error), and one line on stderr saying so."""
    if output.write_baseline is None:
        return
    from needs_microversion.commands.baseline import write_baseline

    streams.say(write_baseline(output.write_baseline, items, silencing))


def emit(output: str, warnings: Sequence[str], code: int) -> int:
    """Warnings on stderr, the report on stdout; the exit code back to the caller, whether
    or not the streams could take them (a closed stdout, a reader gone: `streams`)."""
    for warning in warnings:
        streams.say(f"warning: {warning}")
    streams.write(sys.stdout, output)
    return code


def guarded(run: Callable[[], int],
            outcome: Callable[[Exception], int | None] = lambda _: None) -> int:
    """`run()`'s exit code; an InputError is exit 2 in one line; `outcome` may give another
    exception its code (the parser's signals); anything else is a bug: exit 3, one line."""
    try:
        return run()
    except InputError as exc:
        streams.say(f"needs-microversion: error: {exc}")
        return 2
    except BrokenPipeError:  # the reader of a listing (`rules`, `history`) went away
        streams.silence(sys.stdout)
        return 0
    except MemoryError:
        streams.say("needs-microversion: error: out of memory reading the input (too large "
                    "for this machine's limits)")
        return 2
    except RecursionError:
        streams.say("needs-microversion: error: the input nests too deeply to be read")
        return 2
    except Exception as exc:  # noqa: BLE001 - the parser's signals, then our own bugs
        code = outcome(exc)
        if code is not None:
            return code
        if os.environ.get("NEEDS_MICROVERSION_DEBUG"):
            raise
        # Python's own exit code for a crash is 1, which a CI job would read as "a
        # microversion is needed": a bug gets a code of its own.
        text = " ".join(str(exc).split())
        streams.say(f"needs-microversion: internal error (a bug, please report it with the "
                    f"two documents; NEEDS_MICROVERSION_DEBUG=1 shows the traceback): "
                    f"{type(exc).__name__}: {text[:500]}")
        return 3
