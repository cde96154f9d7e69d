"""A hostile repository gets nothing: git never runs another program or reaches the network,
no read leaves the repository, and every refusal is exit 2 with one line (issue 33).

Every program a carrier could make git run touches a canary file; a promisor remote points
at a listening socket. The carriers are set after the repository is built (the test's own
git calls would run them too) and every mode that reads a repository is run against them.
"""

from __future__ import annotations

import os
import shlex
import socket
import subprocess
import sys
from pathlib import Path

import pytest
from gitrepo import quiet_git
from repositories import NOVA_SERVERS, git, nova_like

__all__ = ["quiet_git"]

SECRET = "TOP-SECRET-VALUE"
MODES = {
    "check": ("check", "--base", "main", "--no-validate"),
    "check-staged": ("check", "--base", "main", "--staged", "--no-validate"),
    "check-refs": ("check", "--from-ref", "HEAD~1", "--to-ref", "HEAD", "--no-validate"),
    "history": ("history",),
    "diff-revisions": ("diff", "HEAD~1:api-ref/source", "api-ref/source", "--no-validate"),
}


def _canary(folder: Path, name: str) -> str:
    """A shell command that leaves a file behind when it runs (and then behaves)."""
    return f"touch {shlex.quote(str(folder / name))}; cat"


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """A nova-like repository: an api-ref change committed, another in the working tree
    and the index, and a code change, so every command has something to compare."""
    repo = nova_like(tmp_path / "r")
    repo.commit({"api-ref/source/servers.inc": NOVA_SERVERS.replace("Show Server", "Show")})
    git(repo.top, "branch", "topic")
    repo.write({"api-ref/source/servers.inc": NOVA_SERVERS + "\n",
                "nova/api/openstack/compute/servers.py": "# changed\n"})
    git(repo.top, "add", "api-ref/source/servers.inc")
    return repo.top


