"""Golden verdicts: what `diff --format json` answers today for every known pair.

tests/data/golden_verdicts.json records, for every api-ref pair of ../shared/corpus/apiref/,
every OpenAPI pair of ../shared/corpus/openapi/ (run as
tests/loaders/apiref/test_apiref_labels.py and tests/loaders/openapi/test_openapi_corpus.py
run them) and every case of the rule catalogue in rules/ (with its args, forwards and,
where case.yaml has `swapped`, swapped), the verdict, the exit code and
the sorted finding ids. The tests recompute each and compare: a restructuring that changes
any of them changes behaviour.

Verdicts WILL change on purpose (a better loader, a new rule). Then regenerate the file and
review its diff before committing it:

    .venv/bin/python tests/test_golden_verdicts.py --update
    git diff tests/data/golden_verdicts.json

The corpus entries are skipped, with a reason, where ../shared is absent; the catalogue
entries always run.
"""

from __future__ import annotations

import contextlib
import io
import json
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

ROOT = Path(__file__).resolve().parent.parent
SHARED = ROOT.parent / "shared"
APIREF = SHARED / "corpus" / "apiref"
OPENAPI = SHARED / "corpus" / "openapi"
CATALOGUE = ROOT / "rules"
GOLDEN = Path(__file__).resolve().parent / "data" / "golden_verdicts.json"


def pairs() -> dict[str, list[str]]:
    """Entry name -> the `diff` arguments after `diff`; corpus entries only where present."""
    found: dict[str, list[str]] = {}
    if (APIREF / "labels.yaml").exists():
        for item in yaml.safe_load((APIREF / "labels.yaml").read_text())["items"]:
            folder = APIREF / item["id"]
            found[f"apiref/{item['id']}"] = [str(folder / "old"), str(folder / "new")]
    if (OPENAPI / "labels.yaml").exists():
        for case in yaml.safe_load((OPENAPI / "labels.yaml").read_text())["cases"]:
            folder = OPENAPI / case["id"]
            found[f"openapi/{case['id']}"] = [str(folder / case["old"]),
                                              str(folder / case["new"]), "--no-validate"]
    for case_file in sorted(CATALOGUE.glob("*/*/case.yaml")):
        folder = case_file.parent
        spec = yaml.safe_load(case_file.read_text(encoding="utf-8"))
        if "repository" in spec:  # judged with a repository: the catalogue test runs it
            continue
        name = f"rules/{folder.parent.name}/{folder.name}"
        old, new = str(folder / "old.yaml"), str(folder / "new.yaml")
        found[name] = [old, new, "--no-validate", *spec["args"]]
        if "swapped" in spec:
            found[f"{name} (swapped)"] = [new, old, "--no-validate", *spec["args"]]
    return found


def verdict(args: list[str]) -> dict[str, Any]:
    """Run `diff ARGS --format json` in-process: verdict, exit code, sorted finding ids."""
    from needs_microversion.cli import main

    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(["diff", *args, "--format", "json"])
    if code not in (0, 1):
        raise AssertionError(f"diff {args}: exit {code}: {err.getvalue()}")
    report = json.loads(out.getvalue())
    return {"verdict": report["verdict"], "exit": code,
            "findings": sorted(change["id"] for change in report["changes"])}


def _golden() -> dict[str, Any]:
    return json.loads(GOLDEN.read_text(encoding="utf-8")) if GOLDEN.exists() else {}


PAIRS = pairs()
GOLDEN_VERDICTS = _golden()


@pytest.mark.parametrize("name", sorted(GOLDEN_VERDICTS))
def test_golden_verdict(name: str) -> None:
    if name not in PAIRS:
        pytest.skip(f"{name}: its pair is absent ({SHARED} ships beside the repo in CI)")
    assert verdict(PAIRS[name]) == GOLDEN_VERDICTS[name]


def test_every_pair_has_a_golden_verdict() -> None:
    """A new corpus pair or catalogue case needs the file regenerated (see the docstring)."""
    assert sorted(set(PAIRS) - set(GOLDEN_VERDICTS)) == []


def update() -> None:
    if not (APIREF / "labels.yaml").exists() or not (OPENAPI / "labels.yaml").exists():
        raise SystemExit(f"{SHARED / 'corpus'} is absent: the file would lose its corpus entries")
    golden = {name: verdict(args) for name, args in sorted(PAIRS.items())}
    # One line per entry: a changed verdict is one changed line in the diff.
    lines = [f"{json.dumps(name)}: {json.dumps(golden[name], sort_keys=True)}" for name in golden]
    GOLDEN.write_text("{\n" + ",\n".join(lines) + "\n}\n", encoding="utf-8")
    print(f"{GOLDEN}: {len(golden)} verdicts")


if __name__ == "__main__":
    if sys.argv[1:] != ["--update"]:
        raise SystemExit(f"usage: {sys.argv[0]} --update")
    update()
