"""The distributions: the wheel and the sdist built as a release builds them (`python -m
build`, isolated: setuptools comes from the package index), their metadata read as twine and
PyPI read it, and the release workflow's own check run on them.

What is built is the working tree (committed or not, new files too: what the next commit
holds), copied into a fresh git repository of one commit, `snapshot`: the checkout's HEAD
may lack what is being changed. The recipes of docs/recipes.md (tests/test_recipes.py)
install from that repository and from the wheel. Both are made once per run, whatever the
number of pytest-xdist workers (a lock in the run's shared temporary folder)."""

from __future__ import annotations

import ast
import configparser
import email.message
import email.parser
import fcntl
import os
import re
import shutil
import subprocess
import sys
import tarfile
import zipfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest
import yaml
from conftest import ROOT, package_index_reachable

PACKAGE = ROOT / "needs_microversion"
RELEASE = ROOT / ".github" / "workflows" / "release.yml"
_GIT_ENV = {"GIT_AUTHOR_NAME": "Test", "GIT_AUTHOR_EMAIL": "test@example.org",
            "GIT_COMMITTER_NAME": "Test", "GIT_COMMITTER_EMAIL": "test@example.org",
            "GIT_CONFIG_NOSYSTEM": "1", "GIT_CONFIG_GLOBAL": os.devnull}


def version() -> str:
    """`__version__`, read as setuptools reads it (the module is never imported)."""
    tree = ast.parse((PACKAGE / "__init__.py").read_text())
    for node in tree.body:
        if isinstance(node, ast.Assign) and [getattr(t, "id", None) for t in node.targets] \
                == ["__version__"]:
            return ast.literal_eval(node.value)
    raise AssertionError("needs_microversion/__init__.py sets no __version__")


def pyproject() -> dict:
    tomllib = pytest.importorskip("tomllib", reason="tomllib is Python 3.11+")
    return tomllib.loads((ROOT / "pyproject.toml").read_text())


# -- made once per run -------------------------------------------------------------------------

@dataclass(frozen=True)
class Snapshot:
    path: Path  # a git repository: the working tree, committed on `main`
    commit: str


@dataclass(frozen=True)
class Distributions:
    wheel: Path
    sdist: Path

    @property
    def folder(self) -> Path:
        return self.wheel.parent


def _shared_folder(factory: pytest.TempPathFactory) -> Path:
    """The run's temporary folder that every xdist worker sees."""
    base = factory.getbasetemp()
    return base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base