def _arm(top: Path, canary: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Every carrier of a program that git knows, each leaving its own canary."""
    _sign_head(top)  # before the hooks: update-ref would run reference-transaction
    hooks = top / "evil-hooks"
    hooks.mkdir()
    for hook in ("post-index-change", "reference-transaction", "post-checkout", "pre-commit",
                 "fsmonitor-watchman", "post-merge", "pre-auto-gc"):
        script = hooks / hook
        script.write_text(f"#!/bin/sh\ntouch {shlex.quote(str(canary / hook))}\n")
        script.chmod(0o755)
    included = top / ".git" / "evil.cfg"
    included.write_text(f'[core]\n\tfsmonitor = "{_canary(canary, "include-fsmonitor")}"\n'
                        f'\tpager = "{_canary(canary, "include-pager")}"\n')
    settings = {
        "core.fsmonitor": _canary(canary, "fsmonitor"),
        "core.hooksPath": str(hooks),
        "core.pager": _canary(canary, "pager"),
        "pager.log": _canary(canary, "pager-log"),
        "filter.evil.clean": _canary(canary, "clean"),
        "filter.evil.smudge": _canary(canary, "smudge"),
        "filter.evil.process": _canary(canary, "process"),
        "diff.evil.textconv": _canary(canary, "textconv"),
        "diff.evil.command": _canary(canary, "diff-driver"),
        "diff.external": _canary(canary, "external-diff"),
        "log.showSignature": "true",
        "gpg.program": str(hooks / "pre-commit"),
        "alias.ls-files": f"!{_canary(canary, 'alias')}",
        "include.path": str(included),
        "core.untrackedCache": "true",
    }
    for key, value in settings.items():
        git(top, "config", key, value)
    (top / ".git" / "info").mkdir(exist_ok=True)
    (top / ".git" / "info" / "attributes").write_text("* filter=evil diff=evil\n")
    monkeypatch.setenv("GIT_CONFIG_PARAMETERS",
                       f"'core.fsmonitor'='{_canary(canary, 'parameters')}'")
    monkeypatch.setenv("GIT_CONFIG_COUNT", "1")
    monkeypatch.setenv("GIT_CONFIG_KEY_0", "core.fsmonitor")
    monkeypatch.setenv("GIT_CONFIG_VALUE_0", _canary(canary, "config-count"))
    monkeypatch.setenv("GIT_EXTERNAL_DIFF", _canary(canary, "env-external-diff"))
    monkeypatch.setenv("GIT_PAGER", _canary(canary, "env-pager"))
    monkeypatch.setenv("PAGER", _canary(canary, "env-pager-plain"))
    monkeypatch.setenv("GIT_TRACE", str(canary / "trace"))
    monkeypatch.setenv("GIT_TRACE2_EVENT", str(canary / "trace2"))


def _sign_head(top: Path) -> None:
    """HEAD rewritten with a signature header, so that `log` would ask gpg to verify it."""
    raw = git(top, "cat-file", "commit", "HEAD")
    header, _, message = raw.partition("\n\n")
    signature = ("gpgsig -----BEGIN PGP SIGNATURE-----\n \n iQEzBAABCAAdFiEE\n"
                 " -----END PGP SIGNATURE-----")
    signed = f"{header}\n{signature}\n\n{message}"
    done = subprocess.run(["git", "-C", str(top), "hash-object", "-t", "commit", "-w",
                           "--stdin"], input=signed, capture_output=True, text=True, check=True)
    git(top, "update-ref", "refs/heads/main", done.stdout.strip())


@pytest.mark.parametrize("mode", sorted(MODES))
def test_no_carrier_makes_git_run_a_program(project: Path, tmp_path: Path, mode: str,
                                            monkeypatch: pytest.MonkeyPatch, run_cli) -> None:
    canary = tmp_path / "canary"
    canary.mkdir()
    _arm(project, canary, monkeypatch)
    monkeypatch.chdir(project)
    code, out, err = run_cli(*MODES[mode])
    assert code in (0, 1), (code, err)
    assert "Traceback" not in err
    assert sorted(p.name for p in canary.iterdir()) == []


def test_the_working_tree_is_compared_without_refreshing_the_index(
        project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, run_cli) -> None:
    """What git would find by refreshing is found by hashing what is read: a file touched
    but unchanged is unchanged, an edited one is changed, a new one is new."""
    from needs_microversion.loaders.git import Repo
    from needs_microversion.loaders.git.worktree import worktree_changes

    (project / "nova" / "__init__.py").touch()  # stat changed, content not
    (project / "releasenotes" / "notes" / "new.yaml").write_text("---\nfeatures: [x]\n")
    (project / "doc" / "api_samples" / "servers" / "server-get-resp.json").unlink()
    repo = Repo(project)
    base = repo.commit("main")
    assert base is not None
    expected = git(project, "diff", "--name-only", base).split() + ["releasenotes/notes/new.yaml"]
    assert list(worktree_changes(repo, base)) == sorted(expected)
    assert "nova/__init__.py" not in expected


def test_a_partial_clone_never_fetches(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                       run_cli) -> None:
    """A missing object is exit 2 naming it and the command that fetches it: no connection
    to the promisor remote (a listening socket), no program run for an `ext::` remote."""
    source = nova_like(tmp_path / "source")
    source.commit({"api-ref/source/servers.inc": NOVA_SERVERS.replace("Show Server", "Show")})
    git(source.top, "config", "uploadpack.allowFilter", "true")
    part = tmp_path / "part"
    subprocess.run(["git", "clone", "-q", "--filter=blob:none", "--no-checkout",
                    f"file://{source.top}", str(part)], check=True, capture_output=True)
    git(part, "checkout", "-q", "main")  # the blobs of HEAD only
    canary = tmp_path / "canary"
    canary.mkdir()
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(5)
    listener.setblocking(False)
    port = listener.getsockname()[1]
    monkeypatch.chdir(part)
    remotes = {"http": f"http://127.0.0.1:{port}/repo.git",
               "ext": f"ext::sh -c touch% {canary / 'ext'}"}
    try:
        for name, url in remotes.items():
            git(part, "config", "remote.origin.url", url)
            git(part, "config", "protocol.ext.allow", "always")
            code, out, err = run_cli("check", "--from-ref", "HEAD~1", "--to-ref", "HEAD",
                                     "--no-validate")
            assert code == 2 and err.count("\n") == 1, (name, code, err)
            assert "cat-file -e" in err and "partial clone" in err, err
            with pytest.raises(BlockingIOError):
                listener.accept()
    finally:
        listener.close()
    assert list(canary.iterdir()) == []


def test_a_configuration_linked_out_of_the_repository_is_not_read(
        project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, run_cli) -> None:
    outside = tmp_path / "outside.yaml"
    outside.write_text(f"profile: {SECRET}\n")
    (project / ".needs-microversion.yaml").symlink_to(outside)
    monkeypatch.chdir(project)
    for mode in ("check", "check-refs"):
        code, out, err = run_cli(*MODES[mode])
        assert code == 2 and err.count("\n") == 1, (mode, code, err)
        assert SECRET not in out + err and ".needs-microversion.yaml" in err


def test_a_configuration_that_is_a_folder_is_an_error(project: Path, monkeypatch,
                                                      run_cli) -> None:
    (project / ".needs-microversion.yaml").mkdir()
    monkeypatch.chdir(project)
    code, _, err = run_cli(*MODES["check"])
    assert code == 2 and ".needs-microversion.yaml" in err and "directory" in err, err


def test_an_api_ref_folder_linked_out_of_the_repository(tmp_path: Path, monkeypatch,
                                                        run_cli) -> None:
    repo = nova_like(tmp_path / "r")
    outside = tmp_path / "outside"
    (outside).mkdir()
    (outside / "index.rst").write_text(".. include:: servers.inc\n")
    (outside / "servers.inc").write_text(NOVA_SERVERS.replace("Show Server", SECRET))
    (outside / "parameters.yaml").write_text((repo.top / "api-ref/source/parameters.yaml")
                                             .read_text())
    git(repo.top, "rm", "-rq", "api-ref/source")
    (repo.top / "api-ref").mkdir(exist_ok=True)
    (repo.top / "api-ref" / "source").symlink_to(outside)
    git(repo.top, "add", "api-ref/source")
    git(repo.top, "commit", "-qm", "the tree is a link")
    monkeypatch.chdir(repo.top)
    for args in (("check", "--base", "HEAD~1", "--no-validate"),
                 ("check", "--from-ref", "HEAD~1", "--to-ref", "HEAD", "--no-validate"),
                 ("diff", "HEAD~1:api-ref/source", "api-ref/source", "--no-validate",
                  "--root", ".")):
        code, out, err = run_cli(*args)
        assert code == 2 and err.count("\n") == 1, (args, code, err)
        assert SECRET not in out + err and "api-ref/source" in err, err


@pytest.mark.parametrize("kind", ["link-out", "fifo", "dev-zero", "folder"])
def test_a_configured_version_file_that_is_not_a_file(kind: str, project: Path,
                                                      tmp_path: Path, monkeypatch,
                                                      run_cli) -> None:
    target = project / "version.py"
    if kind == "link-out":
        (tmp_path / "elsewhere.py").write_text(f"_MAX_API_VERSION = '2.99'  # {SECRET}\n")
        target.symlink_to(tmp_path / "elsewhere.py")
    elif kind == "fifo":
        os.mkfifo(target)
    elif kind == "dev-zero":
        target.symlink_to("/dev/zero")
    else:
        target.mkdir()
    (project / ".needs-microversion.yaml").write_text(
        "services:\n  - name: compute\n    documents: [api-ref/source]\n"
        "    version-file: version.py\n")
    monkeypatch.chdir(project)
    code, out, err = run_cli(*MODES["check"])
    assert code == 2 and err.count("\n") == 1, (kind, code, err)
    assert "version.py" in err and SECRET not in out + err


def test_a_plain_folder_reads_nothing_beside_it(tmp_path: Path, run_cli) -> None:
    sibling = tmp_path / "sibling"
    sibling.mkdir()
    (sibling / "x.inc").write_text(NOVA_SERVERS.replace("Show Server", SECRET))
    for side in ("old", "new"):
        tree = tmp_path / side
        tree.mkdir()
        # Read, the sibling's operation would be new: a resource URL added, exit 1.
        (tree / "index.rst").write_text((".. include:: ../sibling/x.inc\n" if side == "new"
                                         else "") + ".. include:: servers.inc\n")
        (tree / "servers.inc").write_text("Servers\n=======\n\nList\n----\n\n"
                                          ".. rest_method:: GET /servers\n")
    code, out, err = run_cli("diff", str(tmp_path / "old"), str(tmp_path / "new"),
                             "--no-validate", "--format", "json")
    assert code == 0 and '"changes": []' in out, (out, err)
    assert SECRET not in out + err and "x.inc" in err and "outside" in err


def test_a_bare_repository_is_read_by_revisions(project: Path, tmp_path: Path, monkeypatch,
                                                run_cli) -> None:
    """A CI clone without a checkout: `--from-ref/--to-ref` works, the working-tree modes
    say why they cannot."""
    bare = tmp_path / "bare.git"
    subprocess.run(["git", "clone", "-q", "--bare", str(project), str(bare)], check=True,
                   capture_output=True)
    monkeypatch.chdir(bare)
    code, out, err = run_cli(*MODES["check-refs"])
    assert code in (0, 1) and "== " in out or "microversion" in out, (code, err)
    code, _, err = run_cli(*MODES["check"])
    assert code == 2 and "bare" in err and "--from-ref" in err, err


def test_a_fifo_in_the_git_configuration_does_not_hang(project: Path, monkeypatch,
                                                       run_cli) -> None:
    os.mkfifo(project / ".git" / "evil.fifo")
    git(project, "config", "include.path", "evil.fifo")
    monkeypatch.chdir(project)
    code, _, err = run_cli(*MODES["check"])
    assert code == 2 and "evil.fifo" in err and err.count("\n") == 1, err


def test_git_is_run_by_one_module() -> None:
    """Only loaders/git/command.py starts a process (git); the rest asks it."""
    package = Path(__file__).resolve().parent.parent / "needs_microversion"
    starting = sorted(str(path.relative_to(package)) for path in package.rglob("*.py")
                      if "subprocess" in path.read_text())
    assert starting == ["loaders/git/command.py"]


def test_the_settings_switch_every_carrier_off() -> None:
    from needs_microversion.loaders.git.command import SETTINGS, command, environment

    args = command(Path("."), "ls-files")
    assert args[:2] == ["git", "--no-pager"]
    for key in ("core.fsmonitor=false", "core.hooksPath=/dev/null", "protocol.allow=never",
                "log.showSignature=false", "credential.helper="):
        assert key in SETTINGS and key in args
    os.environ["GIT_CONFIG_PARAMETERS"] = "x"
    try:
        env = environment()
    finally:
        del os.environ["GIT_CONFIG_PARAMETERS"]
    assert "GIT_CONFIG_PARAMETERS" not in env and env["GIT_ALLOW_PROTOCOL"] == "none"
    assert env["GIT_NO_LAZY_FETCH"] == "1" and sys.executable  # (python kept: no PATH games)
