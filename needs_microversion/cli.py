"""The command line: thin typer commands that hand off to plain functions and render the
reports they return (`console.py` prints them and turns errors into exit codes; a plain
`diff OLD NEW` reaches it from the console script without this module, `launch.py`).

Exit codes: 0 no microversion needed (or needed and provided), 1 needed and not provided
(what else fails a run: `--fail-on`), 2 usage or input error (one line on stderr, never a
traceback), 3 a bug.

Option values complete in the shell (`--install-completion`): the choices of `--format` and
`--fail-on`, and profile names and rule ids, whose modules are imported only to complete
them (start-up, and so `--version`, never imports the rules).
"""

from __future__ import annotations

import sys
from collections.abc import Iterable, Sequence
from typing import Annotated, Optional

import click
import typer

from needs_microversion import __version__
from needs_microversion.model.fail_on import FAIL_ON, as_fail_on
from needs_microversion.report.formats import FORMATS, HISTORY_FORMATS

app = typer.Typer(
    add_completion=True,
    no_args_is_help=True,
    rich_markup_mode="markdown",  # paragraphs rewrapped: docstrings wrap at 100 columns
    help="Decide whether an API change needs a new microversion (OpenStack rules).\n\n"
    "Example: needs-microversion diff old.yaml new.yaml",
)


def _show_version(value: bool) -> None:
    if value:
        typer.echo(f"needs-microversion {__version__}")
        raise typer.Exit(0)


@app.callback()
def _root(
    version: Annotated[bool, typer.Option("--version", callback=_show_version, is_eager=True,
                                          help="Print the version and exit.")] = False,
) -> None:
    """Decide whether an API change needs a new microversion."""


def _starting(values: Iterable[str], incomplete: str) -> list[str]:
    return [value for value in values if value.startswith(incomplete)]


def _profile_names(incomplete: str) -> list[str]:
    from needs_microversion.profiles import PROFILES  # on completion only: start-up stays light

    return _starting(PROFILES, incomplete)


def _rule_ids(incomplete: str) -> list[tuple[str, str]]:
    from needs_microversion.rules import RULES  # on completion only: start-up stays light

    # Each with its question: zsh and fish show it beside the id.
    return [(rule.id, rule.question) for rule in RULES if rule.id.startswith(incomplete)]


def _history_formats(incomplete: str) -> list[str]:
    return _starting(HISTORY_FORMATS, incomplete)


# Options that say how to judge, shared by diff and check. The format is checked here, at
# the edge (a choice: completion offers the values); the commands never see it.
Format = Annotated[str, typer.Option(
    "--format", "-f", click_type=click.Choice(FORMATS),
    help="text, json, markdown, github, sarif, junit or auto.")]
Explain = Annotated[bool, typer.Option(help="Walk the flow chart for each change.")]
Validate = Annotated[bool, typer.Option("--validate/--no-validate",
                                        help="Check documents with openapi-spec-validator "
                                        "(~4 s per 4 MB).")]
SilentFailure = Annotated[Optional[list[str]], typer.Option(
    help='Q1 claim: "METHOD /path: reason" (repeatable).')]
ExemptErrorCodes = Annotated[Optional[bool], typer.Option(
    "--exempt-error-codes/--no-exempt-error-codes",
    help="Newly documented 400/403/404/415 need no microversion (nova footnote f2; "
    "default: as the profile says).")]
FreeForm = Annotated[Optional[list[str]], typer.Option(
    help="A body pointer of a free-form object, e.g. /os:scheduler_hints (repeatable).")]
Disable = Annotated[Optional[list[str]], typer.Option(
    help="Switch a rule off by id (repeatable).", autocompletion=_rule_ids)]
Profile = Annotated[Optional[str], typer.Option(
    help="Project rules: nova, placement, cinder, manila, ironic or generic (default: the "
    "configuration's, else the repository's, else generic).", autocompletion=_profile_names)]
FailOnOption = Annotated[Optional[str], typer.Option(
    "--fail-on", click_type=click.Choice(FAIL_ON), show_default=False,
    help="What makes exit code 1: required (a microversion needed, not provided), warning "
    "(or a warning left standing), never (default: the configuration's, else required).")]
BaselineOption = Annotated[Optional[str], typer.Option(
    "--baseline", metavar="FILE",
    help="Silence the standing warnings this file lists with their reasons (default: the "
    "configuration's).")]
WriteBaseline = Annotated[Optional[str], typer.Option(
    "--write-baseline", metavar="FILE",
    help="Write the warnings left standing to a new baseline file, or add them to the one in "
    "use, each with a reason to give.")]
