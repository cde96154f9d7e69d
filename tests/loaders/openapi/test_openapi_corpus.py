"""The peer tool's OpenAPI change pairs, labelled under microversion rules: >= 90% agree."""

from __future__ import annotations

import json

import pytest
import yaml

from conftest import SHARED

CORPUS = SHARED / "corpus" / "openapi"
pytestmark = pytest.mark.skipif(not (CORPUS / "labels.yaml").exists(),
                                reason=f"{CORPUS} is absent (it ships beside the repo in CI)")


def _cases() -> list[dict]:
    if not (CORPUS / "labels.yaml").exists():
        return []
    return yaml.safe_load((CORPUS / "labels.yaml").read_text())["cases"]


def _verdict(case: dict, run_cli) -> str:
    folder = CORPUS / case["id"]
    code, out, err = run_cli("diff", str(folder / case["old"]), str(folder / case["new"]),
                             "--format", "json", "--no-validate")
    assert code in (0, 1), err
    return "microversion" if json.loads(out)["verdict"] == "required" else "no-microversion"


def test_corpus_agreement(run_cli) -> None:
    cases = _cases()
    disagreements = [(c["id"], c["expected"]) for c in cases
                     if _verdict(c, run_cli) != c["expected"]]
    agreement = 1 - len(disagreements) / len(cases)
    print(f"openapi corpus: {len(cases) - len(disagreements)}/{len(cases)} agree; "
          f"disagreements: {disagreements}")
    assert agreement >= 0.90, disagreements
