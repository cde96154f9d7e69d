"""Folders of OpenAPI documents (openstack-openapi's `specs/`), paired by service and major."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from gitrepo import api, commit, make_repo, quiet_git

from needs_microversion.loaders.openapi.folders import Pair, documents, is_spec_folder, pair

__all__ = ["quiet_git"]
LOCKED = "        locked: {type: boolean}\n"


def test_the_document_of_a_service_and_major() -> None:
    names = ["block-storage/v2.yaml", "block-storage/v3.70.yaml", "block-storage/v3.yaml",
             "compute/v2.96.yaml", "compute/v2.yaml", "image/v2.16.yaml", "image/v2.yaml",
             "README.rst.txt"]
    assert documents(names) == {"block-storage v2": "block-storage/v2.yaml",
                                "block-storage v3": "block-storage/v3.70.yaml",
                                "compute v2": "compute/v2.96.yaml",
                                "image v2": "image/v2.16.yaml"}


def test_pairs_by_key_then_by_service() -> None:
    old = ["compute/v2.95.yaml", "compute/v2.yaml", "network/all.yaml", "dns/v2.yaml"]
    new = ["compute/v2.96.yaml", "compute/v2.yaml", "network/v2.yaml", "key-manager/v1.yaml"]
    assert pair(old, new) == [
        Pair("compute v2", "compute/v2.95.yaml", "compute/v2.96.yaml"),
        Pair("network v2", "network/all.yaml", "network/v2.yaml"),
        Pair("dns v2", "dns/v2.yaml", None),
        Pair("key-manager v1", None, "key-manager/v1.yaml")]


def test_what_is_a_spec_folder() -> None:
    assert is_spec_folder(["compute/v2.yaml"])
    assert not is_spec_folder(["index.rst", "parameters.yaml"])  # an api-ref tree
    assert not is_spec_folder(["README.md"])


def _specs(folder: Path, compute: str, extra: str = "") -> None:
    (folder / "compute").mkdir(parents=True)
    (folder / "compute" / compute).write_text(api(extra=extra))
    os.symlink(compute, folder / "compute" / "v2.yaml")
    (folder / "placement").mkdir()
    (folder / "placement" / "v1.yaml").write_text(api())


def test_diff_two_folders_on_disk(tmp_path: Path, run_cli) -> None:
    _specs(tmp_path / "old", "v2.95.yaml")
    _specs(tmp_path / "new", "v2.96.yaml", LOCKED)
    code, out, err = run_cli("diff", str(tmp_path / "old"), str(tmp_path / "new"),
                             "--no-validate", "--format", "json")
    documents_ = json.loads(out)["documents"]
    assert code == 1, err
    assert [(d["service"], d["report"]["verdict"]) for d in documents_] == [
        ("compute v2", "required"), ("placement v1", "not-required")]
    assert documents_[0]["new"].endswith("compute/v2.96.yaml")


def test_check_finds_a_specs_folder(tmp_path: Path, monkeypatch, run_cli) -> None:
    files = {"specs/compute/v2.95.yaml": api(), "specs/placement/v1.yaml": api(),
             "tools/generate.py": "x = 1\n"}
    repo = make_repo(tmp_path / "r", files)
    commit(repo, {"specs/compute/v2.96.yaml": api(extra=LOCKED), "tools/generate.py": "x = 2\n",
                  "specs/compute/v2.95.yaml": None}, "2.96")
    monkeypatch.chdir(repo)
    code, out, err = run_cli("check", "--from-ref", "HEAD~1", "--to-ref", "HEAD",
                             "--no-validate", "--format", "json")
    documents_ = json.loads(out)["documents"]
    assert code == 1, err
    assert [d["service"] for d in documents_] == ["r compute v2", "r placement v1"]


@pytest.mark.parametrize("side", ["old", "new"])
def test_a_document_on_one_side_warns(tmp_path: Path, run_cli, side: str) -> None:
    _specs(tmp_path / "old", "v2.95.yaml")
    _specs(tmp_path / "new", "v2.96.yaml")
    (tmp_path / side / "dns").mkdir()
    (tmp_path / side / "dns" / "v2.yaml").write_text(api())
    code, _, err = run_cli("diff", str(tmp_path / "old"), str(tmp_path / "new"),
                           "--no-validate")
    assert code == 0 and f"dns v2 is only in the {side} folder" in err
