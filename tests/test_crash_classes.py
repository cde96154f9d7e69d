"""Every crash class found by hostile inputs ends as exit 2 with one line (or a verdict),
never exit 3: one regression test per class (issue 10)."""

from __future__ import annotations

from pathlib import Path

import pytest
from gitrepo import api, make_repo, quiet_git

__all__ = ["quiet_git"]
HEAD = "openapi: 3.0.3\ninfo: {title: t, version: '1.0'}\n"
GOOD = HEAD + "paths: {}\n"


def one_line(code: int, err: str) -> None:
    assert code == 2 and err.count("\n") == 1 and "Traceback" not in err, (code, err)


@pytest.mark.parametrize("top", ["- a\n- list\n", "null\n", "42\n", "just text\n"])
@pytest.mark.parametrize("mode", ["--validate", "--no-validate"])
def test_a_top_level_that_is_not_a_mapping(tmp_path: Path, run_cli, top: str,
                                           mode: str) -> None:
    (tmp_path / "old.yaml").write_text(GOOD)
    (tmp_path / "new.yaml").write_text(top)
    code, _, err = run_cli("diff", str(tmp_path / "old.yaml"), str(tmp_path / "new.yaml"), mode)
    one_line(code, err)
    assert "new.yaml" in err


def test_symlink_loops(tmp_path: Path, run_cli) -> None:
    loop = tmp_path / "loop.yaml"
    loop.symlink_to(tmp_path / "loop.yaml")
    (tmp_path / "good.yaml").write_text(GOOD)
    code, _, err = run_cli("diff", str(tmp_path / "good.yaml"), str(loop), "--no-validate")
    one_line(code, err)
    tree = tmp_path / "tree"
    tree.mkdir()
    (tree / "index.rst").write_text(".. include:: servers.inc\n")
    (tree / "servers.inc").write_text("Servers\n=======\n\nList\n----\n\n"
                                      ".. rest_method:: GET /servers\n")
    (tree / "sub").symlink_to(tree)  # a folder that contains itself
    (tree / "self.inc").symlink_to(tree / "self.inc")
    code, _, err = run_cli("diff", str(tree), str(tree), "--no-validate")
    assert code in (0, 2) and "Traceback" not in err


def test_a_long_chain_of_includes(tmp_path: Path, run_cli) -> None:
    tree = tmp_path / "tree"
    tree.mkdir()
    (tree / "index.rst").write_text(".. include:: f0.inc\n")
    for i in range(1000):
        (tree / f"f{i}.inc").write_text(f".. include:: f{i + 1}.inc\n")
    (tree / "f1000.inc").write_text("Servers\n=======\n\nList\n----\n\n"
                                    ".. rest_method:: GET /servers\n")
    code, _, err = run_cli("diff", str(tree), str(tree), "--no-validate")
    assert code in (0, 2) and "Traceback" not in err and err.count("needs-microversion:") <= 1


def test_a_version_of_thousands_of_digits(tmp_path: Path, run_cli) -> None:
    huge = "2." + "1" * 5000
    text = HEAD + ("paths:\n  /a:\n    get:\n      x-openstack: {min-ver: '%s'}\n"
                   "      responses:\n        '200': {description: ok}\n") % huge
    (tmp_path / "a.yaml").write_text(text)
    code, _, err = run_cli("diff", str(tmp_path / "a.yaml"), str(tmp_path / "a.yaml"),
                           "--no-validate")
    assert code == 0 and "is not a microversion" in err
    tree = tmp_path / "tree"
    tree.mkdir()
    (tree / "index.rst").write_text(".. include:: s.inc\n")
    (tree / "s.inc").write_text(".. rest_method:: GET /servers\n   min_version: " + huge + "\n")
    code, _, err = run_cli("diff", str(tree), str(tree), "--no-validate")
    assert code in (0, 2) and "Traceback" not in err


@pytest.mark.parametrize("name, text", [
    (".needs-microversion.yaml", "a: " + "[" * 100_000 + "]" * 100_000 + "\n"),
    ("pyproject.toml", "[tool.needs-microversion]\nx = " + "[" * 100_000 + "]" * 100_000 + "\n"),
], ids=["yaml", "toml"])
def test_deeply_nested_configuration(tmp_path: Path, monkeypatch, run_cli, name: str,
                                     text: str) -> None:
    (tmp_path / ".git").mkdir()
    (tmp_path / name).write_text(text)
    (tmp_path / "a.yaml").write_text(GOOD)
    monkeypatch.chdir(tmp_path)
    code, _, err = run_cli("diff", "a.yaml", "a.yaml", "--no-validate")
    one_line(code, err)
    assert name in err


def test_an_absolute_glob_in_the_configured_documents(tmp_path: Path, monkeypatch,
                                                      run_cli) -> None:
    repo = make_repo(tmp_path / "r", {
        "api.yaml": api(),
        ".needs-microversion.yaml": "services:\n- name: x\n  documents: ['/etc/*']\n"})
    monkeypatch.chdir(repo)
    code, _, err = run_cli("check", "--base", "HEAD")
    one_line(code, err)
    assert "outside the repository" in err


def test_a_pattern_label_with_a_comma(tmp_path: Path, run_cli) -> None:
    """`{1,255}` in a patternProperties key once split a merged change's label in two."""
    def doc(limit: int) -> str:
        return HEAD + ("paths:\n  /a:\n    get:\n      responses:\n        '200':\n"
                       "          description: ok\n          content:\n"
                       "            application/json:\n              schema:\n"
                       "                type: object\n                patternProperties:\n"
                       "                  '^[a-z]{1,255}$': {type: string, maxLength: %d}\n"
                       "                minProperties: %d\n") % (limit, limit)
    (tmp_path / "old.yaml").write_text(doc(10))
    (tmp_path / "new.yaml").write_text(doc(20))
    for fmt in ("text", "json", "sarif", "markdown", "github", "junit"):
        code, out, err = run_cli("diff", str(tmp_path / "old.yaml"), str(tmp_path / "new.yaml"),
                                 "--no-validate", "--format", fmt)
        assert code == 1 and out and "Traceback" not in err, (fmt, err)
