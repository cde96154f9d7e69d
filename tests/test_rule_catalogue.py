"""Run the rule catalogue in rules/ and keep it one to one with the rule registry.

Each case is a folder rules/<rule-id>/<case-name>/ with old.yaml, new.yaml and case.yaml (the
expected verdict, the exact finding ids and the exit code; see rules/README.md). One
parametrised test runs every case through ``needs_microversion.cli.main`` the way a user would,
forwards and, when case.yaml has ``swapped``, with old and new exchanged.

The engine is imported inside the tests, not at module level, so the data checks on the
catalogue itself (well-formed case.yaml, valid OpenAPI documents) run even while the engine is
broken or missing.
"""

from __future__ import annotations

import inspect
import json
import re
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import yaml

CATALOGUE = Path(__file__).resolve().parent.parent / "rules"

# The flow chart's six questions in the order the seeds ask them, then the contract items the
# chart does not ask about. The judge asks in this order; the first rule that answers wins.
RULE_ORDER = (
    "silent-failure",
    "prior-500",
    "catch-up",  # a gate before the contract questions: api-ref documenting late
    "correction",  # an existing element changed at every version: the document corrected
    "coverage",  # the code declares a schema where it declared none
    "response-schema",  # only the code's response schema changed (it describes)
    "unread-value",  # a value the code computes and the tool cannot read: for review
    "announced",  # prose naming a new microversion (api-ref records some changes only so)
    "status-code",
    "attribute",
    "query-parameter",
    "resource-url",
    "header",
    "allowed-values",
    "media-type",
    "security",
    "experimental",  # asked of the chart's answer: experimental APIs change freely (manila)
    "documentation-only",  # asked of the chart's answer: no code changed, no API changed
    "version-discovery",  # asked of the chart's answer: read before any microversion
)

# Strongest first: the overall verdict is the strongest verdict of any finding.
VERDICTS = ("required", "bug-fix", "not-required")

CASE_KEYS = {"description", "source", "args", "verdict", "findings", "exit"}
OPTIONAL_CASE_KEYS = {"gated", "versions", "swapped", "repository", "invalid"}
# `invalid: <why>`: a case whose documents say what only an api-ref tree can (a path row the
# URL has no placeholder for); the test checks they really are invalid OpenAPI.
# A case with `repository` runs as `check` in a git repository built around the two
# documents: its version file at both sides, a release, history entries, release notes, and
# whether the change touches code (see rules/README.md).
REPOSITORY_KEYS = {"versions", "released", "history", "notes", "code", "project", "base-code"}
# `project: nova`: the version file and history document where nova keeps them, so the
# code it declares is read (`base-code`: {path: text} written at both revisions; `code` as a
# mapping: the files the change writes).
PROJECT_FILES = {"nova": ("nova/api/openstack/api_version_request.py",
                          "nova/api/openstack/compute/rest_api_version_history.rst")}
SWAPPED_KEYS = {"verdict", "findings", "exit"}
OPTIONAL_SWAPPED_KEYS = {"gated", "versions"}
VERSION_KEYS = {"old": "old_version", "new": "new_version", "bumped": "bumped"}

# After the first line (the question itself), these headings must follow, each on its own
# line, in this order. "Why" may go on ("Why it needs a microversion", "Why it is a bug fix").
DOCSTRING_HEADINGS = ("What it checks", "Why", "Example", "No microversion needed when", "Options")


@dataclass(frozen=True)
class Case:
    rule: str
    name: str
    folder: Path
    spec: dict[str, Any]

    @property
    def id(self) -> str:
        return f"{self.rule}-{self.name}"

    @property
    def old(self) -> Path:
        return self.folder / "old.yaml"

    @property
    def new(self) -> Path:
        return self.folder / "new.yaml"

    def runs(self) -> dict[str, tuple[Path, Path, dict[str, Any]]]:
        """Direction -> (old document, new document, expectation)."""
        runs = {"forward": (self.old, self.new, self.spec)}
        if "swapped" in self.spec:
            runs["swapped"] = (self.new, self.old, self.spec["swapped"])
        return runs


def rule_folders() -> list[str]:
    return sorted(path.name for path in CATALOGUE.iterdir() if path.is_dir())


def load_cases() -> list[Case]:
    cases = []
    for case_file in sorted(CATALOGUE.glob("*/*/case.yaml")):
        folder = case_file.parent
        spec = yaml.safe_load(case_file.read_text(encoding="utf-8"))
        cases.append(Case(folder.parent.name, folder.name, folder, spec))
    return cases


CASES = load_cases()
CASE_PARAMS = [pytest.param(case, id=case.id) for case in CASES]


