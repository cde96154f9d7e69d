"""Structure fuzzer: OpenAPI and Swagger documents, api-ref trees and configuration files
with wrong values in every position never crash the CLI (exit 3), never take long, and an
error is one line naming the file.

The suite's own run is short and reproducible (derandomised, no example database). A long
session, randomised:

    NEEDS_MICROVERSION_FUZZ_EXAMPLES=2000 .venv/bin/python -m pytest tests/test_fuzz.py -x

NEEDS_MICROVERSION_FUZZ_SECONDS sets the time one run may take (default 20).
"""

from __future__ import annotations

import io
import os
import shutil
import signal
import tempfile
import time
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from fuzz_strategies import (
    RepoPlan,
    Tree,
    api_documents,
    apiref_trees,
    config_files,
    openapi_template,
    repository_plans,
    serialised,
    swagger_template,
)

from needs_microversion.cli import main

EXAMPLES = int(os.environ.get("NEEDS_MICROVERSION_FUZZ_EXAMPLES", "0"))
SECONDS = float(os.environ.get("NEEDS_MICROVERSION_FUZZ_SECONDS", "20"))
FUZZ = settings(
    max_examples=EXAMPLES or 8,
    derandomize=not EXAMPLES,  # the suite's run is the same every time
    database=None,
    deadline=None,  # one run is timed by the test itself, against a generous bound
    suppress_health_check=list(HealthCheck),
    print_blob=True,
)
OPTIONS = st.tuples(
    st.sampled_from(["--validate", "--no-validate"]),
    st.sampled_from(["text", "json", "markdown", "github", "sarif", "junit"]),
    st.lists(st.sampled_from(["--strict", "--explain", "--catch-up", "--count-corrections"]),
             max_size=2, unique=True),
)


class Hung(BaseException):
    """Raised by the alarm: a BaseException, so the CLI's crash handler lets it through."""


def _alarm(*_: Any) -> None:
    raise Hung(f"no outcome after {3 * SECONDS:.0f} s")


def run(argv: list[str]) -> tuple[int, str, float]:
    """The CLI in-process: (exit code, stderr, seconds); a run that never ends fails."""
    out, err = io.StringIO(), io.StringIO()
    start = time.perf_counter()
    previous = signal.signal(signal.SIGALRM, _alarm)
    signal.alarm(int(3 * SECONDS))
    try:
        with redirect_stdout(out), redirect_stderr(err):
            code = main(argv)
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)
    return code, err.getvalue(), time.perf_counter() - start


def check_outcome(argv: list[str], names: list[str]) -> None:
    code, err, seconds = run(argv)
    event(f"exit {code}")
    assert code in (0, 1, 2), f"exit {code}: {err}"
    assert seconds < SECONDS, f"{seconds:.1f} s"
    if code == 2:
        assert err.count("\n") == 1 and err.startswith("needs-microversion: error: "), err
        assert any(name in err for name in names), err


class Folder:
    """A temporary folder that is a repository's top (nothing outside it is read)."""

    def __enter__(self) -> Path:
        self.path = Path(tempfile.mkdtemp(prefix="fuzz-"))
        (self.path / ".git").mkdir()
        return self.path

    def __exit__(self, *_: Any) -> None:
        shutil.rmtree(self.path, ignore_errors=True)


def _options(options: tuple[str, str, list[str]]) -> list[str]:
    mode, fmt, flags = options
    if mode == "--no-validate" and "--strict" in flags:  # a usage error, named by no file
        flags = [flag for flag in flags if flag != "--strict"]
    return [mode, "--format", fmt, *flags]


@FUZZ
@given(old=api_documents(), new=api_documents(), options=OPTIONS)
def test_documents(old: bytes, new: bytes, options: tuple[str, str, list[str]]) -> None:
    with Folder() as folder:
        (folder / "old.yaml").write_bytes(old)
        (folder / "new.json").write_bytes(new)
        (folder / "other.yaml").write_text("type: object\n")
        check_outcome(["diff", str(folder / "old.yaml"), str(folder / "new.json"),
                       *_options(options)], ["old.yaml", "new.json", "other.yaml"])


@FUZZ
@given(data=st.data(), new=api_documents(), options=OPTIONS)
def test_a_document_against_a_good_one(data: st.DataObject, new: bytes,
                                       options: tuple[str, str, list[str]]) -> None:
    good = data.draw(st.sampled_from([openapi_template("3.0.3"), openapi_template("3.1.0"),
                                       swagger_template()]))
    with Folder() as folder:
        (folder / "good.yaml").write_bytes(data.draw(serialised(good)))
        (folder / "new.yaml").write_bytes(new)
        names = [str(folder / "good.yaml"), str(folder / "new.yaml")]
        if data.draw(st.booleans()):
            names.reverse()
        check_outcome(["diff", *names, *_options(options)], ["good.yaml", "new.yaml"])


def _write_tree(tree: Tree, folder: Path) -> list[str]:
    for name, content in tree.files.items():
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        (folder / name).write_bytes(content)
    return list(tree.files)


@FUZZ
@given(old=apiref_trees(), new=apiref_trees(), options=OPTIONS)
def test_apiref_trees(old: Tree, new: Tree, options: tuple[str, str, list[str]]) -> None:
    with Folder() as folder:
        names = _write_tree(old, folder / "old" / "api-ref" / "source")
        names += _write_tree(new, folder / "new" / "api-ref" / "source")
        check_outcome(["diff", str(folder / "old" / "api-ref" / "source"),
                       str(folder / "new" / "api-ref" / "source"), *_options(options)],
                      [*names, "source"])


