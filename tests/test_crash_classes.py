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


def _tree(root: Path, parameters: str, operations: int = 1) -> Path:
    tree = root / "api-ref" / "source"
    tree.mkdir(parents=True)
    (root / ".git").mkdir()
    (tree / "index.rst").write_text(".. include:: s.inc\n")
    (tree / "s.inc").write_text("S\n=\n\n" + "".join(
        f"L{i}\n---\n\n.. rest_method:: GET /s{i}\n\n.. rest_parameters:: parameters.yaml\n\n"
        f"  - a: a\n\n" for i in range(operations)))
    (tree / "parameters.yaml").write_text(parameters)
    return tree


@pytest.mark.parametrize("name, text, message", [
    # PyYAML's C composer recursed per level: a segmentation fault
    ("deep", "a: {in: body}\nx: " + "[" * 200_000 + "]" * 200_000 + "\n",
     "nested more than 500 levels deep"),
    # merges copy key lists before any data exists: each mapping merging the one before
    # grows quadratically (and, before PyYAML 6.0.4, ten copies a level grew exponentially:
    # 60 s and 1.3 GB, then killed)
    ("merge-bomb", "a0: &a0 {k0: 1, k1: 2, k2: 3, k3: 4, k4: 5, k5: 6, k6: 7, k7: 8}\n" + "".join(
        f"a{i}: &a{i} {{<<: *a{i - 1}, " + ", ".join(f"k{i}_{j}: 1" for j in range(8)) + "}\n"
        for i in range(1, 600)),
     "merges expand to more than"),
], ids=["deep", "merge-bomb"])
def test_a_hostile_parameters_file(tmp_path: Path, run_cli, name: str, text: str,
                                   message: str) -> None:
    """parameters.yaml is read with the documents' loader: bounded depth, aliases, merges."""
    tree = _tree(tmp_path, text)
    code, _, err = run_cli("diff", str(tree), str(tree), "--no-validate")
    one_line(code, err)
    assert message in err and "parameters.yaml" in err


def test_a_parameters_file_may_repeat_a_key(tmp_path: Path, run_cli) -> None:
    tree = _tree(tmp_path, "a: {in: body, type: string}\na: {in: body, type: integer}\n")
    code, _, err = run_cli("diff", str(tree), str(tree), "--no-validate")
    assert code == 0 and "parameters.yaml:2: duplicate key 'a'" in err, err


def test_api_ref_operations_are_bounded(tmp_path: Path, run_cli, monkeypatch) -> None:
    from needs_microversion.loaders.apiref import reader

    monkeypatch.setattr(reader, "MAX_OPERATIONS", 5)
    tree = _tree(tmp_path, "a: {in: body, type: string}\n", operations=6)
    code, _, err = run_cli("diff", str(tree), str(tree), "--no-validate")
    one_line(code, err)
    assert "more than 5 operations (the limit)" in err and str(tree) in err


@pytest.mark.parametrize("limit", ["MAX_FILE_BYTES", "MAX_TREE_BYTES"])
def test_api_ref_reads_are_bounded(tmp_path: Path, run_cli, monkeypatch, limit: str) -> None:
    from needs_microversion.loaders.apiref import tree as tree_module

    monkeypatch.setattr(tree_module, limit, 300)
    tree = _tree(tmp_path, "a: {in: body, type: string, description: " + "x" * 400 + "}\n")
    code, _, err = run_cli("diff", str(tree), str(tree), "--no-validate")
    one_line(code, err)
    assert str(tree) in err and ("larger than 300 bytes" in err if limit == "MAX_FILE_BYTES"
                                 else "add up to more than 300 bytes" in err), err