CountCorrections = Annotated[Optional[bool], typer.Option(
    "--count-corrections/--no-count-corrections",
    help="Count corrections (an existing element changed at every microversion of a document "
    "that gates its changes) as contract changes (default: as the configuration says, else "
    "no: they are findings that need no microversion).")]
CatchUp = Annotated[Optional[bool], typer.Option(
    "--catch-up/--no-catch-up",
    help="New elements that start at an already released microversion document it late "
    "(default: on for api-ref trees, off for OpenAPI).")]


@app.command()
def diff(
    old: Annotated[str, typer.Argument(help="Old OpenAPI/Swagger file or api-ref directory, "
                                       "or REV:PATH in git (HEAD~1:api/openapi.yaml).")],
    new: Annotated[str, typer.Argument(help="New OpenAPI/Swagger file or api-ref directory, "
                                       "or REV:PATH (:PATH is the index).")],
    fmt: Format = "text",
    explain: Explain = False,
    strict: Annotated[bool, typer.Option(help="Invalid OpenAPI is an error (exit 2).")] = False,
    validate: Validate = True,
    silent_failure: SilentFailure = None,
    exempt_error_codes: ExemptErrorCodes = None,
    free_form: FreeForm = None,
    disable: Disable = None,
    old_version: Annotated[Optional[str], typer.Option(
        help="The old maximum microversion, when the document does not say.")] = None,
    new_version: Annotated[Optional[str], typer.Option(
        help="The new maximum microversion, when the document does not say.")] = None,
    config: Annotated[Optional[str], typer.Option(
        help="Configuration file (default: pyproject.toml [tool.needs-microversion] or "
        ".needs-microversion.yaml found from the current folder up).")] = None,
    profile: Profile = None,
    catch_up: CatchUp = None,
    count_corrections: CountCorrections = None,
    root: Annotated[Optional[str], typer.Option(
        help="Read no file outside this folder (the inputs, their includes, samples and "
        "$ref targets, whatever symlinks they run through); default: each input's own "
        "tree (its repository, else its folder).")] = None,
    fail_on: FailOnOption = None,
    baseline: BaselineOption = None,
    write_baseline: WriteBaseline = None,
) -> int:
    """Compare two API descriptions and judge every change by the microversion flow chart.

    OLD and NEW are each an OpenAPI 3.x or Swagger 2.0 file (YAML or JSON), an api-ref
    source folder (.inc/.rst files and parameters.yaml), a folder of OpenAPI documents
    (openstack-openapi's specs/), or REV:PATH read from git (HEAD~1:api/openapi.yaml;
    :PATH is the index).

    Example: needs-microversion diff HEAD~1:api-ref/source api-ref/source
    """
    from needs_microversion import console
    from needs_microversion.commands.diff import DiffRequest

    return console.diff(DiffRequest(
        old=old, new=new, strict=strict, validate=validate,
        silent_failures=tuple(silent_failure or ()), exempt_error_codes=exempt_error_codes,
        free_form=tuple(free_form or ()), disabled=tuple(disable or ()),
        old_version=old_version, new_version=new_version, config=config, profile=profile,
        catch_up=catch_up, count_corrections=count_corrections, root=root,
        fail_on=as_fail_on(fail_on), baseline=baseline),
        console.Output(fmt, explain, write_baseline))


