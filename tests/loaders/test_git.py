"""Git inputs: REV:PATH sides of `diff`, and the base revisions of `check`, in real repositories."""

from __future__ import annotations

import json
import os
import subprocess
import tempfile
import sys
from pathlib import Path

import pytest

from gitrepo import (
    FLAVOR, LOCKED, api, commit, git, line_of, make_repo, one_error_line, quiet_git, write)

from needs_microversion.loaders.git import checkout, looks_like_rev_path

__all__ = ["quiet_git"]  # the autouse fixture: git without the user's settings


# -- diff REV:PATH -----------------------------------------------------------------------------

def test_revision_against_working_tree_with_lines(tmp_path, monkeypatch, run_cli) -> None:
    repo = make_repo(tmp_path / "r", {"api.yaml": api()})
    write(repo, {"api.yaml": api(extra=LOCKED)})
    monkeypatch.chdir(repo)
    code, out, err = run_cli("diff", "HEAD:api.yaml", "api.yaml", "--no-validate",
                             "--format", "json")
    assert code == 1, err
    report = json.loads(out)
    assert (report["old"], report["new"]) == ("HEAD:api.yaml", "api.yaml")
    [change] = report["changes"]
    assert change["id"] == "attribute-added" and change["pointer"] == "/server/locked"
    assert change["new_location"] == f"api.yaml:{line_of(api(extra=LOCKED), 'locked:')}"


def test_two_revisions_lines_on_the_revision_side(tmp_path, monkeypatch, run_cli) -> None:
    repo = make_repo(tmp_path / "r", {"api.yaml": api()})
    commit(repo, {"api.yaml": api(extra=LOCKED)}, "locked")
    write(repo, {"api.yaml": "not even an API"})  # the working tree is never read
    monkeypatch.chdir(repo)
    code, out, err = run_cli("diff", "HEAD:api.yaml", "HEAD~1:api.yaml", "--no-validate",
                             "--format", "json")
    assert code == 1, err
    [change] = json.loads(out)["changes"]
    assert change["id"] == "attribute-removed"
    assert change["old_location"] == f"HEAD:api.yaml:{line_of(api(extra=LOCKED), 'locked:')}"


def test_text_report_names_the_revision_side(tmp_path, monkeypatch, run_cli) -> None:
    repo = make_repo(tmp_path / "r", {"api.yaml": api(extra=LOCKED)})
    write(repo, {"api.yaml": api()})
    monkeypatch.chdir(repo)
    code, out, _ = run_cli("diff", "HEAD:api.yaml", "api.yaml", "--no-validate")
    assert code == 1
    assert f"(HEAD:api.yaml:{line_of(api(extra=LOCKED), 'locked:')})" in out


def test_refs_resolve_at_each_revision(tmp_path, monkeypatch, run_cli) -> None:
    schema = "type: object\nproperties:\n  id: {type: string}\n"
    ref = "schemas/server.yaml"
    repo = make_repo(tmp_path / "r", {"specs/api.yaml": api(ref=ref),
                                      "specs/schemas/server.yaml": schema})
    commit(repo, {"specs/schemas/server.yaml": schema + "  locked: {type: boolean}\n"}, "lock")
    write(repo, {"specs/schemas/server.yaml": schema + "  zone: {type: string}\n"})
    monkeypatch.chdir(repo)
    code, out, err = run_cli("diff", "HEAD~1:specs/api.yaml", "HEAD:specs/api.yaml",
                             "--no-validate", "--format", "json")
    assert code == 1, err
    [change] = json.loads(out)["changes"]
    assert change["pointer"] == "/server/locked"  # not the working tree's `zone`
    # The file a $ref reached, named at its revision (its line where the locator finds it).
    assert change["new_location"] in ("HEAD:specs/schemas/server.yaml",
                                      "HEAD:specs/schemas/server.yaml:4")


def test_a_ref_never_leaves_the_folder_at_a_revision(tmp_path, monkeypatch, run_cli) -> None:
    repo = make_repo(tmp_path / "r", {"specs/api.yaml": api(ref="../secret.yaml"),
                                      "secret.yaml": "type: object\n"})
    monkeypatch.chdir(repo)
    code, _, err = run_cli("diff", "HEAD:specs/api.yaml", "HEAD:specs/api.yaml",
                           "--no-validate")
    assert code == 2
    assert "outside" in one_error_line(err) and "HEAD:specs/api.yaml" in err


