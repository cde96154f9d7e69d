"""Git repositories for tests: a small API document, and commits of it.

Shared by the git, check and pre-commit tests (imported by name: pytest puts this folder
on the path)."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

SERVER = """\
openapi: 3.1.0
info:
  title: Example compute API
  version: "2.5"
paths:
  /servers/{server_id}:
    get:
      summary: Show server details
      parameters:
        - name: server_id
          in: path
          required: true
          schema: {type: string}
      responses:
        "200":
          description: {description}
          content:
            application/json:
              schema:
                type: object
                properties:
                  server:
                    $ref: "{ref}"
components:
  schemas:
    Server:
      type: object
      properties:
        id: {{type: string}}
        name: {{type: string}}
{extra}"""
LOCKED = "        locked: {type: boolean}\n"
FLAVOR = "        flavor: {type: string}\n"


def api(*, extra: str = "", description: str = "OK", ref: str = "#/components/schemas/Server"
        ) -> str:
    """The small API: `extra` adds properties to Server (not gated: needs a microversion)."""
    return (SERVER.replace("{description}", description).replace("{ref}", ref)
            .replace("{extra}", extra).replace("{{", "{").replace("}}", "}"))


def line_of(text: str, needle: str) -> int:
    return text[:text.index(needle)].count("\n") + 1


@pytest.fixture(autouse=True)
def quiet_git(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """Git that ignores the user's and system's settings, with a fixed identity."""
    for name in ("GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "GIT_OBJECT_DIRECTORY",
                 "PRE_COMMIT_FROM_REF", "PRE_COMMIT_TO_REF", "GITHUB_ACTIONS"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", str(tmp_path / "gitconfig"))
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    for role in ("AUTHOR", "COMMITTER"):
        monkeypatch.setenv(f"GIT_{role}_NAME", "Test")
        monkeypatch.setenv(f"GIT_{role}_EMAIL", "test@example.org")


def git(repo: Path, *args: str) -> str:
    return subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True,
                          text=True).stdout


def make_repo(path: Path, files: dict[str, str], *, branch: str = "main") -> Path:
    path.mkdir(parents=True, exist_ok=True)
    git(path, "init", "-q", "-b", branch)
    commit(path, files, "first")
    return path


def write(repo: Path, files: dict[str, str | None]) -> None:
    """Write each file; None removes it."""
    for name, text in files.items():
        target = repo / name
        if text is None:
            target.unlink()
            continue
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text)


def commit(repo: Path, files: dict[str, str | None], message: str) -> str:
    write(repo, files)
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "--allow-empty", "-m", message)
    return git(repo, "rev-parse", "HEAD").strip()


def one_error_line(err: str) -> str:
    assert err.endswith("\n") and err.count("\n") == 1, err
    assert err.startswith("needs-microversion: error: "), err
    return err
