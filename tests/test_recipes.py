"""docs/recipes.md: every YAML block is YAML, and every command line is a real command with
real options of the CLI (and real values where the CLI has a fixed set)."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest
import yaml
from conftest import ROOT

RECIPES = ROOT / "docs" / "recipes.md"
SECTIONS = ("GitHub Actions", "GitLab CI", "Zuul (OpenStack) with a tox environment",
            "pre-commit")
_BLOCK = re.compile(r"^```(\w*)\n(.*?)^```", re.MULTILINE | re.DOTALL)
# What may stand in front of a command on its line: a list dash, `run:`, `commands =`, ...
_LEAD = re.compile(r"^\s*(?:-\s+)?(?:(?:run|entry|commands|script)\s*[:=]\s*)?")
_SHELL_STOP = {">", ">>", "|", "||", "&&", ";", "2>&1"}


def sections() -> dict[str, str]:
    parts = re.split(r"^## (.+)$", RECIPES.read_text(), flags=re.MULTILINE)
    return {title.strip(): body for title, body in zip(parts[1::2], parts[2::2], strict=False)}


def blocks(text: str) -> list[tuple[str, str]]:
    return [(lang, body) for lang, body in _BLOCK.findall(text)]


def command_lines(text: str) -> list[list[str]]:
    """`needs-microversion ...` invocations, as argument lists (shell tail cut off)."""
    found = []
    for line in text.splitlines():
        rest = _LEAD.sub("", line, count=1)
        if not rest.startswith("needs-microversion "):
            continue
        words = []
        for word in shlex.split(rest, comments=True)[1:]:
            if word in _SHELL_STOP:
                break
            words.append(word)
        found.append(words)
    return found


def cli_commands() -> dict[str, dict[str, object]]:
    """Each command's option names -> the click parameter."""
    import typer

    from needs_microversion.cli import app

    group = typer.main.get_command(app)
    return {name: {opt: param for param in command.params
                   for opt in (*param.opts, *param.secondary_opts) if opt.startswith("-")}
            for name, command in group.commands.items()}  # type: ignore[attr-defined]


def test_every_recipe_is_there() -> None:
    assert set(SECTIONS) <= set(sections())


@pytest.mark.parametrize("title", SECTIONS)
def test_recipe_yaml_is_valid(title: str) -> None:
    yaml_blocks = [body for lang, body in blocks(sections()[title]) if lang == "yaml"]
    assert yaml_blocks, f"{title}: no YAML block"
    for body in yaml_blocks:
        assert isinstance(yaml.safe_load(body), (dict, list))


@pytest.mark.parametrize("title", SECTIONS)
def test_recipe_commands_and_options_exist(title: str) -> None:
    from needs_microversion.report import FORMATS

    text = "".join(body for _, body in blocks(sections()[title]))
    lines = command_lines(text)
    if title == "pre-commit":
        # The snippet names the hook; the hook's entry is the command.
        hooks = yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text())
        ids = {hook["id"] for hook in hooks}
        configs = [yaml.safe_load(body) for lang, body in blocks(sections()[title])
                   if lang == "yaml"]
        used = {hook["id"] for config in configs for repo in config["repos"]
                for hook in repo["hooks"]}
        assert used and used <= ids
        lines += [shlex.split(hook["entry"])[1:] for hook in hooks]
    assert lines, f"{title}: no needs-microversion command line"
    commands = cli_commands()
    for words in lines:
        assert words and words[0] in commands, words
        options = commands[words[0]]
        assert any(word.startswith("-") for word in words), f"{title}: {words} has no option"
        for i, word in enumerate(words[1:], 1):
            if not word.startswith("-"):
                continue
            name = word.split("=", 1)[0]
            assert name in options, f"{title}: {words[0]} has no option {name}"
            if name in ("--format", "-f"):
                value = word.split("=", 1)[1] if "=" in word else words[i + 1]
                assert value in FORMATS, f"{title}: unknown format {value}"


def test_configuration_example_is_read_by_the_configuration_loader(tmp_path: Path) -> None:
    from needs_microversion.config import load_config

    [config_block] = [body for lang, body in blocks(sections()["Before any recipe: name the "
                                                             "documents"]) if lang == "yaml"]
    path = tmp_path / ".needs-microversion.yaml"
    path.write_text(config_block)
    config = load_config(str(path))
    assert [s.name for s in config.services] == ["compute"]
    assert config.services[0].documents == ("api-ref/source",)


def test_the_parser_finds_commands_and_skips_package_names() -> None:
    text = ("      - run: pip install needs-microversion\n"
            "      - run: needs-microversion check --base \"origin/${{ x }}\" > out.txt\n"
            "commands = needs-microversion diff a b --format json {posargs}\n"
            "      - id: needs-microversion\n")
    assert command_lines(text) == [["check", "--base", "origin/${{ x }}"],
                                   ["diff", "a", "b", "--format", "json", "{posargs}"]]


def _release() -> str:
    text = (ROOT / "pyproject.toml").read_text()
    found = re.search(r'^version = "([^"]+)"', text, re.MULTILINE)
    assert found
    return found.group(1)


def test_the_snippets_name_the_release_tag_of_this_version() -> None:
    """`rev: 0.1.0` must name a tag that exists: the release of the version in pyproject."""
    import subprocess

    text = RECIPES.read_text()
    revs = set(re.findall(r"^\s*rev: (\S+)", text, re.MULTILINE))
    uses = set(re.findall(r"uses: OWNER/needs-microversion@(\S+)", text))
    assert revs == uses == {_release()}
    if not (ROOT / ".git").exists():
        pytest.skip("not a git checkout: no tags to look the release up in")
    tags = subprocess.run(["git", "-C", str(ROOT), "tag", "--list"], capture_output=True,
                          text=True, check=False).stdout.split()
    if not tags:
        pytest.skip("this clone holds no tags (fetched without them)")
    assert _release() in tags


def test_the_license_file_is_the_one_pyproject_names() -> None:
    assert 'license = { text = "Apache-2.0" }' in (ROOT / "pyproject.toml").read_text()
    head = (ROOT / "LICENSE").read_text().split()
    assert head[:4] == ["Apache", "License", "Version", "2.0,"]