def test_paths_from_the_top_or_from_here(tmp_path, monkeypatch, run_cli) -> None:
    repo = make_repo(tmp_path / "r", {"specs/api.yaml": api()})
    write(repo, {"specs/api.yaml": api(extra=LOCKED)})
    monkeypatch.chdir(repo / "specs")
    for old in ("HEAD:specs/api.yaml", "HEAD:./api.yaml", "HEAD:../specs/api.yaml"):
        code, out, err = run_cli("diff", old, "api.yaml", "--no-validate")
        assert code == 1 and "[attribute-added]" in out, (old, err)


def test_index_side(tmp_path, monkeypatch, run_cli) -> None:
    repo = make_repo(tmp_path / "r", {"api.yaml": api()})
    write(repo, {"api.yaml": api(extra=LOCKED)})
    git(repo, "add", "api.yaml")
    write(repo, {"api.yaml": api()})
    monkeypatch.chdir(repo)
    assert run_cli("diff", "HEAD:api.yaml", ":api.yaml", "--no-validate")[0] == 1
    assert run_cli("diff", "HEAD:api.yaml", "api.yaml", "--no-validate")[0] == 0


def test_symlinked_document(tmp_path, monkeypatch, run_cli) -> None:
    repo = make_repo(tmp_path / "r", {"specs/v2.96.yaml": api(extra=LOCKED)})
    os.symlink("v2.96.yaml", repo / "specs" / "v2.yaml")
    commit(repo, {}, "link")
    monkeypatch.chdir(repo)
    write(repo, {"base.yaml": api()})
    code, out, err = run_cli("diff", "base.yaml", "HEAD:specs/v2.yaml", "--no-validate")
    assert code == 1 and "(HEAD:specs/v2.yaml:" in out, err


APIREF = {
    "api-ref/source/index.rst": "=========\n Example\n=========\n\n.. rest_expand_all::\n\n"
                                ".. include:: servers.inc\n",
    "api-ref/source/servers.inc": """\
.. -*- rst -*-

Show Server
===========

.. rest_method:: GET /servers/{server_id}

Shows a server.

Normal response codes: 200

Request
-------

.. rest_parameters:: parameters.yaml

  - server_id: server_id

Response
--------

.. rest_parameters:: parameters.yaml

  - server: server
  - id: server_id_body
  - name: server_name

.. literalinclude:: ../../doc/api_samples/server-get-resp.json
   :language: javascript
""",
    "api-ref/source/parameters.yaml": """\
server_id: {description: The server., in: path, required: true, type: string}
server: {description: The server., in: body, required: true, type: object}
server_id_body: {description: The UUID., in: body, required: true, type: string}
server_name: {description: The name., in: body, required: true, type: string}
server_locked: {description: Locked or not., in: body, required: true, type: boolean}
""",
    "doc/api_samples/server-get-resp.json": '{"server": {"id": "6f1d", "name": "web"}}\n',
    "nova/unrelated.py": "print('not copied')\n",
}
LOCKED_APIREF = {
    "api-ref/source/servers.inc": APIREF["api-ref/source/servers.inc"].replace(
        "  - name: server_name\n", "  - name: server_name\n  - locked: server_locked\n"),
    "doc/api_samples/server-get-resp.json":
        '{"server": {"id": "6f1d", "name": "web", "locked": false}}\n',
}


def test_apiref_folder_at_a_revision(tmp_path, monkeypatch, run_cli) -> None:
    repo = make_repo(tmp_path / "r", APIREF)
    monkeypatch.chdir(repo)
    code, out, err = run_cli("diff", "HEAD:api-ref/source", "api-ref/source")
    assert code == 0 and "no change to the user contract" in out, err
    write(repo, LOCKED_APIREF)
    code, out, err = run_cli("diff", "HEAD:api-ref/source", "api-ref/source", "--format",
                             "json")
    assert code == 1, err
    [change] = json.loads(out)["changes"]
    assert (change["id"], change["pointer"]) == ("attribute-added", "/server/locked")
    assert change["new_location"].startswith("api-ref/source/servers.inc:")


