"""The pre-commit hook: its manifest, and the real pre-commit running it on real commits."""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from conftest import ROOT, package_index_reachable
from gitrepo import LOCKED, api, commit, git, make_repo, quiet_git, write
from test_packaging import Snapshot, snapshot

# The fixtures: git without the user's settings (autouse); the working tree as a repository.
__all__ = ["quiet_git", "snapshot"]

MANIFEST = ROOT / ".pre-commit-hooks.yaml"


def hooks() -> list[dict[str, object]]:
    return yaml.safe_load(MANIFEST.read_text())


def test_manifest_publishes_the_hook() -> None:
    [hook] = hooks()
    assert hook["id"] == "needs-microversion" and hook["language"] == "python"
    assert hook["require_serial"] is True and hook.get("pass_filenames", True) is True
    assert hook["verbose"] is True  # a passing bump's open checklist is shown
    entry = shlex.split(str(hook["entry"]))
    assert entry[:2] == ["needs-microversion", "check"]
    assert {"--staged", "--base"} <= set(entry)


def test_manifest_matches_pre_commits_schema() -> None:
    clientlib = pytest.importorskip("pre_commit.clientlib", reason="pre-commit not installed")
    [hook] = clientlib.load_manifest(str(MANIFEST))
    assert hook["id"] == "needs-microversion"


def test_hook_entry_options_exist() -> None:
    import os
    import subprocess
    import sys

    [hook] = hooks()
    # A fresh process with a wide terminal: rich lays the help out once per process, and
    # a narrow one cuts lines with "…".
    done = subprocess.run([sys.executable, "-m", "needs_microversion",
                           *shlex.split(str(hook["entry"]))[1:], "--help"],
                          capture_output=True, text=True, timeout=60,
                          env={**os.environ, "COLUMNS": "200", "NO_COLOR": "1"})
    assert done.returncode == 0 and "--staged" in done.stdout
    assert "PRE_COMMIT_FROM_REF" in done.stdout


# -- the real pre-commit -----------------------------------------------------------------------

def _pre_commit() -> str | None:
    here = Path(sys.executable).parent
    return shutil.which("pre-commit", path=os.pathsep.join([str(here),
                                                             os.environ.get("PATH", "")]))


def test_real_pre_commit_try_repo(tmp_path: Path, snapshot: Snapshot) -> None:
    """`try-repo` on this working tree (committed or not, new files too: `try-repo` on a
    dirty repository would copy tracked changes only), as a repository of one commit."""
    pre_commit = _pre_commit()
    if pre_commit is None:
        pytest.skip("pre-commit is not installed (pip install pre-commit)")
    if not package_index_reachable():
        pytest.skip("pre-commit pip-installs the hook from the package index, unreachable here")
    hook_repo = snapshot.path
    project = make_repo(tmp_path / "project", {
        "api/openapi.yaml": api(),
        ".needs-microversion.yaml": "services:\n  - name: compute\n"
                                    "    documents: [api/openapi.yaml]\n",
        "app/servers.py": "# the API's code\n", "README.md": "A project.\n"})

    def try_repo() -> subprocess.CompletedProcess[str]:
        env = {k: v for k, v in os.environ.items()
               if not k.startswith(("PRE_COMMIT", "GIT_DIR", "GIT_INDEX", "GIT_WORK"))}
        return subprocess.run([pre_commit, "try-repo", str(hook_repo), "needs-microversion",
                               "--color", "never"], cwd=project, env=env, check=False,
                              capture_output=True, text=True, timeout=900)

    # A response attribute added without a microversion: the commit is refused.
    write(project, {"api/openapi.yaml": api(extra=LOCKED), "README.md": "Locked servers.\n",
                    "app/servers.py": "# the API's code, returning 'locked'\n"})
    git(project, "add", "-A")
    done = try_repo()
    if done.returncode not in (0, 1) and "pip" in done.stdout + done.stderr:
        pytest.skip(f"pre-commit could not install the hook: {done.stdout[-400:]}")
    assert done.returncode == 1, done.stdout + done.stderr
    assert "needs-microversion" in done.stdout and "Failed" in done.stdout
    assert "Yes, you need a microversion" in done.stdout
    assert "[attribute-added]" in done.stdout and "HEAD:api/openapi.yaml" in done.stdout
    # Documentation only: it passes.
    git(project, "reset", "-q", "--hard")
    commit(project, {"README.md": "Docs.\n"}, "docs")
    write(project, {"api/openapi.yaml": api(description="The server, in full.")})
    git(project, "add", "-A")
    done = try_repo()
    assert done.returncode == 0, done.stdout + done.stderr
    assert "Passed" in done.stdout
