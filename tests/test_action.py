"""The GitHub Action (action.yml): its steps run as the runner runs them, on a pull request."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml
from conftest import ROOT, package_index_reachable
from gitrepo import LOCKED, api, commit, git, make_repo, quiet_git

__all__ = ["quiet_git"]  # the autouse fixture: git without the user's settings

ACTION = ROOT / "action.yml"
EXPRESSION = re.compile(r"\$\{\{\s*([^}]*?)\s*\}\}")


def action() -> dict[str, Any]:
    return yaml.safe_load(ACTION.read_text())


def test_a_composite_action_whose_scripts_never_paste_an_input() -> None:
    """A branch named `$(curl ...)` must stay a name: expressions only in `env`."""
    spec = action()
    assert spec["runs"]["using"] == "composite"
    assert set(spec["inputs"]) == {"base", "args", "python"}
    for step in spec["runs"]["steps"]:
        assert step["shell"] == "bash" and not EXPRESSION.search(step["run"]), step["name"]


def _run_steps(workspace: Path, runner_temp: Path, inputs: dict[str, str],
               base_ref: str) -> tuple[int, str, dict[str, str]]:
    """Each step's script with its `env` evaluated as the runner would: (exit, stdout,
    the outputs of the check step)."""
    outputs: dict[str, dict[str, str]] = {}
    context = {f"inputs.{k}": v for k, v in inputs.items()} | {
        "github.action_path": str(ROOT), "runner.temp": str(runner_temp),
        "github.base_ref": base_ref}
    done = subprocess.CompletedProcess[str]([], 0, "", "")
    for step in action()["runs"]["steps"]:
        env = {k: v for k, v in os.environ.items() if not k.startswith(("VIRTUAL_ENV", "PIP_"))}
        for name, value in step.get("env", {}).items():
            env[name] = EXPRESSION.sub(lambda m: _evaluate(m.group(1), context, outputs),
                                       str(value))
        output_file = runner_temp / f"{step['id']}.out"
        output_file.write_text("")
        env["GITHUB_OUTPUT"] = str(output_file)
        done = subprocess.run(["bash", "-e", "-c", step["run"]], cwd=workspace, env=env,
                              capture_output=True, text=True, timeout=600, check=False)
        outputs[step["id"]] = dict(line.split("=", 1) for line in
                                   output_file.read_text().splitlines() if "=" in line)
        if step["id"] == "install" and done.returncode:
            pytest.skip(f"pip could not install the action: {done.stderr[-300:]}")
    return done.returncode, done.stdout, outputs["check"]


def _evaluate(expression: str, context: dict[str, str], outputs: dict[str, dict[str, str]]
              ) -> str:
    match = re.fullmatch(r"steps\.(\w+)\.outputs\.([\w-]+)", expression)
    if match:
        return outputs[match.group(1)][match.group(2)]
    return context[expression]


def test_the_action_annotates_a_pull_request(tmp_path: Path) -> None:
    """Installed from its own folder into the runner's temp, run in a checkout whose
    `origin/main` is the base branch: the attribute added without a microversion is an
    error annotation on its line, and the exit code fails the job."""
    if not package_index_reachable():
        pytest.skip("the action pip-installs the project from the package index, unreachable")
    upstream = make_repo(tmp_path / "upstream", {"api/openapi.yaml": api(), "app/servers.py": "# code\n",
                                                 ".needs-microversion.yaml":
                                                 "services:\n  - name: compute\n"
                                                 "    documents: [api/openapi.yaml]\n"})
    workspace = tmp_path / "workspace"
    git(tmp_path, "clone", "-q", str(upstream), str(workspace))
    git(workspace, "checkout", "-q", "-b", "feature")
    commit(workspace, {"api/openapi.yaml": api(extra=LOCKED),
                      "app/servers.py": "# code, returning 'locked'\n"}, "Add locked")
    temp = tmp_path / "runner-temp"
    temp.mkdir()
    code, out, outputs = _run_steps(workspace, temp, {"base": "", "args": "--no-validate",
                                                      "python": sys.executable}, "main")
    assert code == 1 and outputs == {"exit-code": "1"}, out
    line = api(extra=LOCKED).splitlines().index(LOCKED.rstrip("\n")) + 1
    assert f"::error file=api/openapi.yaml,line={line},title=attribute-added" in out
    assert out.rstrip().splitlines()[-1].startswith(
        "::notice title=needs-microversion::Yes, you need a microversion")