def test_apiref_copy_holds_the_examples_it_names_at_that_revision(tmp_path, monkeypatch
                                                                   ) -> None:
    repo = make_repo(tmp_path / "r", APIREF)
    write(repo, LOCKED_APIREF)
    temp = tmp_path / "temp"
    temp.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(temp))
    copy = checkout("HEAD:api-ref/source", repo)
    assert copy is not None and copy.is_dir and copy.display == "HEAD:api-ref/source"
    assert copy.files is not None and copy.folder is None and list(temp.iterdir()) == []
    top = copy.local.parent.parent
    assert copy.files.read(top / "doc/api_samples/server-get-resp.json", "x", 2**20) \
        == APIREF["doc/api_samples/server-get-resp.json"].encode()
    assert not copy.files.is_dir(top / "nova")  # only what the directives name
    assert not (top / "api-ref").exists()  # nothing on disk: the files are in memory


def test_a_crlf_tree_names_its_examples_too(tmp_path) -> None:
    """A file written with CRLF line ends (cyborg's arqs.inc until 2021) names its samples
    as an LF one does: the directives are found line by line, as a text read finds them."""
    files = {name: text.replace("\n", "\r\n") if name.endswith((".inc", ".rst")) else text
             for name, text in APIREF.items()}
    repo = make_repo(tmp_path / "r", files)
    copy = checkout("HEAD:api-ref/source", repo)
    assert copy is not None and copy.files is not None
    top = copy.local.parent.parent
    assert copy.files.is_file(top / "doc/api_samples/server-get-resp.json")


def test_a_file_copies_its_folder_only_when_it_may_ref_another_file(tmp_path) -> None:
    repo = make_repo(tmp_path / "r", {"a/api.yaml": api(), "a/other.yaml": "x: 1\n",
                                      "b/api.yaml": api(ref="other.yaml#/X"),
                                      "b/other.yaml": "X: {type: object}\n"})
    plain, refs = checkout("HEAD:a/api.yaml", repo), checkout("HEAD:b/api.yaml", repo)
    assert plain is not None and refs is not None
    assert sorted(p.name for p in plain.local.parent.iterdir()) == ["api.yaml"]
    assert sorted(p.name for p in refs.local.parent.iterdir()) == ["api.yaml", "other.yaml"]


# -- what counts as REV:PATH, and the errors -------------------------------------------------

@pytest.mark.parametrize("text,expected", [
    ("HEAD~1:api.yaml", True), ("origin/main:api-ref/source", True), (":api.yaml", True),
    ("C:\\specs\\api.yaml", False), ("C:/specs/api.yaml", False), ("c:api.yaml", False),
    ("\\\\server\\share\\api.yaml", False), ("https://example.org/api.yaml", False),
    ("file:///tmp/api.yaml", False), ("api.yaml", False), ("--x:api.yaml", False),
], ids=lambda value: str(value))
def test_what_looks_like_rev_path(text: str, expected: bool) -> None:
    assert looks_like_rev_path(text) is expected


def test_an_existing_file_wins_over_rev_path(tmp_path, monkeypatch, run_cli) -> None:
    repo = make_repo(tmp_path / "r", {"api.yaml": api(extra=LOCKED)})
    write(repo, {"HEAD:api.yaml": api()})  # a file whose name looks like REV:PATH
    monkeypatch.chdir(repo)
    code, out, _ = run_cli("diff", "HEAD:api.yaml", "api.yaml", "--no-validate")
    assert code == 1 and "[attribute-added]" in out


@pytest.mark.parametrize("old,words", [
    ("nope:api.yaml", ["nope:api.yaml", "'nope' is not a revision"]),
    ("HEAD:missing.yaml", ["HEAD:missing.yaml", "no such file or folder at revision HEAD"]),
    ("HEAD~5:api.yaml", ["HEAD~5:api.yaml", "'HEAD~5' is not a revision"]),
    ("HEAD:", ["HEAD:", "needs a path"]),
    ("HEAD:../outside.yaml", ["HEAD:../outside.yaml", "leaves the repository"]),
    (":missing.yaml", [":missing.yaml", "in the index"]),
    ("C:/no/such.yaml", ["C:/no/such.yaml", "no such file"]),
], ids=["unknown-revision", "path-absent", "no-such-ancestor", "empty-path", "leaves-repo",
        "absent-from-index", "windows-path"])
def test_git_input_errors(tmp_path, monkeypatch, run_cli, old: str, words: list[str]) -> None:
    repo = make_repo(tmp_path / "r", {"api.yaml": api()})
    monkeypatch.chdir(repo)
    code, out, err = run_cli("diff", old, "api.yaml", "--no-validate")
    assert code == 2 and out == ""
    one_error_line(err)
    for word in words:
        assert word in err