def run_cli(
    capsys: pytest.CaptureFixture[str], old: Path, new: Path, args: list[str],
    repository: dict[str, Any] | None = None, workdir: Path | None = None,
) -> tuple[int, dict[str, Any]]:
    from needs_microversion.cli import main

    argv = ["diff", str(old), str(new), "--format", "json", "--no-validate", *args]
    if repository is not None:
        assert workdir is not None
        return run_in_repository(capsys, old, new, args, repository, workdir)
    try:
        code = main(argv)
    except SystemExit as exc:  # tolerate a CLI framework that exits instead of returning
        code = exc.code if isinstance(exc.code, int) else 0 if exc.code is None else 2
    captured = capsys.readouterr()
    try:
        report = json.loads(captured.out)
    except json.JSONDecodeError:
        pytest.fail(
            f"no JSON report for {argv}: exit {code}\n"
            f"stdout: {captured.out}\nstderr: {captured.err}"
        )
    return code, report


def run_in_repository(
    capsys: pytest.CaptureFixture[str], old: Path, new: Path, args: list[str],
    repository: dict[str, Any], workdir: Path,
) -> tuple[int, dict[str, Any]]:
    """`check --from-ref --to-ref` over a repository whose one commit changes `old` into
    `new`: `openapi.yaml` at the top, a version file `api/api_version_request.py` under a
    package `service`, its history document, and a release tag when `released` is given."""
    import os
    import subprocess

    from needs_microversion.cli import main

    top = workdir / "repository"
    top.mkdir()
    env = {**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@e",
           "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@e",
           "GIT_CONFIG_GLOBAL": os.devnull, "GIT_CONFIG_NOSYSTEM": "1"}

    def git(*argv: str) -> str:
        return subprocess.run(["git", "-C", str(top), *argv], check=True, env=env,
                              capture_output=True, text=True).stdout.strip()

    version_file, history_doc = PROJECT_FILES.get(
        repository.get("project", ""), ("service/api/api_version_request.py",
                                         "service/api/rest_api_version_history.rst"))
    history = top / history_doc

    def write(files: dict[str, str]) -> None:
        for name, text in files.items():
            (top / name).parent.mkdir(parents=True, exist_ok=True)
            (top / name).write_text(text)

    write(repository.get("base-code", {}))

    def commit(document: Path, version: str, entries: list[str], message: str) -> str:
        (top / "openapi.yaml").write_text(document.read_text(encoding="utf-8"))
        versions = top / version_file
        versions.parent.mkdir(parents=True, exist_ok=True)
        versions.write_text(f"_MAX_API_VERSION = '{version}'\n")
        history.write_text("History\n=======\n\n" + "".join(
            f"{entry}\n{'-' * len(entry)}\n\nA change.\n\n" for entry in entries))
        git("add", "-A")
        git("commit", "-q", "--allow-empty", "-m", message)
        return git("rev-parse", "HEAD")

    versions = repository["versions"]
    git("init", "-q", "-b", "main")
    if "released" in repository:
        commit(old, repository["released"], [], "released")
        git("tag", "1.0.0")
    base = commit(old, versions["old"], [], "base")
    for index, version in enumerate(repository.get("notes", [])):
        note = top / "releasenotes" / "notes" / f"note-{index}.yaml"
        note.parent.mkdir(parents=True, exist_ok=True)
        note.write_text(f"---\nfeatures:\n  - Adds microversion {version}.\n")
    code = repository.get("code", True)
    if isinstance(code, dict):  # the files the change writes
        write(code)
    elif code:  # true: code that names nothing of the documents; a string: that code
        (top / version_file).parent.joinpath("handler.py").write_text(
            code if isinstance(code, str) else "# the API's code changed\n")
    head = commit(new, versions["new"], repository.get("history", []), "change")
    cwd = Path.cwd()
    os.chdir(top)
    try:
        code = main(["check", "--from-ref", base, "--to-ref", head, "--format", "json",
                     "--no-validate", *args])
    finally:
        os.chdir(cwd)
    captured = capsys.readouterr()
    # The documents' report (beside it, the code's own: `project: nova` reads the code).
    [document] = [d for d in json.loads(captured.out)["documents"]
                  if not d["service"].endswith(" code")]
    return code, document["report"]


def expected_outcome(expectation: dict[str, Any]) -> dict[str, Any]:
    outcome: dict[str, Any] = {
        "verdict": expectation["verdict"],
        "findings": sorted(expectation["findings"]),
        "exit": expectation["exit"],
    }
    if "gated" in expectation:
        counts = Counter(expectation["findings"])
        outcome["gated"] = {
            fid: [gated] * counts[fid] for fid, gated in expectation["gated"].items()
        }
    if "versions" in expectation:
        outcome["versions"] = dict(expectation["versions"])
    return outcome


