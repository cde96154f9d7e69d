"""Nothing in an input reaches the network or a file outside its tree, in any mode.

Each run is a child process with a Python audit hook (PEP 578) that records every socket
event and every file opened outside the allowed places (the input tree, git's temporary
copies, the Python installation); the hostile targets are real (a secret file beside the
tree, a FIFO that would hang, a symlink out) so a read would also show in the output.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import ROOT

HEAD = "openapi: 3.0.3\ninfo: {title: t, version: '1.0'}\n"
BASE = HEAD + "paths:\n  /a:\n    get:\n      responses:\n        '200': {description: ok}\n"
SECRET = "TOP-SECRET-CONTENT"

_RUNNER = r"""
import json, os, sys, tempfile
allowed = [os.path.realpath(p) for p in json.loads(sys.argv[1])]
log = sys.argv[2]
copies = os.path.join(os.path.realpath(tempfile.gettempdir()), "needs-microversion-")
found, busy = [], [False]

def hook(event, args):
    if busy[0]:
        return
    busy[0] = True
    try:
        if event == "urllib.Request" and args[0].startswith("file://"):
            event, args = "open", (args[0][len("file://"):],)  # a validator's own schemas
        if event.startswith(("socket.", "urllib.", "http.", "ftplib.", "smtplib.")):
            found.append(f"{event} {args!r:.120}")
        elif event == "open" and isinstance(args[0], (str, bytes, os.PathLike)):
            path = os.path.realpath(os.fsdecode(args[0]))
            if not (path == os.devnull or path.startswith(copies) or any(
                    path == a or path.startswith(a + os.sep) for a in allowed)):
                found.append(f"open {path}")
    finally:
        busy[0] = False

sys.addaudithook(hook)
from needs_microversion.cli import main
code = main(sys.argv[3:])
busy[0] = True  # the log itself is not the tool's
with open(log, "w") as out:
    json.dump(found, out)
sys.exit(code)
"""


def _audited(tree: Path, cwd: Path, *argv: str) -> tuple[int, str, str, list[str]]:
    from importlib.metadata import distribution

    import needs_microversion

    package = Path(needs_microversion.__file__).resolve().parent
    # The installed metadata (an editable install keeps it beside the sources).
    metadata = getattr(distribution("needs-microversion"), "_path", package)
    allowed = [str(tree), sys.prefix, sys.base_prefix, sys.exec_prefix, str(package),
               str(metadata)]
    log = tree.parent / "audit.json"
    done = subprocess.run(
        [sys.executable, "-c", _RUNNER, json.dumps(allowed), str(log), *argv],
        cwd=cwd, capture_output=True, text=True, timeout=60,
        env={**os.environ, "PYTHONPATH": str(ROOT)})
    found = json.loads(log.read_text()) if log.exists() else ["no audit log written"]
    return done.returncode, done.stdout, done.stderr, found


def _hostile(tree: Path, outside: Path) -> dict[str, str]:
    """Name -> a document that asks for something it must not get."""
    (outside / "secret.yaml").write_text(f"type: object\ndescription: {SECRET}\n")
    (tree / "link.yaml").symlink_to(outside / "secret.yaml")
    os.mkfifo(tree / "fifo.yaml")
    schema = ("paths:\n  /a:\n    get:\n      responses:\n        '200':\n"
              "          description: ok\n          content:\n            application/json:\n"
              "              schema: {$ref: '%s'}\n")
    default = ("paths:\n  /a:\n    get:\n      parameters:\n      - name: x\n"
               "        in: query\n        schema:\n          type: object\n"
               "          default: {$ref: '%s'}\n      responses:\n        '200': {description: ok}\n")
    targets = {
        "http": "http://127.0.0.1:9/x.json", "ftp": "ftp://127.0.0.1:9/x.json",
        "network-path": "//127.0.0.1:9/x.json", "etc-passwd": "/etc/passwd",
        "proc-environ": "/proc/self/environ", "dev-zero": "/dev/zero",
        "absolute-secret": str(outside / "secret.yaml"), "up-and-out": "../outside/secret.yaml",
        "symlink-out": "link.yaml", "fifo": "fifo.yaml",
    }
    docs = {f"schema-{name}": HEAD + schema % target for name, target in targets.items()}
    docs.update({f"default-{name}": HEAD + default % target for name, target in targets.items()})
    return docs


@pytest.fixture
def places(tmp_path: Path) -> tuple[Path, Path]:
    tree, outside = tmp_path / "tree", tmp_path / "outside"
    tree.mkdir()
    outside.mkdir()
    (tree / "base.yaml").write_text(BASE)
    return tree, outside


def _assert_confined(code: int, out: str, err: str, found: list[str], name: str,
                     file: str = "bad.yaml") -> None:
    assert found == [], (name, found)
    assert SECRET not in out + err, name
    assert code in (0, 1, 2), (name, code, err)
    if name.startswith("schema-"):  # the structure needs the ref: refused, one line
        assert code == 2 and err.count("\n") == 1, (name, err)
        assert file in err, err


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs (POSIX)")
@pytest.mark.parametrize("mode", ["--validate", "--no-validate"])
def test_diff_reads_nothing_outside_the_tree(places: tuple[Path, Path], mode: str) -> None:
    tree, outside = places
    for name, text in _hostile(tree, outside).items():
        (tree / "bad.yaml").write_text(text)
        code, out, err, found = _audited(tree, tree, "diff", str(tree / "base.yaml"),
                                         str(tree / "bad.yaml"), mode)
        _assert_confined(code, out, err, found, name)


def _git(tree: Path, *args: str) -> None:
    subprocess.run(["git", "-C", str(tree), *args], check=True, capture_output=True,
                   env={**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@e",
                        "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@e"})


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs (POSIX)")
@pytest.mark.parametrize("mode", ["--validate", "--no-validate"])
def test_check_and_git_inputs_read_nothing_outside_the_tree(places: tuple[Path, Path],
                                                            mode: str) -> None:
    tree, outside = places
    hostile = _hostile(tree, outside)
    (tree / "fifo.yaml").unlink()  # git cannot add a FIFO; the diff test covers it
    hostile = {k: v for k, v in hostile.items() if not k.endswith("fifo")}
    (tree / "api.yaml").write_text(BASE)
    (tree / ".needs-microversion.yaml").write_text(
        "services:\n- name: api\n  documents: [api.yaml]\n")
    _git(tree, "init", "-q", "-b", "main")
    _git(tree, "add", "-A")
    _git(tree, "commit", "-q", "-m", "base")
    for name, text in hostile.items():
        (tree / "api.yaml").write_text(text)
        (tree / "bad.yaml").write_text(text)
        _git(tree, "add", "bad.yaml", "api.yaml")
        for argv in (("check", "--base", "HEAD", mode),
                     ("diff", "HEAD:api.yaml", ":bad.yaml", mode)):
            code, out, err, found = _audited(tree, tree, *argv)
            _assert_confined(code, out, err, found, f"{name} {argv[0]}",
                             "api.yaml" if argv[0] == "check" else "bad.yaml")