def test_not_a_git_repository(tmp_path, monkeypatch, run_cli) -> None:
    (tmp_path / "api.yaml").write_text(api())
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("GIT_CEILING_DIRECTORIES", str(tmp_path.parent))
    code, _, err = run_cli("diff", "HEAD:api.yaml", "api.yaml")
    assert code == 2
    assert "HEAD:api.yaml: no such file, and not inside a git repository" in one_error_line(err)


def test_git_runs_without_a_shell_or_prompt(tmp_path, monkeypatch) -> None:
    repo = make_repo(tmp_path / "r", {"api.yaml": api()})
    calls: list[tuple[list[str], dict[str, object]]] = []
    real = subprocess.run

    def spy(args, **kwargs):  # type: ignore[no-untyped-def]
        calls.append((list(args), kwargs))
        return real(args, **kwargs)

    monkeypatch.setattr(subprocess, "run", spy)
    assert checkout("HEAD:api.yaml", repo) is not None
    assert calls
    for args, kwargs in calls:
        assert args[0] == "git" and "-C" in args and not kwargs.get("shell")
        assert "core.fsmonitor=false" in args and kwargs.get("timeout")
        env = kwargs["env"]
        assert isinstance(env, dict) and env["GIT_TERMINAL_PROMPT"] == "0"


def test_start_up_imports_no_git_machinery() -> None:
    code = ("import sys; from needs_microversion import cli, load; "
            "print(sorted(m for m in ('needs_microversion.loaders.git', "
            "'needs_microversion.commands.check') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], check=True, capture_output=True,
                         text=True).stdout
    assert out.strip() == "[]"


# -- check: which base -----------------------------------------------------------------------

CONFIG = ".needs-microversion.yaml"


def project(path: Path, *, branch: str = "main", extra: dict[str, str] | None = None) -> Path:
    """A repository with one configured document, api/openapi.yaml. These changes touch only
    the document, which rule documentation-only would excuse: it is switched off, so the
    tests see which sides are compared."""
    return make_repo(path, {"api/openapi.yaml": api(),
                            CONFIG: "disable: [documentation-only]\nservices:\n"
                                    "  - name: compute\n    documents: [api/openapi.yaml]\n",
                            **(extra or {})},
                     branch=branch)


def test_check_compares_with_the_merge_base_of_main(tmp_path, monkeypatch, run_cli) -> None:
    repo = project(tmp_path / "r")
    git(repo, "checkout", "-q", "-b", "topic")
    commit(repo, {"api/openapi.yaml": api(extra=LOCKED)}, "locked")
    git(repo, "checkout", "-q", "main")
    commit(repo, {"api/openapi.yaml": api(extra=FLAVOR)}, "flavor on main")
    git(repo, "checkout", "-q", "topic")
    monkeypatch.chdir(repo)
    code, out, err = run_cli("check", "--no-validate", "--format", "json")
    assert code == 1, err
    [document] = json.loads(out)["documents"]
    assert [c["pointer"] for c in document["report"]["changes"]] == ["/server/locked"]
    base = git(repo, "merge-base", "main", "topic").strip()
    assert document["old"] == f"{base[:12]}:api/openapi.yaml"


def test_check_prefers_the_upstream_branch(tmp_path, monkeypatch, run_cli) -> None:
    origin = project(tmp_path / "origin")
    clone = tmp_path / "clone"
    subprocess.run(["git", "clone", "-q", str(origin), str(clone)], check=True)
    commit(clone, {"api/openapi.yaml": api(extra=FLAVOR)}, "flavor, local main only")
    git(clone, "checkout", "-q", "-b", "topic", "--track", "origin/main")
    git(clone, "merge", "-q", "main")
    monkeypatch.chdir(clone)
    code, out, err = run_cli("check", "--no-validate")
    assert code == 1 and "/server/flavor" in out, err  # against origin/main, not main
    code, out, err = run_cli("check", "--no-validate", "--base", "main")
    assert code == 0 and "no change to the user contract" in out, err


def test_check_base_head_and_staged(tmp_path, monkeypatch, run_cli) -> None:
    repo = project(tmp_path / "r")
    write(repo, {"api/openapi.yaml": api(extra=LOCKED)})
    monkeypatch.chdir(repo)
    code, out, _ = run_cli("check", "--base", "HEAD", "--no-validate")
    assert code == 1 and out.startswith("== compute: HEAD:api/openapi.yaml -> api/openapi.yaml")
    assert run_cli("check", "--base", "HEAD", "--staged", "--no-validate")[0] == 0
    git(repo, "add", "-A")
    code, out, _ = run_cli("check", "--base", "HEAD", "--staged", "--no-validate")
    assert code == 1 and "-> :api/openapi.yaml" in out


