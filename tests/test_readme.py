"""The README is the front door: it must name what the tool really has."""

from __future__ import annotations

import re

import yaml

from conftest import ROOT

README = (ROOT / "README.md").read_text(encoding="utf-8")


def test_readme_names_every_rule_id() -> None:
    from needs_microversion.rules import RULES

    assert [rule.id for rule in RULES if f"`{rule.id}`" not in README] == []


def test_readme_names_the_hook_id() -> None:
    hooks = yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text(encoding="utf-8"))
    assert [hook["id"] for hook in hooks if hook["id"] not in README] == []


def test_readme_has_exactly_two_setup_commands_and_ci_runs_the_second() -> None:
    setup = README.split("## Set up", 1)[1].split("\n## ", 1)[0]
    commands = [line.strip() for line in setup.splitlines() if line.startswith("    ")]
    assert len(commands) == 2, commands
    assert "needs-microversion diff examples/" in commands[0]
    test_command = commands[1].split("&&")[-1].strip()
    assert test_command in (ROOT / ".ci" / "run").read_text(encoding="utf-8")


def test_usage_lists_every_format() -> None:
    from needs_microversion.report import FORMATS

    usage = re.search(r"--format ([a-z|]+)", README)
    assert usage is not None and set(usage.group(1).split("|")) == set(FORMATS)