@pytest.mark.parametrize("name", ["parameters.yaml", "sample.json", "more.inc"])
def test_api_ref_files_that_are_fifos_are_never_read(tmp_path: Path, run_cli,
                                                     name: str) -> None:
    """Opening a FIFO for reading blocks until a writer comes: the run would never end."""
    import os

    tree = _tree(tmp_path, "a: {in: body, type: string}\n")
    (tree / "s.inc").write_text((tree / "s.inc").read_text() + ".. include:: more.inc\n\n"
                                ".. literalinclude:: sample.json\n")
    if name != "parameters.yaml":
        (tree / "sample.json" if name == "more.inc" else tree / "more.inc").write_text("\n")
    (tree / name).unlink(missing_ok=True)
    os.mkfifo(tree / name)
    code, _, err = run_cli("diff", str(tree), str(tree), "--no-validate")
    assert code in (0, 1) and "Traceback" not in err, err


def test_a_configuration_that_is_a_fifo(tmp_path: Path, run_cli) -> None:
    import os

    os.mkfifo(tmp_path / "c.yaml")
    (tmp_path / "a.yaml").write_text(GOOD)
    code, _, err = run_cli("diff", str(tmp_path / "a.yaml"), str(tmp_path / "a.yaml"),
                           "--no-validate", "--config", str(tmp_path / "c.yaml"))
    one_line(code, err)
    assert "c.yaml" in err


@pytest.mark.parametrize("mode", ["--validate", "--no-validate"])
def test_a_ref_to_null_in_a_parameter_schema(tmp_path: Path, run_cli, mode: str) -> None:
    """Found by the fuzzer: a body parameter whose schema `$ref` leads to `null` crashed
    reading its `x-openstack` bounds (the operation is built when it is compared)."""
    (tmp_path / "old.yaml").write_text("swagger: '2.0'\ninfo: {title: k, version: '1.0'}\n"
                                       "paths: {}\n")
    (tmp_path / "new.yaml").write_text(
        "swagger: '2.0'\ninfo: {title: k, version: '1.0'}\npaths:\n  /pods:\n    post:\n"
        "      parameters:\n      - {name: body, in: body, schema: {$ref: '#/definitions/Pod'}}\n"
        "      responses: {'201': {description: made}}\ndefinitions:\n  Pod: null\n")
    code, _, err = run_cli("diff", str(tmp_path / "old.yaml"), str(tmp_path / "new.yaml"), mode)
    assert code == 1 and "Traceback" not in err, err


@pytest.mark.parametrize("mode", ["--validate", "--no-validate"])
def test_a_long_chain_of_refs(tmp_path: Path, run_cli, mode: str) -> None:
    """50,000 schemas each only a `$ref` to the next: each was followed to the end (minutes,
    quadratic); now each hop is remembered and a chain is at most 64 long."""
    import json

    count = 50_000
    schemas: dict[str, object] = {f"S{i}": {"$ref": f"#/components/schemas/S{i + 1}"}
                                  for i in range(count)}
    schemas[f"S{count}"] = {"type": "string"}
    doc = tmp_path / "chain.json"
    doc.write_text(json.dumps({"openapi": "3.0.3", "info": {"title": "t", "version": "1"},
                               "paths": {}, "components": {"schemas": schemas}}))
    code, _, err = run_cli("diff", str(doc), str(doc), mode)
    one_line(code, err)
    assert "a chain of more than 64 $refs (the limit)" in err and "chain.json" in err


def test_a_chain_of_refs_under_the_limit(tmp_path: Path, run_cli) -> None:
    schemas: dict[str, object] = {f"S{i}": {"$ref": f"#/components/schemas/S{i + 1}"}
                                  for i in range(60)}
    schemas["S60"] = {"type": "string"}
    text = HEAD + "paths:\n  /a:\n    get:\n      responses:\n        '200':\n" \
        "          description: ok\n          content:\n            application/json:\n" \
        "              schema: {$ref: '#/components/schemas/S%d'}\n"
    import json

    components = "components: " + json.dumps({"schemas": schemas}) + "\n"
    (tmp_path / "old.yaml").write_text(text % 0 + components)
    (tmp_path / "new.yaml").write_text(text % 30 + components)
    code, _, err = run_cli("diff", str(tmp_path / "old.yaml"), str(tmp_path / "new.yaml"),
                           "--no-validate")
    assert code == 0 and "Traceback" not in err, err