@app.command()
def check(
    files: Annotated[Optional[list[str]], typer.Argument(
        help="Check only the documents these files touch, or the evidence they change "
        "(pre-commit passes the staged files); none touched: exit 0.",
        show_default=False)] = None,
    base: Annotated[Optional[str], typer.Option(
        help="Compare with the merge-base of HEAD and this revision (default: the upstream "
        "branch, else origin/HEAD, main or master).")] = None,
    staged: Annotated[bool, typer.Option(
        help="Compare the index (staged content) instead of the working tree.")] = False,
    from_ref: Annotated[Optional[str], typer.Option(
        envvar="PRE_COMMIT_FROM_REF", help="With --to-ref: compare the merge-base of the two "
        "revisions with --to-ref (a range, as pre-commit's pre-push runs).")] = None,
    to_ref: Annotated[Optional[str], typer.Option(
        envvar="PRE_COMMIT_TO_REF", help="The new side of a --from-ref range.")] = None,
    fmt: Format = "text",
    explain: Explain = False,
    validate: Validate = True,
    config: Annotated[Optional[str], typer.Option(
        help="Configuration file naming the services' documents (default: "
        ".needs-microversion.yaml or pyproject.toml found from the current folder up; "
        "none: the repository's layout is found).")] = None,
    silent_failure: SilentFailure = None,
    exempt_error_codes: ExemptErrorCodes = None,
    free_form: FreeForm = None,
    disable: Disable = None,
    profile: Profile = None,
    catch_up: CatchUp = None,
    count_corrections: CountCorrections = None,
    all_warnings: Annotated[bool, typer.Option(
        "--all-warnings", help="List every warning about files this change does not touch "
        "(default: one line counts them).")] = False,
    fail_on: FailOnOption = None,
    baseline: BaselineOption = None,
    write_baseline: WriteBaseline = None,
) -> int:
    """Compare the repository's API documents with a git base revision (CI, pre-commit).

    With no configuration, the API reference, the version file, the version history, the
    release notes and the release tags are found in the repository.

    FILES: check only the documents these files touch, or the evidence they change
    (pre-commit passes the staged files); none touched: exit 0.

    Example: needs-microversion check --base origin/main
    """
    from needs_microversion import console
    from needs_microversion.commands.check import CheckRequest

    request = CheckRequest(files=tuple(files or ()), base=base, staged=staged,
                           from_ref=from_ref, to_ref=to_ref, validate=validate, config=config,
                           silent_failures=tuple(silent_failure or ()),
                           exempt_error_codes=exempt_error_codes,
                           free_form=tuple(free_form or ()), disabled=tuple(disable or ()),
                           profile=profile, catch_up=catch_up,
                           count_corrections=count_corrections, all_warnings=all_warnings,
                           fail_on=as_fail_on(fail_on), baseline=baseline)
    return console.check(request, console.Output(fmt, explain, write_baseline))


@app.command()
def history(
    since: Annotated[Optional[str], typer.Option(
        help="Start after this revision, or at this date (YYYY-MM-DD); default: the first "
        "commit.")] = None,
    until: Annotated[Optional[str], typer.Option(
        help="The last revision (default HEAD); its first-parent line is walked.")] = None,
    fmt: Annotated[str, typer.Option(
        "--format", "-f", help="table (fits the terminal), json, jsonl, csv, markdown or "
        "html (one self-contained page with a chart).",
        autocompletion=_history_formats)] = "table",
    validate: Annotated[bool, typer.Option(
        "--validate/--no-validate", help="Validate OpenAPI documents at every commit "
        "(slow; default off).")] = False,
    config: Annotated[Optional[str], typer.Option(
        help="Configuration file (default: found as for check).")] = None,
    profile: Profile = None,
    catch_up: CatchUp = None,
    count_corrections: CountCorrections = None,
    disable: Disable = None,
    link_template: Annotated[Optional[str], typer.Option(
        help="Link each commit as this URL, {commit} standing for its id (default: from "
        "the origin remote on opendev, GitHub or GitLab; none elsewhere).")] = None,
    workers: Annotated[Optional[int], typer.Option(
        "--workers", "-j", min=1, help="Commits judged at once (default: one per core; 1: "
        "one at a time, in this process). The rows are the same either way.")] = None,
) -> int:
    """Judge every first-parent commit that touched the API documents, against its parent.

    Each row gives the version file's maximum before and after, the release the commit
    shipped in, the verdict and its main finding, and a link to the commit; the summary
    counts contract changes shipped without a microversion, microversions with no
    documented change, how often the verdict agrees with the version file and the commits
    where it does not, release by release. Rows are printed as they are judged (html: the
    page at the end); a progress bar shows on a terminal.

    Example: needs-microversion history --since 2024-01-01 --format csv
    """
    from needs_microversion import streams
    from needs_microversion.commands.history import (
        HistoryRequest, ProgressBar, judge_history, plan_history)
    from needs_microversion.report.history import check_history_format, stream_history
    from needs_microversion.report.history_table import terminal_width

    check_history_format(fmt)
    request = HistoryRequest(since=since, until=until, fmt=fmt, validate=validate,
                             config=config, profile=profile, catch_up=catch_up,
                             count_corrections=count_corrections,
                             disabled=tuple(disable or ()), link_template=link_template,
                             workers=workers)
    plan = plan_history(request)
    bar = ProgressBar.on_terminal()

    def write(text: str) -> bool:
        return streams.write(sys.stdout, text)

    try:  # a closed pipe ends the run: nobody reads the rows still to judge
        stream_history(judge_history(plan, request, bar), fmt,
                       bar.around(write) if bar else write, terminal_width())
    finally:
        if bar is not None:
            bar.finish()
    return 0


