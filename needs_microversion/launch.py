"""The console script: the validator's import started first, then the command line.

On a small pair, a validated `diff` waits mostly for the validator to be imported (0.2 s).
A helper process does that beside this one (`load.py`); started here, before the command
line's own imports (typer, the loaders), it is ready about 0.1 s sooner. Only standard
modules and `forked` are imported before it starts.

A plain `diff OLD NEW` (the options below, nothing else) then runs without typer, which is
a third of the start-up; anything else (help, other options, a typo) goes to the command
line, which parses it the same way (a test compares the two).
"""

from __future__ import annotations

import atexit
import os
import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING, NoReturn

from needs_microversion import forked, streams
from needs_microversion.collector import collector_paused

if TYPE_CHECKING:
    from needs_microversion.commands.diff import DiffRequest
    from needs_microversion.console import Output

# Options a plain `diff` may carry: flag -> (the record it sets: "request" is DiffRequest,
# "output" how it is written; its field; the value, None taking the next argument).
_FLAGS: dict[str, tuple[str, str, object]] = {
    "--validate": ("request", "validate", True), "--no-validate": ("request", "validate", False),
    "--strict": ("request", "strict", True), "--no-strict": ("request", "strict", False),
    "--explain": ("output", "explain", True), "--no-explain": ("output", "explain", False),
    "--format": ("output", "fmt", None), "-f": ("output", "fmt", None),
}


def run() -> NoReturn:
    """The console script: `main`, then the process ends without Python's finalisation.
    Tearing down a comparison of two 4 MB documents (a few million objects, freed one by
    one, and a last full collection) takes 25 ms and gives nothing back to the user; the
    exit handlers (temporary copies out of git) still run. A closed or broken stream never
    changes the code (`streams`)."""
    streams.make_usable()
    try:
        code = main()
    except KeyboardInterrupt:  # Ctrl-C: one line, the shell's code for it, no traceback
        streams.say("needs-microversion: interrupted")
        code = 130
    streams.flush_all()
    atexit._run_exitfuncs()
    os._exit(code)


def main() -> int:
    args = sys.argv[1:]
    prepare_validation(args)
    # Imports make no cyclic garbage worth a collection: paused, they take 10% less.
    with collector_paused():
        plain = plain_diff(args)
        if plain is not None:
            import needs_microversion.commands.diff  # noqa: F401  (what console.diff runs)
            from needs_microversion import console
        else:
            from needs_microversion.cli import main as run
    if plain is not None:
        return console.guarded(lambda: console.diff(*plain))
    return run()


def plain_diff(args: Sequence[str]) -> tuple[DiffRequest, Output] | None:
    """The request and output of `diff OLD NEW` with only the options of `_FLAGS`
    (`--format json`, `--format=json`), as the command line would build them; None for
    anything else (an unknown format too: the command line says what is wrong)."""
    if not args or args[0] != "diff":
        return None
    fields: dict[str, dict[str, object]] = {"request": {}, "output": {}}
    paths: list[str] = []
    rest = iter(args[1:])
    for arg in rest:
        if not arg.startswith("-"):
            paths.append(arg)
            continue
        name, equals, value = arg.partition("=")
        if name not in _FLAGS:
            return None
        target, field, fixed = _FLAGS[name]
        if fixed is not None:
            if equals:
                return None  # `--strict=yes`: the command line says what is wrong
            fields[target][field] = fixed
        elif equals:
            fields[target][field] = value
        else:
            following = next(rest, None)
            if following is None or following.startswith("-"):
                return None
            fields[target][field] = following
    from needs_microversion.report.formats import FORMATS

    if len(paths) != 2 or fields["output"].get("fmt", "text") not in FORMATS:
        return None
    from needs_microversion.commands.diff import DiffRequest
    from needs_microversion.console import Output

    return (DiffRequest(old=paths[0], new=paths[1], **fields["request"]),  # type: ignore[arg-type]
            Output(**fields["output"]))  # type: ignore[arg-type]


def prepare_validation(args: Sequence[str]) -> None:
    """`diff OLD NEW` of two small files, validation not turned off: start the helper that
    will validate them. A guess from the arguments, before they are parsed: the pair is the
    two arguments (not options) that name regular files, in order, wherever options sit
    (`diff old.yaml new.yaml --format json`); any other count is no guess. A wrong one (the
    value of an option, validation off in the configuration) leaves the helper unused, and
    it ends with this process."""
    if len(args) < 3 or args[0] != "diff" or "--no-validate" in args:
        return
    files = tuple(arg for arg in args[1:] if not arg.startswith("-")
                  and forked.small_files((arg,)))
    if len(files) == 2 and forked.small_files(files):  # small together, too
        forked.start_early(files, _ready)


def _ready() -> None:
    from needs_microversion.loaders.openapi.validation.validate import ready

    ready()
