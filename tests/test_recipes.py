"""docs/recipes.md: every YAML block is YAML, and every command line is a real command with
real options of the CLI (and real values where the CLI has a fixed set); every recipe says
how to install the tool before the first release (a commit of main) and after it (the
release), and runs as written: its commands are taken from the document's blocks."""

from __future__ import annotations

import configparser
import importlib.util
import os
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from conftest import ROOT, package_index_reachable
from gitrepo import LOCKED, api, commit, git, make_repo, quiet_git, write
from test_packaging import Distributions, Snapshot, distributions, snapshot, version

# The fixtures: git without the user's settings; the working tree's snapshot and wheel.
__all__ = ["quiet_git", "distributions", "snapshot"]

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


# -- installing: before and after the first release --------------------------------------------

INSTALLING = "Installing: before and after the first release"
RECIPE_SECTIONS = (*SECTIONS, "pre-push")
ADDRESS = "https://github.com/OWNER/needs-microversion"
BEFORE = f"needs-microversion @ git+{ADDRESS}@COMMIT"  # no release yet: a commit of main


def after() -> str:
    """The requirement after the first release: the version written in the package."""
    return f"needs-microversion=={version()}"


def flat(text: str) -> str:
    return " ".join(text.split())


def code_and_prose(title: str) -> tuple[str, str]:
    text = sections()[title]
    code = "".join(body for _, body in blocks(text))
    return code, flat(_BLOCK.sub("", text))


def test_the_installing_section_shows_both_ways_in() -> None:
    code, prose = code_and_prose(INSTALLING)
    assert f'pip install "{BEFORE}"\n' in code
    assert f"pip install {after()}\n" in code
    assert f"git ls-remote {ADDRESS} refs/heads/main" in code
    assert f"tag `{version()}` the place of `COMMIT`" in prose


def test_ls_remote_prints_the_commit_to_pin(snapshot: Snapshot) -> None:
    code, _ = code_and_prose(INSTALLING)
    [line] = [line for line in code.splitlines() if line.startswith("git ls-remote ")]
    done = _sh(_local(line, snapshot), snapshot.path, _env([]))
    assert done.stdout.split() == [snapshot.commit, "refs/heads/main"], done.stderr


# What each recipe's blocks write (before the first release) and its prose says for after it.
_FORMS = {
    "GitHub Actions": ([f'pip install "{BEFORE}"', "uses: OWNER/needs-microversion@COMMIT"],
                       ["pip install {after}", "uses: OWNER/needs-microversion@{version}"]),
    "GitLab CI": ([f'pip install "{BEFORE}"'], ["pip install {after}"]),
    "Zuul (OpenStack) with a tox environment": ([f"deps = {BEFORE}"], ["deps = {after}"]),
    "pre-commit": ([f"repo: {ADDRESS}\n", "rev: COMMIT"], ["rev: {version}"]),
    "pre-push": (["pre-commit install --hook-type pre-push\n"],
                 ["a commit of main before the first release, a release tag after it"]),
}


@pytest.mark.parametrize("title", RECIPE_SECTIONS)
def test_every_recipe_installs_a_commit_before_the_first_release_and_says_what_after(
        title: str) -> None:
    code, prose = code_and_prose(title)
    before_forms, after_forms = _FORMS[title]
    for form in before_forms:
        assert form in code, f"{title}: no {form!r} in its blocks"
    for form in after_forms:
        form = form.format(after=after(), version=version())
        assert form in prose, f"{title}: its text does not say {form!r}"


@pytest.mark.parametrize("title", RECIPE_SECTIONS)
def test_no_recipe_block_needs_a_tag_or_a_published_package(title: str) -> None:
    """Copied as they are, the blocks work before the first release: no tag, no package of
    the index; a commit of main."""
    code, _ = code_and_prose(title)
    assert set(re.findall(r"^\s*rev:\s*(\S+)", code, re.MULTILINE)) <= {"COMMIT"}
    assert set(re.findall(r"/needs-microversion@([\w.-]+)", code)) <= {"COMMIT"}
    for line in code.splitlines():
        found = re.search(r"(?:pip install|deps\s*=)\s*(.*needs-microversion.*)$", line)
        if found:
            assert found.group(1).strip('"') == BEFORE, f"{title}: {line.strip()}"


