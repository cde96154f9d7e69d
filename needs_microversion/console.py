"""What reaches the terminal, with no command-line parser imported: a `diff`'s reports
rendered (the one place its text is made), warnings on stderr, and the one place an error
becomes an exit code (2 for bad input or usage, 3 for a bug, never a traceback).

`cli` runs every command through `guarded`; `launch` runs a plain `diff OLD NEW` here
directly, so the most common run does not import typer (a third of its start-up).
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from needs_microversion import streams
from needs_microversion.errors import InputError

if TYPE_CHECKING:
    from needs_microversion.commands.diff import DiffRequest


@dataclass(frozen=True)
class Output:
    """How a report is written: a rendering choice, made and checked at the edge (the
    commands never see it)."""

    fmt: str = "text"
    explain: bool = False


def diff(request: DiffRequest, output: Output = Output()) -> int:
    """Run `diff` and print its report (one per document pair of two spec folders)."""
    from needs_microversion.commands.diff import run_diffs
    from needs_microversion.report import render

    reports = run_diffs(request)
    if len(reports) == 1 and reports[0][0] is None:  # two documents: one report
        report = reports[0][1]
        return emit(render(report, output.fmt, explain=output.explain),
                    report.warnings, report.exit_code)
    warnings = [w for _, report in reports for w in report.warnings]
    return emit(render(reports, output.fmt, explain=output.explain), warnings,
                max(report.exit_code for _, report in reports))


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