def _once(folder: Path, make: Callable[[Path], None]) -> Path:
    """`folder`, made by `make` in the first worker that asks; the others wait and take it,
    or its skip or failure (with the reason)."""
    folder.parent.mkdir(parents=True, exist_ok=True)
    outcome = folder.with_name(folder.name + ".outcome")
    with open(folder.with_name(folder.name + ".lock"), "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not folder.exists() and not outcome.exists():
            partial = folder.with_name(folder.name + ".partial")
            shutil.rmtree(partial, ignore_errors=True)
            try:
                make(partial)
            except pytest.skip.Exception as skipped:
                outcome.write_text(f"skip\n{skipped.msg}")
            except BaseException as error:
                outcome.write_text(f"fail\n{type(error).__name__}: {error}")
                raise
            else:
                partial.rename(folder)
    if outcome.exists():
        kind, reason = outcome.read_text().split("\n", 1)
        if kind == "skip":
            pytest.skip(reason)
        pytest.fail(f"{folder.name} could not be made: {reason}")
    return folder


def _git(path: Path, *args: str) -> str:
    return subprocess.run(["git", "-C", str(path), *args], check=True, capture_output=True,
                          text=True, env={**os.environ, **_GIT_ENV}).stdout


def _copy_working_tree(target: Path) -> None:
    if not (ROOT / ".git").exists():
        pytest.skip("the project is not a git checkout: its files cannot be listed")
    listed = subprocess.run(["git", "-C", str(ROOT), "ls-files", "-z", "--cached", "--others",
                             "--exclude-standard"], capture_output=True, check=True).stdout
    target.mkdir(parents=True)
    for name in filter(None, listed.decode().split("\0")):
        source = ROOT / name
        if source.is_file() and "__pycache__" not in name:
            (target / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, target / name)
    _git(target, "init", "-q", "-b", "main")
    _git(target, "add", "-A")
    _git(target, "commit", "-q", "-m", "snapshot of the working tree")


@pytest.fixture(scope="session")
def snapshot(tmp_path_factory: pytest.TempPathFactory) -> Snapshot:
    """The working tree as a git repository of one commit on `main`, with no tag (as this
    repository is before its first release)."""
    path = _once(_shared_folder(tmp_path_factory) / "snapshot", _copy_working_tree)
    return Snapshot(path, _git(path, "rev-parse", "HEAD").strip())


@pytest.fixture(scope="session")
def distributions(tmp_path_factory: pytest.TempPathFactory, snapshot: Snapshot
                  ) -> Distributions:
    """The sdist built from `snapshot`, and the wheel built from that sdist (`python -m
    build`, as the release workflow builds them)."""

    def build(out: Path) -> None:
        if not _has_module("build"):
            pytest.skip("the build package is not installed (pip install '.[test]')")
        if not package_index_reachable():
            pytest.skip("python -m build installs setuptools from the package index, "
                        "unreachable here")
        source = out.with_name("build-source")
        shutil.rmtree(source, ignore_errors=True)
        _git(source.parent, "clone", "-q", str(snapshot.path), str(source))
        done = subprocess.run([sys.executable, "-m", "build", "--outdir", str(out), str(source)],
                              capture_output=True, text=True, timeout=600, check=False)
        if done.returncode:
            raise AssertionError(f"python -m build failed:\n{done.stdout[-2000:]}"
                                 f"\n{done.stderr[-2000:]}")

    folder = _once(_shared_folder(tmp_path_factory) / "dist", build)
    [wheel] = folder.glob("*.whl")
    [sdist] = folder.glob("*.tar.gz")
    return Distributions(wheel, sdist)


def _has_module(name: str) -> bool:
    import importlib.util

    return importlib.util.find_spec(name) is not None


# -- the version, written once -----------------------------------------------------------------

def test_the_version_is_written_once_where_setuptools_reads_it_without_importing() -> None:
    """pyproject.toml takes the version from `needs_microversion.__version__`; setuptools
    reads such an `attr` statically when the module holds only literal assignments, and the
    package's `__init__` imports nothing, so reading it costs nothing."""
    project = pyproject()
    assert "version" not in project["project"]
    assert project["project"]["dynamic"] == ["version"]
    assert project["tool"]["setuptools"]["dynamic"]["version"] == {
        "attr": "needs_microversion.__version__"}
    body = ast.parse((PACKAGE / "__init__.py").read_text()).body
    assert all(isinstance(node, ast.Assign) and isinstance(node.value, ast.Constant)
               or isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant)
               for node in body), "only a docstring and literal assignments"
    from packaging.version import Version

    assert str(Version(version())) == version(), "a canonical PEP 440 version (the tag's name)"
    imported = subprocess.run(
        [sys.executable, "-c", "import sys, needs_microversion as m; "
         "print(m.__version__, sorted(n for n in sys.modules if n.startswith('needs_')))"],
        capture_output=True, text=True, check=True).stdout.split(" ", 1)
    assert imported == [version(), "['needs_microversion']\n"]


def test_version_option_prints_it(run_cli) -> None:
    code, out, _ = run_cli("--version")
    assert (code, out) == (0, f"needs-microversion {version()}\n")


# -- the distributions -------------------------------------------------------------------------

def _metadata(text: str) -> email.message.Message:
    return email.parser.Parser().parsestr(text)


def _wheel(distributions: Distributions) -> tuple[list[str], email.message.Message, str]:
    with zipfile.ZipFile(distributions.wheel) as wheel:
        names = wheel.namelist()
        info = next(n for n in names if n.endswith(".dist-info/METADATA")).rsplit("/", 1)[0]
        return (names, _metadata(wheel.read(f"{info}/METADATA").decode()),
                wheel.read(f"{info}/entry_points.txt").decode())