@FUZZ
@given(config=config_files(), options=OPTIONS)
def test_configuration_files(config: tuple[str, bytes],
                             options: tuple[str, str, list[str]]) -> None:
    name, content = config
    examples = Path(__file__).resolve().parent.parent / "examples"
    with Folder() as folder:
        (folder / name).write_bytes(content)
        check_outcome(["diff", str(examples / "old.yaml"), str(examples / "new.yaml"),
                       "--config", str(folder / name), *_options(options)], [name])


# -- repositories: check and history (issue 33) ----------------------------------------------

def _build(top: Path, plan: RepoPlan, canary: Path) -> None:
    """A nova-like repository, then the plan's hazards in a second commit and in the working
    tree; git's own programs armed last, so that only the tool's git calls could run them."""
    import subprocess

    from repositories import NOVA_SERVERS, git, nova_like

    repo = nova_like(top)
    outside = top.parent / "outside.txt"
    outside.write_text("TOP-SECRET\n")
    files: dict[str, str | None] = {
        "api-ref/source/servers.inc": NOVA_SERVERS.replace("Show Server", "Show")}
    if "version-junk" in plan.hazards:
        files[repo.version_file] = plan.version_junk
    if "config-junk" in plan.hazards:
        files[".needs-microversion.yaml"] = "services: [{name: 1, documents: 3}]\nx: [\n"
    if "many-notes" in plan.hazards:
        files.update({f"releasenotes/notes/n{i}.yaml": f"---\nfixes: ['2.{i}']\n"
                      for i in range(300)})
    repo.write(files)
    if "binary" in plan.hazards:
        (top / "api-ref/source/servers.inc").write_bytes(plan.tree_junk)
    target = top / plan.target
    for hazard in plan.hazards:
        if hazard in ("symlink-out", "symlink-loop", "dangling", "folder", "fifo"):
            if target.is_dir() and not target.is_symlink():
                shutil.rmtree(target)
            elif target.exists() or target.is_symlink():
                target.unlink()
            target.parent.mkdir(parents=True, exist_ok=True)
            if hazard == "symlink-out":
                target.symlink_to(outside)
            elif hazard == "symlink-loop":
                target.symlink_to(target.with_name(target.name + ".loop"))
                target.with_name(target.name + ".loop").symlink_to(target)
            elif hazard == "dangling":
                target.symlink_to(top / "nothing-here")
            elif hazard == "folder":
                target.mkdir()
            break  # one thing can be at one place
    if "config-link-out" in plan.hazards:
        config = top / ".needs-microversion.yaml"
        if config.exists() or config.is_symlink():
            config.unlink()
        config.symlink_to(outside)
    git(top, "add", "-A")
    git(top, "commit", "-qm", "hazards")
    if "fifo" in plan.hazards and plan.mode in ("working", "staged"):
        if target.exists() or target.is_symlink():
            shutil.rmtree(target) if target.is_dir() and not target.is_symlink() \
                else target.unlink()
        os.mkfifo(target)
    if "missing-object" in plan.hazards:
        sha = git(top, "rev-parse", "HEAD~1:api-ref/source/servers.inc").strip()
        (top / ".git" / "objects" / sha[:2] / sha[2:]).unlink(missing_ok=True)
    if "fsmonitor" in plan.hazards:
        git(top, "config", "core.fsmonitor", f"touch {canary}/fsmonitor")
    if "filters" in plan.hazards:
        (top / ".git" / "info").mkdir(exist_ok=True)
        (top / ".git" / "info" / "attributes").write_text("* filter=x diff=x\n")
        for key in ("filter.x.clean", "filter.x.smudge", "diff.x.textconv"):
            git(top, "config", key, f"touch {canary}/{key}; cat")
    assert subprocess  # (git runs through the helpers above)


def _repository_argv(mode: str) -> list[str]:
    if mode == "history":
        return ["history", "--format", "json"]
    base = ["check", "--no-validate", "--format", "json"]
    if mode == "refs":
        return [*base, "--from-ref", "HEAD~1", "--to-ref", "HEAD"]
    return [*base, "--base", "HEAD~1", *(["--staged"] if mode == "staged" else [])]


REPO_FUZZ = settings(FUZZ, max_examples=EXAMPLES or 6)


@REPO_FUZZ
@given(plan=repository_plans())
def test_repositories(plan: RepoPlan) -> None:
    """check (working tree, index, two revisions) and history in a generated repository
    with links, loops, FIFOs, missing objects, junk and armed git settings: exit 0, 1 or 2
    (one line), in time, no program run, the secret beside it never shown."""
    event(f"hazards {'+'.join(plan.hazards)}")
    with tempfile.TemporaryDirectory(prefix="fuzz-repo-") as temporary:
        top, canary = Path(temporary) / "r", Path(temporary) / "canary"
        canary.mkdir()
        environment = {"GIT_CONFIG_GLOBAL": str(Path(temporary) / "gitconfig"),
                       "GIT_CONFIG_NOSYSTEM": "1"}
        previous = {name: os.environ.get(name) for name in environment}
        os.environ.update(environment)
        here = os.getcwd()
        try:
            _build(top, plan, canary)
            os.chdir(top)
            code, err, seconds = run(_repository_argv(plan.mode))
        finally:
            os.chdir(here)
            for name, value in previous.items():
                if value is None:
                    os.environ.pop(name, None)
                else:
                    os.environ[name] = value
        event(f"exit {code}")
        assert code in (0, 1, 2), f"exit {code}: {err}"
        assert seconds < SECONDS, f"{seconds:.1f} s"
        assert "Traceback" not in err and "TOP-SECRET" not in err
        if code == 2:
            assert err.endswith("\n") and err.startswith("needs-microversion: error: ") and \
                err.count("needs-microversion: error:") == 1, err
        assert list(canary.iterdir()) == []