def test_a_ref_to_itself_where_the_validator_looks_first(tmp_path: Path, run_cli) -> None:
    """Found by the fuzzer: `responses: {$ref: <itself>}` made the validator's pre-check
    follow the `$ref` forever (the run never ended); a loop now leaves it to the full walk."""
    doc = tmp_path / "self.yaml"
    doc.write_text("swagger: '2.0'\ninfo: {title: k, version: '1.0'}\npaths:\n  /pods:\n"
                   "    post:\n      responses: {$ref: '#/paths/~1pods/post/responses'}\n")
    code, _, err = run_cli("diff", str(doc), str(doc))
    assert code in (0, 2) and "Traceback" not in err, err


@pytest.mark.parametrize("key", ["consumes", "produces"])
@pytest.mark.parametrize("where", ["document", "operation"])
def test_swagger_media_types_of_the_wrong_type(tmp_path: Path, run_cli, key: str,
                                               where: str) -> None:
    """Found by the fuzzer: `consumes: true` was iterated (TypeError, exit 3)."""
    top = f"{key}: true\n" if where == "document" else ""
    own = f"      {key}: true\n" if where == "operation" else ""
    (tmp_path / "old.yaml").write_text("swagger: '2.0'\ninfo: {title: k, version: '1.0'}\n"
                                       "paths: {}\n")
    (tmp_path / "new.yaml").write_text(
        "swagger: '2.0'\ninfo: {title: k, version: '1.0'}\n" + top + "paths:\n  /pods:\n"
        "    post:\n" + own + "      parameters:\n"
        "      - {name: body, in: body, schema: {type: object}}\n"
        "      responses: {'201': {description: made, schema: {type: object}}}\n")
    code, _, err = run_cli("diff", str(tmp_path / "old.yaml"), str(tmp_path / "new.yaml"),
                           "--no-validate")
    one_line(code, err)
    assert f"'{key}' must be a list of media types" in err and "new.yaml:" in err


# -- issue 33: loops of links, many release notes, a name no file has, a deleted folder --------

def _apiref_pair(root: Path) -> tuple[Path, Path]:
    from repositories import NOVA_PARAMETERS, NOVA_SERVERS

    sides = []
    for side in ("old", "new"):
        tree = root / side
        tree.mkdir(parents=True)
        (tree / "index.rst").write_text(".. include:: servers.inc\n")
        (tree / "servers.inc").write_text(NOVA_SERVERS.replace(
            "../../doc/api_samples/servers/server-get-resp.json", "sample.json"))
        (tree / "parameters.yaml").write_text(NOVA_PARAMETERS)
        sides.append(tree)
    return sides[0], sides[1]


@pytest.mark.parametrize("looped", ["include", "literalinclude", "parameters.yaml"])
@pytest.mark.parametrize("mode", ["diff", "check"])
def test_files_that_link_to_each_other_in_a_loop(tmp_path: Path, monkeypatch, run_cli,
                                                 looped: str, mode: str) -> None:
    from repositories import git, nova_like

    if mode == "diff":
        old, new = _apiref_pair(tmp_path)
        source = new
    else:
        repo = nova_like(tmp_path / "r")
        source = repo.top / "api-ref" / "source"
    if looped == "include":
        (source / "a.inc").symlink_to(source / "b.inc")
        (source / "b.inc").symlink_to(source / "a.inc")
        with (source / "index.rst").open("a") as index:
            index.write(".. include:: a.inc\n")
    elif looped == "literalinclude":
        sample = source / "sample.json" if mode == "diff" else \
            source.parent.parent / "doc/api_samples/servers/server-get-resp.json"
        sample.unlink(missing_ok=True)
        sample.symlink_to(sample.with_name("other.json"))
        sample.with_name("other.json").symlink_to(sample)
    else:
        (source / "parameters.yaml").unlink()
        (source / "parameters.yaml").symlink_to(source / "params2.yaml")
        (source / "params2.yaml").symlink_to(source / "parameters.yaml")
    if mode == "diff":
        code, _, err = run_cli("diff", str(old), str(new), "--no-validate")
    else:
        monkeypatch.chdir(repo.top)
        git(repo.top, "add", "-A")
        git(repo.top, "commit", "-qm", "loops")
        code, _, err = run_cli("check", "--base", "HEAD~1", "--no-validate")
        assert code != 3, err
        code, _, err = run_cli("check", "--from-ref", "HEAD~1", "--to-ref", "HEAD",
                               "--no-validate")
    assert code in (0, 1, 2) and "Traceback" not in err and "internal error" not in err, err
    if code == 2:
        assert err.count("\n") == 1, err