def test_one_address_for_this_repository() -> None:
    """The repository's address is written the same way wherever it is written."""
    files = [RECIPES, ROOT / "README.md", ROOT / "action.yml", ROOT / "pyproject.toml",
             ROOT / ".pre-commit-hooks.yaml", ROOT / ".github" / "workflows" / "release.yml"]
    text = "\n".join(path.read_text() for path in files)
    addresses = set(re.findall(r"https?://[^\s\"'`)>]*needs-microversion[^\s\"'`)>@]*", text))
    assert addresses - {"https://pypi.org/project/needs-microversion/"} == {ADDRESS}
    assert set(re.findall(r"([\w.-]+)/needs-microversion@", text)) == {"OWNER"}
    assert "example.org/needs-microversion" not in text


def test_the_tox_recipe_inherits_nothing_from_the_services_testenv() -> None:
    """Its own deps and install_command, nothing installed from the project: no
    upper-constraints file, no requirements, no URL but the tool's."""
    [body] = [body for lang, body in blocks(sections()["Zuul (OpenStack) with a tox environment"])
              if lang == "ini"]
    ini = configparser.ConfigParser(interpolation=None)
    ini.read_string(body)
    env = ini["testenv:microversion"]
    assert env.getboolean("skip_install") is True and env.getboolean("usedevelop") is False
    assert env["install_command"] == "python -m pip install {opts} {packages}"
    assert env["deps"].strip().splitlines() == [BEFORE]
    assert "-c" not in body and "constraints" not in body and "{env:" not in body


# -- the recipes, run as written ---------------------------------------------------------------
# Each takes its commands from the blocks above; the only changes are the placeholders:
# OWNER's repository is the snapshot of this working tree (a git repository of one commit,
# tests/test_packaging.py) and COMMIT that commit. A sample project (an OpenAPI document
# named by its configuration) gets a response attribute without a microversion: every recipe
# must refuse it.

CONFIG = "services:\n  - name: compute\n    documents: [api/openapi.yaml]\n"
CHANGE: dict[str, str | None] = {"api/openapi.yaml": api(extra=LOCKED),
                                 "app/servers.py": "# the API's code, returning 'locked'\n"}
VERDICT = "Yes, you need a microversion"


def _needs_index(what: str) -> None:
    if not package_index_reachable():
        pytest.skip(f"{what} from the package index, unreachable here")


def _local(text: str, snapshot: Snapshot, *, commit_too: bool = True) -> str:
    text = text.replace(ADDRESS, f"file://{snapshot.path}")
    return re.sub(r"\bCOMMIT\b", snapshot.commit, text) if commit_too else text


def _env(path: list[Path], **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("VIRTUAL_ENV", "PRE_COMMIT", "PYTHONPATH", "TOX_"))}
    env["PATH"] = os.pathsep.join([*map(str, path), env.get("PATH", "")])
    return env | extra


def _links(distributions: Distributions) -> str:
    """pip's find-links: the folder holding the wheel, then whatever the machine names."""
    return " ".join(filter(None, [str(distributions.folder), os.environ.get("PIP_FIND_LINKS")]))


def _sh(line: str, cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["bash", "-e", "-c", line], cwd=cwd, env=env, capture_output=True,
                          text=True, timeout=600, check=False)


def _venv(path: Path) -> Path:
    """A fresh Python of its own (a CI image's, setup-python's), with a pip as recent as
    theirs (virtualenv's; the venv module's may be older than PEP 508's file URLs): its bin
    folder."""
    if importlib.util.find_spec("virtualenv") is None:
        pytest.skip("virtualenv is not installed (pip install '.[test]': pre-commit needs it)")
    subprocess.run([sys.executable, "-m", "virtualenv", "-q", str(path)], check=True,
                   capture_output=True)
    return path / "bin"