def observed_outcome(
    code: int, report: dict[str, Any], expectation: dict[str, Any]
) -> dict[str, Any]:
    """The report reduced to what the expectation asserts (exact ids, never message text)."""
    changes = report["changes"]
    outcome: dict[str, Any] = {
        "verdict": report["verdict"],
        "findings": sorted(change["id"] for change in changes),
        "exit": code,
    }
    if "gated" in expectation:
        outcome["gated"] = {
            fid: [change["gated"] for change in changes if change["id"] == fid]
            for fid in expectation["gated"]
        }
    if "versions" in expectation:
        outcome["versions"] = {key: report[VERSION_KEYS[key]] for key in expectation["versions"]}
    return outcome


def report_inconsistencies(report: dict[str, Any]) -> list[str]:
    """Per-change facts that must agree with the overall verdict and the registry."""
    from needs_microversion.rules import RULES

    declared_by = {fid: rule.id for rule in RULES for fid in rule.finding_ids}
    problems = []
    for change in report["changes"]:
        owner = declared_by.get(change["id"])
        if owner != change["rule"]:
            problems.append(
                f"{change['id']} reported under {change['rule']!r}, declared by {owner!r}"
            )
        if change["verdict"] not in VERDICTS:
            problems.append(f"{change['id']} has verdict {change['verdict']!r}")
    verdicts = {change["verdict"] for change in report["changes"]}
    strongest = next((verdict for verdict in VERDICTS if verdict in verdicts), "not-required")
    if report["verdict"] != strongest:
        problems.append(
            f"overall verdict {report['verdict']!r}, strongest finding verdict {strongest!r}"
        )
    return problems


