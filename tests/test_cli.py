"""The command line: exit codes and output together."""

from __future__ import annotations

import json
import sys

import pytest

from conftest import ROOT

EXAMPLES = ROOT / "examples"


def test_example_pair_needs_and_provides_a_microversion(run_cli) -> None:
    code, out, err = run_cli("diff", str(EXAMPLES / "old.yaml"), str(EXAMPLES / "new.yaml"),
                             "--no-validate")
    assert code == 0, err
    assert out.startswith("Yes, you need a microversion")
    assert "[attribute-added]" in out and "gated on 2.6" in out


def test_json_output_fields(run_cli) -> None:
    code, out, _ = run_cli("diff", str(EXAMPLES / "old.yaml"), str(EXAMPLES / "new.yaml"),
                           "--format", "json", "--no-validate")
    report = json.loads(out)
    assert code == 0
    assert (report["verdict"], report["old_version"], report["new_version"], report["bumped"]) \
        == ("required", "2.5", "2.6", True)
    [change] = report["changes"]
    assert {"rule", "question", "verdict", "operation", "kind", "pointer", "old", "new",
            "location", "message", "gated"} <= set(change)
    assert change["pointer"] == "/server/locked" and change["gated"] == "2.6"
    assert change["location"].startswith(str(EXAMPLES / "new.yaml") + ":")


def test_same_file_needs_nothing(run_cli) -> None:
    path = str(EXAMPLES / "old.yaml")
    code, out, _ = run_cli("diff", path, path, "--no-validate")
    assert code == 0 and out.startswith("No microversion needed (")
    assert "no change to the user contract" in out


def test_explain_walks_the_chart(run_cli) -> None:
    _, out, _ = run_cli("diff", str(EXAMPLES / "old.yaml"), str(EXAMPLES / "new.yaml"),
                        "--no-validate", "--explain")
    assert "- Are we changing what status code is returned? no" in out
    assert "- Did we add or remove an attribute to a payload? yes" in out


def test_validation_runs_by_default(run_cli) -> None:
    code, _, err = run_cli("diff", str(EXAMPLES / "old.yaml"), str(EXAMPLES / "new.yaml"))
    assert code == 0 and "warning" not in err


def test_rules_listing_and_documentation(run_cli) -> None:
    code, out, _ = run_cli("rules")
    assert code == 0 and "attribute" in out and "Did we return a 500 before?" in out
    code, out, _ = run_cli("rules", "header")
    assert code == 0 and "Retry-After" in out
    code, _, err = run_cli("rules", "nope")
    assert code == 2 and "unknown rule" in err


def test_version_option(run_cli) -> None:
    code, out, _ = run_cli("--version")
    assert code == 0 and out.startswith("needs-microversion ")


def test_usage_errors_exit_2(run_cli) -> None:
    code, _, err = run_cli("diff", "only-one.yaml")
    assert code == 2 and err.count("\n") == 1
    code, _, err = run_cli("diff", str(EXAMPLES / "old.yaml"), str(EXAMPLES / "new.yaml"),
                           "--silent-failure", "no reason here")
    assert code == 2 and "--silent-failure" in err
    code, _, err = run_cli("diff", str(EXAMPLES / "old.yaml"), str(EXAMPLES / "new.yaml"),
                           "--format", "xml", "--no-validate")
    assert code == 2 and err.count("\n") == 1 and "'xml' is not one of" in err


def test_a_bug_is_exit_3_and_one_line_not_a_traceback(run_cli, monkeypatch) -> None:
    """Python exits 1 on a crash, which CI would read as "microversion needed"."""
    import needs_microversion.commands.diff as run

    def broken(*_: object) -> None:
        raise TypeError("'<' not supported between instances of 'NoneType' and 'str'")

    monkeypatch.delenv("NEEDS_MICROVERSION_DEBUG", raising=False)
    monkeypatch.setattr(run, "compare", broken)
    code, out, err = run_cli("diff", str(EXAMPLES / "old.yaml"), str(EXAMPLES / "new.yaml"),
                             "--no-validate")
    assert (code, out) == (3, "")
    assert len(err.strip().splitlines()) == 1 and "internal error" in err and "TypeError" in err


def test_strict_without_validation_is_a_usage_error(run_cli) -> None:
    code, out, err = run_cli("diff", str(EXAMPLES / "old.yaml"), str(EXAMPLES / "new.yaml"),
                             "--strict", "--no-validate")
    assert (code, out) == (2, "") and "--no-validate" in err


def test_a_claim_on_no_operation_warns(run_cli) -> None:
    code, out, err = run_cli("diff", str(EXAMPLES / "old.yaml"), str(EXAMPLES / "new.yaml"),
                             "--no-validate", "--format", "json",
                             "--silent-failure", "GET /nope: a typo")
    assert any("GET /nope" in w for w in json.loads(out)["warnings"])