def _sample(tmp_path: Path, *, files: dict[str, str] | None = None) -> tuple[Path, Path]:
    """A bare upstream whose main holds the API, and a clone of it (the CI's checkout)."""
    seed = make_repo(tmp_path / "seed", {
        "api/openapi.yaml": api(), ".needs-microversion.yaml": CONFIG,
        "app/servers.py": "# the API's code\n", "README.md": "A project.\n",
        ".gitignore": ".tox/\n", **(files or {})})
    upstream = tmp_path / "upstream.git"
    git(tmp_path, "clone", "-q", "--bare", str(seed), str(upstream))
    workspace = tmp_path / "workspace"
    git(tmp_path, "clone", "-q", str(upstream), str(workspace))
    return upstream, workspace


def _on_feature_branch(workspace: Path) -> str:
    """The change under review, one commit on `feature` above main: main's commit."""
    base = git(workspace, "rev-parse", "HEAD").strip()
    git(workspace, "checkout", "-q", "-b", "feature")
    commit(workspace, CHANGE, "Add the locked attribute")
    return base


def test_github_steps_without_the_action_run_as_written(tmp_path: Path,
                                                        distributions: Distributions) -> None:
    """The two steps, the install in its form after the first release: the version the
    package writes, found in a folder holding the wheel built from the checkout. The action
    itself (`uses:`) runs in tests/test_action.py."""
    _needs_index("the step pip-installs the tool's dependencies")
    section = sections()["GitHub Actions"]
    workflow, steps = [yaml.safe_load(body) for lang, body in blocks(section) if lang == "yaml"]
    [job] = workflow["jobs"].values()
    [checkout] = [s for s in job["steps"] if s.get("uses", "").startswith("actions/checkout@")]
    assert checkout["with"]["fetch-depth"] == 0
    [action_step] = [s for s in job["steps"] if "needs-microversion@" in s.get("uses", "")]
    inputs = yaml.safe_load((ROOT / "action.yml").read_text())["inputs"]
    assert set(action_step.get("with", {})) <= set(inputs)
    runs = [step["run"] for step in steps]
    assert runs[0] == f'pip install "{BEFORE}"'
    found = re.search(r"`(pip install needs-microversion==[^`]+)`", section)
    assert found and found.group(1) == f"pip install {after()}"
    runs[0] = found.group(1)
    _, workspace = _sample(tmp_path)
    _on_feature_branch(workspace)
    runner = _venv(tmp_path / "runner")
    env = _env([runner], PIP_FIND_LINKS=_links(distributions))
    done = [_sh(run.replace("${{ github.base_ref }}", "main"), workspace, env) for run in runs]
    assert done[0].returncode == 0, done[0].stdout + done[0].stderr
    assert done[1].returncode == 1, done[1].stdout + done[1].stderr
    assert "::error file=api/openapi.yaml," in done[1].stdout
    assert VERDICT in done[1].stdout
    printed = _sh("needs-microversion --version", workspace, env).stdout
    assert printed == f"needs-microversion {version()}\n"


def test_gitlab_ci_job_runs_as_written(tmp_path: Path, snapshot: Snapshot) -> None:
    """The job's script in the image's Python, in a full clone (GIT_DEPTH 0) of a merge
    request's branch, with GitLab's merge-base variable; the tool from a commit of main."""
    _needs_index("the script pip-installs the tool's dependencies")
    [config] = [yaml.safe_load(body) for lang, body in blocks(sections()["GitLab CI"])
                if lang == "yaml"]
    job = config["needs-microversion"]
    assert job["variables"] == {"GIT_DEPTH": "0"} and job["image"].startswith("python:3")
    _, workspace = _sample(tmp_path)
    base = _on_feature_branch(workspace)
    image = _venv(tmp_path / "image")
    env = _env([image], CI_PIPELINE_SOURCE="merge_request_event",
               CI_MERGE_REQUEST_DIFF_BASE_SHA=base)
    *setup, last = [_sh(_local(line, snapshot), workspace, env) for line in job["script"]]
    for done in setup:
        assert done.returncode == 0, done.stdout + done.stderr
    assert last.returncode == 1, last.stdout + last.stderr
    assert VERDICT in last.stdout and "[attribute-added]" in last.stdout