@pytest.mark.parametrize("case", CASE_PARAMS)
def test_case(case: Case, capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    expected: dict[str, dict[str, Any]] = {}
    observed: dict[str, dict[str, Any]] = {}
    problems: dict[str, list[str]] = {}
    for direction, (old, new, expectation) in case.runs().items():
        workdir = tmp_path / direction
        workdir.mkdir()
        repository = case.spec.get("repository")
        if repository is not None and direction == "swapped":  # the versions swap too
            versions = repository["versions"]
            repository = {**repository, "versions": {"old": versions["new"],
                                                     "new": versions["old"]}}
        code, report = run_cli(capsys, old, new, case.spec["args"], repository, workdir)
        expected[direction] = expected_outcome(expectation)
        observed[direction] = observed_outcome(code, report, expectation)
        problems[direction] = report_inconsistencies(report)
    assert observed == expected
    assert problems == {direction: [] for direction in problems}


# --- the catalogue as data (no engine needed) ------------------------------------------------


def expectation_problems(
    expectation: dict[str, Any], keys: set[str], optional: set[str]
) -> list[str]:
    problems = []
    missing, unknown = keys - expectation.keys(), expectation.keys() - keys - optional
    if missing:
        problems.append(f"missing keys {sorted(missing)}")
    if unknown:
        problems.append(f"unknown keys {sorted(unknown)}")
    verdict, findings, code = (
        expectation.get("verdict"),
        expectation.get("findings"),
        expectation.get("exit"),
    )
    if verdict not in VERDICTS:
        problems.append(f"verdict {verdict!r} is not one of {VERDICTS}")
    if not isinstance(findings, list) or not all(isinstance(fid, str) for fid in findings):
        problems.append("findings must be a list of finding ids")
    elif findings != sorted(findings):
        problems.append(f"findings must be sorted: {sorted(findings)}")
    elif not findings and verdict != "not-required":
        problems.append("no findings means verdict not-required")
    if code not in (0, 1):
        problems.append(f"exit {code!r}: a case expects 0 or 1 (2 is an input error)")
    elif verdict != "required" and code != 0:
        problems.append(f"verdict {verdict} exits 0")
    if "gated" in expectation and not set(expectation["gated"]) <= set(findings or []):
        problems.append("gated names a finding id that is not in findings")
    if "versions" in expectation and not set(expectation["versions"]) <= VERSION_KEYS.keys():
        problems.append(f"versions takes only {sorted(VERSION_KEYS)}")
    return problems


@pytest.mark.parametrize("case", CASE_PARAMS)
def test_case_files_are_well_formed(case: Case) -> None:
    from openapi_spec_validator import validate

    spec = case.spec
    problems = expectation_problems(spec, CASE_KEYS, OPTIONAL_CASE_KEYS)
    if "swapped" in spec:
        problems += [
            f"swapped: {p}"
            for p in expectation_problems(spec["swapped"], SWAPPED_KEYS, OPTIONAL_SWAPPED_KEYS)
        ]
    for key in ("description", "source"):
        if not isinstance(spec.get(key), str) or not spec[key].strip():
            problems.append(f"{key} must be a non-empty string")
    if not isinstance(spec.get("args"), list) or not all(
        isinstance(arg, str) for arg in spec["args"]
    ):
        problems.append("args must be a list of strings")
    repository = spec.get("repository")
    if repository is not None:
        if not isinstance(repository, dict) or not set(repository) <= REPOSITORY_KEYS \
                or set(repository.get("versions", {})) != {"old", "new"}:
            problems.append(f"repository takes {sorted(REPOSITORY_KEYS)}, with versions "
                            "{old, new}")
    invalid = spec.get("invalid")
    if invalid is not None and (not isinstance(invalid, str) or not invalid.strip()):
        problems.append("invalid must say why the documents are not valid OpenAPI")
    assert problems == []
    failures = []
    for document in (case.old, case.new):
        try:
            validate(yaml.safe_load(document.read_text(encoding="utf-8")))
        except Exception as error:  # noqa: BLE001  (any validation error will do)
            failures.append(f"{document.name}: {error}")
    if invalid is None:
        assert failures == []
    else:
        assert failures, "case.yaml says `invalid`, but both documents validate"


def test_catalogue_has_only_case_folders() -> None:
    strays = [
        str(path.relative_to(CATALOGUE))
        for path in CATALOGUE.glob("*/*")
        if not path.is_dir()
        or {p.name for p in path.iterdir()} != {"old.yaml", "new.yaml", "case.yaml"}
    ]
    strays += [
        str(path.relative_to(CATALOGUE))
        for path in CATALOGUE.iterdir()
        if path.is_file() and path.name != "README.md"
    ]
    assert strays == []


# --- meta-tests: the catalogue and the registry stay one to one ------------------------------


def test_catalogue_folders_match_registry() -> None:
    from needs_microversion.rules import RULES, get

    assert rule_folders() == sorted(rule.id for rule in RULES)
    assert all(get(rule.id) is rule for rule in RULES)


def test_registry_is_in_chart_order() -> None:
    from needs_microversion.rules import RULES

    assert tuple(rule.id for rule in RULES) == RULE_ORDER
    orders = [rule.order for rule in RULES]
    assert orders == sorted(set(orders))


def test_every_declared_finding_id_has_a_case() -> None:
    from needs_microversion.rules import RULES

    used = {fid for case in CASES for fid in case.spec["findings"]}
    assert {rule.id: [fid for fid in rule.finding_ids if fid not in used] for rule in RULES} == {
        rule.id: [] for rule in RULES
    }


def test_cases_use_only_declared_finding_ids() -> None:
    from needs_microversion.rules import RULES

    declared = {fid for rule in RULES for fid in rule.finding_ids}
    undeclared = {
        f"{case.id} ({direction})": sorted(set(expectation["findings"]) - declared)
        for case in CASES
        for direction, (_, _, expectation) in case.runs().items()
        if set(expectation["findings"]) - declared
    }
    assert undeclared == {}


def is_heading(line: str, heading: str) -> bool:
    """`Why`, `Why:`, `Why it needs a microversion` are headings; a sentence is not."""
    return re.fullmatch(rf"{re.escape(heading)}( [^.:]*)?:?", line) is not None


@pytest.mark.parametrize("rule_id", RULE_ORDER)
def test_rule_docstring_has_the_headings(rule_id: str) -> None:
    from needs_microversion.rules import get

    rule = get(rule_id)
    lines = [line.strip() for line in (inspect.getdoc(rule) or "").splitlines()]
    assert lines and lines[0] == rule.question
    position = 0
    missing: list[str] = []
    for heading in DOCSTRING_HEADINGS:
        found = next(
            (i for i in range(position + 1, len(lines)) if is_heading(lines[i], heading)), None
        )
        if found is None:
            missing.append(heading)
        else:
            position = found
    assert missing == [], f"{rule_id}: headings missing or out of order: {missing}"


def test_readme_lists_every_rule() -> None:
    """Every rule id is in rules/README.md; the six chart rules with their question verbatim."""
    from needs_microversion.rules import RULES

    readme = (CATALOGUE / "README.md").read_text(encoding="utf-8")
    chart = ("silent-failure", "prior-500", "status-code", "attribute", "query-parameter",
             "resource-url")
    unlisted = [
        rule.id
        for rule in RULES
        if f"`{rule.id}`" not in readme or (rule.id in chart and rule.question not in readme)
    ]
    assert unlisted == []