def test_check_from_and_to_refs(tmp_path, monkeypatch, run_cli) -> None:
    repo = project(tmp_path / "r")
    commit(repo, {"api/openapi.yaml": api(extra=LOCKED)}, "locked")
    commit(repo, {"api/openapi.yaml": api(extra=LOCKED, description="Fine.")}, "doc")
    write(repo, {"api/openapi.yaml": api()})  # the working tree is not a side of a range
    monkeypatch.chdir(repo)
    monkeypatch.setenv("PRE_COMMIT_FROM_REF", "HEAD~1")
    monkeypatch.setenv("PRE_COMMIT_TO_REF", "HEAD")
    code, out, err = run_cli("check", "--no-validate")
    assert code == 0 and "HEAD~1:api/openapi.yaml -> HEAD:api/openapi.yaml" in out, err
    code, out, err = run_cli("check", "--no-validate", "--from-ref", "HEAD~2")
    assert code == 1 and "HEAD~2:api/openapi.yaml -> HEAD:api/openapi.yaml" in out, err
    monkeypatch.delenv("PRE_COMMIT_TO_REF")
    code, _, err = run_cli("check", "--no-validate")
    assert code == 2 and "go together" in one_error_line(err)


@pytest.mark.parametrize("args,words", [
    (["--base", "nope"], ["--base nope: unknown revision"]),
    (["--from-ref", "HEAD", "--to-ref", "nope"], ["--to-ref nope: unknown revision"]),
], ids=["unknown-base", "unknown-to-ref"])
def test_check_revision_errors(tmp_path, monkeypatch, run_cli, args, words) -> None:
    monkeypatch.chdir(project(tmp_path / "r"))
    code, out, err = run_cli("check", *args)
    assert code == 2 and out == ""
    for word in words:
        assert word in one_error_line(err)


def test_check_without_a_base_branch(tmp_path, monkeypatch, run_cli) -> None:
    monkeypatch.chdir(project(tmp_path / "r", branch="trunk"))
    code, _, err = run_cli("check")
    assert code == 2 and "pass --base REV" in one_error_line(err)


def test_check_without_configuration_or_documents(tmp_path, monkeypatch, run_cli) -> None:
    repo = make_repo(tmp_path / "r", {"api.yaml": api()})
    monkeypatch.chdir(repo)
    code, _, err = run_cli("check", "--base", "HEAD")
    assert code == 2 and "no API documents found" in one_error_line(err)


def test_check_without_configuration_finds_the_document(tmp_path, monkeypatch,
                                                        run_cli) -> None:
    repo = make_repo(tmp_path / "r", {"openapi.yaml": api(), "app/code.py": "x = 1\n"})
    commit(repo, {"openapi.yaml": api(extra=LOCKED), "app/code.py": "x = 2\n"}, "locked")
    monkeypatch.chdir(repo)
    code, out, err = run_cli("check", "--from-ref", "HEAD~1", "--to-ref", "HEAD",
                             "--no-validate")
    assert code == 1 and "HEAD~1:openapi.yaml -> HEAD:openapi.yaml" in out, err
    # The same change without the code: the document only catches up.
    commit(repo, {"openapi.yaml": api(extra=LOCKED + FLAVOR)}, "flavor, documented")
    code, out, err = run_cli("check", "--from-ref", "HEAD~1", "--to-ref", "HEAD",
                             "--no-validate", "--format", "json")
    [document] = json.loads(out)["documents"]
    assert code == 0 and [c["id"] for c in document["report"]["changes"]] == [
        "documentation-only"], err


def test_check_outside_a_repository(tmp_path, monkeypatch, run_cli) -> None:
    folder = tmp_path / "plain"
    write(folder, {"api/openapi.yaml": api(),
                   CONFIG: "services:\n  - name: c\n    documents: [api/openapi.yaml]\n"})
    monkeypatch.chdir(folder)
    monkeypatch.setenv("GIT_CEILING_DIRECTORIES", str(tmp_path))
    code, _, err = run_cli("check")
    assert code == 2 and "not inside a git repository" in one_error_line(err)


