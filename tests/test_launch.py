"""The console script (`launch.py`): a plain `diff OLD NEW` or `check [FILES]` runs without
typer, and means exactly what the command line makes of it; anything else goes to the
command line."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from needs_microversion import launch

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"


@pytest.mark.parametrize("args", [
    ["diff", "old.yaml", "new.yaml"],
    ["diff", "old.yaml", "new.yaml", "--no-validate"],
    ["diff", "--format", "json", "old.yaml", "new.yaml"],
    ["diff", "old.yaml", "-f", "sarif", "new.yaml", "--explain"],
    ["diff", "old.yaml", "new.yaml", "--format=junit", "--strict", "--validate"],
    ["diff", "old.yaml", "new.yaml", "--no-explain", "--no-strict", "--format", "markdown"],
])
def test_a_plain_diff_is_the_request_the_command_line_builds(args: list[str],
                                                              monkeypatch) -> None:
    from needs_microversion import cli, console

    built: list[object] = []
    monkeypatch.setattr(console, "diff", lambda *request: built.append(request) or 0)
    assert cli.main(args) == 0
    assert launch.plain_diff(args) == built[0]


@pytest.mark.parametrize("args", [
    ["check"],
    ["check", "--staged", "--base", "HEAD", "--no-validate", "a.py", "api-ref/source/x.inc"],
    ["check", "--from-ref", "A", "--to-ref=B", "-f", "github", "--all-warnings"],
    ["check", "--no-staged", "--explain", "--validate", "--format=json", "x.py"],
])
@pytest.mark.parametrize("environment", [{}, {"PRE_COMMIT_FROM_REF": "P",
                                              "PRE_COMMIT_TO_REF": "Q"},
                                         {"PRE_COMMIT_FROM_REF": "", "PRE_COMMIT_TO_REF": "Q"}])
def test_a_plain_check_is_the_request_the_command_line_builds(
        args: list[str], environment: dict[str, str], monkeypatch) -> None:
    """Also where pre-commit's range sits in the environment (an option given wins; an
    empty variable is none)."""
    from needs_microversion import cli, console

    for name in ("PRE_COMMIT_FROM_REF", "PRE_COMMIT_TO_REF"):
        monkeypatch.delenv(name, raising=False)
    for name, value in environment.items():
        monkeypatch.setenv(name, value)
    built: list[object] = []
    monkeypatch.setattr(console, "check", lambda *request: built.append(request) or 0)
    assert cli.main(args) == 0
    assert launch.plain_check(args) == built[0]


@pytest.mark.parametrize("args", [
    [],
    ["check", "--profile", "nova"],
    ["check", "--base"],
    ["check", "--staged=yes"],
    ["check", "--format", "nonsense"],
    ["check", "--", "-odd-name"],
    ["diff", "old.yaml"],
    ["diff", "old.yaml", "new.yaml", "third.yaml"],
    ["diff", "old.yaml", "new.yaml", "--help"],
    ["diff", "old.yaml", "new.yaml", "--profile", "nova"],
    ["diff", "old.yaml", "new.yaml", "--format"],
    ["diff", "old.yaml", "new.yaml", "--format", "--strict"],
    ["diff", "old.yaml", "new.yaml", "--strict=yes"],
    ["diff", "--", "old.yaml", "new.yaml"],
    ["diff", "-fjson", "old.yaml", "new.yaml"],
    ["diff", "old.yaml", "new.yaml", "--format", "nonsense"],  # the command line refuses it
])
def test_anything_else_goes_to_the_command_line(args: list[str]) -> None:
    assert launch.plain_diff(args) is None and launch.plain_check(args) is None


def _console_script(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    """The console script's `main`, in a fresh interpreter; it prints whether typer, the
    git reader, pickle and shutil were imported, after the report."""
    code = ("import sys; from needs_microversion import launch; code = launch.main(); "
            "print('typer' in sys.modules, 'needs_microversion.loaders.git' in sys.modules, "
            "'pickle' in sys.modules, 'shutil' in sys.modules, "
            "file=sys.stderr); sys.exit(code)")
    return subprocess.run([sys.executable, "-c", code, *args], capture_output=True,
                          text=True, timeout=120, check=False, cwd=cwd)


def test_a_plain_check_runs_without_typer(tmp_path: Path) -> None:
    """The hook's command line, outside a repository: exit 2 in one line, typer unread."""
    done = _console_script("check", "--staged", "--base", "HEAD", "--no-validate", "a.inc",
                           cwd=tmp_path)
    assert done.returncode == 2 and done.stdout == ""
    error, imported = done.stderr.splitlines()
    assert error.startswith("needs-microversion: error: ") and "git repository" in error
    assert imported.startswith("False ")


