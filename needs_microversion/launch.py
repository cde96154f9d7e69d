"""The console script: the validator's import started first, then the command line.

On a small pair, a validated `diff` waits mostly for the validator to be imported (0.2 s).
A helper process does that beside this one (`load.py`); started here, before the command
line's own imports (typer, the loaders), it is ready about 0.1 s sooner. Only standard
modules and `forked` are imported before it starts.

A plain `diff OLD NEW` or `check [FILES]` (the options below, nothing else: what CI and the
pre-commit hook write) then runs without typer, which is a third of the start-up; anything
else (help, other options, a typo) goes to the command line, which parses it the same way
(a test compares the two).
"""

from __future__ import annotations

import atexit
import os
import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING, NoReturn

from needs_microversion import collector, forked, streams
from needs_microversion.collector import collector_paused

if TYPE_CHECKING:
    from needs_microversion.commands.check import CheckRequest
    from needs_microversion.commands.diff import DiffRequest
    from needs_microversion.console import Output

Flags = dict[str, tuple[str, str, object]]
# Options a plain command may carry: flag -> (the record it sets: "request" is the command's
# request, "output" how it is written; its field; the value, None taking the next argument).
_SHARED: Flags = {
    "--validate": ("request", "validate", True), "--no-validate": ("request", "validate", False),
    "--explain": ("output", "explain", True), "--no-explain": ("output", "explain", False),
    "--format": ("output", "fmt", None), "-f": ("output", "fmt", None),
}
_DIFF: Flags = {
    **_SHARED,
    "--strict": ("request", "strict", True), "--no-strict": ("request", "strict", False),
}
_CHECK: Flags = {
    **_SHARED,
    "--staged": ("request", "staged", True), "--no-staged": ("request", "staged", False),
    "--base": ("request", "base", None), "--from-ref": ("request", "from_ref", None),
    "--to-ref": ("request", "to_ref", None), "--all-warnings": ("request", "all_warnings", True),
}
# What the command line reads from the environment when the option is not given (empty:
# not given), as pre-commit's pre-push stage sets them.
_CHECK_ENVIRONMENT = {"from_ref": "PRE_COMMIT_FROM_REF", "to_ref": "PRE_COMMIT_TO_REF"}


def run() -> NoReturn:
    """The console script: `main`, then the process ends without Python's finalisation.
    Tearing down a comparison of two 4 MB documents (a few million objects, freed one by
    one, and a last full collection) takes 25 ms and gives nothing back to the user; the
    exit handlers (temporary copies out of git) still run. A closed or broken stream never
    changes the code (`streams`)."""
    streams.make_usable()
    try:
        code = main(ends=True)
    except KeyboardInterrupt:  # Ctrl-C: one line, the shell's code for it, no traceback
        streams.say("needs-microversion: interrupted")
        code = 130
    streams.flush_all()
    atexit._run_exitfuncs()
    os._exit(code)


def main(ends: bool = False) -> int:
    """`ends`: the process ends without finalisation once the command answers (`run`)."""
    args = sys.argv[1:]
    prepare_validation(args)
    # Imports make no cyclic garbage worth a collection: paused, they take 10% less.
    with collector_paused():
        diff, check = plain_diff(args), plain_check(args)
        if diff is not None:
            import needs_microversion.commands.diff  # noqa: F401  (what console.diff runs)
        elif check is not None:
            import needs_microversion.commands.check  # noqa: F401  (what console.check runs)
        else:
            from needs_microversion.cli import main as run
        from needs_microversion import console
    if ends and (diff is not None or check is not None):
        collector.ends_at_once()
    if diff is not None:
        return console.guarded(lambda: console.diff(*diff))
    if check is not None:
        return console.guarded(lambda: console.check(*check))
    return run()


def plain_diff(args: Sequence[str]) -> tuple[DiffRequest, Output] | None:
    """The request and output of `diff OLD NEW` with only the options of `_DIFF`
    (`--format json`, `--format=json`), as the command line would build them; None for
    anything else (an unknown format too: the command line says what is wrong)."""
    parsed = _plain(args, "diff", _DIFF)
    if parsed is None or len(parsed[1]) != 2:
        return None
    fields, paths = parsed
    from needs_microversion.commands.diff import DiffRequest
    from needs_microversion.console import Output

    return (DiffRequest(old=paths[0], new=paths[1], **fields["request"]),  # type: ignore[arg-type]
            Output(**fields["output"]))  # type: ignore[arg-type]


def plain_check(args: Sequence[str]) -> tuple[CheckRequest, Output] | None:
    """The request and output of `check [FILES]` with only the options of `_CHECK` (the
    hook's `--staged --base HEAD --no-validate`, CI's `--from-ref A --to-ref B`), as the
    command line would build them; None for anything else."""
    parsed = _plain(args, "check", _CHECK)
    if parsed is None:
        return None
    fields, files = parsed
    for field, variable in _CHECK_ENVIRONMENT.items():
        if field not in fields["request"] and os.environ.get(variable):
            fields["request"][field] = os.environ[variable]
    from needs_microversion.commands.check import CheckRequest
    from needs_microversion.console import Output

    return (CheckRequest(files=tuple(files), **fields["request"]),  # type: ignore[arg-type]
            Output(**fields["output"]))  # type: ignore[arg-type]


def _plain(args: Sequence[str], command: str, flags: Flags
           ) -> tuple[dict[str, dict[str, object]], list[str]] | None:
    """The fields `args` set and their other arguments, when they are `command` with only
    `flags`; None for anything else."""
    if not args or args[0] != command:
        return None
    fields: dict[str, dict[str, object]] = {"request": {}, "output": {}}
    positional: list[str] = []
    rest = iter(args[1:])
    for arg in rest:
        if not arg.startswith("-"):
            positional.append(arg)
            continue
        name, equals, value = arg.partition("=")
        if name not in flags:
            return None
        target, field, fixed = flags[name]
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

    if fields["output"].get("fmt", "text") not in FORMATS:
        return None
    return fields, positional


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