def test_check_before_the_first_commit(tmp_path, monkeypatch, run_cli) -> None:
    repo = tmp_path / "r"
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main")
    write(repo, {"api/openapi.yaml": api(),
                 CONFIG: "services:\n  - name: c\n    documents: [api/openapi.yaml]\n"})
    monkeypatch.chdir(repo)
    code, out, err = run_cli("check", "--staged", "--base", "HEAD")
    assert (code, out) == (0, "") and "no commit yet" in err


def test_check_a_new_document_has_nothing_to_compare(tmp_path, monkeypatch, run_cli) -> None:
    repo = project(tmp_path / "r")
    write(repo, {"api/v2.yaml": api(extra=LOCKED),
                 CONFIG: "services:\n  - name: c\n    documents: ['api/*.yaml']\n"})
    monkeypatch.chdir(repo)
    code, out, err = run_cli("check", "--base", "HEAD", "--no-validate")
    assert code == 0 and "api/v2.yaml: new since HEAD" in err
    assert "api/openapi.yaml" in out


def test_check_every_document_worst_exit_code(tmp_path, monkeypatch, run_cli) -> None:
    config = ("services:\n  - name: compute\n    documents: [api/openapi.yaml]\n"
              "  - name: servers\n    documents: [api-ref/source]\n")
    repo = project(tmp_path / "r", extra={**APIREF, CONFIG: config})
    write(repo, {"api/openapi.yaml": api(description="Docs only.")})
    write(repo, LOCKED_APIREF)
    monkeypatch.chdir(repo)
    code, out, err = run_cli("check", "--base", "HEAD", "--no-validate", "--format", "json")
    assert code == 1, err
    combined = json.loads(out)
    assert combined["exit_code"] == 1
    assert [(d["service"], d["old"], d["report"]["exit_code"]) for d in combined["documents"]] \
        == [("compute", "HEAD:api/openapi.yaml", 0), ("servers", "HEAD:api-ref/source", 1)]
    # Files restrict the run to the documents they touch.
    code, out, _ = run_cli("check", "--base", "HEAD", "--no-validate", "--format", "json",
                           "api/openapi.yaml", "README.md")
    assert code == 0 and [d["service"] for d in json.loads(out)["documents"]] == ["compute"]
    code, out, _ = run_cli("check", "--base", "HEAD", "--no-validate",
                           "doc/api_samples/server-get-resp.json")
    assert (code, out) == (0, "")


def test_check_passes_version_files_and_changed_paths(tmp_path, monkeypatch, run_cli) -> None:
    from needs_microversion.commands import diff as run
    from needs_microversion.model.verdict import Report

    config = ("services:\n  - name: compute\n    documents: [api/openapi.yaml]\n"
              "    version-file: code/versions.py\n")
    repo = project(tmp_path / "r", extra={CONFIG: config,
                                          "code/versions.py": "_MAX_API_VERSION = '2.5'\n"})
    write(repo, {"api/openapi.yaml": api(extra=LOCKED),
                 "code/versions.py": "_MAX_API_VERSION = '2.6'\n",
                 "notes/new-note.yaml": "note\n"})
    seen = []

    def fake_run_diff(request):  # type: ignore[no-untyped-def]
        seen.append(request)
        return Report(request.old, request.new, None, None, ())

    monkeypatch.setattr(run, "run_diff", fake_run_diff)
    monkeypatch.chdir(repo)
    assert run_cli("check", "--base", "HEAD")[0] == 0
    [request] = seen
    evidence = request.evidence()  # found when the judge asks (check: maybe in a child)
    assert (str(evidence.old_max), str(evidence.new_max)) == ("2.5", "2.6")
    assert evidence.version_file == "code/versions.py" and evidence.code_changed
    assert evidence.changed_paths == ("api/openapi.yaml", "code/versions.py",
                                      "notes/new-note.yaml")


def test_check_a_configured_version_file_must_be_readable(tmp_path, monkeypatch,
                                                          run_cli) -> None:
    config = ("services:\n  - name: compute\n    documents: [api/openapi.yaml]\n"
              "    version-file: code/versions.py\n")
    repo = project(tmp_path / "r", extra={CONFIG: config, "code/versions.py": "MAX = 1\n"})
    write(repo, {"api/openapi.yaml": api(extra=LOCKED)})
    monkeypatch.chdir(repo)
    code, _, err = run_cli("check", "--base", "HEAD", "--no-validate")
    assert code == 2 and "code/versions.py: no maximum microversion found" in err