def _sdist(distributions: Distributions) -> tuple[list[str], email.message.Message]:
    with tarfile.open(distributions.sdist) as sdist:
        names = [m.name.split("/", 1)[1] for m in sdist.getmembers()
                 if m.isfile() and "/" in m.name]
        [info] = [m for m in sdist.getmembers() if m.name.count("/") == 1
                  and m.name.endswith("/PKG-INFO")]
        handle = sdist.extractfile(info)
        assert handle is not None
        return names, _metadata(handle.read().decode())


def _package_files(snapshot: Snapshot) -> set[str]:
    """Every file of the package in the source, as paths from the project's root."""
    return {str(path.relative_to(snapshot.path)) for path in
            (snapshot.path / "needs_microversion").rglob("*")
            if path.is_file() and "__pycache__" not in path.parts}


def test_twine_check_passes(distributions: Distributions) -> None:
    """As the release workflow checks them: the README renders on PyPI, the metadata is
    complete."""
    if not _has_module("twine"):
        pytest.skip("twine is not installed (pip install '.[test]')")
    done = subprocess.run([sys.executable, "-m", "twine", "check", "--strict",
                           str(distributions.wheel), str(distributions.sdist)],
                          capture_output=True, text=True, check=False,
                          env={**os.environ, "NO_COLOR": "1"})
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.count("PASSED") == 2, done.stdout


def test_wheel_metadata_is_pyprojects(distributions: Distributions) -> None:
    from packaging.requirements import Requirement

    project = pyproject()["project"]
    names, meta, entry_points = _wheel(distributions)
    assert meta["Name"] == project["name"] == "needs-microversion"
    assert meta["Version"] == version()
    assert distributions.wheel.name == f"needs_microversion-{version()}-py3-none-any.whl"
    assert meta["Summary"] == project["description"]
    assert meta["Description-Content-Type"] == "text/markdown"
    assert meta.get_payload().strip() == (ROOT / "README.md").read_text().strip()
    assert meta["License-Expression"] == project["license"] == "Apache-2.0"
    assert meta.get_all("License-File") == ["LICENSE"]
    info = f"needs_microversion-{version()}.dist-info"
    assert f"{info}/licenses/LICENSE" in names
    assert meta["Requires-Python"] == project["requires-python"] == ">=3.10"

    def key(text: str) -> tuple[str, str, str]:
        requirement = Requirement(text)
        return requirement.name.lower(), str(requirement.specifier), str(requirement.marker)

    runtime = [r for r in meta.get_all("Requires-Dist") if "extra ==" not in r]
    assert sorted(map(key, runtime)) == sorted(map(key, project["dependencies"]))
    scripts = configparser.ConfigParser()
    scripts.read_string(entry_points)
    assert dict(scripts["console_scripts"]) == {
        "needs-microversion": "needs_microversion.launch:run"}


def test_wheel_holds_the_whole_package_and_its_data(distributions: Distributions,
                                                    snapshot: Snapshot) -> None:
    names, _, _ = _wheel(distributions)
    package = {n for n in names if not n.startswith("needs_microversion-")}
    assert package == _package_files(snapshot)
    assert {"needs_microversion/py.typed", "needs_microversion/report/report.schema.json",
            "needs_microversion/report/check.schema.json"} <= package


def test_sdist_builds_the_same_package(distributions: Distributions, snapshot: Snapshot) -> None:
    names, meta = _sdist(distributions)
    assert (meta["Name"], meta["Version"]) == ("needs-microversion", version())
    assert distributions.sdist.name == f"needs_microversion-{version()}.tar.gz"
    assert {"pyproject.toml", "README.md", "LICENSE", "PKG-INFO"} <= set(names)
    assert {n for n in names if n.startswith("needs_microversion/")} == _package_files(snapshot)
    assert not [n for n in names if n.startswith("tests/")], "no half of the tests"


def test_the_wheels_console_script_prints_the_version(distributions: Distributions) -> None:
    """The wheel's own code (imported from the wheel, the dependencies from this
    environment) runs the console script's function."""
    script = ("import sys, needs_microversion; print(needs_microversion.__file__); "
              "sys.argv = ['needs-microversion', '--version']; "
              "from needs_microversion.launch import run; run()")
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          check=False, cwd=distributions.folder,
                          env={**os.environ, "PYTHONPATH": str(distributions.wheel)})
    assert done.returncode == 0, done.stderr
    location, printed = done.stdout.splitlines()
    assert location.startswith(str(distributions.wheel))
    assert printed == f"needs-microversion {version()}"