def test_twenty_thousand_release_notes_in_bounded_memory(tmp_path: Path) -> None:
    """Legal input: a verdict, read in batches, under a 1 GiB address-space limit."""
    import subprocess
    import sys

    from repositories import git, nova_like

    repo = nova_like(tmp_path / "r")
    notes = repo.top / "releasenotes" / "notes"
    for index in range(20_000):
        (notes / f"note-{index:05d}.yaml").write_text(
            f"---\nfixes:\n  - |\n    Fixed bug {index} in microversion 2.1.\n")
    git(repo.top, "add", "-A")
    git(repo.top, "commit", "-qm", "many notes")
    limit = "import resource; resource.setrlimit(resource.RLIMIT_AS, (1 << 30, 1 << 30)); "
    for args in (("check", "--from-ref", "HEAD~1", "--to-ref", "HEAD"),
                 ("check", "--base", "HEAD~1")):
        done = subprocess.run(
            [sys.executable, "-c", limit + "import sys; from needs_microversion.cli import "
             "main; sys.exit(main(sys.argv[1:]))", *args, "--no-validate"],
            cwd=repo.top, capture_output=True, text=True, timeout=300)
        assert done.returncode in (0, 1), done.stderr[-2000:]


def test_an_argument_no_file_system_takes(tmp_path: Path, run_cli) -> None:
    (tmp_path / "good.yaml").write_text(GOOD)
    long = "a" * 120_000
    for args in (("diff", long, str(tmp_path / "good.yaml")),
                 ("diff", str(tmp_path / "good.yaml"), f"HEAD:{long}"),
                 ("diff", str(tmp_path / "good.yaml"), str(tmp_path / "good.yaml"), "--config",
                  long)):
        code, _, err = run_cli(*args)
        one_line(code, err)
        assert len(err) < 1000


def test_check_from_a_deleted_folder(tmp_path: Path) -> None:
    import subprocess
    import sys

    from repositories import nova_like

    repo = nova_like(tmp_path / "r")
    script = (f"import os, sys; os.mkdir('gone'); os.chdir('gone'); os.rmdir('../gone'); "
              f"from needs_microversion.cli import main; sys.exit(main({sys.argv[1:2]!r} and "
              f"['{{}}']))")
    for command in ("check", "history", "diff"):
        args = [command] if command != "diff" else ["diff", "a.yaml", "b.yaml"]
        done = subprocess.run(
            [sys.executable, "-c", "import os, sys\nos.mkdir('gone'); os.chdir('gone'); "
             "os.rmdir('../gone')\nfrom needs_microversion.cli import main\n"
             "sys.exit(main(sys.argv[1:]))", *args],
            cwd=repo.top, capture_output=True, text=True, timeout=60)
        assert done.returncode == 2 and done.stderr.count("\n") == 1, (command, done.stderr)
        assert "Traceback" not in done.stderr
    assert script  # (kept readable above: the folder is removed under the running process)