def test_check_a_configured_document_that_is_nowhere(tmp_path, monkeypatch, run_cli) -> None:
    repo = project(tmp_path / "r")
    write(repo, {CONFIG: "services:\n  - name: c\n    documents: [api/typo.yaml]\n"})
    monkeypatch.chdir(repo)
    code, _, err = run_cli("check", "--base", "HEAD")
    assert code == 2
    assert "api/typo.yaml: configured in .needs-microversion.yaml but missing from the " \
           "working tree and at the base" in one_error_line(err)


def test_check_unrelated_histories(tmp_path, monkeypatch, run_cli) -> None:
    repo = project(tmp_path / "r")
    git(repo, "checkout", "-q", "--orphan", "other")
    commit(repo, {}, "unrelated")
    monkeypatch.chdir(repo)
    code, _, err = run_cli("check", "--base", "main")
    assert code == 2 and "main and HEAD have no common ancestor" in one_error_line(err)


def test_check_applies_each_services_settings_on_every_side(tmp_path, monkeypatch, run_cli
                                                            ) -> None:
    config = ("services:\n  - name: compute\n    documents: [api/openapi.yaml]\n"
              "    disable: [attribute]\n"
              "  - name: other\n    documents: [api/other.yaml]\n")
    repo = project(tmp_path / "r", extra={CONFIG: config, "api/other.yaml": api()})
    write(repo, {"api/openapi.yaml": api(extra=LOCKED)})
    git(repo, "add", "-A")
    monkeypatch.chdir(repo)
    for args in ((), ("--staged",)):
        code, out, err = run_cli("check", "--base", "HEAD", "--no-validate", *args)
        assert code == 0, (args, out, err)


def test_check_combines_sarif_and_junit(tmp_path, monkeypatch, run_cli) -> None:
    import xml.etree.ElementTree as ET

    config = ("services:\n  - name: compute\n    documents: [api/openapi.yaml]\n"
              "  - name: other\n    documents: [api/other.yaml]\n")
    repo = project(tmp_path / "r", extra={CONFIG: config, "api/other.yaml": api()})
    write(repo, {"api/openapi.yaml": api(extra=LOCKED), "api/other.yaml": api(extra=FLAVOR)})
    monkeypatch.chdir(repo)
    code, out, err = run_cli("check", "--base", "HEAD", "--no-validate", "--format", "sarif")
    assert code == 1, err
    assert len(json.loads(out)["runs"]) == 2
    code, out, err = run_cli("check", "--base", "HEAD", "--no-validate", "--format", "junit")
    assert code == 1, err
    root = ET.fromstring(out)
    assert len(root.findall("testsuite")) == 2 and root.get("failures") == "2"


def test_an_object_read_once_is_not_asked_of_git_again(tmp_path, monkeypatch) -> None:
    """Blobs are named by their content: a second read of the same ids (another commit
    holding the same file, `history`'s next commit) asks git for nothing, and a changed
    file is a new id, read."""
    from needs_microversion.loaders.git import Repo
    from needs_microversion.loaders.git import repo as module

    top = make_repo(tmp_path / "r", {"api.yaml": api(), "other.yaml": "a: 1\n"})
    commit(top, {"api.yaml": api(extra=LOCKED)}, "locked")
    repo = Repo.find(top, "no repository", "test")
    asked: list[tuple[str, ...]] = []
    real = module.batch

    def counted(cwd, *args):  # type: ignore[no-untyped-def]
        asked.append(args)
        return real(cwd, *args)

    monkeypatch.setattr(module, "batch", counted)
    monkeypatch.setattr(module, "_OBJECTS", module._Objects(2**20))
    old = repo.entries(repo.commit("HEAD~1"), [])
    first = repo.blobs(old, "test")
    reads = [args for args in asked if args[0] == "cat-file"]
    assert len(reads) == 2 and first[old[0].sha]  # the sizes, then the contents
    asked.clear()
    assert repo.blobs(old, "test") == first
    assert [args for args in asked if args[0] == "cat-file"] == []
    new = repo.entries(repo.commit("HEAD"), [])
    got = repo.blobs(new, "test")
    changed = {item.sha for item in new} - {item.sha for item in old}
    assert len(changed) == 1 and b"locked" in got[changed.pop()]
    assert [args[:2] for args in asked if args[0] == "cat-file"] == [
        ("cat-file", "--batch-check=%(objectname) %(objectsize)"), ("cat-file", "--batch")]