def _swagger(base: str, enum: str = "") -> str:
    return (f'swagger: "2.0"\ninfo: {{title: t, version: "1"}}\nbasePath: {base}\n'
            f"paths:\n  /x:\n    get:\n      parameters:\n"
            f"        - {{name: q, in: query, type: string{enum}}}\n"
            f"      responses: {{'200': {{description: ok}}}}\n")


def test_a_moved_base_path_is_a_note(run_cli, tmp_path) -> None:
    (tmp_path / "old.yaml").write_text(_swagger("/v2"))
    (tmp_path / "new.yaml").write_text(_swagger("/v3/"))
    code, out, _ = run_cli("diff", str(tmp_path / "old.yaml"), str(tmp_path / "new.yaml"),
                           "--no-validate", "--format", "json")
    report = json.loads(out)
    assert (code, report["changes"]) == (0, [])
    assert report["notes"] == ["the base path changed (/v2 -> /v3): every URL moves with it; "
                               "paths are compared below it"]


def test_an_enum_dropped_reads_as_values_no_longer_restricted(run_cli, tmp_path) -> None:
    (tmp_path / "old.yaml").write_text(_swagger("/v2", ", enum: [a, b]"))
    (tmp_path / "new.yaml").write_text(_swagger("/v2"))
    code, out, _ = run_cli("diff", str(tmp_path / "old.yaml"), str(tmp_path / "new.yaml"),
                           "--no-validate", "--format", "json")
    messages = [c["message"] for c in json.loads(out)["changes"]]
    assert code == 1 and any("no longer restricted (were ['a', 'b'])" in m for m in messages)
    code, out, _ = run_cli("diff", str(tmp_path / "new.yaml"), str(tmp_path / "old.yaml"),
                           "--no-validate", "--format", "json")
    messages = [c["message"] for c in json.loads(out)["changes"]]
    assert any("restricted to ['a', 'b'] (any before)" in m for m in messages)


def test_a_maximum_that_goes_down_warns(run_cli) -> None:
    code, out, _ = run_cli("diff", str(EXAMPLES / "old.yaml"), str(EXAMPLES / "new.yaml"),
                           "--no-validate", "--format", "json", "--old-version", "9.99")
    assert any("below the old 9.99" in w for w in json.loads(out)["warnings"])


def test_validator_problems_without_a_path_name_the_operation(run_cli, tmp_path) -> None:
    doc = tmp_path / "api.yaml"
    doc.write_text("openapi: 3.0.3\ninfo: {title: t, version: '1'}\npaths:\n"
                   "  /servers/{id}:\n    get:\n      responses: {'200': {description: ok}}\n")
    code, _, err = run_cli("diff", str(doc), str(doc))
    assert code == 0
    assert f"{doc}:5: Path parameter 'id' for 'get' operation" in err
    assert "(at /paths/~1servers~1{id}/get)" in err


def test_components_that_are_not_a_mapping_do_not_crash(run_cli, tmp_path) -> None:
    doc = tmp_path / "api.yaml"
    doc.write_text("openapi: 3.0.3\ninfo: {title: t, version: '1'}\nsecurity: [{token: []}]\n"
                   "components: [1]\npaths:\n  /x:\n    get:\n"
                   "      responses: {'200': {description: ok}}\n")
    code, _, err = run_cli("diff", str(doc), str(doc), "--no-validate")
    assert code == 0 and "internal error" not in err


def test_diff_help_says_what_old_and_new_can_be(run_cli) -> None:
    """click 8.5 drops the arguments' own help: the command's text carries it."""
    code, out, _ = run_cli("diff", "--help")
    text = " ".join(out.split())
    assert code == 0
    for form in ("OpenAPI 3.x or Swagger 2.0 file", "api-ref source folder", "specs/",
                 "REV:PATH", "HEAD~1:api/openapi.yaml"):
        assert form in text, form
    code, out, _ = run_cli("check", "--help")
    assert code == 0 and "FILES: check only the documents these files touch" in \
        " ".join(out.split())


def test_shell_completion_as_a_user_installs_it() -> None:
    """`--show-completion bash` prints the script a user sources; the script asks the
    installed command for completions through its environment variable."""
    import os
    import shutil
    import subprocess

    exe = shutil.which("needs-microversion", path=os.path.dirname(sys.executable))
    if exe is None:
        pytest.skip("the console script is not installed beside this Python")
    script = subprocess.run([exe, "--show-completion", "bash"], capture_output=True, text=True,
                            timeout=60)
    assert script.returncode == 0 and "_NEEDS_MICROVERSION_COMPLETE" in script.stdout
    env = {**os.environ, "_NEEDS_MICROVERSION_COMPLETE": "complete_bash",
           "COMP_WORDS": "needs-microversion di", "COMP_CWORD": "1"}
    words = subprocess.run([exe], env=env, capture_output=True, text=True, timeout=60)
    assert words.stdout.split() == ["diff"]
    env.update(COMP_WORDS="needs-microversion check --fro", COMP_CWORD="2")
    words = subprocess.run([exe], env=env, capture_output=True, text=True, timeout=60)
    assert words.stdout.split() == ["--from-ref"]