# A service's tox.ini as nova's is written: its [testenv] installs the project with
# upper-constraints from a URL (here one that never resolves, `.invalid`) and requirements
# this sample does not have. The recipe's environment must take none of it.
SERVICE_TOX = """\
[tox]
minversion = 4.11
envlist = py3

[testenv]
usedevelop = True
install_command = python -m pip install -c{env:TOX_CONSTRAINTS_FILE:https://constraints.invalid/upper} {opts} {packages}
deps =
  -c{env:TOX_CONSTRAINTS_FILE:https://constraints.invalid/upper}
  -r{toxinidir}/requirements.txt
commands = stestr run {posargs}

"""


def test_tox_environment_runs_as_written(tmp_path: Path,
                                        distributions: Distributions) -> None:
    """`tox -e microversion` (what the Zuul job's `tox_envlist` runs) in a checkout whose
    HEAD is the change on top of its branch, as Zuul prepares it; `deps` in its form after
    the first release (the text's `deps = needs-microversion==X`), the release being the
    wheel built from the checkout, found in a folder beside the package index."""
    tox = shutil.which("tox", path=str(Path(sys.executable).parent))
    if tox is None:
        pytest.skip("tox is not installed (pip install '.[test]')")
    _needs_index("tox pip-installs the tool's dependencies")
    section = sections()["Zuul (OpenStack) with a tox environment"]
    [body] = [body for lang, body in blocks(section) if lang == "ini"]
    [zuul] = [yaml.safe_load(body) for lang, body in blocks(section) if lang == "yaml"]
    [job] = [item["job"] for item in zuul if "job" in item]
    found = re.search(r"`(deps = needs-microversion==[^`]+)`", section)
    assert found and f"deps = {BEFORE}\n" in body
    body = body.replace(f"deps = {BEFORE}", found.group(1))
    _, workspace = _sample(tmp_path, files={"tox.ini": SERVICE_TOX + body})
    _on_feature_branch(workspace)
    env = _env([Path(sys.executable).parent], PIP_FIND_LINKS=_links(distributions),
               TOX_CONSTRAINTS_FILE="https://constraints.invalid/upper")
    done = subprocess.run([tox, "-e", job["vars"]["tox_envlist"]], cwd=workspace, env=env,
                          capture_output=True, text=True, timeout=600, check=False)
    assert done.returncode == 1, done.stdout[-3000:] + done.stderr[-2000:]
    assert VERDICT in done.stdout and "[attribute-added]" in done.stdout, done.stdout[-3000:]


def _pre_commit_lines(title: str) -> list[str]:
    return [line for lang, body in blocks(sections()[title]) if lang == "sh"
            for line in body.splitlines() if line.startswith("pre-commit ")]


def _pre_commit_env(tmp_path: Path) -> dict[str, str]:
    if shutil.which("pre-commit", path=str(Path(sys.executable).parent)) is None:
        pytest.skip("pre-commit is not installed (pip install '.[test]')")
    _needs_index("pre-commit pip-installs the hook")
    return _env([Path(sys.executable).parent], PRE_COMMIT_HOME=str(tmp_path / "cache"))


def _config_block() -> str:
    [body] = [body for lang, body in blocks(sections()["pre-commit"]) if lang == "yaml"]
    return body


