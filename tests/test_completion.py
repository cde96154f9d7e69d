"""Shell completion of option values, through click's completion machinery: profile names and
rule ids from their registries (imported only to complete them), the formats, `--fail-on`."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest
import typer
from click.shell_completion import ShellComplete

from needs_microversion import cli
from needs_microversion.model.fail_on import FAIL_ON
from needs_microversion.profiles import PROFILES
from needs_microversion.report.formats import FORMATS, HISTORY_FORMATS
from needs_microversion.rules import RULES

RULE_IDS = [rule.id for rule in RULES]


def completions(args: list[str], incomplete: str) -> list[str]:
    """What the shell is offered after `needs-microversion ARGS INCOMPLETE<tab>`."""
    command = typer.main.get_command(cli.app)
    complete = ShellComplete(command, {}, "needs-microversion", "_NEEDS_MICROVERSION_COMPLETE")
    return [item.value for item in complete.get_completions(args, incomplete)]


@pytest.mark.parametrize(("args", "incomplete", "expected"), [
    (["diff", "a", "b", "--profile"], "", sorted(PROFILES)),
    (["check", "--profile"], "ir", ["ironic"]),
    (["history", "--profile"], "", sorted(PROFILES)),
    (["diff", "a", "b", "--disable"], "", RULE_IDS),
    (["check", "--disable"], "status", [i for i in RULE_IDS if i.startswith("status")]),
    (["history", "--disable"], "", RULE_IDS),
    (["rules"], "", RULE_IDS),
    (["rules"], "head", ["header"]),
    (["history", "--format"], "", list(HISTORY_FORMATS)),
    (["history", "-f"], "js", ["json", "jsonl"]),
    (["diff", "a", "b", "--format"], "", list(FORMATS)),
    (["check", "--fail-on"], "", list(FAIL_ON)),
    (["diff", "a", "b", "--fail-on"], "w", ["warning"]),
], ids=lambda value: " ".join(value) if isinstance(value, list) else None)
def test_option_values_complete(args: list[str], incomplete: str, expected: list[str]) -> None:
    assert sorted(completions(args, incomplete)) == sorted(expected)


def test_no_second_list_of_profiles_or_rules() -> None:
    """The completions come from the registries: a profile or rule added there completes."""
    assert "header" in RULE_IDS and set(completions(["rules"], "")) == set(RULE_IDS)
    assert set(completions(["check", "--profile"], "")) == set(PROFILES)


def _script(code: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-X", "importtime", "-c", code], capture_output=True,
                          text=True, timeout=120, check=False,
                          env={**os.environ, **(env or {})})


def _imported(stderr: str) -> set[str]:
    return {line.rsplit("|", 1)[-1].strip() for line in stderr.splitlines()
            if line.startswith("import time:")}


LAUNCH = "import sys; sys.argv[0] = 'needs-microversion'; from needs_microversion import launch; " \
    "sys.exit(launch.main())"


def test_start_up_imports_neither_rules_nor_profiles() -> None:
    done = _script(LAUNCH.replace("sys.argv[0] = 'needs-microversion'",
                                  "sys.argv[:] = ['needs-microversion', '--version']"))
    assert done.returncode == 0 and done.stdout.startswith("needs-microversion ")
    heavy = {name for name in _imported(done.stderr) if name.startswith((
        "needs_microversion.rules", "needs_microversion.profiles", "needs_microversion.config"))}
    assert heavy == set()


def test_the_shell_script_protocol_completes_rule_ids_importing_them_then() -> None:
    """As the script `--show-completion bash` prints asks: the environment variable, the
    words so far; the rules are imported to answer, and only then."""
    done = _script(LAUNCH, {"_NEEDS_MICROVERSION_COMPLETE": "complete_bash",
                            "COMP_WORDS": "needs-microversion check --disable hea",
                            "COMP_CWORD": "3"})
    assert done.returncode == 0 and done.stdout.split() == ["header"], done.stderr
    assert "needs_microversion.rules" in _imported(done.stderr)