def test_one_running_cat_file_answers_every_read_of_a_run(tmp_path, monkeypatch) -> None:
    """Reads ask the one `cat-file` of their kind that runs (git is not started again for
    each), a forked child starts its own (the pipes are its parent's), and both read
    right; at the end each is waited for."""
    from needs_microversion.loaders.git import Repo, command
    from needs_microversion.loaders.git import repo as module

    top = make_repo(tmp_path / "r", {"a.yaml": "a: 1\n", "b.yaml": "b: 2\n"})
    commit(top, {"a.yaml": "a: 3\n"}, "changed")
    repo = Repo.find(top, "no repository", "test")
    started: list[int] = []
    real = command.Batch.__init__

    def counted(self, *args):  # type: ignore[no-untyped-def]
        real(self, *args)
        started.append(self.process.pid)

    monkeypatch.setattr(command.Batch, "__init__", counted)
    monkeypatch.setattr(module, "_OBJECTS", module._Objects(2**20))
    contents = {}
    for rev in ("HEAD~1", "HEAD"):
        entries = repo.entries(repo.commit(rev), [])
        contents[rev] = {item.path: data for item in entries
                         for sha, data in repo.blobs([item], "test").items()}
    assert contents["HEAD~1"] == {"a.yaml": b"a: 1\n", "b.yaml": b"b: 2\n"}
    assert contents["HEAD"] == {"a.yaml": b"a: 3\n", "b.yaml": b"b: 2\n"}
    assert len(started) == 2  # sizes, contents: two processes for four reads
    if hasattr(os, "fork"):
        monkeypatch.setattr(module, "_OBJECTS", module._Objects(2**20))
        entries = repo.entries(repo.commit("HEAD~1"), [])
        pid = os.fork()
        if pid == 0:  # the child: reads through its own cat-file, then says how it went
            code = 1
            try:
                found = repo.blobs(entries, "test")
                code = 0 if sorted(found.values()) == [b"a: 1\n", b"b: 2\n"] else 1
            finally:
                os._exit(code)
        assert sorted(repo.blobs(entries, "test").values()) == [b"a: 1\n", b"b: 2\n"]
        _, status = os.waitpid(pid, 0)
        assert os.waitstatus_to_exitcode(status) == 0
        assert len(started) == 2  # the parent's went on answering
    running = list(command._BATCHES.values())
    command.end_batches()
    assert running and all(item.process.returncode is not None for item in running)


def test_a_cat_file_that_ended_before_reading_says_why(tmp_path) -> None:
    """Git gone before the request (a folder that is no repository): its own reason, as a
    one-shot call gives it, never a broken pipe."""
    from needs_microversion.loaders.git.command import Batch, GitFailed

    running = Batch(tmp_path, "cat-file", "--batch")
    running.process.wait(timeout=30)
    with pytest.raises(GitFailed, match="not a git repository"):
        running.ask(b"0" * 40 + b"\n")
        running.line()
    running.end()


def test_a_missing_object_is_named_and_the_next_read_starts_afresh(tmp_path) -> None:
    from needs_microversion.loaders.git import Repo
    from needs_microversion.errors import InputError
    from needs_microversion.loaders.git.repo import Entry

    top = make_repo(tmp_path / "r", {"a.yaml": "a: 1\n"})
    repo = Repo.find(top, "no repository", "test")
    missing = Entry("100644", "0" * 39 + "1", "gone.yaml", 5)
    with pytest.raises(InputError, match="is not in this clone"):
        repo.blobs([missing], "test")
    entries = repo.entries(repo.commit("HEAD"), [])
    assert list(repo.blobs(entries, "test").values()) == [b"a: 1\n"]


def test_contents_kept_stay_within_their_bound() -> None:
    from needs_microversion.loaders.git.repo import _Objects

    kept = _Objects(160)
    for index in range(20):  # 200 bytes: the oldest go
        kept.keep(("top", f"sha{index}"), bytes(10))
    kept.keep(("top", "large"), bytes(11))  # over a sixteenth of the bound: size only
    assert kept.held <= 160 and kept.content(("top", "sha0")) is None
    assert kept.content(("top", "sha19")) == bytes(10) and kept.content(("top", "large")) is None
    assert kept.size(("top", "large")) == 11