@app.command()
def drift(
    revision: Annotated[Optional[str], typer.Argument(
        help="The revision to read (default: the working tree).")] = None,
    fmt: Format = "text",
) -> int:
    """Compare the operations the code declares with those api-ref documents, at one revision:
    operations only one side has, microversion ranges that differ, query parameters only
    one side names (nova, masakari, manila, cinder, placement, ironic, zun). A report: the
    exit code is 0.

    Example: needs-microversion drift HEAD --format markdown
    """
    from needs_microversion import console
    from needs_microversion.commands.drift import DriftRequest, run_drift
    from needs_microversion.report import render

    report = run_drift(DriftRequest(revision))
    # A report, not a gate: what it writes as the exit code is the process's, 0.
    return console.emit(render(report, fmt, fail_on="never"), report.warnings, 0)


@app.command()
def export(
    revision: Annotated[Optional[str], typer.Argument(
        help="The revision whose code to read (default: the working tree).")] = None,
    output: Annotated[Optional[str], typer.Option(
        "--output", "-o", help="Write the document here (default: stdout).")] = None,
    yaml_out: Annotated[bool, typer.Option(
        "--yaml/--json", help="YAML instead of JSON.")] = False,
) -> int:
    """Write the contract the code declares (nova, masakari, manila, cinder, placement,
    ironic, zun) as an OpenAPI 3.1 document with `x-openstack` microversion bounds, for
    other tools to read.

    Example: needs-microversion export HEAD -o compute.json
    """
    from needs_microversion import console
    from needs_microversion.commands.export import run_export

    text = run_export(revision, as_yaml=yaml_out)
    if output is None:
        return console.emit(text, (), 0)
    from pathlib import Path

    try:
        Path(output).write_text(text, encoding="utf-8")
    except OSError as exc:
        from needs_microversion.errors import InputError

        raise InputError(f"cannot write: {exc.strerror or exc}", output) from None
    return 0


@app.command()
def rules(
    rule_id: Annotated[Optional[str], typer.Argument(help="Print this rule's documentation.",
                                                     autocompletion=_rule_ids)] = None,
) -> int:
    """List every rule (id, question, verdict), or document one: RULE_ID is a rule's id
    (`needs-microversion rules status-code`)."""
    from needs_microversion import streams
    from needs_microversion.rules import RULES, get

    if rule_id:
        rule = get(rule_id)
        streams.write(sys.stdout, f"{rule.id} (order {rule.order}): finding ids "
                                  f"{', '.join(rule.finding_ids)}\n{_dedent(rule.__doc__ or '')}\n")
        return 0
    streams.write(sys.stdout, "".join(f"{rule.order:>2}  {rule.id:<16} {rule.question}  "
                                      f"[{', '.join(rule.finding_ids)}]\n" for rule in RULES))
    return 0


def _dedent(text: str) -> str:
    import inspect

    return inspect.cleandoc(text)


def main(argv: Sequence[str] | None = None) -> int:
    """Run the CLI; return the exit code (errors become codes in `console.guarded`)."""
    from needs_microversion.console import guarded

    command = typer.main.get_command(app)

    def run() -> int:
        try:
            result = command.main(args=list(sys.argv[1:] if argv is None else argv),
                                  prog_name="needs-microversion", standalone_mode=False)
        except SystemExit as exc:
            # Outside standalone mode click exits by itself only when its own output (help,
            # usage) meets a broken pipe, and with 1, which CI reads as "a microversion is
            # needed": the reader went away, nothing was judged.
            from needs_microversion import streams

            streams.silence(sys.stdout)
            return 0 if exc.code in (None, 1) else exc.code if isinstance(exc.code, int) else 2
        return result if isinstance(result, int) else 0  # a command's return value

    return guarded(run, _click_outcome)


def _click_outcome(exc: Exception) -> int | None:
    """Exit code for click's signals (typer vendors click in some releases, so match by name)."""
    names = {cls.__name__ for cls in type(exc).__mro__}
    if "Exit" in names:
        return int(getattr(exc, "exit_code", 0) or 0)
    if "ClickException" in names or "TyperException" in names:
        message = exc.format_message() if hasattr(exc, "format_message") else str(exc)
        from needs_microversion import streams

        streams.say(f"needs-microversion: error: {' '.join(message.split())}")
        return 2
    if "Abort" in names:
        return 2
    return None
