"""`check` with no configuration, in repositories laid out like the real services: the
documents, the version file, the release state and the history are found and used."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest
from repositories import (
    IRONIC_NODES, IRONIC_PARAMETERS, NOVA_PARAMETERS, NOVA_SERVERS, PLACEMENT_PARAMETERS,
    PLACEMENT_TRAITS, ZUN_CONTAINERS, ZUN_PARAMETERS, Project, cinder_like, git, ironic_like,
    nova_before_api_ref, nova_like, placement_like, zun_like)

from needs_microversion.loaders.git import Repo
from needs_microversion.repository.layout import detect
from needs_microversion.repository.revision import Revision

LOCKED = ("locked:\n  description: Whether the server is locked.\n  in: body\n"
          "  required: true\n  type: boolean\n")


def check(run_cli, monkeypatch, project: Project, old: str, new: str, *args: str
          ) -> tuple[int, list[dict[str, Any]], str]:
    monkeypatch.chdir(project.top)
    code, out, err = run_cli("check", "--from-ref", old, "--to-ref", new, "--format", "json",
                             "--no-validate", *args)
    assert code in (0, 1), err
    return code, [d["report"] for d in json.loads(out)["documents"]], err


def ids(report: dict[str, Any]) -> list[str]:
    return sorted(c["id"] for c in report["changes"])


def nova_locked(version: str | None) -> dict[str, str]:
    """The nova-like tree with a `locked` response attribute (from `version`)."""
    bound = f"  min_version: {version}\n" if version else ""
    return {"api-ref/source/parameters.yaml": NOVA_PARAMETERS + LOCKED + bound,
            "api-ref/source/servers.inc": NOVA_SERVERS.replace(
                "  - status: status\n", "  - status: status\n  - locked: locked\n")}


# -- nova: min_version in parameters.yaml ---------------------------------------------------

def test_a_microversion_with_its_bump(tmp_path: Path, monkeypatch, run_cli) -> None:
    repo = nova_like(tmp_path / "nova")
    base = repo.commit({}, "base")
    head = repo.commit({**nova_locked("2.2"), "nova/api/openstack/compute/servers.py":
                        "# returns locked\n"}, "2.2", max_version="2.2", history="2.2",
                       note="Microversion 2.2 adds ``locked``.")
    code, [report], _ = check(run_cli, monkeypatch, repo, base, head)
    assert code == 0 and report["verdict"] == "required" and ids(report) == ["attribute-added"]
    [change] = report["changes"]
    assert change["gated"] == "2.2" and change["provided"]
    assert report["evidence"][0] == ("version file nova/api/openstack/api_version_request.py: "
                                     "2.1 -> 2.2 (raised by one)")
    assert report["evidence"][1] == "released: 2.1 (release tag 1.0.0)"


def test_the_same_change_with_the_bump_forgotten_fails(tmp_path: Path, monkeypatch,
                                                       run_cli) -> None:
    repo = nova_like(tmp_path / "nova")
    base = repo.commit({}, "base")
    head = repo.commit({**nova_locked("2.2"), "nova/api/openstack/compute/servers.py":
                        "# returns locked\n"}, "2.2, not bumped", history="2.2")
    code, [report], _ = check(run_cli, monkeypatch, repo, base, head)
    assert code == 1 and ids(report) == ["attribute-added", "version-not-served"]
    assert report["bookkeeping"]["next_version"] == "2.2"
    assert all(not c["provided"] for c in report["changes"])
    monkeypatch.chdir(repo.top)
    _, out, _ = run_cli("check", "--from-ref", base, "--to-ref", head, "--no-validate")
    assert "next microversion: 2.2" in out


def nova_locked_and_pinned() -> dict[str, str]:
    """`locked` from 2.2 and `pinned` beside it with no version note."""
    tree = nova_locked("2.2")
    tree["api-ref/source/parameters.yaml"] += LOCKED.replace("locked", "pinned")
    tree["api-ref/source/servers.inc"] = tree["api-ref/source/servers.inc"].replace(
        "  - locked: locked\n", "  - locked: locked\n  - pinned: pinned\n")
    return tree


def test_an_addition_without_a_note_beside_one_microversion_joins_it(
        tmp_path: Path, monkeypatch, run_cli) -> None:
    repo = nova_like(tmp_path / "nova")
    base = repo.commit({}, "base")
    head = repo.commit({**nova_locked_and_pinned(), "nova/api/openstack/compute/servers.py":
                        "# locked, pinned\n"}, "2.2", max_version="2.2", history="2.2")
    code, [report], _ = check(run_cli, monkeypatch, repo, base, head)
    assert (code, report["verdict"]) == (0, "required")
    by_pointer = {c["pointer"]: c for c in report["changes"]}
    assert {p: (c["gated"], c["provided"], c["inferred"]) for p, c in by_pointer.items()} == {
        "/locked": ("2.2", True, False), "/pinned": ("2.2", True, True)}


def test_an_addition_without_a_note_beside_a_forgotten_microversion_still_fails(
        tmp_path: Path, monkeypatch, run_cli) -> None:
    repo = nova_like(tmp_path / "nova")
    base = repo.commit({}, "base")
    head = repo.commit({**nova_locked_and_pinned(), "nova/api/openstack/compute/servers.py":
                        "# locked, pinned\n"}, "2.2, the bump forgotten")
    code, [report], _ = check(run_cli, monkeypatch, repo, base, head)
    assert code == 1
    added = [c for c in report["changes"] if c["id"] == "attribute-added"]
    assert [(c["pointer"], c["gated"], c["provided"]) for c in added] == [
        ("/locked", "2.2", False), ("/pinned", "2.2", False)]


def test_documentation_ahead_of_the_code_needs_no_microversion_itself(
        tmp_path: Path, monkeypatch, run_cli) -> None:
    """senlin documented 1.7's services API before the code raised its maximum: a change of
    documents alone changes no API; the change that raises the version file needs 2.2."""
    repo = nova_like(tmp_path / "nova")
    base = repo.commit({}, "base")
    head = repo.commit(nova_locked("2.2"), "api-ref: document 2.2 before its code")
    code, [report], _ = check(run_cli, monkeypatch, repo, base, head)
    assert (code, report["verdict"], ids(report)) == (0, "not-required", ["documentation-only"])
    assert "the code does not serve 2.2 yet (its maximum is 2.1)" in report["changes"][0][
        "message"]


def test_documentation_only_catches_up(tmp_path: Path, monkeypatch, run_cli) -> None:
    repo = nova_like(tmp_path / "nova")
    base = repo.commit({}, "base")
    head = repo.commit(nova_locked(None), "document locked, which the server returns")
    code, [report], _ = check(run_cli, monkeypatch, repo, base, head)
    assert code == 0 and ids(report) == ["documentation-only"]
    assert "documentation only" in report["evidence"][-1]


def test_a_follow_up_joins_the_unreleased_microversion(tmp_path: Path, monkeypatch,
                                                       run_cli) -> None:
    repo = nova_like(tmp_path / "nova")
    bump = repo.commit({"nova/api/openstack/compute/servers.py": "# locked\n"}, "2.2 code",
                       max_version="2.2", history="2.2")
    docs = repo.commit(nova_locked("2.2"), "api-ref: document 2.2")
    code, [report], _ = check(run_cli, monkeypatch, repo, bump, docs)
    assert code == 0 and report["verdict"] == "required" and ids(report) == ["attribute-added"]
    assert report["changes"][0]["provided"] and "2.2 is not released yet" in report["notes"][0]
    # Once 2.2 shipped, documenting it is catch-up.
    repo.tag("2.0.0.0rc1")
    late = repo.commit({**nova_locked("2.2"), "api-ref/source/parameters.yaml":
                        NOVA_PARAMETERS + LOCKED + "  min_version: 2.2\n" +
                        LOCKED.replace("locked", "pinned") + "  min_version: 2.2\n",
                        "api-ref/source/servers.inc": NOVA_SERVERS.replace(
                            "  - status: status\n", "  - status: status\n  - locked: locked\n"
                            "  - pinned: pinned\n")}, "document pinned (2.2) late")
    code, [report], _ = check(run_cli, monkeypatch, repo, docs, late)
    assert code == 0 and ids(report) == ["documents-released-microversion"]


def test_a_clone_without_a_checkout(tmp_path: Path, monkeypatch, run_cli) -> None:
    repo = nova_like(tmp_path / "nova")
    base = repo.commit({}, "base")
    head = repo.commit({**nova_locked("2.2"), "nova/api/openstack/compute/servers.py": "#\n"},
                       "2.2", max_version="2.2")
    clone = tmp_path / "ci"
    subprocess.run(["git", "clone", "-q", "--no-checkout", str(repo.top), str(clone)],
                   check=True)
    assert not (clone / "api-ref").exists()
    code, [report], _ = check(run_cli, monkeypatch, Project(clone, "", str, None), base, head)
    assert code == 0 and ids(report) == ["attribute-added"] and report["changes"][0]["provided"]


# -- the other layouts ----------------------------------------------------------------------

def test_ironic_versionadded_notes(tmp_path: Path, monkeypatch, run_cli) -> None:
    repo = ironic_like(tmp_path / "ironic")
    base = repo.commit({}, "base")
    nodes = IRONIC_NODES.replace(
        "Shows details for a node.\n",
        "Shows details for a node.\n\n.. versionadded:: 1.2\n   Introduced the ``owner`` field.\n"
    ).replace("    - name: node_name\n", "    - name: node_name\n    - owner: owner\n")
    params = IRONIC_PARAMETERS + ("owner:\n  description: The owner.\n  in: body\n"
                                  "  required: false\n  type: string\n")
    head = repo.commit({"api-ref/source/nodes.inc": nodes, "api-ref/source/parameters.yaml":
                        params, "ironic/api/controllers/v1/node.py": "# owner\n"}, "owner",
                       max_version="1.2", history="1.2 (Lima)")
    code, [report], _ = check(run_cli, monkeypatch, repo, base, head)
    assert code == 0 and ids(report) == ["attribute-added"]
    assert report["changes"][0]["gated"] == "1.2"


def test_placement_ranged_sections(tmp_path: Path, monkeypatch, run_cli) -> None:
    repo = placement_like(tmp_path / "placement")
    base = repo.commit({}, "base")
    # placement's way: one response section per range of microversions.
    ranged = PLACEMENT_TRAITS.replace("Response\n--------\n", "Response (microversions 1.0 - 1.1)"
                                      "\n----------------------------------\n")
    traits = ranged + ("\nResponse (microversions 1.2 - )\n-------------------------------\n\n"
                       ".. rest_parameters:: parameters.yaml\n\n  - total: total\n"
                       "  - traits: traits\n")
    params = PLACEMENT_PARAMETERS + ("total:\n  in: body\n  required: true\n"
                                     "  type: integer\n  description: How many.\n")
    head = repo.commit({"api-ref/source/traits.inc": traits, "api-ref/source/parameters.yaml":
                        params, "placement/handlers/trait.py": "# total\n"}, "total",
                       max_version="1.2")
    code, [report], _ = check(run_cli, monkeypatch, repo, base, head)
    assert code == 0 and report["verdict"] == "required"
    assert {c["gated"] for c in report["changes"]} == {"1.2"}


def test_a_service_tree_named_after_the_project_and_moved(tmp_path: Path, monkeypatch,
                                                          run_cli) -> None:
    """Placement's repository began as a copy of nova's: nova's `api-ref/` beside
    `placement-api-ref/`, which was then moved in its place. The project's own tree is the
    document, and the move compares it with where it was."""
    repo = placement_like(tmp_path / "placement")
    own = {f"placement-api-ref/source/{name}": (repo.top / "api-ref/source" / name).read_text()
           for name in ("index.rst", "traits.inc", "parameters.yaml")}
    compute = {"api-ref/source/index.rst": ".. include:: servers.inc\n",
               "api-ref/source/servers.inc": NOVA_SERVERS,
               "api-ref/source/parameters.yaml": NOVA_PARAMETERS}
    both = repo.commit({**own, **compute}, "a copy of nova's repository")
    assert detect(Revision.at(Repo(repo.top), both)).documents == ("placement-api-ref/source",)
    # nova's reference changes: not this project's documents
    compute_only = repo.commit({"api-ref/source/servers.inc": NOVA_SERVERS.replace(
        "  - status: status\n", "")}, "nova's servers")
    code, [report], _ = check(run_cli, monkeypatch, repo, both, compute_only)
    assert (code, report["verdict"], report["changes"]) == (0, "not-required", [])
    moved = repo.commit({**{name: None for name in (*own, *compute)},
                         **{name.replace("placement-api-ref", "api-ref"): text
                            for name, text in own.items()}}, "move the api-ref directories")
    code, [report], err = check(run_cli, monkeypatch, repo, compute_only, moved)
    assert (code, report["verdict"], report["changes"]) == (0, "not-required", [])
    assert report["bookkeeping"]["old_max"] == "1.1" and "nothing to compare" not in err


def zun_name_type(kind: str) -> dict[str, str]:
    return {"api-ref/source/parameters.yaml": ZUN_PARAMETERS + (
        "hostname:\n  description: The host name.\n  in: body\n  required: true\n"
        f"  type: {kind}\n"),
        "api-ref/source/containers.inc": ZUN_CONTAINERS.replace(
            "  - name: name\n", "  - name: name\n  - hostname: hostname\n")}


def test_zun_has_no_version_markers(tmp_path: Path, monkeypatch, run_cli) -> None:
    repo = zun_like(tmp_path / "zun")
    base = repo.commit({}, "base")
    bumped = repo.commit({**zun_name_type("string"), "zun/api/controllers/v1/c.py": "#\n"},
                         "hostname", max_version="1.2", history="1.2")
    code, [report], _ = check(run_cli, monkeypatch, repo, base, bumped)
    assert code == 0 and ids(report) == ["attribute-added"]
    assert report["changes"][0]["gated"] == "1.2" and report["changes"][0]["inferred"]
    assert any("write no microversions" in line for line in report["evidence"])
    # The same change with code and no bump: the forgotten microversion.
    repo2 = zun_like(tmp_path / "zun2")
    base2 = repo2.commit({}, "base")
    forgot = repo2.commit({**zun_name_type("string"), "zun/api/controllers/v1/c.py": "#\n"},
                          "hostname, no bump")
    code, [report], _ = check(run_cli, monkeypatch, repo2, base2, forgot)
    assert code == 1 and ids(report) == ["attribute-added"]
    assert report["bookkeeping"]["next_version"] == "1.2"
    # Documentation only: catch-up.
    docs = repo2.commit(zun_name_type("integer"), "hostname is an integer")
    code, [report], _ = check(run_cli, monkeypatch, repo2, forgot, docs)
    assert code == 0 and ids(report) == ["documentation-only"]


def test_cinder_versioned_subtrees(tmp_path: Path, monkeypatch, run_cli) -> None:
    repo = cinder_like(tmp_path / "cinder")
    base = repo.commit({}, "base")
    inc = (repo.top / "api-ref/source/v3/volumes.inc").read_text().replace(
        "   - id: id\n", "   - id: id\n   - size: size\n")
    params = (repo.top / "api-ref/source/v3/parameters.yaml").read_text() + (
        "size:\n  description: The size.\n  in: body\n  required: true\n  type: integer\n"
        "  min_version: 3.2\n")
    head = repo.commit({"api-ref/source/v3/volumes.inc": inc,
                        "api-ref/source/v3/parameters.yaml": params,
                        "cinder/api/v3/volumes.py": "# size\n"}, "size", max_version="3.2")
    code, [report], _ = check(run_cli, monkeypatch, repo, base, head)
    assert code == 0 and ids(report) == ["attribute-added"]
    [change] = report["changes"]
    assert change["gated"] == "3.2" and "/v3/" in change["operation"]


def test_pre_commit_files_keep_the_evidence(tmp_path: Path, monkeypatch, run_cli) -> None:
    """A commit that only raises the version file is judged (the raise is a finding); one that
    touches neither the documents nor the evidence is not."""
    repo = nova_like(tmp_path / "nova")
    repo.write({"nova/api/openstack/api_version_request.py": repo.spell("2.2")})
    git(repo.top, "add", "-A")
    monkeypatch.chdir(repo.top)
    code, out, err = run_cli("check", "--staged", "--base", "HEAD", "--no-validate",
                             "--format", "json", "nova/api/openstack/api_version_request.py")
    [document] = json.loads(out)["documents"]
    assert code == 0 and ids(document["report"]) == ["maximum-raised"], err
    code, out, _ = run_cli("check", "--staged", "--base", "HEAD", "--no-validate",
                           "README.rst")
    assert (code, out) == (0, "")


@pytest.mark.parametrize("make", [nova_like, zun_like])
def test_no_change_no_finding(tmp_path: Path, monkeypatch, run_cli, make) -> None:
    repo = make(tmp_path / "r")
    base = repo.commit({}, "base")
    head = repo.commit({"README.rst": "words\n"}, "words")
    code, [report], _ = check(run_cli, monkeypatch, repo, base, head)
    assert code == 0 and report["changes"] == []


# -- nova before its api-ref: the version record alone --------------------------------------

LOCKED_SAMPLE = {"doc/api_samples/servers/v2.2/server-get-resp.json":
                 '{"name": "a", "status": "ACTIVE", "locked": false}\n',
                 "nova/api/openstack/compute/servers.py": "# returns locked\n"}


def test_before_api_ref_a_microversion_is_judged_by_its_record(tmp_path: Path, monkeypatch,
                                                                run_cli) -> None:
    repo = nova_before_api_ref(tmp_path / "nova")
    base = repo.commit({}, "base")
    head = repo.commit(LOCKED_SAMPLE, "2.2", max_version="2.2", history="2.2")
    code, [report], _ = check(run_cli, monkeypatch, repo, base, head)
    assert code == 0 and report["verdict"] == "required" and ids(report) == ["maximum-raised"]
    assert report["notes"][0].startswith("no API documents at either revision")
    assert not any("write no microversions" in line for line in report["evidence"])


def test_before_api_ref_a_forgotten_bump_fails(tmp_path: Path, monkeypatch, run_cli) -> None:
    repo = nova_before_api_ref(tmp_path / "nova")
    base = repo.commit({}, "base")
    head = repo.commit(LOCKED_SAMPLE, "2.2, not bumped", history="2.2")
    code, [report], _ = check(run_cli, monkeypatch, repo, base, head)
    assert code == 1 and ids(report) == ["version-not-served"]
    assert report["bookkeeping"]["next_version"] == "2.2"


def test_before_api_ref_a_sample_fix_needs_nothing(tmp_path: Path, monkeypatch,
                                                   run_cli) -> None:
    repo = nova_before_api_ref(tmp_path / "nova")
    base = repo.commit({}, "base")
    head = repo.commit({"doc/api_samples/servers/server-get-resp.json":
                        '{"name": "b", "status": "ACTIVE"}\n'}, "a better sample")
    code, [report], _ = check(run_cli, monkeypatch, repo, base, head)
    assert code == 0 and report["verdict"] == "not-required" and report["changes"] == []
