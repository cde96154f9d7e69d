"""The baseline: standing warnings silenced with a reason, new ones still shown; written by
`--write-baseline` without ever changing what the tool did not write; read as the
configuration file is."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from gitrepo import one_error_line, quiet_git  # noqa: F401  (its autouse fixture)
from repositories import NOVA_SERVERS, Project, flavors_inc, with_standing_warning

from needs_microversion.commands.baseline import Entry, parse_baseline

CHECK = ("check", "--from-ref", "HEAD~1", "--to-ref", "HEAD", "--no-validate")
STANDING = "no definition for 'undefined_thing' in parameters.yaml; skipped"


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Project:
    """A nova-like repository with a warning that stands in flavors.inc, and a change to
    servers.inc on top; the current folder is its top."""
    project = with_standing_warning(tmp_path / "nova")
    monkeypatch.chdir(project.top)
    return project


def _reasoned(path: Path, reason: str = "documented next cycle") -> None:
    path.write_text(path.read_text().replace('reason: ""', f'reason: "{reason}"'))


def _report(out: str) -> dict[str, Any]:
    return json.loads(out)["documents"][0]["report"]


def test_written_then_filled_in_it_silences_and_the_gate_passes(repo: Project,
                                                                run_cli) -> None:
    code, _, err = run_cli(*CHECK, "--fail-on", "warning")
    assert code == 1 and "1 warning(s) about files this change does not touch" in err
    code, _, err = run_cli(*CHECK, "--write-baseline", "baseline.yaml")
    assert code == 0 and "baseline.yaml: wrote 1 baseline entry: give each its reason" in err
    written = (repo.top / "baseline.yaml").read_text()
    assert written.startswith("# needs-microversion baseline") and 'reason: ""' in written
    [entry] = parse_baseline(written, "baseline.yaml", path=None, top=repo.top,
                             reasons=False).entries
    assert (entry.file, entry.message, entry.finding) == (
        "api-ref/source/flavors.inc", STANDING, None)
    # Not yet given its reason: an input error naming the file and the entry's line.
    code, _, err = run_cli(*CHECK, "--baseline", "baseline.yaml")
    assert code == 2 and one_error_line(err).startswith(
        "needs-microversion: error: baseline.yaml:6: a baseline entry needs a 'reason'")
    _reasoned(repo.top / "baseline.yaml")
    code, out, err = run_cli(*CHECK, "--baseline", "baseline.yaml", "--fail-on", "warning",
                             "--format", "json")
    assert code == 0 and json.loads(out)["exit_code"] == 0, err
    assert "does not touch" not in err and STANDING not in err
    assert _report(out)["warnings"] == []
    assert _report(out)["notes"][-1] == ("1 standing warning(s) silenced by the baseline "
                                         "baseline.yaml")


def test_the_configuration_names_it_and_new_warnings_still_show(repo: Project,
                                                                run_cli) -> None:
    run_cli(*CHECK, "--write-baseline", "baseline.yaml")
    _reasoned(repo.top / "baseline.yaml")
    (repo.top / ".needs-microversion.yaml").write_text("baseline: baseline.yaml\n")
    code, out, err = run_cli(*CHECK, "--fail-on", "warning")
    assert code == 0 and "note: 1 standing warning(s) silenced by the baseline baseline.yaml" \
        in out, err
    # A new warning in the file the change touches: shown, and it fails the gate.
    repo.commit({"api-ref/source/servers.inc": NOVA_SERVERS.replace(
        "  - status: status\n", "  - status: status\n  - brand_new: brand_new\n")})
    code, out, err = run_cli(*CHECK, "--fail-on", "warning", "--format", "json")
    assert code == 1 and "no definition for 'brand_new'" in err and STANDING not in err
    assert [w for w in _report(out)["warnings"] if "brand_new" in w]


def test_entries_survive_edits_that_move_lines_and_any_current_folder(
        repo: Project, run_cli, monkeypatch: pytest.MonkeyPatch) -> None:
    run_cli(*CHECK, "--write-baseline", "baseline.yaml")
    _reasoned(repo.top / "baseline.yaml")
    # Twenty lines above the standing row: the warning's line moves, its entry still holds.
    repo.commit({"api-ref/source/flavors.inc": "\n" * 20 + flavors_inc("undefined_thing")})
    (repo.top / "api-ref/source/servers.inc").write_text(NOVA_SERVERS + "\n")
    monkeypatch.chdir(repo.top / "api-ref" / "source")
    for args in (CHECK, ("check", "--base", "HEAD", "--no-validate")):  # git, then the disk
        code, out, err = run_cli(*args, "--all-warnings", "--baseline", "../../baseline.yaml",
                                 "--fail-on", "warning")
        assert code == 0 and STANDING not in err, (args, err)
        assert "1 standing warning(s) silenced by the baseline" in out


def test_an_entry_that_matched_nothing_is_noted_with_its_line(repo: Project, run_cli) -> None:
    path = repo.top / "baseline.yaml"
    run_cli(*CHECK, "--write-baseline", "baseline.yaml")
    _reasoned(path)
    path.write_text(path.read_text() + '- file: "api-ref/source/gone.inc"\n'
                    '  message: "fixed long ago"\n  reason: "r"\n')
    code, out, _ = run_cli(*CHECK, "--baseline", "baseline.yaml", "--format", "json")
    assert code == 0 and _report(out)["notes"][-1] == (
        "baseline.yaml:9: baseline entry matched nothing (stale; remove it): "
        "api-ref/source/gone.inc: fixed long ago")
    # A check of some files reads only their documents: nothing is called stale.
    code, out, _ = run_cli(*CHECK, "--baseline", "baseline.yaml", "--format", "json",
                           "api-ref/source/servers.inc")
    assert code == 0 and not any("stale" in note for note in _report(out)["notes"])


def test_writing_never_changes_a_file_the_tool_did_not_write(repo: Project, run_cli) -> None:
    mine = repo.top / "notes.yaml"
    mine.write_text("my own notes\n")
    code, _, err = run_cli(*CHECK, "--write-baseline", "notes.yaml")
    assert code == 2 and "notes.yaml: exists: --write-baseline writes a new file" in \
        one_error_line(err)
    assert mine.read_text() == "my own notes\n"
    # The baseline in use: the new warnings are added at its end, its text kept as it was.
    path = repo.top / "baseline.yaml"
    run_cli(*CHECK, "--write-baseline", "baseline.yaml")
    _reasoned(path)
    path.write_text(path.read_text() + "# my comment, kept\n")
    before = path.read_text()
    repo.commit({"api-ref/source/flavors.inc": flavors_inc("undefined_thing", "other_thing")})
    code, _, err = run_cli(*CHECK, "--baseline", "baseline.yaml", "--write-baseline",
                           "baseline.yaml")
    assert code == 0 and "baseline.yaml: added 1 baseline entry: give each its reason" in err
    after = path.read_text()
    assert after.startswith(before) and after.count("- file:") == 2
    assert "no definition for 'other_thing'" in after[len(before):]
    _reasoned(path, "also later")
    after = path.read_text()
    code, _, err = run_cli(*CHECK, "--baseline", "baseline.yaml", "--write-baseline",
                           "baseline.yaml")
    assert code == 0 and "nothing to add" in err and path.read_text() == after
    # A new file holds every warning, those silenced keeping their reasons: the way to
    # drop stale entries without touching the old file.
    code, _, err = run_cli(*CHECK, "--baseline", "baseline.yaml", "--write-baseline",
                           "fresh.yaml")
    fresh = (repo.top / "fresh.yaml").read_text()
    assert code == 0 and "wrote 2 baseline entries" in err
    assert 'reason: "documented next cycle"' in fresh and 'reason: "also later"' in fresh
    assert not err.count("give each its reason")


@pytest.mark.parametrize(("text", "line", "message"), [
    ("warnings:\n- {message: [1\n", 3, "invalid YAML"),
    ("warnings:\n- message: m\n  reason: r\n  colour: red\n", 2, "unknown key 'colour'"),
    ("warnings:\n- message: m\n  reason: r\n- message: n\n", 4, "needs a 'reason'"),
    ("warnings:\n- finding: attribute-added\n  message: m\n  reason: r\n", 2,
     "needs its 'operation'"),
    ("warnings:\n- message: 404\n  reason: r\n", 2, "'message' must be a string"),
    ("entries: []\n", 1, "unknown key 'entries'"),
], ids=["yaml", "unknown-key", "no-reason", "no-operation", "not-a-string", "top-key"])
def test_a_bad_baseline_is_exit_2_naming_the_file_and_line(repo: Project, run_cli, text: str,
                                                           line: int, message: str) -> None:
    (repo.top / "baseline.yaml").write_text(text)
    code, _, err = run_cli(*CHECK, "--baseline", "baseline.yaml")
    assert code == 2 and one_error_line(err).startswith(
        f"needs-microversion: error: baseline.yaml:{line}: "), err
    assert message in err


def test_a_configured_baseline_is_read_inside_the_repository_only(
        repo: Project, run_cli, tmp_path: Path) -> None:
    secret = tmp_path / "secret.yaml"
    secret.write_text("warnings:\n- {message: 'a secret', reason: r}\n")
    config = repo.top / ".needs-microversion.yaml"
    config.write_text(f"baseline: ../{secret.name}\n")
    code, _, err = run_cli(*CHECK)
    assert code == 2 and "leads outside" in one_error_line(err) and "a secret" not in err
    (repo.top / "link.yaml").symlink_to(secret)
    config.write_text("baseline: link.yaml\n")
    code, _, err = run_cli(*CHECK)
    assert code == 2 and "link.yaml: leads outside" in one_error_line(err)
    (repo.top / "folder.yaml").mkdir()
    config.write_text("baseline: folder.yaml\n")
    code, _, err = run_cli(*CHECK)
    assert code == 2 and "folder.yaml" in one_error_line(err)
    config.write_text("baseline: missing.yaml\n")
    code, _, err = run_cli(*CHECK)
    assert code == 2 and "missing.yaml: no such file" in one_error_line(err)
    config.write_text("baseline: [a.yaml]\n")
    code, _, err = run_cli(*CHECK)
    assert code == 2 and "'baseline' must be a non-empty string" in one_error_line(err)


def test_without_a_checkout_it_is_read_from_the_revision(repo: Project, run_cli) -> None:
    """A CI clone made without a checkout: the configuration and its baseline both come from
    the --to-ref revision."""
    run_cli(*CHECK, "--write-baseline", "baseline.yaml")
    _reasoned(repo.top / "baseline.yaml")
    (repo.top / ".needs-microversion.yaml").write_text("baseline: baseline.yaml\n")
    repo.commit({"api-ref/source/servers.inc": NOVA_SERVERS})
    for name in ("baseline.yaml", ".needs-microversion.yaml"):
        (repo.top / name).unlink()
    code, out, err = run_cli(*CHECK, "--fail-on", "warning")
    assert code == 0 and "silenced by the baseline HEAD:baseline.yaml" in out, err


def test_diff_takes_a_baseline_too_and_a_silenced_finding_stays_acknowledged(
        tmp_path: Path, monkeypatch, run_cli) -> None:
    monkeypatch.chdir(tmp_path)
    get = {"parameters": [{"name": "server_id", "in": "path", "required": True,
                           "schema": {"type": "string"}}],
           "responses": {"200": {"description": "OK"}, "500": {"description": "Oops"}}}
    old = {"openapi": "3.0.3", "info": {"title": "t", "version": "1.0"},
           "paths": {"/servers/{server_id}": {"get": get}}}
    (tmp_path / "old.json").write_text(json.dumps(old))
    del get["responses"]["500"]  # a documented 500 goes away: a bug fix
    (tmp_path / "new.json").write_text(json.dumps(old))
    args = ("diff", "old.json", "new.json", "--no-validate", "--fail-on", "warning")
    code, _, err = run_cli(*args, "--write-baseline", "b.yaml")
    assert code == 1 and "wrote 1 baseline entry" in err
    [entry] = parse_baseline((tmp_path / "b.yaml").read_text(), "b.yaml", path=None,
                             top=tmp_path, reasons=False).entries
    assert entry == Entry(message=entry.message, finding="server-error-fixed",
                          operation="GET /servers/{server_id}", pointer=entry.pointer,
                          line=entry.line)
    _reasoned(tmp_path / "b.yaml", "fixed in 2.5")
    code, out, err = run_cli(*args, "--baseline", "b.yaml", "--format", "json")
    [change] = json.loads(out)["changes"]
    assert code == 0 and change["verdict"] == "bug-fix", err
    assert change["acknowledged"] == "fixed in 2.5 (baseline b.yaml)"
    assert json.loads(out)["notes"][-1] == "1 standing warning(s) silenced by the baseline b.yaml"