def test_a_plain_diff_runs_without_typer_git_or_modules_only_forks_need() -> None:
    done = _console_script("diff", str(EXAMPLES / "old.yaml"), str(EXAMPLES / "new.yaml"),
                           "--no-validate", "--format", "json")
    assert done.returncode == 0
    assert json.loads(done.stdout)["verdict"] == "required"
    assert done.stderr.splitlines()[-1] == "False False False False"


def test_a_plain_diff_of_bad_input_is_exit_2_in_one_line(tmp_path: Path) -> None:
    done = _console_script("diff", str(tmp_path / "missing.yaml"),
                           str(EXAMPLES / "new.yaml"), "--no-validate")
    assert done.returncode == 2 and done.stdout == ""
    error, imported = done.stderr.splitlines()
    assert error.startswith("needs-microversion: error: ") and "missing.yaml" in error
    assert imported == "False False False False"


def test_other_commands_still_run_through_the_command_line() -> None:
    done = _console_script("rules")
    assert done.returncode == 0 and "status-code" in done.stdout
    assert done.stderr.splitlines()[-1].startswith("True")


def _run(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """`launch.run` in a fresh interpreter, an exit handler registered that leaves a mark."""
    marker = tmp_path / "handler-ran"
    code = ("import atexit, pathlib; from needs_microversion import launch; "
            f"atexit.register(pathlib.Path({str(marker)!r}).write_text, 'yes'); launch.run()")
    done = subprocess.run([sys.executable, "-c", code, *args], capture_output=True, text=True,
                          timeout=120, check=False)
    assert marker.read_text() == "yes"
    return done


def test_the_console_script_ends_without_finalisation_but_keeps_output_and_handlers(
        tmp_path: Path) -> None:
    """`run` skips Python's teardown: the report still arrives whole, the exit code is the
    report's, and exit handlers (temporary copies out of git) still run."""
    done = _run(tmp_path, "diff", str(EXAMPLES / "old.yaml"), str(EXAMPLES / "new.yaml"),
                "--no-validate", "--format", "json")
    assert done.returncode == 0 and json.loads(done.stdout)["verdict"] == "required"
    done = _run(tmp_path, "diff", str(tmp_path / "missing.yaml"), str(EXAMPLES / "new.yaml"))
    assert done.returncode == 2 and "missing.yaml" in done.stderr


def test_a_json_pair_is_read_and_reported_without_pyyaml(tmp_path: Path) -> None:
    """PyYAML's import is ~15 ms of start-up: only YAML input pays for it."""
    import yaml

    for name in ("old", "new"):
        data = yaml.safe_load((EXAMPLES / f"{name}.yaml").read_text())
        (tmp_path / f"{name}.json").write_text(json.dumps(data, indent=2))
    code = ("import sys; from needs_microversion import launch; code = launch.main(); "
            "print('yaml' in sys.modules, file=sys.stderr); sys.exit(code)")
    done = subprocess.run([sys.executable, "-c", code, "diff", str(tmp_path / "old.json"),
                           str(tmp_path / "new.json"), "--no-validate", "--format", "text"],
                          capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0 and "json:" in done.stdout  # findings name their lines
    assert done.stderr.splitlines()[-1] == "False"
