"""The console script: the validator's import started first, then the command line.

On a small pair, a validated `diff` waits mostly for the validator to be imported (0.2 s).
A helper process does that beside this one (`load.py`); started here, before the command
line's own imports (typer, the loaders), it is ready about 0.1 s sooner. Only standard
modules and `forked` are imported before it starts.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence

from needs_microversion import forked


def main() -> int:
    prepare_validation(sys.argv[1:])
    from needs_microversion.cli import main as run

    return run()


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
    from needs_microversion.loaders.openapi.validate import ready

    ready()