# -- the release workflow ----------------------------------------------------------------------

def release() -> dict:
    return yaml.safe_load(RELEASE.read_text())


def _github_pattern(pattern: str) -> re.Pattern[str]:
    """A GitHub Actions filter pattern (`*`, `**`, `+`, `?`, `[...]`) as a regular
    expression."""
    out, i = "", 0
    while i < len(pattern):
        char = pattern[i]
        if pattern.startswith("**", i):
            out, i = out + ".*", i + 2
            continue
        if char == "*":
            out += "[^/]*"
        elif char in "+?":
            out += char
        elif char == "[":
            end = pattern.index("]", i)
            out, i = out + pattern[i:end + 1], end + 1
            continue
        else:
            out += re.escape(char)
        i += 1
    return re.compile(out)


def _step(job: str, name: str) -> dict:
    [step] = [s for s in release()["jobs"][job]["steps"] if s.get("name") == name]
    return step


def test_release_workflow_publishes_a_version_tag_with_trusted_publishing() -> None:
    spec = release()
    triggers = spec[True]  # YAML 1.1 reads the key `on` as true
    assert set(triggers) == {"push"} and set(triggers["push"]) == {"tags"}
    patterns = [_github_pattern(p) for p in triggers["push"]["tags"]]
    assert any(p.fullmatch(version()) for p in patterns), "this version's tag triggers it"
    assert not any(p.fullmatch("main") or p.fullmatch("latest") for p in patterns)
    assert spec["permissions"] == {"contents": "read"}
    build = " ".join(s.get("run", "") for s in spec["jobs"]["build"]["steps"])
    assert "python -m build" in build and "twine check --strict dist/*" in build
    publish = spec["jobs"]["publish"]
    assert publish["needs"] == "build"
    assert publish["permissions"] == {"id-token": "write"}
    assert publish["environment"]["name"] == "pypi"
    [uses] = [s for s in publish["steps"] if "gh-action-pypi-publish" in s.get("uses", "")]
    assert uses["uses"] == "pypa/gh-action-pypi-publish@release/v1"
    assert "with" not in uses, "trusted publishing: no token, no password"
    assert _step("build", "The tag is the version")["env"] == {"TAG": "${{ github.ref_name }}"}


@pytest.fixture
def dist_copy(distributions: Distributions, tmp_path: Path) -> Path:
    folder = tmp_path / "dist"
    folder.mkdir()
    for path in (distributions.wheel, distributions.sdist):
        shutil.copy2(path, folder / path.name)
    return tmp_path


def _tag_check(workspace: Path, tag: str) -> subprocess.CompletedProcess[str]:
    """The workflow's step as the runner runs it: bash, `python` on the PATH, in the
    checkout where dist/ was built, TAG from `github.ref_name`."""
    env = {**os.environ, "TAG": tag,
           "PATH": os.pathsep.join([str(Path(sys.executable).parent), os.environ["PATH"]])}
    return subprocess.run(["bash", "-e", "-c", _step("build", "The tag is the version")["run"]],
                          cwd=workspace, env=env, capture_output=True, text=True, check=False)


def test_release_accepts_the_tag_of_the_version(dist_copy: Path) -> None:
    done = _tag_check(dist_copy, version())
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith(f"version {version()}: ")


@pytest.mark.parametrize("tag", ["v{}", "{}.post1", "99.0.0"])
def test_release_refuses_a_tag_that_is_not_the_version(dist_copy: Path, tag: str) -> None:
    done = _tag_check(dist_copy, tag.format(version()))
    assert done.returncode == 1
    assert "is not the version of the distributions" in done.stderr


def test_release_refuses_a_dist_folder_of_more_than_one_build(dist_copy: Path) -> None:
    (dist_copy / "dist" / "needs_microversion-0.0.1.tar.gz").write_bytes(b"")
    done = _tag_check(dist_copy, version())
    assert done.returncode == 1 and "expected one wheel and one sdist" in done.stderr