def test_pre_commit_recipe_runs_as_written(tmp_path: Path, snapshot: Snapshot) -> None:
    """Before the first release: `autoupdate` writes the newest commit of main (the
    repository has no tag), the installed hook refuses the commit that needs a
    microversion and lets a documentation change through."""
    env = _pre_commit_env(tmp_path)
    _, project = _sample(tmp_path)
    write(project, {".pre-commit-config.yaml": _local(_config_block(), snapshot,
                                                      commit_too=False)})
    autoupdate, install, run = _pre_commit_lines("pre-commit")
    for line in (autoupdate, install):
        done = _sh(_local(line, snapshot), project, env)
        assert done.returncode == 0, done.stdout + done.stderr
    [repo] = yaml.safe_load((project / ".pre-commit-config.yaml").read_text())["repos"]
    assert repo["rev"] == snapshot.commit
    git(project, "add", "-A")
    done = _sh("git commit -q -m 'Check API changes'", project, env)  # the hook runs: passes
    assert done.returncode == 0, done.stdout + done.stderr
    write(project, CHANGE)
    git(project, "add", "-A")
    done = _sh(run, project, env)
    assert done.returncode == 1, done.stdout + done.stderr
    assert "Failed" in done.stdout and VERDICT in done.stdout
    done = _sh("git commit -q -m 'Add the locked attribute'", project, env)
    assert done.returncode == 1 and VERDICT in done.stdout + done.stderr
    git(project, "reset", "-q", "--hard")
    write(project, {"api/openapi.yaml": api(description="The server, in full.")})
    git(project, "add", "-A")
    done = _sh("git commit -q -m 'Describe the response'", project, env)
    assert done.returncode == 0, done.stdout + done.stderr


def test_pre_push_recipe_runs_as_written(tmp_path: Path, snapshot: Snapshot) -> None:
    """After the first release: the repository holds the release tag, `autoupdate` writes
    it into `rev`, and the pre-push hook the recipe installs refuses a push whose commits
    need a microversion (the remote keeps its branch) and lets the others through."""
    env = _pre_commit_env(tmp_path)
    released = tmp_path / "released"
    git(tmp_path, "clone", "-q", str(snapshot.path), str(released))
    git(released, "tag", version())
    upstream, project = _sample(tmp_path)
    write(project, {".pre-commit-config.yaml": _config_block().replace(ADDRESS,
                                                                       f"file://{released}")})
    autoupdate, _, _ = _pre_commit_lines("pre-commit")
    done = _sh(autoupdate.replace(ADDRESS, f"file://{released}"), project, env)
    assert done.returncode == 0, done.stdout + done.stderr
    [repo] = yaml.safe_load((project / ".pre-commit-config.yaml").read_text())["repos"]
    assert repo["rev"] == version()
    commit(project, {}, "Check API changes")
    install, push = _pre_commit_lines("pre-push") + [
        line for lang, body in blocks(sections()["pre-push"]) if lang == "sh"
        for line in body.splitlines() if line.startswith("git ")]
    assert install == "pre-commit install --hook-type pre-push" and push == "git push"
    done = _sh(install, project, env)
    assert done.returncode == 0, done.stdout + done.stderr
    done = _sh(push, project, env)  # the configuration: no API change
    assert done.returncode == 0, done.stdout + done.stderr
    pushed = git(upstream, "rev-parse", "main")
    commit(project, CHANGE, "Add the locked attribute")
    done = _sh(push, project, env)
    assert done.returncode == 1 and VERDICT in done.stdout + done.stderr, \
        done.stdout + done.stderr
    assert git(upstream, "rev-parse", "main") == pushed
    git(project, "reset", "-q", "--hard", "origin/main")
    commit(project, {"README.md": "Locked servers, soon.\n"}, "Docs")
    done = _sh(push, project, env)
    assert done.returncode == 0, done.stdout + done.stderr
    assert git(upstream, "rev-parse", "main") == git(project, "rev-parse", "HEAD")

def test_the_license_file_is_the_one_pyproject_names() -> None:
    text = (ROOT / "pyproject.toml").read_text()
    assert 'license = "Apache-2.0"\nlicense-files = ["LICENSE"]\n' in text
    head = (ROOT / "LICENSE").read_text().split()
    assert head[:4] == ["Apache", "License", "Version", "2.0,"]
